"""Hypothesis strategies for shapes and dtypes around an example, and shape fuzzing of accepted kernels.

A kernel is tuned and gated on the example inputs it was captured with.  The
strategies here generate *other* inputs of the same structure, so that an
accepted kernel can be re-checked on shapes it was never tuned on:

* :func:`shapes_around` -- shapes of the example's rank whose sizes are the
  ones kernels get wrong: sizes that straddle the usual block sizes (``b - 1``,
  ``b``, ``b + 1``), small odd sizes, size 1, and the example's own size (and
  its neighbours), mixed with arbitrary sizes up to a ``max_numel`` budget.
* :func:`dtypes_around` -- dtypes of the example's family (floating, integer,
  ...), the example's own dtype first.
* :func:`inputs_like` -- whole argument tuples like the example: every tensor
  gets a new shape, drawn *jointly* so that dims that were equal in the
  example (and therefore probably broadcast against, or are reduced along,
  each other) stay equal; floating tensors are random normal from a drawn
  seed, integer tensors stay within the example's ``[min, max]``, anything
  that is not a tensor is passed through unchanged.

Everything shrinks toward simple inputs: sizes toward 1, the seed toward 0,
the dtype toward the example's dtype.  A failure is therefore reported on
the smallest shape hypothesis could find that still fails.

Checking an accepted kernel on other shapes
-------------------------------------------

:func:`check_kernel_on_shapes` compiles the module with
:func:`pytest_kernelopt.substitute.substitute_during_compile` active, runs it
on every drawn input and compares with eager PyTorch::

    from pytest_kernelopt.strategies import check_kernel_on_shapes, replacements_for

    cap = capture(Model(), (x, y), dynamic=True)          # capture with the same dynamic=
    repl = replacements_for(cap, [candidate])              # {baseline source hash: candidate}
    report = check_kernel_on_shapes(Model, (x, y), repl, dynamic=True, max_examples=25)
    assert report.used > 0                                 # already enforced (min_used=1)

What to expect: Inductor generates a kernel *for the compiled shapes*.  With
``dynamic=False`` every shape gets its own specialised kernel whose source
(sizes are literals in it) differs from the one the candidate was accepted
for, so the candidate's baseline hash does not match and the baseline kernel
runs: fuzzing then re-verifies the *cache lookup path* (a miss must fall back
to the baseline, never to the wrong kernel), and the candidate itself runs
only for shapes whose kernel source happens to be identical (the example
shape; for a one-input pointwise kernel, any shape with the same numel).
With ``dynamic=True`` one kernel with symbolic sizes serves every shape, so
fuzzing re-verifies *the candidate itself* -- except where Dynamo specialises
(a size of 1, equal sizes it unifies), which gives a different kernel and
again a miss.  The check therefore counts the examples in which a candidate
kernel was actually launched and fails (:class:`CandidateNotExercised`) when
that count is below ``min_used`` (default 1): a fuzz run that never ran the
candidate cannot pass silently.

A kernel that breaks on some shape -- a wrong result, an exception, or (on the
CPU interpreter) an out-of-bounds access, :class:`~pytest_kernelopt.errors.TritonOOBError`
-- raises :class:`ShapeFuzzFailure`, whose message names the shrunk failing
shapes and dtypes.  For a hand-written property test the same machinery is
available as :func:`candidate_tracker` plus ``@given(inputs_like(...))``; see
``docs/shape-fuzzing.md``.

Importing this module imports neither torch nor hypothesis; both are imported
inside the functions that need them.  hypothesis is an optional dependency
(``pip install 'pytest-kernelopt[fuzz]'``); without it these functions raise
:class:`~pytest_kernelopt.extras.MissingExtraError` naming the extra.
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence

from .backends import Backend, select_backend
from .capture import _tensors_in
from .errors import SubstitutionError
from .extras import require
from .substitute import substitute_during_compile

if TYPE_CHECKING:  # pragma: no cover
    import torch
    from hypothesis.strategies import SearchStrategy

    from .candidate import Candidate


def _hypothesis(submodule: str = "") -> Any:
    """hypothesis (or one of its modules), or MissingExtraError: pip install 'pytest-kernelopt[fuzz]'."""
    return require("hypothesis" + (f".{submodule}" if submodule else ""),
                   "shape fuzzing (pytest_kernelopt.strategies)")


DEFAULT_BLOCK_SIZES: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024)
#: Default per-tensor element budget: small enough for the Triton interpreter on CPU.
DEFAULT_MAX_NUMEL = 2048
_SMALL_SIZES = (1, 2, 3, 5, 7)
_MAX_SEED = 2**32 - 1

# --------------------------------------------------------------------------- sizes


def interesting_sizes(example: int, *, bound: int, block_sizes: Iterable[int] = DEFAULT_BLOCK_SIZES,
                      min_size: int = 1) -> list[int]:
    """The sizes worth trying for a dim whose example size is ``example``, ascending, in ``[min_size, bound]``.

    Small sizes (1 and small odd ones), ``b - 1, b, b + 1`` for each block
    size ``b`` (a kernel that forgets its mask fails on ``b +- 1``), and the
    example size with its neighbours.  Ascending order matters: hypothesis
    shrinks a ``sampled_from`` toward its first element, i.e. toward the
    smallest size.  When ``bound < min_size`` the budget wins: ``[bound]``.
    """
    bound = max(1, bound)
    lo = min(max(1, min_size), bound)
    sizes = set(_SMALL_SIZES) | {lo, example - 1, example, example + 1}
    for b in block_sizes:
        sizes |= {b - 1, b, b + 1}
    return sorted(s for s in sizes if lo <= s <= bound)


@functools.lru_cache(maxsize=4096)
def _size_strategy(example: int, limit: int, block_sizes: tuple[int, ...], min_size: int):
    """Sizes for one dim, up to ``limit`` (cached: building strategies dominates the cost of a draw)."""
    st = _hypothesis("strategies")

    curated = interesting_sizes(example, bound=limit, block_sizes=block_sizes, min_size=min_size)
    # one_of shrinks toward its first branch: the curated sizes, which shrink toward the smallest
    return st.one_of(st.sampled_from(curated), st.integers(curated[0], max(1, limit)))


@functools.lru_cache(maxsize=4096)
def _largest_interesting(example: int, bound: int, block_sizes: tuple[int, ...], min_size: int) -> int:
    return interesting_sizes(example, bound=bound, block_sizes=block_sizes, min_size=min_size)[-1]


def _int_root(n: int, k: int) -> int:
    """The largest ``s >= 0`` with ``s ** k <= n``."""
    if k == 1 or n <= 1:
        return max(n, 0)
    s = int(round(n ** (1.0 / k)))
    while s**k > n:
        s -= 1
    while (s + 1) ** k <= n:
        s += 1
    return s


def _draw_sizes(draw: Callable, shapes: Sequence[Sequence[Any]], examples: Mapping[Any, int],
                fixed: Mapping[Any, int], max_numel: int, block_sizes: tuple[int, ...],
                min_size: int = 1) -> dict[Any, int]:
    """Draw one size per dim *key* so that every shape's numel stays within ``max_numel``.

    ``shapes`` are sequences of keys; dims with the same key get the same size.
    Keys are drawn in order of first appearance; each is clamped to the budget
    left in every shape that contains it, counting keys not drawn yet at
    ``min_size`` (so a big first dim cannot force the later ones below it), so
    the final numel of every shape is within ``max_numel``.
    """
    sizes: dict[Any, int] = dict(fixed)
    order: list[Any] = []
    for shape in shapes:
        for key in shape:
            if key not in sizes and key not in order:
                order.append(key)
    floor = max(1, min_size)  # what a key not drawn yet will need at least
    for key in order:
        bound = max_numel
        for shape in shapes:
            k = sum(1 for d in shape if d == key)
            if not k:
                continue
            rest = math.prod(sizes.get(d, floor) for d in shape if d != key)
            bound = min(bound, _int_root(max_numel // max(rest, 1), k))
        # The strategy does not depend on earlier draws (only the clamp does): every draw takes the
        # same choices, so hypothesis's shortlex shrinking really heads for small sizes instead of for
        # "a first dim so big that the others are forced to 1".  Clamping is monotone, so smaller
        # choices still give smaller sizes, and it lands on an interesting size, not an arbitrary one.
        size = draw(_size_strategy(examples[key], max_numel, block_sizes, min_size))
        sizes[key] = size if size <= bound else _largest_interesting(examples[key], bound, block_sizes, min_size)
    return sizes


def _check_budget(shapes: Sequence[Sequence[Any]], fixed: Mapping[Any, int], max_numel: int) -> None:
    if max_numel < 1:
        raise ValueError(f"max_numel must be >= 1, got {max_numel}")
    for shape in shapes:
        kept = math.prod(fixed[d] for d in shape if d in fixed)
        if kept > max_numel:
            raise ValueError(f"the fixed sizes of a shape already hold {kept} elements, over max_numel={max_numel}")


def shapes_around(example_shape: Sequence[int], *, max_numel: int = DEFAULT_MAX_NUMEL,
                  block_sizes: Sequence[int] = DEFAULT_BLOCK_SIZES, fixed_dims: Iterable[int] = (),
                  min_size: int = 1) -> "SearchStrategy":
    """A strategy of shapes with the rank of ``example_shape`` and at most ``max_numel`` elements.

    Each dim is drawn independently from :func:`interesting_sizes` (sizes
    straddling ``block_sizes``, small odd sizes, 1, the example size) or,
    less often, any size that fits the budget.  Dims listed in ``fixed_dims``
    and dims of size 0 keep their example size.  Shrinks toward all-ones.

    ``min_size=2`` leaves out size 1 (except where the budget forces it):
    Dynamo specialises size-1 dims even with ``dynamic=True``, so a size of 1
    never reaches a dynamic-shape kernel.
    """
    st = _hypothesis("strategies")

    example = tuple(int(s) for s in example_shape)
    rank = len(example)
    keep = {d % rank for d in fixed_dims} if rank else set()
    fixed = {d: s for d, s in enumerate(example) if d in keep or s == 0}
    keys = [tuple(range(rank))]
    _check_budget(keys, fixed, max_numel)
    examples = dict(enumerate(example))

    @st.composite
    def shapes(draw):
        sizes = _draw_sizes(draw, keys, examples, fixed, max_numel, tuple(block_sizes), min_size)
        return tuple(sizes[d] for d in range(rank))

    return shapes()


# --------------------------------------------------------------------------- dtypes


def _family(dtype: "torch.dtype") -> tuple["torch.dtype", ...]:
    import torch

    if dtype == torch.bool:
        return (torch.bool,)
    if dtype.is_complex:
        return (dtype,)
    if dtype.is_floating_point:
        if dtype.itemsize == 1:  # float8 variants: no generic neighbours worth drawing
            return (dtype,)
        return (torch.float32, torch.float16, torch.bfloat16, torch.float64)
    if dtype in (torch.int8, torch.int16, torch.int32, torch.int64):
        return (torch.int64, torch.int32, torch.int16, torch.int8)
    return (dtype,)


def dtypes_around(dtype: "torch.dtype", allow: Sequence["torch.dtype"] | None = None) -> "SearchStrategy":
    """A strategy of dtypes near ``dtype``, shrinking toward ``dtype`` itself.

    ``allow`` is the exhaustive list of dtypes that may be drawn; by default it
    is ``dtype``'s family (float32/float16/bfloat16/float64 for a floating
    dtype, the signed integers for a signed integer, just ``dtype`` for bool,
    complex and the rest).  ``dtype`` is drawn first when allowed, so a
    failure that does not depend on the dtype is reported with the example's.
    """
    st = _hypothesis("strategies")

    pool = list(allow) if allow is not None else list(_family(dtype))
    if not pool:
        raise ValueError("dtypes_around: allow is empty")
    ordered = ([dtype] if dtype in pool else []) + [d for d in pool if d != dtype]
    return st.sampled_from(list(dict.fromkeys(ordered)))


# --------------------------------------------------------------------------- inputs


def _make_like(example: "torch.Tensor", shape: tuple[int, ...], dtype: "torch.dtype",
               gen: "torch.Generator") -> "torch.Tensor":
    """A fresh contiguous tensor of ``shape``/``dtype`` with values like ``example``'s."""
    import torch

    if dtype.is_floating_point or dtype.is_complex:
        if dtype.is_complex:
            t = torch.randn(shape, generator=gen, dtype=dtype)
        else:
            t = torch.randn(shape, generator=gen, dtype=torch.float32)
            nonneg = example.numel() > 0 and bool((example.detach().float() >= 0).all())
            if nonneg:  # keep domains like log/sqrt valid
                t = t.abs()
            t = t.to(dtype)
    else:
        ex = example.detach().to(torch.int64) if example.numel() else torch.zeros(1, dtype=torch.int64)
        lo, hi = int(ex.min()), int(ex.max())
        if dtype != torch.bool and not dtype.is_floating_point:
            info = torch.iinfo(dtype)
            lo, hi = max(lo, info.min), min(hi, info.max)
        t = torch.randint(lo, hi + 1, shape, generator=gen, dtype=torch.int64).to(dtype)
    t = t.to(example.device)
    if example.requires_grad and t.is_floating_point():
        t.requires_grad_(True)
    return t


