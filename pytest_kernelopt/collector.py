"""pytest collection of problem files (``--kernelopt-problems PATH``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .config import SettingError
from .errors import BackendError, InputError, ModuleError, ProblemFormatError, user_traceback
from .harness import marker_kwargs
from .junit import per_test_properties
from .problems import is_problem_file, load_problem_module

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr


def is_problem_candidate(path: Path, roots: list[Path]) -> bool:
    """Whether ``path`` is a problem file of one of the ``roots`` given (the rule: problems.NOT_PROBLEMS)."""
    resolved = path.resolve()
    return any(is_problem_file(resolved, r) for r in roots)


class ProblemFile(pytest.File):
    """A ``Model`` / ``get_inputs()`` / ``get_init_inputs()`` file: one test item."""

    def collect(self):
        # the backend's environment first: a problem file may size its inputs by it at import (mode off: inert)
        harness = self.config.stash[HARNESS_KEY]
        if harness.settings.mode != "off":
            harness.prepare()
        try:
            load_problem_module(self.path)
        except ProblemFormatError as e:
            raise self.CollectError(str(e)) from None
        yield ProblemItem.from_parent(self, name=self.path.stem)


class ProblemItem(pytest.Item):
    def runtest(self) -> None:
        harness = self.config.stash[HARNESS_KEY]
        settings = harness.resolve(marker_kwargs(self), {})
        if settings.mode == "off":  # inert, as the fixture is: the problem runs under a plain torch.compile
            harness.run_problem_plain(self.path, settings)
            return
        record = harness.run_problem(self.nodeid, self.path, settings,
                                     (lambda k, v: self.user_properties.append((k, v)))
                                     if per_test_properties(self.config) else None)
        if record.regressions:
            raise KernelOptFailure(record.regressions)

    def repr_failure(self, excinfo: Any, style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, KernelOptFailure):
            return "\n".join(excinfo.value.lines)
        if isinstance(excinfo.value, (BackendError, SettingError)):  # as the fixture says it: no frames
            return f"pytest-kernelopt: {type(excinfo.value).__name__}: {excinfo.value}"
        if isinstance(excinfo.value, (ModuleError, InputError, ProblemFormatError)):
            # the user's error: its message, and the problem file's own frames (not pytest's or the plugin's)
            cause = excinfo.value.__cause__
            frames = user_traceback(cause) if cause is not None else ""
            return f"{excinfo.value}" + (f"\nthe problem's traceback (most recent call last):\n{frames.rstrip()}"
                                         if frames else "")
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"kernelopt problem {self.path.name}"


class KernelOptFailure(AssertionError):
    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = list(lines)


HARNESS_KEY = pytest.StashKey["Any"]()
