"""On a GPU: the gates at real size (issue 13).

    python benchmarks/gpu_gates_at_size.py --out results.json [--steps wins big] [--repeats 3]

wins  the committed tuner wins (kernels_cache/: argmax_dim, layernorm_gelu) judged ``--repeats`` times each
      through the isolated judge, all four gates with the sequential performance gate: acceptance rate,
      speedup, samples and rounds per candidate, seconds per candidate.
big   multi-GiB problems of benchmarks/problems (each in a subprocess of its own, so that running out of
      memory costs that problem alone; its output and a stack dump every 45 s kept in big_logs/ beside
      ``--out``), judged in-process with ``seeds=2``: the time, device and host peaks after each phase, the
      module's own single-call peak device memory, the gates' peak (torch.cuda.max_memory_allocated) and
      their ratio, where the float64 truth ran, and the decision on one tuner config of the first kernel.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WINS = {"argmax_dim": "triton_red_fused_argmax_0", "layernorm_gelu": "triton_red_fused_gelu_native_layer_norm_0"}
BIG = ["softmax_rows_big", "groupnorm_big", "conv3d_gelu_channel_mean"]


def _numbers(res) -> dict:
    perf = res.gate("performance")
    fp64 = res.gate("fp64")
    n = perf.numbers if perf is not None else {}
    keep = ("speedup", "ci_low", "ci_high", "samples", "rounds", "confidence", "module_peak_gib", "gate_peak_gib",
            "gate_peak_ratio", "fp64_ran_on", "fp64_peak_gib")
    out = {k: n[k] for k in keep if k in n}
    if fp64 is not None:
        out.update({k: fp64.numbers[k] for k in keep if k in fp64.numbers and k not in out})
    failed = res.failed_gate
    return {"decision": res.decision, "failed_gate": failed.gate if failed else None, "reason": res.reason[:300],
            "seconds": round(res.seconds, 2)} | out


def _cached(problem: str, kernel: str):
    from pytest_kernelopt.candidate import Candidate

    for entry in (ROOT / "kernels_cache" / "v1").glob("*/*/entry.json"):
        d = json.loads(entry.read_text())
        c = d.get("candidate") or {}
        if d.get("decision") == "accepted" and c.get("replaces") == [kernel]:
            src = (entry.parent / c["file"]).read_text()
            return Candidate((kernel,), src, configs=tuple(c.get("configs") or ()), origin="cache")
    raise SystemExit(f"no accepted cache entry for {problem} {kernel}")


def wins(repeats: int, only: list[str] | None = None) -> dict:
    from pytest_kernelopt.config import Settings
    from pytest_kernelopt.isolate import IsolatedEvaluator
    from pytest_kernelopt.problems import ProblemSpec

    rows = []
    settings = Settings(mode="optimize")
    for problem, kernel in WINS.items():
        if only and problem not in only:
            continue
        cand = _cached(problem, kernel)
        with IsolatedEvaluator(ProblemSpec.from_file(ROOT / "examples" / "problems" / f"{problem}.py"), settings) as ev:
            for r in range(repeats):
                t0 = time.perf_counter()
                res = ev.evaluate(cand)
                row = {"problem": problem, "repeat": r, "wall": round(time.perf_counter() - t0, 2)} | _numbers(res)
                rows.append(row)
                print("win", json.dumps(row), flush=True)
    acc = sum(r["decision"] == "accepted" for r in rows)
    return {"candidates": len(rows), "accepted": acc, "rows": rows}


BIG_ONE = r'''
import faulthandler, json, resource, sys, time
sys.path.insert(0, sys.argv[1])
stacks = open(sys.argv[3], "w")
faulthandler.dump_traceback_later(45, repeat=True, file=stacks)  # where the time goes, should it run out
from pytest_kernelopt.backends import prepare, select_backend
prepare("auto")
import torch
from pytest_kernelopt.candidate import Candidate
from pytest_kernelopt.config import Settings
from pytest_kernelopt.gates.cascade import EvaluationSession
from pytest_kernelopt.problems import ProblemSpec, build_problem
from pytest_kernelopt.launch_space import own_candidate
from pytest_kernelopt.tuner import propose_configs
sys.path.insert(0, sys.argv[1] + "/benchmarks")
from gpu_gates_at_size import _numbers
T0 = time.perf_counter()
def phase(name, **kw):
    print("PHASE " + json.dumps({"phase": name, "t": round(time.perf_counter() - T0, 1),
          "max_alloc_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2),
          "host_rss_gib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 1)} | kw), flush=True)
backend = select_backend("auto")
problem = build_problem(ProblemSpec.from_file(sys.argv[2]), backend.device, 0)
phase("built")
session = EvaluationSession(problem, Settings(mode="optimize", seeds=2), backend)
phase("captured", kernels=[n for _, n in session.captured.triton_kernels])
session.baseline_record()
phase("baseline and truth recorded")
out = {"problem": sys.argv[2], "kernels": []}
graph, name = session.captured.triton_kernels[0]
configs = propose_configs(graph, name, 1)
label, cand = ("config", configs[0]) if configs else ("a/a", own_candidate(graph, name))
t1 = time.perf_counter()
res = session.evaluate(cand)
row = {"kernel": name, "candidate": label, "wall": round(time.perf_counter() - t1, 1)} | _numbers(res)
out["kernels"].append(row)
phase("candidate judged", row=row)
out["host_peak_rss_gib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 1)
out["device_max_allocated_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
print("RESULT " + json.dumps(out), flush=True)
'''


def big(names: list[str], timeout: float, logs: Path) -> dict:
    """Each problem in a subprocess whose output streams to ``logs`` (kept should it time out), with a stack
    dump every 45 s."""
    out = {}
    logs.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = ROOT / "benchmarks" / "problems" / f"{name}.py"
        log, stacks = logs / f"{name}.log", logs / f"{name}.stacks"
        t0 = time.perf_counter()
        with open(log, "w") as fh:
            try:
                subprocess.run([sys.executable, "-c", BIG_ONE, str(ROOT), str(path), str(stacks)], stdout=fh,
                               stderr=subprocess.STDOUT, text=True, timeout=timeout)
                err = None
            except subprocess.TimeoutExpired:
                err = f"timed out after {timeout:.0f}s"
        text = log.read_text(errors="replace")
        lines = [ln for ln in text.splitlines() if ln.startswith("RESULT ")]
        out[name] = json.loads(lines[-1][7:]) if lines else {"error": err or text[-3000:]}
        out[name]["phases"] = [json.loads(ln[6:]) for ln in text.splitlines() if ln.startswith("PHASE ")]
        out[name]["wall"] = round(time.perf_counter() - t0, 1)
        print(f"big {name}: {json.dumps(out[name])[:2500]}", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps", nargs="*", default=["wins", "big"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--wins", nargs="*", default=None, help="which of the committed wins (default: all)")
    ap.add_argument("--big", nargs="*", default=BIG)
    ap.add_argument("--big-timeout", type=float, default=200)
    args = ap.parse_args()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    from pytest_kernelopt.backends import prepare

    prepare("auto")
    import torch
    import triton

    result = {"gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else "none (CPU)",
              "torch": torch.__version__, "triton": triton.__version__}
    for step in args.steps:
        t0 = time.perf_counter()
        result[step] = wins(args.repeats, args.wins) if step == "wins" else big(args.big, args.big_timeout,
                                                                     Path(args.out).parent / "big_logs")
        result[f"{step}_seconds"] = round(time.perf_counter() - t0, 1)
        Path(args.out).write_text(json.dumps(result, indent=1, default=str))


if __name__ == "__main__":
    main()