def inputs_like(example_inputs: Any, *, max_numel: int = DEFAULT_MAX_NUMEL, same_dtype: bool = True,
                block_sizes: Sequence[int] = DEFAULT_BLOCK_SIZES, fixed_sizes: Iterable[int] = (1,),
                fixed_dims: Iterable[tuple[int, int]] = (), min_size: int = 1,
                dtypes: Mapping["torch.dtype", Sequence["torch.dtype"]] | None = None) -> "SearchStrategy":
    """A strategy of argument tuples like ``example_inputs`` (a tuple, or a single tensor).

    Shapes are drawn *jointly*: one size per distinct example dim **value**,
    applied to every dim that had that value in any tensor.  Dims that were
    equal in the example -- a bias's dim and the matching dim of the
    activation, the two dims of a square matrix -- stay equal, so broadcasting
    and matching-shape requirements keep holding.  (Two unrelated dims that
    happened to be equal stay equal too: the price of the simple rule.)

    Kept unchanged: dim values in ``fixed_sizes`` (by default 1, which is
    usually a broadcast dim), dims of size 0, and the value of every dim named
    in ``fixed_dims`` as ``(argument index, dim)`` pairs -- use it for a size
    tied to module weights, e.g. ``(0, -1)`` for a ``Linear``'s input
    features.  Every tensor gets at most ``max_numel`` elements.  Varied dims
    are at least ``min_size`` (see :func:`shapes_around`) unless the budget
    forces smaller.

    Values: floating (and complex) tensors are standard normal from a seed
    hypothesis draws (``abs()`` of it when the example is non-negative);
    integer and bool tensors are uniform in the example's ``[min, max]``;
    ``requires_grad`` and the device are kept; non-tensor arguments are passed
    through as they are.  Generated tensors are contiguous.

    ``same_dtype=False`` also draws a dtype per distinct example dtype with
    :func:`dtypes_around` (``dtypes`` maps an example dtype to the allowed
    list); tensors that shared a dtype keep sharing one.
    """
    import torch
    st = _hypothesis("strategies")

    single = isinstance(example_inputs, torch.Tensor)
    items = (example_inputs,) if single else tuple(example_inputs)
    tensors = [(i, a) for i, a in enumerate(items) if isinstance(a, torch.Tensor)]
    fixed_values = {int(v) for v in fixed_sizes} | {0}
    for i, d in fixed_dims:
        if not isinstance(items[i], torch.Tensor):
            raise ValueError(f"fixed_dims names argument {i}, which is not a tensor")
        shape = items[i].shape
        fixed_values.add(int(shape[d % len(shape)]))
    shapes = [tuple(int(s) for s in a.shape) for _, a in tensors]
    fixed = {v: v for shape in shapes for v in shape if v in fixed_values}
    examples = {v: v for shape in shapes for v in shape}
    _check_budget(shapes, fixed, max_numel)
    example_dtypes = list(dict.fromkeys(a.dtype for _, a in tensors))
    blocks = tuple(block_sizes)

    @st.composite
    def draw_inputs(draw):
        sizes = _draw_sizes(draw, shapes, examples, fixed, max_numel, blocks, min_size)
        if same_dtype:
            dmap = {d: d for d in example_dtypes}
        else:
            dmap = {d: draw(dtypes_around(d, (dtypes or {}).get(d))) for d in example_dtypes}
        seed = draw(st.integers(0, _MAX_SEED))
        gen = torch.Generator(device="cpu").manual_seed(seed)
        out = list(items)
        for (i, a), shape in zip(tensors, shapes):
            out[i] = _make_like(a, tuple(sizes[v] for v in shape), dmap[a.dtype], gen)
        return tuple(out)

    return draw_inputs()


