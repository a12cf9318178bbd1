"""The optional dependencies: each feature that needs one imports it here, and a missing one names its extra.

``pip install pytest-kernelopt`` brings what verify and optimize mode need (torch, triton, pytest, numpy,
filelock).  Three features need more, installed as extras:

* ``[llm]``: ``openai``, for the LLM agents (``proposer = agents``, or ``auto`` with an endpoint configured);
* ``[fuzz]``: ``hypothesis``, for shape fuzzing (:mod:`pytest_kernelopt.strategies`);
* ``[benchmark]``: ``pytest-benchmark``, for the ``benchmark`` fixture ``KernelOptResult.benchmark`` takes;
* ``[all]``: the three.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from .errors import KernelOptError

EXTRAS = {"openai": "llm", "hypothesis": "fuzz", "pytest_benchmark": "benchmark"}


class MissingExtraError(KernelOptError, ImportError):
    """A feature was used whose optional dependency is not installed; the message names the extra."""


def available(module: str) -> bool:
    """Whether ``module`` (one of :data:`EXTRAS`) can be imported, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require(module: str, feature: str) -> ModuleType:
    """``module`` (a package of :data:`EXTRAS` or one of its submodules) imported, or :class:`MissingExtraError`
    saying which extra brings it for ``feature``."""
    top = module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as e:
        error = MissingExtraError(f"{feature} needs the {top.replace('_', '-')} package, which is not installed: "
                                  f"pip install 'pytest-kernelopt[{EXTRAS[top]}]' (or [all])")
        if isinstance(e, ModuleNotFoundError) and e.name == top:
            raise error from None  # simply not installed: the message says it all
        raise error from e  # installed but broken: its own error matters


def check(module: str, feature: str) -> None:
    """:class:`MissingExtraError` if ``module`` is not installed (without importing it)."""
    if not available(module):
        require(module, feature)
