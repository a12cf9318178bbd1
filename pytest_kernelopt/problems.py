"""The ``Model`` / ``get_inputs()`` / ``get_init_inputs()`` problem format.

A problem file defines ``class Model(nn.Module)``, ``get_inputs()`` returning
the forward inputs (CPU tensors) and ``get_init_inputs()`` returning the
constructor arguments.  The harness builds the model under a fixed seed, moves
model and inputs to the backend's device, and draws fresh inputs per seed by
re-seeding before ``get_inputs()``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from .errors import ProblemFormatError
from .problem_scale import use_small_problems
from .tensor_layout import in_layout

REQUIRED = ("Model", "get_inputs", "get_init_inputs")


def looks_like_problem(path: Path) -> bool:
    """Cheap text check used by the collector before importing anything."""
    if path.suffix != ".py" or path.name.startswith(("_", "test_", "conftest")):
        return False
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return False
    return "class Model" in text and "def get_inputs" in text


#: the rule, one for ``kernelopt bench`` (find_problem_files) and ``pytest --kernelopt-problems`` (the collector):
#: a file named on the command line is a problem file; under a folder named there, every ``.py`` file is one except
#: helpers (a name starting with ``_``: ``_scale.py``), tests (``test_*.py``, which pytest collects as tests),
#: ``conftest.py``, and files in hidden or ``__pycache__`` folders.  A problem file not in the format is an error of
#: its own, never skipped: a helper module goes in a ``_*.py`` file.
#: (tests/test_plugin.py::test_one_rule_says_which_files_of_a_problem_folder_are_problems)
NOT_PROBLEMS = "helpers (_*.py), tests (test_*.py), conftest.py, and files in hidden or __pycache__ folders"


def is_problem_file(path: Path, root: Path) -> bool:
    """Whether ``path`` is a problem file for ``root``, a path named on the command line (see :data:`NOT_PROBLEMS`)."""
    if path == root:
        return True
    try:
        rel = path.relative_to(root)
    except ValueError:
        return False
    return (path.suffix == ".py" and not path.name.startswith(("_", "test_")) and path.name != "conftest.py"
            and not any(part.startswith(".") or part == "__pycache__" for part in rel.parts[:-1]))


def find_problem_files(paths: Sequence[str | Path]) -> list[Path]:
    """Every problem file under ``paths`` (:func:`is_problem_file`), as ``pytest --kernelopt-problems`` collects
    them.  A file among them that is not in the problem format is not skipped: it is an error of its own.
    A path that is missing, or a folder with no problem file, raises FileNotFoundError saying which."""
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            before = len(found)
            found.extend(f for f in sorted(p.rglob("*.py")) if is_problem_file(f, p))
            if len(found) == before:
                raise FileNotFoundError(f"no problem files (*.py) under {p} (not problems: {NOT_PROBLEMS})")
        elif p.is_file():
            found.append(p)
        else:
            raise FileNotFoundError(f"no such file or directory: {p}")
    return found


def load_problem_module(path: str | Path):
    path = Path(path).resolve()
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    name = f"kernelopt_problem_{path.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ProblemFormatError(f"{path}: cannot be imported as a Python module")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    # sibling helper modules of a problem directory are importable, as when run as a script
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(mod)
    except (Exception, SystemExit) as e:  # sys.exit() in a problem file is its error, not the run's end
        sys.modules.pop(name, None)
        raise ProblemFormatError(f"{path}: failed to import: {type(e).__name__}: {e}") from e
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(path.parent))
    missing = [n for n in REQUIRED if not hasattr(mod, n)]
    if missing:
        sys.modules.pop(name, None)
        raise ProblemFormatError(f"{path}: not a problem file: missing {', '.join(missing)} "
                                 f"(needs class Model, get_inputs() and get_init_inputs()); a helper module of a "
                                 f"problem folder is named _*.py, and is then no problem")
    if not isinstance(mod.Model, type) or not callable(mod.get_inputs) or not callable(mod.get_init_inputs):
        sys.modules.pop(name, None)
        raise ProblemFormatError(f"{path}: Model must be a class and get_inputs/get_init_inputs functions")
    return mod


def _to_device(obj: Any, device: str) -> Any:
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(o, device) for o in obj)
    return obj


CPU_MAX_NUMEL = 4_000_000  # the default of KERNELOPT_CPU_MAX_NUMEL


def cpu_max_numel() -> int:
    """The most input elements the CPU backend takes (KERNELOPT_CPU_MAX_NUMEL, read when a problem is built)."""
    return int(os.environ.get("KERNELOPT_CPU_MAX_NUMEL", CPU_MAX_NUMEL))


def _check_interpreter_size(ref: str, inputs: tuple) -> None:
    """The Triton interpreter runs about a million elements a second: refuse what would take hours."""
    numel = sum(x.numel() for x in inputs if hasattr(x, "numel"))
    limit = cpu_max_numel()
    if numel > limit:
        raise ProblemFormatError(
            f"{ref}: inputs have {numel:,} elements, too many for the CPU backend (the Triton interpreter would "
            f"take hours); run it on a GPU, shrink the problem, or raise KERNELOPT_CPU_MAX_NUMEL "
            f"(now {limit:,})")


@dataclass(frozen=True)
class ProblemSpec:
    """A picklable description of a module and how to draw its inputs.

    ``kind == "file"``: a problem file.  ``kind == "pickle"``: a pickled
    ``(module, example_inputs)`` pair (used by the pytest fixture).
    """

    kind: str
    ref: str
    name: str
    payload: bytes = b""

    @classmethod
    def from_file(cls, path: str | Path) -> "ProblemSpec":
        p = Path(path).resolve()
        return cls("file", str(p), p.stem)

    @classmethod
    def from_objects(cls, module: Any, inputs: tuple, name: str) -> "ProblemSpec":
        import io

        import torch

        buf = io.BytesIO()
        torch.save((module, inputs), buf)  # raises for lambdas and local classes: caller falls back
        return cls("pickle", name, name, buf.getvalue())


class Problem:
    """A module on its device and a function drawing fresh inputs per seed.

    ``example_inputs`` of a problem file are ``draw_inputs(0)`` (``redrawable``): once the module is compiled
    they can be let go (:meth:`release_example`: a 2 GiB input is 2 GiB of device memory the gates would
    otherwise carry through every phase) and are drawn again, the same values, if asked for later.
    """

    def __init__(self, name: str, module: Any, example_inputs: tuple | None, draw_inputs: Callable[[int], tuple],
                 spec: ProblemSpec | None = None, redrawable: bool = False) -> None:
        self.name = name
        self.module = module
        self._example = example_inputs
        self.draw_inputs = draw_inputs
        self.spec = spec
        self.redrawable = redrawable
        self._signature = input_signature(example_inputs) if example_inputs is not None else None

    def signature(self) -> list["InputSig"]:
        """The example inputs' shapes and dtypes (kept when the inputs themselves are let go)."""
        if self._signature is None:
            self._signature = input_signature(self.example_inputs)
        return self._signature

    @property
    def example_inputs(self) -> tuple:
        if self._example is None:
            self._example = self.draw_inputs(0)
        return self._example

    def release_example(self) -> bool:
        """Let go of the example inputs where they can be drawn again (a problem file's); whether it did."""
        if self.redrawable and self._example is not None:
            self._example = None
            return True
        return False

    def __repr__(self) -> str:
        return f"Problem({self.name!r}, spec={self.spec!r})"


