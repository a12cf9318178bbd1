"""A catalogue of cheating kernel candidates, kept as regression tests for the gates.

In the spirit of KernelBench's ``test_eval_adversarial.py`` and the hack
catalogues in ``shared/research/peers-and-protocols.md`` (result replay,
input mutation, side streams, precision downgrade, timer patching, returning
zeros): each cheat is a documented function that builds a
:class:`~pytest_kernelopt.candidate.Candidate` from a captured Inductor kernel,
and is registered with the problem it targets, the gate expected to reject it
and a substring of that gate's reason.  ``tests/test_adversarial.py`` runs every
registered cheat through the whole cascade and asserts exactly that gate and
reason.

Two cheats cannot be written as Triton source at all (the static gate forbids
the state they need), so they are Python kernel objects that stand in for the
kernel directly, bypassing gate 1, to show that the later gates would catch
them anyway: :class:`ReplayKernel` (replays the first result it computed) and
:class:`JitterKernel` (an emulated race: bitwise different results on every
call).  :func:`python_kernel_swap` puts one into a session's live wrapper.

The small modules the cheats are aimed at live here too, in an importable
module, so that :class:`~pytest_kernelopt.problems.ProblemSpec` can pickle them
for the isolated worker process.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Any, Callable

import torch

from pytest_kernelopt.candidate import Candidate, LaunchSpec
from pytest_kernelopt.graph import TritonKernel

# --------------------------------------------------------------------------- the target problems


class PointwiseChain(torch.nn.Module):
    """``relu(2x + y) - 0.5``: one pointwise kernel with two inputs and one output."""

    def forward(self, x, y):
        return torch.relu(x * 2.0 + y) - 0.5


class Softmax(torch.nn.Module):
    """Row softmax: one persistent reduction writing into a buffer Inductor allocates."""

    def forward(self, x):
        return torch.softmax(x, dim=-1)


class RowSum(torch.nn.Module):
    """``x.sum(-1)``: one reduction, one output value per row."""

    def forward(self, x):
        return x.sum(-1)


class TinySigmoid(torch.nn.Module):
    """An output of magnitude 1e-7 (below the fp32 atol): the "return zeros" trap of KernelBench #165."""

    def forward(self, x):
        return torch.sigmoid(x) * 1e-7


class ReluCumsumDouble(torch.nn.Module):
    """Two kernels: a cumsum writes an intermediate buffer that a pointwise kernel then reads."""

    def forward(self, x):
        return torch.relu(x).cumsum(0) * 2.0


def make_problem(name: str, device: str) -> tuple[torch.nn.Module, tuple]:
    """The module and example inputs of problem ``name`` on ``device`` (seeded, so reproducible)."""
    gen = torch.Generator().manual_seed(1234)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen).to(device)

    table: dict[str, Callable[[], tuple[torch.nn.Module, tuple]]] = {
        "chain": lambda: (PointwiseChain(), (randn(8, 32), randn(8, 32))),
        "softmax": lambda: (Softmax(), (randn(8, 32),)),
        "rowsum": lambda: (RowSum(), (randn(8, 1024),)),
        "tiny": lambda: (TinySigmoid(), (randn(8, 32),)),
        "two_kernels": lambda: (ReluCumsumDouble(), (randn(8, 32),)),
    }
    module, inputs = table[name]()
    return module.to(device).eval(), inputs


# --------------------------------------------------------------------------- the registry


@dataclass(frozen=True)
class Cheat:
    """One cheat: how to build it and who must reject it.

    ``kernel`` picks which of the problem's Triton kernels the cheat replaces
    (index in launch order).  ``gpu_only`` cheats cannot show on the CPU
    interpreter; ``cpu_only`` ones must not run in-process on a GPU (they
    would corrupt the CUDA context of the test session) and are covered there
    through the isolated worker instead.  ``needs_answer`` builders take the
    baseline's output for the first correctness seed as a second argument.
    """

    name: str
    problem: str
    gate: str
    reason: str | tuple[str, ...]
    build: Callable[..., Candidate]
    kernel: int = 0
    gpu_only: bool = False
    cpu_only: bool = False
    needs_answer: bool = False

    @property
    def doc(self) -> str:
        return textwrap.dedent(self.build.__doc__ or "").strip()


CHEATS: list[Cheat] = []


