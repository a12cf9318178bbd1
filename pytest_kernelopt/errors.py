"""Exceptions raised by pytest-kernelopt.  Every error names what to do about it."""

from __future__ import annotations


class KernelOptError(Exception):
    """Base class of every error this package raises on purpose."""


class BackendError(KernelOptError):
    """The requested execution backend is unavailable or misconfigured."""


class NoGPUError(BackendError):
    """A step needs a CUDA GPU and none is present."""


class PerfUnmeasuredError(BackendError):
    """``perf`` was requested with ``perf_unmeasured=fail`` where performance cannot be measured (no GPU)."""


class UnsupportedGeneratedCode(KernelOptError):
    """Inductor produced code of a shape the parser does not know.

    Raised instead of guessing: a silent wrong parse would let a kernel be
    replaced at the wrong launch site.
    """


class CaptureError(KernelOptError):
    """The module could not be compiled or its generated code not captured."""


class SubstitutionError(KernelOptError):
    """A replacement could not be applied to the captured graph."""


class TritonOOBError(KernelOptError):
    """An interpreted Triton kernel accessed memory outside its tensor arguments."""


class ProblemFormatError(KernelOptError):
    """A file is not in the ``Model`` / ``get_inputs()`` / ``get_init_inputs()`` format."""


class BaselineRunError(KernelOptError, RuntimeError):
    """The unmodified compiled module could not be run for a gate (out of device memory, say): an error of the
    run, never a verdict on a candidate."""


class DeviceWarning(UserWarning):
    """The module under test is not on the backend's device, so Inductor generates no Triton kernels for it."""


class ModuleError(CaptureError):
    """The module under test raised when run on its inputs (in eager PyTorch too, so not a compile problem).

    The message ends with the module's own frames (``user_traceback``), not the plugin's, torch's or pytest's.
    """


class InputError(KernelOptError, ValueError):
    """The inputs cannot be run to check anything (tensors on the ``meta`` device, say)."""


class RecompiledWarning(UserWarning):
    """The fixture's module was called with inputs it was not judged on, so torch.compile built another graph
    (Inductor's own kernels, none of the judged ones): the summary's kernels are not what that call ran."""


class ProposerWarning(UserWarning):
    """The chosen proposer (the LLM agents) could not run, and ``llm_error = "warn"`` let the test pass."""


def user_traceback(exc: BaseException, limit: int = 8) -> str:
    """The frames of ``exc``'s traceback that belong to the user's code, formatted as Python does ('' if none).

    Frames of torch, triton, pytest, pluggy, this package and the standard library are left out: what is left
    is where the user's module (or problem file) raised.
    """
    import importlib.util
    import os
    import sysconfig
    import traceback

    paths = sysconfig.get_paths()
    packages = [os.path.dirname(os.path.abspath(__file__))]
    for name in ("torch", "triton", "_pytest", "pluggy"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            packages.append(os.path.dirname(spec.origin))
    installed = [paths["purelib"], paths["platlib"]]

    def under(path: str, dirs: list[str]) -> bool:
        return any(path.startswith(os.path.abspath(d) + os.sep) for d in dirs)

    def internal(filename: str) -> bool:
        path = os.path.abspath(filename)
        return (filename.startswith("<") or under(path, packages)
                or (under(path, [paths["stdlib"]]) and not under(path, installed)))

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not internal(f.filename)]
    return "".join(traceback.format_list(frames[-limit:]))


#: errors of the user's module, inputs or problem file (not of the plugin): reported by their message alone
USER_ERRORS: tuple[type[KernelOptError], ...] = (ModuleError, InputError, ProblemFormatError)
