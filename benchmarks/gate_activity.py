"""Where one gated candidate's time goes in the isolated judge, by activity (issue 14: the suite's gates took
74-153 s for one candidate on problems with 0.25-1 GiB outputs).

For each problem file given: an isolated judge (as optimize and bench use) gates the A/A candidate (the first
Triton kernel's own source) and then one tuner config of that kernel; after each, the judge's seconds by
activity (``IsolatedEvaluator.spent``: worker starts, float64 truths, transfer of records, the judge's own
statistics; none overlaps another), the bytes it read from workers, and the wall time, which leaves the
workers' own work (runs, the candidate's compile, timing) as the rest.  The first candidate also pays for the truths; the second shows a candidate's cost alone.

    python benchmarks/gate_activity.py OUT.json benchmarks/problems/cumprod.py ...

On the CPU it runs (tiny problems, the interpreter; performance not measured): the figures then say nothing
of a GPU's host.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from pytest_kernelopt.backends import prepare

prepare("auto")

from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.isolate import IsolatedEvaluator  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec  # noqa: E402
from pytest_kernelopt.launch_space import own_candidate  # noqa: E402
from pytest_kernelopt.tuner import propose_configs  # noqa: E402


def main(out_path: Path, paths: list[Path]) -> None:
    records = []
    for path in paths:
        t0 = time.perf_counter()
        with IsolatedEvaluator(ProblemSpec.from_file(path), Settings()) as ev:
            graph, name = next((g, n) for g in ev.graphs for n in g.kernels)
            row = {"problem": path.stem, "kernel": name, "backend": ev.backend_name,
                   "capture_s": round(time.perf_counter() - t0, 2), "candidates": []}
            cands = [own_candidate(graph, name)]  # launched with the baseline's own config
            cands += propose_configs(graph, name, limit=1)[:1]
            for cand in cands:
                before, got = dict(ev.spent), ev.received_bytes
                t1 = time.perf_counter()
                res = ev.evaluate(cand)
                wall = time.perf_counter() - t1
                spent = {k: round(v - before.get(k, 0.0), 2) for k, v in ev.spent.items()}
                perf = res.gate("performance")
                cell = {"candidate": cand.origin if cand.origin == "a/a" else "config", "decision": res.decision,
                        "reason": res.reason, "wall_s": round(wall, 2), **spent,
                        "workers_rest_s": round(wall - sum(spent.values()), 2),
                        "received_gib": round((ev.received_bytes - got) / 2**30, 3),
                        "perf_samples": perf.numbers.get("samples") if perf is not None else None}
                row["candidates"].append(cell)
                print(json.dumps({"problem": path.stem, **cell}), flush=True)
        records.append(row)
        out_path.write_text(json.dumps(records, indent=1))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