def describe_inputs(inputs: Sequence[Any]) -> str:
    """``"((17, 3) float32, (3,) float32, 0.5)"``: the shapes and dtypes of an argument tuple."""
    import torch

    parts = []
    for a in inputs:
        if isinstance(a, torch.Tensor):
            parts.append(f"{tuple(a.shape)} {str(a.dtype).replace('torch.', '')}")
        else:
            text = repr(a)
            parts.append(text if len(text) <= 40 else text[:37] + "...")
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def input_shapes(inputs: Sequence[Any]) -> tuple[tuple[int, ...] | None, ...]:
    """The shape of each tensor argument (``None`` for the others)."""
    import torch

    return tuple(tuple(a.shape) if isinstance(a, torch.Tensor) else None for a in inputs)


# --------------------------------------------------------------------------- candidate tracking


def replacements_for(captured: Any, candidates: Iterable["Candidate"]) -> dict[str, "Candidate"]:
    """``{baseline source hash: candidate}`` for :func:`substitute_during_compile`, from a capture.

    Only one-for-one candidates can be substituted at compile time; a fusion
    candidate (several kernels) is refused.
    """
    out: dict[str, Candidate] = {}
    for cand in candidates:
        if cand.is_fusion:
            raise SubstitutionError(f"fusion candidate for {list(cand.replaces)} cannot be substituted at compile "
                                    "time; shape fuzzing checks one-for-one candidates")
        graph, name = captured.find(cand.replaces[0])
        out[graph.kernels[name].content_hash] = cand
    return out