def fresh_like(example: tuple, seed: int) -> tuple:
    """Fresh inputs shaped like ``example``: floating tensors redrawn, others kept.

    Integer and boolean tensors often carry meaning (indices, masks), so they
    are kept as given rather than redrawn into invalid values.
    """
    import torch

    gen = torch.Generator(device="cpu").manual_seed(seed)
    out = []
    for x in example:
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            fresh = torch.randn(x.shape, generator=gen, dtype=torch.float32).to(dtype=x.dtype, device=x.device)
            fresh = in_layout(x, fresh)  # strides kept, expanded ones too
            out.append(fresh.requires_grad_(x.requires_grad))
        else:
            out.append(x)
    return tuple(out)


def build_problem(spec: ProblemSpec, device: str, seed: int = 0, *, interpreted: bool | None = None) -> Problem:
    """The problem on ``device``.  ``interpreted`` (default: on the CPU) sizes it for the Triton interpreter: small
    problems (KERNELOPT_PROBLEM_SCALE) and at most :func:`cpu_max_numel` input elements."""
    import torch

    interpreted = device == "cpu" if interpreted is None else interpreted
    if spec.kind == "file":
        if interpreted:
            use_small_problems()
        mod = load_problem_module(spec.ref)
        torch.manual_seed(seed)
        try:
            init = _sequence(mod.get_init_inputs(), spec.ref, "get_init_inputs")
            model = mod.Model(*init)
        except ProblemFormatError:
            raise
        except (Exception, SystemExit) as e:
            raise ProblemFormatError(f"{spec.ref}: Model(*get_init_inputs()) failed: {type(e).__name__}: {e}") from e
        model = model.to(device).eval() if hasattr(model, "to") else model

        on_device = device != "cpu"

        def draw(s: int) -> tuple:
            nonlocal on_device
            torch.manual_seed(seed + 1000 + s)
            inputs = None
            if on_device:
                # tensors made without a device argument are made on the GPU: a problem's inputs can be
                # gigabytes, which the CPU generator takes seconds to fill.  A get_inputs() that needs CPU
                # tensors (numpy, a CPU generator) fails here once and is drawn on the CPU from then on.
                try:
                    with torch.device(device):
                        inputs = mod.get_inputs()
                except (Exception, SystemExit):
                    on_device = False
                    torch.manual_seed(seed + 1000 + s)
            if inputs is None:
                inputs = mod.get_inputs()
            return tuple(_to_device(_sequence(inputs, spec.ref, "get_inputs"), device))

        try:
            example = draw(0)
        except ProblemFormatError:
            raise
        except (Exception, SystemExit) as e:
            raise ProblemFormatError(f"{spec.ref}: get_inputs() failed: {type(e).__name__}: {e}") from e
        if interpreted:
            _check_interpreter_size(spec.ref, example)
        return Problem(spec.name, model, example, draw, spec, redrawable=True)
    if spec.kind == "pickle":
        import io

        module, inputs = torch.load(io.BytesIO(spec.payload), weights_only=False)
        module = module.to(device) if hasattr(module, "to") else module
        example = tuple(_to_device(list(inputs), device))
        return Problem(spec.name, module, example, lambda s: fresh_like(example, seed + 1000 + s), spec)
    raise ProblemFormatError(f"unknown problem kind {spec.kind!r}")