def cheat(problem: str, gate: str, reason: str | tuple[str, ...], **options: Any) -> Callable:
    """Register the decorated builder as a cheat rejected by ``gate`` with ``reason`` (or one of several) in its
    reason."""

    def register(fn: Callable[..., Candidate]) -> Callable[..., Candidate]:
        CHEATS.append(Cheat(fn.__name__, problem, gate, reason, fn, **options))
        return fn

    return register


def by_name(name: str) -> Cheat:
    return next(c for c in CHEATS if c.name == name)


# --------------------------------------------------------------------------- editing Inductor's source


_STORE = re.compile(r"^(?P<indent>[ \t]*)tl\.store\((?P<ptr>\w+) \+ (?P<idx>.*), (?P<val>\w+), "
                    r"(?P<mask>[^,()]+)\)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class StoreSite:
    """The kernel's (single, final) ``tl.store(ptr + (index), value, mask)`` line, taken apart."""

    line: str
    indent: str
    ptr: str
    idx: str
    val: str
    mask: str

    def render(self, *, ptr: str | None = None, idx: str | None = None, val: str | None = None,
               mask: str | None = None) -> str:
        return (f"{self.indent}tl.store({ptr or self.ptr} + {idx or self.idx}, {val or self.val}, "
                f"{mask or self.mask})")


def store_site(source: str) -> StoreSite:
    """The last ``tl.store`` of an Inductor kernel; fails loudly if Inductor wrote something else."""
    hits = list(_STORE.finditer(source))
    if not hits:
        raise AssertionError(f"no 'tl.store(ptr + (index), value, mask)' line in the kernel:\n{source}")
    m = hits[-1]
    return StoreSite(m.group(0), m.group("indent"), m.group("ptr"), m.group("idx"), m.group("val"),
                     m.group("mask").strip())


def replace_once(source: str, old: str, new: str) -> str:
    """``source`` with ``old`` replaced exactly once: a cheat that silently edits nothing proves nothing."""
    if source.count(old) != 1:
        raise AssertionError(f"expected exactly one {old!r} in the kernel source, found {source.count(old)}")
    return source.replace(old, new)


def _and(mask: str, condition: str) -> str:
    """``mask & condition``, where Inductor may have written ``None`` for "no mask"."""
    return condition if mask == "None" else f"{mask} & {condition}"


def _edit_store(kernel: TritonKernel, **parts: str) -> str:
    site = store_site(kernel.source)
    return replace_once(kernel.source, site.line, site.render(**parts))


def _before_store(kernel: TritonKernel, *lines: str) -> str:
    site = store_site(kernel.source)
    block = "".join(f"{site.indent}{line}\n" for line in lines)
    return replace_once(kernel.source, site.line, block + site.line)


def _after_store(kernel: TritonKernel, *lines: str) -> str:
    site = store_site(kernel.source)
    block = "".join(f"\n{site.indent}{line}" for line in lines)
    return replace_once(kernel.source, site.line, site.line + block)


def _candidate(kernel: TritonKernel, source: str, name: str, launch: LaunchSpec | None = None) -> Candidate:
    return Candidate((kernel.name,), source, launch=launch, origin="adversarial", description=name)


def _add_helper(source: str, helper: str, kernel_name: str) -> str:
    """Put a module-level helper (or state) right after the imports, i.e. before the heuristics decorator."""
    marker = "@triton_heuristics."
    if marker not in source:
        raise AssertionError(f"{kernel_name}: no heuristics decorator to insert a helper before")
    i = source.index(marker)
    return source[:i] + textwrap.dedent(helper).strip() + "\n\n\n" + source[i:]


def _signature(kernel: TritonKernel) -> str:
    return ", ".join(f"{p}: tl.constexpr" if kernel.signature.get(p) == "constexpr" else p for p in kernel.params)


def _output_param(kernel: TritonKernel) -> str:
    outs = [p for p in kernel.runtime_params if p.startswith(("out_ptr", "in_out_ptr"))]
    if len(outs) != 1:
        raise AssertionError(f"{kernel.name}: expected one output pointer, found {outs}")
    return outs[0]


# --------------------------------------------------------------------------- (1) zeros and near-zeros


@cheat("chain", gate="fp64", reason="farther from the float64 truth")
def returns_zeros(kernel: TritonKernel) -> Candidate:
    """Returns zeros: stores 0.0 everywhere and skips the work.

    Rejected by the float64 gate: the output is of ordinary magnitude, so
    gate 2 records a disagreement beyond tolerance and gate 3 finds the
    candidate's error against the float64 truth (100%) far above the
    baseline's.
    """
    site = store_site(kernel.source)
    return _candidate(kernel, _edit_store(kernel, val=f"tl.zeros_like({site.val})"), "returns zeros")


@cheat("tiny", gate="fp64", reason="farther from the float64 truth")
def returns_zeros_on_tiny_output(kernel: TritonKernel) -> Candidate:
    """Returns zeros where every true output is ~1e-7, i.e. within ``atol`` of zero (KernelBench #165).

    The correctness gate's tiny-output rule judges an output too small to tell
    from zero relatively and marks all zeros beyond tolerance; the float64 gate
    then rejects it (its error against the truth is 100%, the noise floor a
    rounding step).  It is not a hard failure of gate 2: an output that is
    itself rounding noise can be exactly zero in another summation order.
    """
    site = store_site(kernel.source)
    return _candidate(kernel, _edit_store(kernel, val=f"tl.zeros_like({site.val})"), "returns zeros (tiny)")


@cheat("tiny", gate="fp64", reason="farther from the float64 truth")
def returns_near_zeros_on_tiny_output(kernel: TritonKernel) -> Candidate:
    """Returns near-zeros (the right values times 1e-3) where the outputs are ~1e-7.

    Every element is within ``atol`` of the baseline, so a plain allclose
    passes it; the tiny-output relative check marks it beyond tolerance and
    the float64 gate rejects it.
    """
    site = store_site(kernel.source)
    return _candidate(kernel, _edit_store(kernel, val=f"{site.val} * 1e-3"), "returns near-zeros (tiny)")


# --------------------------------------------------------------------------- (2) partial output


@cheat("softmax", gate="correctness", reason="NaN positions differ")
def computes_half_the_rows(kernel: TritonKernel) -> Candidate:
    """Computes only the first half of the rows (masks the store), hoping the rest is never looked at.

    Rejected by the correctness gate: Inductor's output buffer starts poisoned
    with NaN, so the unwritten rows come back NaN where the baseline has none.
    """
    site = store_site(kernel.source)
    return _candidate(kernel, _edit_store(kernel, mask=_and(site.mask, "(xindex < xnumel // 2)")),
                      "computes half the rows")


PARTIAL_GRID = '''
import triton
import triton.language as tl


@triton.jit
def chain_half_grid(in_ptr0, in_ptr1, out_ptr0, xnumel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < xnumel
    x = tl.load(in_ptr0 + offs, mask, other=0.0)
    y = tl.load(in_ptr1 + offs, mask, other=0.0)
    tl.store(out_ptr0 + offs, tl.maximum(x * 2.0 + y, 0.0) - 0.5, mask)
'''


@cheat("chain", gate="correctness", reason="NaN positions differ")
def launches_half_the_grid(kernel: TritonKernel) -> Candidate:
    """A correct kernel launched on half the grid it needs (a LaunchSpec with a short grid).

    Rejected by the correctness gate: the second half of the output is never
    written and stays NaN-poisoned.
    """
    spec = LaunchSpec(kernel="chain_half_grid", args=("in_ptr0", "in_ptr1", "out_ptr0", "xnumel"),
                      grid="(cdiv(xnumel, 2 * BLOCK),)", constexprs={"BLOCK": 32})
    return _candidate(kernel, PARTIAL_GRID, "launches half the grid", launch=spec)


# --------------------------------------------------------------------------- (3) caching and replaying results


@cheat("chain", gate="static", reason="module-level Assign (line")
def replays_from_module_cache(kernel: TritonKernel) -> Candidate:
    """Caches results in a module-level dict, to replay them on the next call.

    Rejected by the static gate: module level may hold only imports, constants
    and functions.
    """
    helper = '''
    _RESULTS = {}


    def _remember(key, value):
        _RESULTS.setdefault(key, value)
        return _RESULTS[key]
    '''
    return _candidate(kernel, _add_helper(kernel.source, helper, kernel.name), "replays from a module cache")


@cheat("chain", gate="static", reason="every function must be @triton.jit")
def replays_from_default_argument(kernel: TritonKernel) -> Candidate:
    """Keeps its cache in a mutable default argument (state that survives between calls, no global needed).

    Rejected by the static gate.
    """
    helper = '''
    def _remember(key, value, _cache={}):
        return _cache.setdefault(key, value)
    '''
    return _candidate(kernel, _add_helper(kernel.source, helper, kernel.name), "replays from a default argument")


@cheat("chain", gate="static", reason="module-level Assign (line")
def counts_calls_in_a_global(kernel: TritonKernel) -> Candidate:
    """Counts calls in a global, to behave honestly while watched and cheat afterwards.

    Rejected by the static gate (``global`` statements are forbidden).
    """
    helper = '''
    CALLS = 0


    def _tick():
        global CALLS
        CALLS = CALLS + 1
        return CALLS
    '''
    return _candidate(kernel, _add_helper(kernel.source, helper, kernel.name), "counts calls in a global")


class ReplayKernel:
    """Stands in for a kernel object: computes the first result, then replays a stored copy forever.

    The cheat of gpu-mode/reference-kernels #160: fast on every timed call
    after the first.  It cannot be written as Triton source (gate 1 forbids the
    state), so tests swap it in as a Python object and check it against the
    correctness and float64 gates directly.  Rejected there: gate 2 draws fresh
    inputs per seed, so from the second seed on the replayed answer disagrees
    with the baseline, and gate 3 finds it farther from the float64 truth.
    """

    def __init__(self, original: Any, kernel: TritonKernel) -> None:
        self.original = original
        self.output_index = kernel.runtime_params.index(_output_param(kernel))
        self.stored: torch.Tensor | None = None
        self.calls = 0

    def run(self, *args: Any, **kwargs: Any) -> None:
        self.calls += 1
        out = args[self.output_index]
        if self.stored is None:
            self.original.run(*args, **kwargs)
            self.stored = out.detach().clone()
        else:
            out.copy_(self.stored)


class JitterKernel:
    """An emulated race: runs the kernel, then perturbs the low bits differently on every call.

    What a real race looks like on a GPU (two programs doing a non-atomic
    read-modify-write), but visible on the CPU interpreter too, which runs
    programs one after another.  The perturbation (~1e-6 relative) is well
    within fp32 tolerance, so only the correctness gate's determinism check
    (the same seed run twice must agree bitwise) can reject it.
    """

    def __init__(self, original: Any, kernel: TritonKernel) -> None:
        self.original = original
        self.output_index = kernel.runtime_params.index(_output_param(kernel))
        self.gen = torch.Generator().manual_seed(0)
        self.calls = 0

    def run(self, *args: Any, **kwargs: Any) -> None:
        self.calls += 1
        self.original.run(*args, **kwargs)
        out = args[self.output_index]
        noise = torch.randn(out.shape, generator=self.gen).to(out.device, out.dtype)
        out.add_(noise * 1e-6 * out.abs())


def python_kernel_swap(session: Any, kernel_name: str, factory: Callable[[Any, TritonKernel], Any]):
    """A :class:`~pytest_kernelopt.substitute.KernelSwap` that puts ``factory(original, kernel)`` in place.

    Returns ``(swap, stand_in)``; ``swap.applied()`` is what the correctness and
    float64 gates use, so they can be run on the stand-in directly.
    """
    from pytest_kernelopt.substitute import KernelSwap

    graph, name = session.captured.find(kernel_name)
    ns = session.captured.namespaces[graph.index]
    stand_in = factory(ns[name], graph.kernels[name])
    swap = KernelSwap(session.captured, [])
    swap.add(ns, name, stand_in)
    return swap, stand_in


# --------------------------------------------------------------------------- (4) input mutation


@cheat("chain", gate="correctness", reason="mutates its inputs")
def mutates_its_input(kernel: TritonKernel) -> Candidate:
    """Computes the right output, then scribbles over an input (in place, to save an allocation).

    Rejected by the correctness gate: the inputs after the call must be what
    the baseline leaves them as.
    """
    site = store_site(kernel.source)
    src = _after_store(kernel, f"tl.store(in_ptr0 + {site.idx}, {site.val}, {site.mask})")
    return _candidate(kernel, src, "mutates its input")


# --------------------------------------------------------------------------- (5) other streams, threads


@cheat("chain", gate="static", reason="import not allowed")
def works_on_a_side_stream(kernel: TritonKernel) -> Candidate:
    """Launches its work on a side stream, so the timed default stream sees none of it (KernelBench PR #82).

    Rejected by the static gate: no streams.
    """
    helper = '''
    def _on_side_stream(fn, *args):
        side = cuda.Stream()
        with cuda.stream(side):
            fn(*args)
    '''
    src = _add_helper(kernel.source, helper, kernel.name)
    return _candidate(kernel, replace_once(src, "import triton\n", "import triton\nfrom torch import cuda\n"),
                      "works on a side stream")


@cheat("chain", gate="static", reason="import not allowed")
def works_on_a_thread(kernel: TritonKernel) -> Candidate:
    """Hands the launch to a background thread and returns at once (the timer stops before the work).

    Rejected by the static gate: no threads.
    """
    helper = '''
    import threading


    def _in_background(fn, *args):
        threading.Thread(target=fn, args=args).start()
    '''
    return _candidate(kernel, _add_helper(kernel.source, helper, kernel.name), "works on a thread")


# --------------------------------------------------------------------------- (6) lower precision


@cheat("chain", gate="fp64", reason="farther from the float64 truth")
def computes_in_half_precision(kernel: TritonKernel) -> Candidate:
    """Rounds its intermediates through float16 (the "precision downgrade" hack: half the bytes, twice the speed).

    The result differs from the fp32 baseline beyond tolerance, and the float64
    gate rejects it because it is farther from the float64 truth than the
    baseline, not closer.
    """
    site = store_site(kernel.source)
    src = _before_store(kernel, f"{site.val} = {site.val}.to(tl.float16).to(tl.float32)")
    src = replace_once(src, "tmp0 = tl.load(in_ptr0 + (x0), xmask)",
                       "tmp0 = tl.load(in_ptr0 + (x0), xmask).to(tl.float16).to(tl.float32)")
    return _candidate(kernel, src, "computes in half precision")


# --------------------------------------------------------------------------- (7) uninitialised memory


@cheat("softmax", gate="correctness", reason="NaN positions differ")
def reads_output_before_writing(kernel: TritonKernel) -> Candidate:
    """Accumulates into the output buffer as if it started at zero (fresh GPU memory often is).

    Rejected by the correctness gate: Inductor's buffers start NaN-poisoned
    during the gate, so the read of never-written memory shows as NaN.
    """
    site = store_site(kernel.source)
    src = _edit_store(kernel, val=f"(tl.load({site.ptr} + {site.idx}, {site.mask}) + {site.val})")
    return _candidate(kernel, src, "reads the output before writing it")


@cheat("two_kernels", gate="correctness", reason="NaN positions differ")
def skips_writing_an_intermediate(kernel: TritonKernel) -> Candidate:
    """Does nothing at all for the first of two kernels, so the second reads a buffer nothing wrote.

    (Often "passes" on a GPU where the buffer still holds the last run's
    values.)  Rejected by the correctness gate: the intermediate buffer is
    NaN-poisoned, so the uninitialised read shows in the final output.
    """
    site = store_site(kernel.source)
    return _candidate(kernel, replace_once(kernel.source, site.line, f"{site.indent}pass"),
                      "skips writing an intermediate")


# --------------------------------------------------------------------------- (8) timers and events


@cheat("chain", gate="static", reason="import not allowed")
def patches_cuda_event_timer(kernel: TritonKernel) -> Candidate:
    """Patches ``torch.cuda.Event.elapsed_time`` so every measurement reads as fast.

    Rejected by the static gate: no events or timers, and no assignment to attributes.
    """
    helper = '''
    import torch

    torch.cuda.Event.elapsed_time = lambda self, end: 0.001
    '''
    return _candidate(kernel, _add_helper(kernel.source, helper, kernel.name), "patches the CUDA event timer")


@cheat("chain", gate="static", reason="import not allowed")
def patches_perf_counter(kernel: TritonKernel) -> Candidate:
    """Replaces ``time.perf_counter`` with a clock that barely moves.

    Rejected by the static gate: the ``time`` module is off limits.
    """
    helper = '''
    import time

    _real = time.perf_counter
    time.perf_counter = lambda: _real() * 1e-3
    '''
    return _candidate(kernel, _add_helper(kernel.source, helper, kernel.name), "patches perf_counter")


# --------------------------------------------------------------------------- (9) os / subprocess / ctypes


@cheat("chain", gate="static", reason="'import os'")
def reads_the_environment(kernel: TritonKernel) -> Candidate:
    """Imports ``os`` to look for the harness (e.g. behave only when ``KERNELOPT`` is unset).

    Rejected by the static gate: file and process access.
    """
    helper = '''
    import os

    WATCHED = "PYTEST_CURRENT_TEST" in os.environ
    '''
    return _candidate(kernel, _add_helper(kernel.source, helper, kernel.name), "reads the environment")


@cheat("chain", gate="static", reason="'import subprocess'")
def runs_a_subprocess(kernel: TritonKernel) -> Candidate:
    """Shells out (``nvidia-smi`` to lock clocks, or to fetch a precomputed answer).

    Rejected by the static gate: process access.
    """
    helper = '''
    import subprocess


    def _lock_clocks():
        subprocess.run(["nvidia-smi", "-lgc", "1980"], check=False)
    '''
    return _candidate(kernel, _add_helper(kernel.source, helper, kernel.name), "runs a subprocess")


@cheat("chain", gate="static", reason="'import ctypes'")
def pokes_memory_with_ctypes(kernel: TritonKernel) -> Candidate:
    """Uses ``ctypes`` to write device memory or call the driver behind Triton's back.

    Rejected by the static gate: raw memory access.
    """
    helper = '''
    import ctypes


    def _memset(ptr, nbytes):
        ctypes.memset(ptr, 0, nbytes)
    '''
    return _candidate(kernel, _add_helper(kernel.source, helper, kernel.name), "pokes memory with ctypes")


# --------------------------------------------------------------------------- (10) torch instead of Triton


@cheat("softmax", gate="static", reason="name 'torch' is neither a parameter, a local")
def calls_torch_softmax(kernel: TritonKernel) -> Candidate:
    """Calls ``torch.softmax`` (i.e. the vendor library) instead of computing in Triton.

    Rejected by the static gate: candidates may use only Triton.
    """
    src = f'''
import triton
import triton.language as tl


@triton.jit
def {kernel.name}({_signature(kernel)}):
    torch.softmax(in_ptr0, -1, out=in_out_ptr0)
'''
    return _candidate(kernel, src, "calls torch.softmax")


@cheat("chain", gate="static", reason="attribute .copy_ of 'out_ptr0' is not on the allowlist")
def copies_with_a_tensor_method(kernel: TritonKernel) -> Candidate:
    """Fills the output with a host-side tensor method (``out_ptr0.copy_(...)``) instead of a Triton store.

    Rejected by the static gate: torch tensor methods are torch ops.
    """
    site = store_site(kernel.source)
    src = replace_once(kernel.source, site.line, f"{site.indent}out_ptr0.copy_(in_ptr0)")
    return _candidate(kernel, src, "copies with a tensor method")


# --------------------------------------------------------------------------- (11) correct only for inputs it has seen


def _baked(kernel: TritonKernel, answer: torch.Tensor, what: str) -> Candidate:
    values = [float(v) for v in answer.detach().cpu().reshape(-1)]
    site = store_site(kernel.source)
    expr = "0.0"
    for i in reversed(range(len(values))):
        expr = f"tl.where(x0 == {i}, {values[i]!r}, {expr})"
    src = _edit_store(kernel, val=f"(tl.zeros_like({site.val}) + {expr})")
    return _candidate(kernel, src, what)


@cheat("rowsum", gate="fp64", reason="farther from the float64 truth", needs_answer=True)
def bakes_the_first_seed_answer(kernel: TritonKernel, answer: torch.Tensor) -> Candidate:
    """Stores constants: the baseline's answer for the first correctness seed, computing nothing.

    Right on that seed only.  Gate 2 draws fresh inputs for every other seed
    and records the disagreement there; the float64 gate rejects it (with a
    single seed it would pass: that is why gate 2 uses several).
    """
    return _baked(kernel, answer, "bakes the first seed's answer")


def bakes_the_example_answer(kernel: TritonKernel, answer: torch.Tensor) -> Candidate:
    """Stores the answer for the example input it was shown (not registered: the test passes that answer).

    Gate 2 never runs the example input (its seeds draw fresh ones), so the
    answer disagrees on every seed and the float64 gate rejects it.
    """
    return _baked(kernel, answer, "bakes the example's answer")


# --------------------------------------------------------------------------- (12) NaN and Inf


@cheat("chain", gate="correctness", reason="NaN positions differ")
def injects_a_nan(kernel: TritonKernel) -> Candidate:
    """Writes one NaN (say, a skipped corner case), hoping NaN-blind comparisons miss it.

    Rejected by the correctness gate: NaN positions must match the baseline's.
    """
    site = store_site(kernel.source)
    return _candidate(kernel, _edit_store(kernel, val=f"tl.where(x0 == 3, float('nan'), {site.val})"),
                      "injects a NaN")


@cheat("chain", gate="correctness", reason="Inf positions or signs differ")
def injects_an_inf(kernel: TritonKernel) -> Candidate:
    """Writes one +Inf (an overflow in a reordered computation).

    Rejected by the correctness gate: Inf positions and signs must match.
    """
    site = store_site(kernel.source)
    return _candidate(kernel, _edit_store(kernel, val=f"tl.where(x0 == 5, float('inf'), {site.val})"),
                      "injects an Inf")


# --------------------------------------------------------------------------- (13) out of bounds


OOB_OFFSET = 100_000_000_000  # elements: hundreds of GB past the buffer, unmapped on any GPU


@cheat("chain", gate="correctness", reason="out of bounds", cpu_only=True)
def writes_out_of_bounds(kernel: TritonKernel) -> Candidate:
    """Also stores far past the end of its output (a wrong index computation).

    Rejected by the correctness gate: on the CPU the interpreter's bounds
    checker raises ``TritonOOBError`` inside it.  On a GPU this is an illegal
    memory access that poisons the CUDA context, so it is only ever run in an
    isolated worker there.
    """
    site = store_site(kernel.source)
    return _candidate(kernel, _after_store(kernel, site.render(idx=f"{OOB_OFFSET} + {site.idx}").strip()),
                      "writes out of bounds")


# --------------------------------------------------------------------------- (14) races


RACY_ROWSUM = '''
import triton
import triton.language as tl


@triton.jit
def racy_rowsum(in_ptr0, out_ptr0, xnumel, r0_numel, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * CHUNK + tl.arange(0, CHUNK)
    part = tl.sum(tl.load(in_ptr0 + row * r0_numel + cols, cols < r0_numel, other=0.0), 0)
    if chunk == 0:
        tl.store(out_ptr0 + row, part)
    else:
        # non-atomic read-modify-write of one address by many programs at once: updates get lost
        prev = tl.load(out_ptr0 + row)
        tl.store(out_ptr0 + row, prev + part)
'''


@cheat("rowsum", gate="correctness", gpu_only=True,
       reason=("different results on identical inputs", "NaN positions differ"))
def races_on_the_output(kernel: TritonKernel) -> Candidate:
    """Splits each row over many programs that add into the same output with a non-atomic load/store.

    GPU only: the interpreter runs programs one after another, so the race
    never shows there.  On a GPU lost updates make two runs on the same seed
    differ, and the correctness gate's determinism check rejects it; or a program
    reads the output before the first one stored it, i.e. the NaN the judge
    poisons fresh output buffers with, and the first comparison rejects it
    (as on the H200 in session 9).
    """
    spec = LaunchSpec(kernel="racy_rowsum", args=("in_ptr0", "out_ptr0", "xnumel", "r0_numel"),
                      grid="(xnumel, cdiv(r0_numel, CHUNK))", num_warps=1, constexprs={"CHUNK": 16})
    return _candidate(kernel, RACY_ROWSUM, "races on the output", launch=spec)


# --------------------------------------------------------------------------- hangs (the isolation tests)


def hangs(kernel: TritonKernel) -> Candidate:
    """Loops (practically) forever before storing: a runaway kernel.

    Not registered: in-process it would hang the test session.  The isolated
    worker's timeout rejects it and a fresh worker judges the next candidate.
    """
    site = store_site(kernel.source)
    src = _before_store(kernel,
                        "for _i in range(0, 2000000000):",
                        "    for _j in range(0, 2000000000):",
                        f"        {site.val} = {site.val} * 1.0000001")
    return _candidate(kernel, src, "hangs")


# --------------------------------------------------------------------------- the harness the tests judge cheats with


# --------------------------------------------------------------------------- (13) within tolerance, but wrong


@cheat("chain", gate="fp64", reason="are biased")
def adds_a_bias_just_under_the_tolerance(kernel: TritonKernel) -> Candidate:
    """Adds 0.9 x atol to every element: inside the elementwise tolerance on every seed, so the correctness
    gate passes it, but a systematic offset.

    Rejected by the float64 gate's bias test: the mean signed error against the truth exceeds the
    baseline's by far more than rounding allows.
    """
    site = store_site(kernel.source)
    return _candidate(kernel, _edit_store(kernel, val=f"({site.val} + 0.00009)"), "adds a bias under the tolerance")


@cheat("chain", gate="fp64", reason="farther from the float64 truth")
def zeroes_large_values(kernel: TritonKernel) -> Candidate:
    """Writes 0 wherever the result is large (a shortcut that standard-normal inputs never expose).

    Rejected by the float64 gate: the inputs at 100x magnitude make results large, the candidate is then far
    from the baseline and from the truth.
    """
    site = store_site(kernel.source)
    return _candidate(kernel, _edit_store(kernel, val=f"tl.where(tl_math.abs({site.val}) > 20.0, 0.0, {site.val})"),
                      "zeroes large values")


@cheat("softmax", gate="correctness", reason="NaN positions differ")
def softmax_without_the_max_subtraction(kernel: TritonKernel) -> Candidate:
    """exp(x) / sum(exp(x)) without subtracting the row maximum: right for standard-normal logits.

    Rejected by the correctness gate: at 100x magnitude exp overflows, inf / inf is NaN where the baseline
    has none.
    """
    (inp,) = [p for p in kernel.runtime_params if p.startswith("in_ptr")]
    out = _output_param(kernel)
    src = f'''
import triton
import triton.language as tl


@triton.jit
def {kernel.name}({_signature(kernel)}):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, 32)[None, :]
    x = tl.load({inp} + (r0_index + 32 * xindex), xmask, other=0.0)
    e = tl.exp(x)
    s = tl.sum(e, 1)[:, None]
    tl.store({out} + (r0_index + 32 * xindex), e / s, xmask)
'''
    return _candidate(kernel, src, "softmax without the max subtraction")


def session_is_live(session: Any) -> bool:
    """Whether the session's captured wrapper is still the code its compiled module runs.

    Any ``torch._dynamo.reset()`` (``capture()`` does one for every new
    session) makes the compiled module recompile into a *new* wrapper on its
    next call, and kernels swapped into the captured one then change nothing:
    the gates would silently judge the baseline.  A spy in place of the first
    kernel tells: if it is not called, the session is stale.
    """
    graph = next(g for g in session.captured.graphs if g.kernels and g.index in session.captured.namespaces)
    ns = session.captured.namespaces[graph.index]
    name = next(iter(graph.kernels))
    original, calls = ns[name], []

    class Spy:
        def run(self, *args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return original.run(*args, **kwargs)

    ns[name] = Spy()
    try:
        with torch.no_grad():
            session.captured.compiled(*session.problem.example_inputs)
    finally:
        ns[name] = original
    return bool(calls)


class LiveSessions:
    """One :class:`EvaluationSession` per problem, captured on demand and handed out only while live.

    Capturing a problem resets Dynamo, which makes every *other* session stale
    (see :func:`session_is_live`), so only the most recently captured session
    is ever reused; tests that share a problem should run together (under
    pytest-xdist, or after another module's Dynamo reset, a stale session is
    simply captured again).  ``factory(problem, device)`` makes the module
    and example inputs (default: :func:`make_problem`).  Every new
    session is calibrated first: the baseline's own kernels, unchanged, must
    pass gates 1-3 on it, so a rejection seen later is the cheat's doing.
    """

    def __init__(self, backend: Any, settings: Any,
                 factory: Callable[[str, str], tuple[torch.nn.Module, tuple]] = make_problem) -> None:
        self.backend = backend
        self.settings = settings
        self.factory = factory
        self.current: str | None = None
        self.session: Any = None
        self.calibration: dict[str, list[Any]] = {}
        self.captures: dict[str, int] = {}

    def get(self, problem: str) -> Any:
        if problem != self.current or not session_is_live(self.session):
            from pytest_kernelopt.gates.cascade import EvaluationSession
            from pytest_kernelopt.problems import problem_from_objects

            self.session = self.current = None
            module, inputs = self.factory(problem, self.backend.device)
            session = EvaluationSession(problem_from_objects(module, inputs, problem), self.settings, self.backend)
            self.calibration[problem] = [
                session.evaluate(Candidate((name,), graph.kernels[name].source, origin="baseline"), perf=False)
                for graph, name in session.captured.triton_kernels]
            self.captures[problem] = self.captures.get(problem, 0) + 1
            self.session, self.current = session, problem
        return self.session



def kernel_at(session: Any, index: int = 0) -> TritonKernel:
    """The session's ``index``-th Triton kernel, in launch order."""
    graph, name = session.captured.triton_kernels[index]
    return graph.kernels[name]