class CandidateTracker:
    """Counts launches of candidate kernels substituted at compile time.

    Use through :func:`candidate_tracker`.  ``hits`` lists the kernels that
    were replaced at compile time (one entry per compile that used a
    candidate); ``launches`` counts candidate launches since the last
    :meth:`reset` -- the per-example "did the candidate actually run?".
    """

    def __init__(self) -> None:
        self.hits: list[str] = []
        self.launches = 0
        self._wrapped: dict[int, tuple[Any, bool, Any]] = {}

    def reset(self) -> None:
        self.launches = 0

    def _wrap(self, obj: Any) -> Any:
        """Make ``obj.run`` count its calls (an instance attribute: the object itself is unchanged)."""
        if id(obj) in self._wrapped or not hasattr(obj, "run"):
            return obj
        had_own = "run" in getattr(obj, "__dict__", {})
        previous = obj.run
        tracker = self

        def run(*args: Any, **kwargs: Any) -> Any:
            tracker.launches += 1
            return previous(*args, **kwargs)

        try:
            obj.run = run
        except (AttributeError, TypeError):  # no instance dict: cannot count, leave it alone
            return obj
        self._wrapped[id(obj)] = (obj, had_own, previous)
        return obj

    def _restore(self) -> None:
        for obj, had_own, previous in self._wrapped.values():
            if had_own:
                obj.run = previous
            else:
                with contextlib.suppress(AttributeError):
                    del obj.run
        self._wrapped.clear()