#: the rule for a module's arguments, one for the fixture's ``inputs`` and a problem file's ``get_inputs()`` and
#: ``get_init_inputs()``: a list or tuple of the positional arguments (a generator: the list it yields), or a single
#: tensor, the one argument.  Anything else (a dict, a string, None, a number) is an error saying so, never passed
#: on as it is (a dict's keys reached forward, and the error blamed the Model)
#: (tests/test_problems.py::test_inputs_are_a_list_or_tuple_or_one_tensor_for_the_fixture_and_problem_files)
ARGUMENTS_RULE = "a list (or tuple) of the positional arguments, or a single tensor (the one argument)"


def positional_args(value: Any, what: str, error: type[Exception] = ProblemFormatError) -> list:
    """``value`` as the list of positional arguments :data:`ARGUMENTS_RULE` says it is; ``error`` (saying ``what``
    must be) otherwise."""
    import types

    if isinstance(value, (list, tuple, types.GeneratorType, map, filter, range)):
        return list(value)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return [value]
    raise error(f"{what} must be {ARGUMENTS_RULE}, got {type(value).__name__}")


def _sequence(value: Any, ref: str, fn: str) -> list:
    """What ``fn()`` of a problem file returned, as its arguments (:func:`positional_args`); a format error of the
    problem file otherwise, not the module's."""
    return positional_args(value, f"{ref}: {fn}()", ProblemFormatError)


def problem_from_objects(module: Any, inputs: tuple, name: str, seed: int = 0) -> Problem:
    """A problem for an in-process module; picklable ones also get a spec for isolation."""
    try:
        spec = ProblemSpec.from_objects(module, inputs, name)
    except Exception:
        spec = None
    inputs = tuple(inputs)
    return Problem(name, module, inputs, lambda s: fresh_like(inputs, seed + 1000 + s), spec)


@dataclass(frozen=True)
class InputSig:
    """Shape and dtype of one input (what a cache key needs), without the tensor."""

    shape: tuple
    dtype: str


def input_signature(inputs: tuple) -> list[InputSig]:
    return [InputSig(tuple(x.shape), str(x.dtype)) if hasattr(x, "shape") and hasattr(x, "dtype")
            else InputSig((), type(x).__name__) for x in inputs]
