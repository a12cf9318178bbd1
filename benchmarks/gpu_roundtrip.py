"""GPU check of the foundation and the gates over the bundled examples.

For each example problem: capture (times), the capture/substitute round trip
(the baseline's own source swapped in: outputs must be bitwise equal; a planted
+1 must show), and an A/A run of the whole cascade (the baseline as its own
candidate, repeated): the performance gate must never accept it.  Prints a
table and writes JSON to the path given as the first argument.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from pytest_kernelopt.backends import prepare, select_backend

prepare("auto")
backend = select_backend("auto")

import torch  # noqa: E402

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem  # noqa: E402
from pytest_kernelopt.substitute import swapped  # noqa: E402

out_path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("roundtrip.json")
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 2
problems = sorted(Path(__file__).resolve().parent.parent.joinpath("examples", "problems").glob("[a-z]*.py"))
print(f"backend: {backend.description}", flush=True)
rows, records = [], []
settings = Settings()
for path in problems:
    rec = {"problem": path.stem}
    try:
        t0 = time.perf_counter()
        problem = build_problem(ProblemSpec.from_file(path), backend.device)
        session = EvaluationSession(problem, settings, backend)
        cap = session.captured
        rec["capture_s"] = round(time.perf_counter() - t0, 2)
        rec["kernels"] = [f"{n} ({g.kernels[n].kind})" for g, n in cap.triton_kernels]
        rec["externs"] = [e.target for g in cap.graphs for e in g.extern_calls]
        x = problem.example_inputs
        with torch.no_grad():
            ref = cap(*x)
            same = True
            for g, n in cap.triton_kernels:
                with swapped(cap, [Candidate((n,), g.kernels[n].source)]):
                    same &= bool(torch.equal(cap(*x), ref))
        rec["roundtrip_bitwise_equal"] = same
        aa = []
        for g, n in cap.triton_kernels:
            for r in range(repeats):
                res = session.evaluate(Candidate((n,), g.kernels[n].source, origin="a/a"))
                perf = res.gate("performance")
                aa.append({"kernel": n, "decision": res.decision, "reason": res.reason,
                           "speedup": perf.numbers.get("speedup") if perf else None,
                           "ci": [perf.numbers.get("ci_low"), perf.numbers.get("ci_high")] if perf else None})
        rec["aa"] = aa
        rec["aa_false_accepts"] = sum(a["decision"] == "accepted" for a in aa)
        rec["seconds"] = round(time.perf_counter() - t0, 1)
        rows.append((path.stem, len(cap.triton_kernels), rec["capture_s"], same, f"{rec['aa_false_accepts']}/{len(aa)}",
                     ", ".join(f"{a['speedup']:.3f}" for a in aa if a["speedup"])))
    except Exception as e:  # keep going: one broken example must not hide the others
        rec["error"] = f"{type(e).__name__}: {e}"
        rows.append((path.stem, "-", "-", "ERROR", "-", rec["error"][:80]))
    records.append(rec)
    print(json.dumps(rec)[:400], flush=True)
    del session
    torch.cuda.empty_cache() if torch.cuda.is_available() else None
out_path.write_text(json.dumps({"backend": backend.description, "problems": records}, indent=2))
print("\nproblem               kernels  capture_s  roundtrip_equal  A/A accepts  A/A speedups")
for r in rows:
    print(f"{r[0]:<21} {r[1]!s:<8} {r[2]!s:<10} {r[3]!s:<16} {r[4]!s:<12} {r[5]}")
total = sum(r.get("aa_false_accepts", 0) for r in records)
n = sum(len(r.get("aa", [])) for r in records)
print(f"A/A false accepts: {total} of {n}")