@contextlib.contextmanager
def candidate_tracker(replacements: Mapping[str, "Candidate"]) -> Iterator[CandidateTracker]:
    """:func:`substitute_during_compile` that also counts launches of the substituted kernels.

    Inductor's parallel compile is turned off inside the block so every kernel
    object is created here (and can be counted), not in a worker.
    """
    import torch
    from torch._inductor.async_compile import AsyncCompile

    tracker = CandidateTracker()
    with torch._inductor.config.patch(compile_threads=1), substitute_during_compile(replacements) as hits:
        tracker.hits = hits
        inner = AsyncCompile.triton

        def triton(self: Any, kernel_name: str, source_code: str, device_str: str = "cuda") -> Any:
            before = len(hits)
            obj = inner(self, kernel_name, source_code, device_str)
            return tracker._wrap(obj) if len(hits) > before else obj

        # patched for the block and restored after it
        AsyncCompile.triton = triton  # type: ignore[method-assign]
        try:
            yield tracker
        finally:
            AsyncCompile.triton = inner  # type: ignore[method-assign]
            tracker._restore()


# --------------------------------------------------------------------------- the check


class ShapeFuzzFailure(AssertionError):
    """The module with the candidate kernel(s) failed on an input hypothesis drew (shrunk).

    ``inputs`` is the failing (shrunk) argument tuple, ``shapes`` the tensor
    shapes in it, ``used`` whether a candidate kernel ran on it, ``error`` the
    underlying exception and ``report`` the :class:`ShapeFuzzReport` so far.
    """

    def __init__(self, message: str, *, inputs: Sequence[Any] = (), used: bool | None = None,
                 error: BaseException | None = None) -> None:
        super().__init__(message)
        self.inputs = tuple(inputs)
        self.shapes = input_shapes(self.inputs) if self.inputs else ()
        self.used = used
        self.error = error
        self.report: ShapeFuzzReport | None = None


