"""The modes ``kernelopt bench --compare-modes`` compares and how the results name them: what measuring and
rendering share (plain data)."""

from __future__ import annotations

from pathlib import Path

MODES = ("eager", "default", "max-autotune", "max-autotune+cd", "ours")
BASELINES = ("eager", "default", "max-autotune", "max-autotune+cd")
AUTOTUNE_MODES = ("max-autotune", "max-autotune+cd")
LABELS = {"eager": "eager", "default": "compile default", "max-autotune": "max-autotune-no-cudagraphs",
          "max-autotune+cd": "max-autotune + coordinate descent", "ours": "ours"}
SHORT = {"eager": "eager", "default": "default", "max-autotune": "MA", "max-autotune+cd": "MA+CD", "ours": "ours"}
NOT_MEASURED = "not measured"
#: the timer's A/A control: the default column's own function timed again in a slot of its own; its "speedup"
#: over the default column is the timer's error on that problem (1.0x when slots are fair)
AA = "default A/A"
#: the issue-14 bar against max-autotune: never below this on any problem
FLOOR = 0.98

KEPT_NOTE = ("a problem where ours applied no kernel (every baseline kept) runs exactly the default compile: it "
             "counts 1.0x over default compile, and the default compile's times stand for ours against the "
             "other baselines")


def key_of(path: Path) -> str:
    """How a problem is named in the results (and recognised on resume): relative to the working directory."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return Path(path).resolve().as_posix()
