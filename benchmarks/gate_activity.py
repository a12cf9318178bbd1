"""Where one gated candidate's time goes in the isolated judge, by activity and by check, for each provenance class.

For each problem file given: an isolated judge (as optimize and bench use) gates, on the first Triton kernel,

1. a tuner config (Inductor's own source under the baseline's config: a *launch-config* candidate),
2. the tuner's pipelined reduction loop under the same config, where the kernel has such a loop (a *mechanical
   edit*),
3. the same source and config with a comment line added (the same code, but not certified: *free-form*, every
   check),
4. the tuner config again (in the clean worker: no worker start, its baseline runs kept).

After each: the judge's seconds by activity (``IsolatedEvaluator.spent``: worker starts, float64 truths, transfer
of records, the judge's own statistics; none overlaps another), the workers started, the bytes read from workers,
the device frames the judge kept on its GPU and in host memory (GiB), the wall time, and the worker's seconds by
check (``check_seconds`` in the correctness gate's numbers); while it runs, a line at each gate's start.  The first
candidate that needs the float64 truths (free-form code; a launch config only where it differs beyond tolerance)
pays for them.

    python benchmarks/gate_activity.py OUT.json benchmarks/problems/cumprod.py ...
    ACT_ONLY=free-form python benchmarks/gate_activity.py OUT.json ...    (those candidates alone, by label)
    ACT_PROFILE=OUT.txt python benchmarks/gate_activity.py ...   (this process, the judge, under cProfile: its
                                                                  functions by cumulative seconds into OUT.txt)

On the CPU it runs (tiny problems, the interpreter; performance not measured): the figures then say nothing
of a GPU's host.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from pathlib import Path

from pytest_kernelopt.backends import prepare

prepare("auto")

from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.isolate import IsolatedEvaluator  # noqa: E402
from pytest_kernelopt.launch_space import own_candidate  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec  # noqa: E402
from pytest_kernelopt.tuner import pipelined_variants  # noqa: E402


def main(out_path: Path, paths: list[Path]) -> None:
    records = []
    for path in paths:
        t0 = time.perf_counter()
        with IsolatedEvaluator(ProblemSpec.from_file(path), Settings()) as ev:
            graph, name = next((g, n) for g in ev.graphs for n in g.kernels)
            row = {"problem": path.stem, "kernel": name, "backend": ev.backend_name,
                   "capture_s": round(time.perf_counter() - t0, 2), "candidates": []}
            config = own_candidate(graph, name, origin="tuner")
            cands = [("launch config", config)]
            cfg = dict(config.configs[0])
            cands += [("mechanical edit", v.candidate(name, cfg)) for v in pipelined_variants(graph, name)[-1:]]
            cands += [("free-form", dataclasses.replace(config, source=config.source + "\n# free-form\n",
                                                        origin="test"))]
            cands += [("launch config again", config)]
            only = [x.strip() for x in os.environ.get("ACT_ONLY", "").split(",") if x.strip()]
            cands = [c for c in cands if not only or c[0] in only]  # ACT_ONLY="free-form": those labels alone
            for label, cand in cands:
                before, got, started = dict(ev.spent), ev.received_bytes, ev.workers_started
                kept = dict(ev.frames_kept)
                t1 = time.perf_counter()

                def progress(msg: str, t1: float = t1, label: str = label, started: int = started) -> None:
                    # where a run cut short stopped: each gate's start, with the judge's seconds so far
                    print(f"  [{label} +{time.perf_counter() - t1:.1f} s] {msg} "
                          f"{ {k: round(v, 1) for k, v in ev.spent.items()} } workers {ev.workers_started - started} "
                          f"frames on device/host GiB {ev.frames_kept['device'] / 2**30:.1f}/"
                          f"{ev.frames_kept['host'] / 2**30:.1f}", flush=True)

                res = ev.evaluate(cand, progress=progress)
                wall = time.perf_counter() - t1
                spent = {k: round(v - before.get(k, 0.0), 2) for k, v in ev.spent.items()}
                perf, corr = res.gate("performance"), res.gate("correctness")
                numbers = corr.numbers if corr is not None else {}
                cell = {"candidate": label, "provenance": numbers.get("provenance"), "decision": res.decision,
                        "reason": res.reason[:300], "wall_s": round(wall, 2), **spent,
                        "workers_rest_s": round(wall - sum(spent.values()), 2),
                        "workers_started": ev.workers_started - started,
                        "received_gib": round((ev.received_bytes - got) / 2**30, 3),
                        "frames_gib": {k: round((v - kept[k]) / 2**30, 2) for k, v in ev.frames_kept.items()},
                        "host_frames_gib_held_free": getattr(ev, "host_frames", [])[-8:],
                        "check_seconds": numbers.get("check_seconds"),
                        "probe_seconds": numbers.get("structure_probe_seconds"),
                        "rounds": len(numbers.get("rounds") or [numbers.get("seed_list")]),
                        "judged_where": str(numbers.get("judged_where", "here"))[:120],
                        "perf_samples": perf.numbers.get("samples") if perf is not None else None,
                        "timing_s": perf.numbers.get("timing_seconds") if perf is not None else None}
                row["candidates"].append(cell)
                print(json.dumps({"problem": path.stem, **cell}), flush=True)
                out_path.write_text(json.dumps(records + [row], indent=1))  # a run cut short keeps what it did
        records.append(row)
        out_path.write_text(json.dumps(records, indent=1))


def profiled(to: str) -> None:
    """:func:`main` under cProfile (the judge's process only: the workers are processes of their own), the 60
    functions of the package and of torch with the most cumulative seconds, and the 40 with the most own seconds,
    into ``to``."""
    import cProfile
    import io
    import pstats

    prof = cProfile.Profile()
    try:
        prof.runcall(main, Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
    finally:
        buf = io.StringIO()
        stats = pstats.Stats(prof, stream=buf)
        stats.sort_stats("cumulative").print_stats(r"pytest_kernelopt|torch", 60)
        stats.sort_stats("tottime").print_stats(40)
        Path(to).write_text(buf.getvalue())


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if os.environ.get("ACT_PROFILE"):
        profiled(os.environ["ACT_PROFILE"])
    else:
        main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