class CandidateNotExercised(ShapeFuzzFailure):
    """The fuzz run passed, but the candidate ran in fewer examples than required."""


@dataclass
class ShapeFuzzReport:
    """What a :func:`check_kernel_on_shapes` run did.

    ``examples`` counts the drawn inputs that ran (inputs eager PyTorch
    rejected are counted in ``rejected`` instead); ``used`` how many of them
    launched a candidate kernel; ``example_used`` whether the candidate ran on
    the example inputs themselves (checked first: if not, the candidate's
    baseline hash does not match what this compile generates).
    """

    dynamic: bool
    examples: int = 0
    used: int = 0
    rejected: int = 0
    example_used: bool = False
    compile_hits: list[str] = field(default_factory=list)
    used_shapes: list[str] = field(default_factory=list)
    missed_shapes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        mode = "dynamic=True" if self.dynamic else "dynamic=False"
        lines = [f"shape fuzzing ({mode}): candidate ran in {self.used} of {self.examples} drawn example(s)"
                 f" ({self.rejected} rejected by eager); on the example inputs: "
                 f"{'ran' if self.example_used else 'DID NOT RUN'}; "
                 f"compile-time replacements: {len(self.compile_hits)}"]
        if self.used_shapes:
            lines.append("  candidate ran on: " + ", ".join(self.used_shapes[:8])
                         + (" ..." if len(self.used_shapes) > 8 else ""))
        if self.missed_shapes:
            lines.append("  baseline ran on:  " + ", ".join(self.missed_shapes[:8])
                         + (" ..." if len(self.missed_shapes) > 8 else ""))
        return "\n".join(lines)


