"""Does the tuner's screening overstate wins?  Screening against the performance gate, per kernel (GPU).

For each Triton kernel of each problem file given: the tuner's configs and an A/A candidate (the baseline's
own source) are screened together (``EvaluationSession.rank``: all variants interleaved, 10 samples); then
the A/A candidate and the three configs that screened fastest go through the whole cascade, whose
performance gate times each against the baseline alone (ABBA, 30 samples, bootstrap interval).  An A/A
candidate that screens faster than the baseline shows a bias of the screening itself; configs that screen
faster and then measure ~1.00x in the gate show that screening ratios are not to be read as speedups.

    python benchmarks/screening_vs_gate.py OUT.json examples/problems/conv_groupnorm.py ...
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pytest_kernelopt.backends import prepare, select_backend

prepare("auto")
backend = select_backend("auto")

from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem  # noqa: E402
from pytest_kernelopt.launch_space import own_candidate  # noqa: E402
from pytest_kernelopt.tuner import propose_configs  # noqa: E402

if not backend.measures_time:
    sys.exit(f"needs a GPU: {backend.description} measures no time")
out_path, paths = Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]]
print(f"backend: {backend.description}", flush=True)
records = []
for path in paths:
    session = EvaluationSession(build_problem(ProblemSpec.from_file(path), backend.device), Settings(), backend)
    for graph, name in session.captured.triton_kernels:
        aa = own_candidate(graph, name)
        cands = propose_configs(graph, name, limit=24)
        if not cands:
            print(f"{path.stem} {name}: no configs", flush=True)
            continue
        base_ms, times = session.rank([aa, *cands])
        screened = [base_ms / t if t else None for t in times]
        order = sorted((i for i in range(1, len(times)) if times[i]), key=lambda i: times[i])[:3]
        rows = []
        for i in [0, *order]:
            res = session.evaluate(([aa, *cands])[i])
            perf = res.gate("performance")
            n = perf.numbers if perf is not None else {}
            rows.append({"candidate": "a/a" if i == 0 else f"config {i}", "screened_ratio": screened[i],
                         "gate_speedup": n.get("speedup"), "gate_ci": [n.get("ci_low"), n.get("ci_high")],
                         "decision": res.decision, "reason": res.reason})
        faster = sum(1 for r in screened[1:] if r and r >= 1.02)
        rec = {"problem": path.stem, "kernel": name, "baseline_ms": base_ms, "configs": len(cands),
               "configs_screened_1.02x_faster": faster, "aa_screened_ratio": screened[0], "gated": rows}
        records.append(rec)
        print(f"{path.stem} {name}: baseline {base_ms:.4f} ms; A/A screened {screened[0]:.3f}x; "
              f"{faster}/{len(cands)} configs screened >= 1.02x", flush=True)
        for r in rows:
            g = r["gate_speedup"]
            print(f"    {r['candidate']:<10} screened {r['screened_ratio']:.3f}x  gate "
                  + (f"{g:.3f}x [{r['gate_ci'][0]:.3f}, {r['gate_ci'][1]:.3f}]" if g else "-")
                  + f"  {r['decision']}", flush=True)
    del session
out_path.write_text(json.dumps({"backend": backend.description, "kernels": records}, indent=2))
