"""``--kernelopt-perf``: the module with every kernel the run put in place against the compiled baseline, in the
same run, held to the floor ``1 - perf_regression``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..config import Settings

if TYPE_CHECKING:
    from ..candidate import Candidate
    from ..optimize import Evaluator


def perf_check(evaluator: Evaluator, settings: Settings, applied: list[Candidate]) -> tuple[dict[str, Any], list[str]]:
    """The module's numbers and the regressions found (none where nothing was measured: the numbers say why)."""
    if not evaluator.measures_time:
        return {"measured": False, "note": "no GPU: the performance regression gate could not run"}, []
    if not applied:
        return {"measured": False, "note": "no kernels applied: the module is the compiled baseline"}, []
    res = evaluator.evaluate(applied)
    g = res.gate("performance")
    if g is None or not g.numbers.get("measured"):
        return {"measured": False, "note": res.reason}, [
            f"performance regression gate could not measure: {res.reason}"]
    n = dict(g.numbers)
    floor = 1.0 - settings.perf_regression
    if n["speedup"] < floor:
        return n, [f"performance regression: {n['speedup']:.3f}x [{n['ci_low']:.3f}, {n['ci_high']:.3f}] vs the "
                   f"compiled baseline, below the floor {floor:.3f} (perf_regression={settings.perf_regression})"]
    return n, []