def _clone(inputs: Sequence[Any]) -> list[Any]:
    import torch

    return [a.detach().clone().requires_grad_(a.requires_grad) if isinstance(a, torch.Tensor) else a for a in inputs]


def _compare(actual: Any, expected: Any, rtol: float | None, atol: float | None) -> None:
    import torch

    got, want = _tensors_in(actual), _tensors_in(expected)
    if len(got) != len(want):
        raise AssertionError(f"compiled module returned {len(got)} tensor(s), eager {len(want)}")
    for k, (g, w) in enumerate(zip(got, want)):
        try:
            torch.testing.assert_close(g.detach(), w.detach(), rtol=rtol, atol=atol, equal_nan=True)
        except AssertionError as e:
            raise AssertionError(f"output {k}: {e}") from None


def _default_settings(max_examples: int):
    hypothesis = _hypothesis()

    return hypothesis.settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
                               suppress_health_check=list(hypothesis.HealthCheck))


@contextlib.contextmanager
def _recompile_room():
    """Let Dynamo recompile as often as shape fuzzing needs instead of silently falling back to eager."""
    import torch

    patch = {k: 4096 for k in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                               "accumulated_cache_size_limit") if hasattr(torch._dynamo.config, k)}
    with torch._dynamo.config.patch(**patch):
        yield


