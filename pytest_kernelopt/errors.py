"""Exceptions raised by pytest-kernelopt.  Every error names what to do about it."""

from __future__ import annotations


class KernelOptError(Exception):
    """Base class of every error this package raises on purpose."""


class BackendError(KernelOptError):
    """The requested execution backend is unavailable or misconfigured."""


class NoGPUError(BackendError):
    """A step needs a CUDA GPU and none is present."""


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


class DeviceWarning(UserWarning):
    """The module under test is not on the backend's device, so Inductor generates no Triton kernels for it."""
