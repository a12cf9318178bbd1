"""Nsight Compute through the profile: each example's Triton kernels with ncu metrics (GPU only).

    python benchmarks/ncu_probe.py OUT.json problem.py ...
"""

import json
import sys
import time
from pathlib import Path

from pytest_kernelopt.backends import prepare, select_backend

prepare("cuda")
backend = select_backend("cuda")
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.ncu import find_ncu  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem  # noqa: E402
from pytest_kernelopt.profile import profile_module  # noqa: E402

print("ncu:", find_ncu(), flush=True)
rows = []
for path in sys.argv[2:]:
    t0 = time.perf_counter()
    session = EvaluationSession(build_problem(ProblemSpec.from_file(path), "cuda"), Settings(), backend)
    prof = profile_module(session)
    dt = time.perf_counter() - t0
    rows.append({"problem": Path(path).stem, "seconds": round(dt, 1), **prof.to_json()})
    print(f"{Path(path).stem}: {dt:.1f}s; {prof.ncu_note}", flush=True)
    for k in prof.hottest_first():
        m = k.ncu or {}
        print(f"  {k.kernel:<45} {k.time_us or 0:8.1f}us share {k.share or 0:5.2f} "
              f"dram {m.get('dram_throughput_pct', float('nan')):5.1f}% sm {m.get('sm_throughput_pct', float('nan')):5.1f}% "
              f"occ {m.get('achieved_occupancy_pct', float('nan')):5.1f}% regs {m.get('registers_per_thread', float('nan')):4.0f} "
              f"| {k.bottleneck}", flush=True)
Path(sys.argv[1]).write_text(json.dumps(rows, indent=2, default=str))
