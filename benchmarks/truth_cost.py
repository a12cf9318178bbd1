"""Where a clean worker's float64 truths and noise floors spend their time, by step, in one process.

For each problem file given: an :class:`~pytest_kernelopt.gates.cascade.EvaluationSession` collects the float64
truths of its plan's seeds (:func:`pytest_kernelopt.gates.trials.collect_truths`) with records kept on the device,
as a clean worker does, twice (the first also compiles).  The steps of :mod:`pytest_kernelopt.gates.fp64_place`
are timed with a device synchronisation around each call (nested steps count in each of theirs).  Printed and
written to OUT.json: seconds and calls per step, and the wall time, of the second collection.

    python benchmarks/truth_cost.py OUT.json benchmarks/problems/softmax_rows_big.py ...

``TC_TORCH_LEVELS=1``: torch raises the levels instead of the level kernel (its A/B in one environment).

On the CPU it runs too (the problems' sizes, the interpreter; performance not measured).
"""

from __future__ import annotations

import functools
import os
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from pytest_kernelopt.backends import prepare

prepare("auto")

import torch  # noqa: E402

from pytest_kernelopt.backends import select_backend  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates import compare, fp64_place, level_kernel, trials  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.gates.digests import records_on_device  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem  # noqa: E402

STEPS = {fp64_place: ("place", "truth_on", "_module", "_native_module", "run_once", "keep", "noise_floor",
                      "_floor_runs", "_perturbed", "_distances", "decade_part", "raise_levels",
                      "release_device_memory"),
         compare: ("decade_part",),
         trials: ("place", "truth_on", "_truth_run")}


def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _timed(table: dict, name: str, fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        _sync()
        t0 = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            _sync()
            row = table[name]
            row[0] += time.perf_counter() - t0
            row[1] += 1
    return wrapper


def main(out_path: Path, paths: list[Path]) -> None:
    if os.environ.get("TC_TORCH_LEVELS") == "1":
        level_kernel.KERNEL.disable("TC_TORCH_LEVELS=1")
    table: dict = defaultdict(lambda: [0.0, 0])
    for module, names in STEPS.items():
        for name in names:
            if hasattr(module, name):
                setattr(module, name, _timed(table, f"{module.__name__.rsplit('.', 1)[-1]}.{name}",
                                             getattr(module, name)))
    rows = []
    for path in paths:
        backend = select_backend("auto")
        session = EvaluationSession(build_problem(ProblemSpec.from_file(path), backend.device), Settings(), backend)
        row = {"problem": path.stem, "backend": backend.name,
               "device": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
               "seeds": list(session.plan.seeds), "level_kernel": level_kernel.status() or "in use"}
        for label in ("first", "second"):
            table.clear()
            t0 = time.perf_counter()
            with records_on_device():
                rec = trials.collect_truths(session, session.plan)
            _sync()
            row[f"{label}_wall_s"] = round(time.perf_counter() - t0, 3)
            row["where"] = rec.truth_memory
            del rec
        row["steps"] = {k: {"s": round(v[0], 3), "calls": v[1]} for k, v in sorted(table.items(), key=lambda kv: -kv[1][0])}
        print(json.dumps(row, indent=1), flush=True)
        rows.append(row)
        del session
    out_path.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