def check_kernel_on_shapes(module_factory: Callable[[], Any], example_inputs: Any,
                           candidates: Mapping[str, "Candidate"], *, dynamic: bool = False,
                           max_examples: int = 20, settings: Any = None, inputs: "SearchStrategy | None" = None,
                           max_numel: int = DEFAULT_MAX_NUMEL, min_used: int = 1, rtol: float | None = None,
                           atol: float | None = None, backend: Any = "auto",
                           options: Mapping[str, Any] | None = None) -> ShapeFuzzReport:
    """Check accepted candidate kernels on inputs they were not tuned on; raise on the shrunk failure.

    ``module_factory`` returns the module (or function) to compile; an
    ``nn.Module`` instance is accepted as is.  ``candidates`` maps baseline
    kernel source hashes to candidates (see :func:`replacements_for`); capture
    the baseline with the same ``dynamic`` and ``options`` as passed here, or
    its hash will not match.  ``inputs`` is the strategy of argument tuples
    (default ``inputs_like(example_inputs, max_numel=max_numel)``, with
    ``min_size=2`` when ``dynamic``: Dynamo specialises size-1 dims, which
    therefore never reach the dynamic kernel).
    ``settings`` is a ``hypothesis.settings`` (default: ``max_examples``, no
    deadline, derandomized, no example database); multiple-bug reporting is
    always off so the failure is one exception.

    The module is compiled under :func:`candidate_tracker` -- with
    ``dynamic=True`` once (warmed up on ``example_inputs`` so the kernel is
    generated with the example's size hints, as it was when captured; later
    shapes reuse it or recompile under the same substitution), with
    ``dynamic=False`` afresh for every example -- run on a copy of each drawn
    input and compared with eager PyTorch (``torch.testing.assert_close``
    tolerances unless ``rtol``/``atol`` are given).  Inputs eager PyTorch
    raises on are rejected, not failures.

    Raises :class:`ShapeFuzzFailure` naming the shrunk failing shapes, and
    :class:`CandidateNotExercised` when the candidate ran in fewer than
    ``min_used`` drawn examples.  Returns a :class:`ShapeFuzzReport`.
    Resets Dynamo before and after.
    """
    hypothesis = _hypothesis()
    import torch

    if not isinstance(backend, Backend):
        backend = select_backend(backend)
    module = module_factory if isinstance(module_factory, torch.nn.Module) else module_factory()
    example = (example_inputs,) if isinstance(example_inputs, torch.Tensor) else tuple(example_inputs)
    # size 1 is specialised by Dynamo: with dynamic=True it would only ever re-run the baseline
    strategy = inputs if inputs is not None else inputs_like(example, max_numel=max_numel,
                                                             min_size=2 if dynamic else 1)
    opts = {**backend.inductor_options, **(options or {})}
    run_settings = hypothesis.settings(settings if settings is not None else _default_settings(max_examples),
                                       report_multiple_bugs=False)
    report = ShapeFuzzReport(dynamic=dynamic)

    def compile_fresh() -> Callable:
        torch._dynamo.reset()
        return torch.compile(module, backend="inductor", options=opts, dynamic=dynamic)

    def run_once(fn: Callable, args: Sequence[Any],
                 tracker: CandidateTracker) -> tuple[Any, bool, BaseException | None]:
        tracker.reset()
        try:
            with torch.no_grad():
                out = fn(*_clone(args))
        except Exception as e:  # a kernel crash, an OOB access, a candidate that no longer loads
            return None, tracker.launches > 0, e
        return out, tracker.launches > 0, None

    def fail(args: Sequence[Any], used: bool, err: BaseException, where: str) -> ShapeFuzzFailure:
        """The failure to raise for ``args`` (raised by the caller outside any ``except`` block)."""
        ran = ("a candidate kernel ran" if used else
               "no candidate kernel ran (baseline kernels only: the lookup path itself is wrong)")
        failure = ShapeFuzzFailure(f"{where} fails on shapes {describe_inputs(args)}; {ran}: "
                                   f"{type(err).__name__}: {err}", inputs=args, used=used, error=err)
        failure.__cause__ = err  # shown in the traceback; no __context__, so hypothesis sees one bug
        report.compile_hits = list(tracker.hits)
        failure.report = report
        return failure

    torch._dynamo.reset()
    def run_and_compare(fn: Any, args: tuple, want: Any) -> tuple[bool, BaseException | None]:
        got, used, err = run_once(fn, args, tracker)
        if err is None:
            try:
                _compare(got, want, rtol, atol)
            except AssertionError as e:
                err = e
        return used, err

    try:
        with _recompile_room(), candidate_tracker(candidates) as tracker:
            shared = compile_fresh()
            with torch.no_grad():
                expected = module(*_clone(example))
            used, err = run_and_compare(shared, example, expected)
            if err is not None:
                raise fail(example, used, err, "the candidate's own example")
            report.example_used = used

            @hypothesis.given(strategy)
            @run_settings
            def one_example(args: tuple) -> None:
                try:
                    with torch.no_grad():
                        want = module(*_clone(args))
                except Exception:
                    report.rejected += 1
                    hypothesis.reject()
                fn = shared if dynamic else compile_fresh()
                used, err = run_and_compare(fn, args, want)
                report.examples += 1
                report.used += used
                desc = describe_inputs(args)
                target = report.used_shapes if used else report.missed_shapes
                if desc not in target:
                    target.append(desc)
                if err is not None:
                    raise fail(args, used, err, "the module with the candidate kernel(s)")  # not in an except block

            one_example()
            report.compile_hits = list(tracker.hits)
    finally:
        torch._dynamo.reset()
    if report.used < min_used:
        if not report.example_used:
            hint = ("the candidate did not even run on the example inputs, so its baseline hash does not match what "
                    "this compile generates (capture with the same dynamic= and options)")
        elif not dynamic:
            hint = ("with dynamic=False every shape gets its own specialised kernel, so only shapes whose kernel "
                    "source equals the tuned one use the candidate; use dynamic=True to re-verify the candidate "
                    "itself, or min_used=0 to accept a check of the lookup path only")
        else:
            hint = ("the drawn shapes recompiled to other kernels (Dynamo specialises size-1 dims and unifies equal "
                    "ones); draw more examples or pass inputs= with a strategy that keeps sizes >= 2 and distinct")
        failure = CandidateNotExercised(f"the candidate ran in {report.used} of {report.examples} drawn example(s), "
                                        f"fewer than min_used={min_used}: {hint}\n{report.summary()}")
        failure.report = report
        raise failure
    return report
