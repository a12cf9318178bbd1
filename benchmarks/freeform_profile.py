"""Where a free-form candidate's checks spend their time, in one process under cProfile.

For each problem file given: an :class:`~pytest_kernelopt.gates.cascade.EvaluationSession` (the sequential judge:
every check a free-form candidate gets, in this process) judges the first Triton kernel's own source with a
comment line added (free-form code: not certified) without the performance gate, once to collect the baseline's
runs and truths, and again under cProfile.  Printed and written to OUT.json: the checks' seconds
(``check_seconds``), the wall time, and the top functions by cumulative and by own time.

    python benchmarks/freeform_profile.py OUT.json benchmarks/problems/cumsum.py ...

On the CPU it runs (tiny problems, the interpreter; performance not measured).
"""

from __future__ import annotations

import cProfile
import dataclasses
import io
import json
import pstats
import sys
import time
from pathlib import Path

from pytest_kernelopt.backends import prepare

prepare("auto")

from pytest_kernelopt.backends import select_backend  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.launch_space import own_candidate  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem  # noqa: E402


def _top(prof: cProfile.Profile, key: str, n: int = 25) -> str:
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats(key).print_stats(n)
    return out.getvalue()


def main(out_path: Path, paths: list[Path]) -> None:
    rows = []
    for path in paths:
        t0 = time.perf_counter()
        backend = select_backend("auto")
        session = EvaluationSession(build_problem(ProblemSpec.from_file(path), backend.device), Settings(), backend)
        graph, name = next((g, n) for g in session.captured.graphs for n in g.kernels)
        config = own_candidate(graph, name, origin="tuner")
        free = dataclasses.replace(config, source=config.source + "\n# free-form\n", origin="test")
        row = {"problem": path.stem, "kernel": name, "backend": session.backend.name,
               "capture_s": round(time.perf_counter() - t0, 2), "runs": []}
        for label in ("first (baseline collected)", "again, profiled"):
            prof = cProfile.Profile() if label.startswith("again") else None
            t1 = time.perf_counter()
            if prof is not None:
                prof.enable()
            res = session.evaluate(free, perf=False)
            if prof is not None:
                prof.disable()
            corr = res.gate("correctness")
            run = {"label": label, "decision": res.decision, "reason": res.reason[:300],
                   "wall_s": round(time.perf_counter() - t1, 2),
                   "check_seconds": (corr.numbers.get("check_seconds") if corr else None)}
            if prof is not None:
                run["cumulative"] = _top(prof, "cumulative")
                run["own"] = _top(prof, "tottime")
            row["runs"].append(run)
            print(json.dumps({k: v for k, v in run.items() if k not in ("cumulative", "own")}), flush=True)
            if prof is not None:
                print(run["cumulative"][-6000:], run["own"][-5000:], sep="\n", flush=True)
        rows.append(row)
        out_path.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
