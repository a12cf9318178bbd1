"""On a GPU: the cheats that once passed, A/A over the bundled examples, and what isolation costs per candidate.

    python benchmarks/gpu_trust.py --out results.json [--old PATH] [--aa-repeats 1]

1. Cheats through the public path (an IsolatedEvaluator, all four gates, performance included) on the
   pointwise_chain example at its GPU size: a stale-buffer kernel (does its work only where its output buffer
   holds the correctness gate's NaN poison), a fingerprint kernel (computes only for inputs of the seed
   schedule a pinned ``base_seed`` would draw), and a time bomb reading ``%globaltimer`` through inline assembly.
2. A/A: every Triton kernel of every bundled example, its own source as the candidate (``--aa-config``: under
   the baseline's own launch config, a launch-config candidate judged in the clean worker): none may be accepted.
3. Isolation cost: seconds per candidate for the same honest candidate judged three times, with this tree and,
   with ``--old PATH`` (a copy of an older ``pytest_kernelopt`` package), with that one, in a subprocess.
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

CHAIN = ROOT / "examples" / "problems" / "pointwise_chain.py"
KERNEL = "triton_poi_fused_add_mul_relu_sigmoid_tanh_0"

STALE = f'''
@triton.jit
def {KERNEL}(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    first = tl.load(out_ptr0 + xoffset)
    m = tl.where(first != first, xmask, False)
    tmp0 = tl.load(in_ptr0 + (xindex), m)
    tmp6 = triton_helpers.maximum(tl.full([1], 0, tl.int32), tmp0 * 2.0 + 1.0)
    tmp9 = libdevice.tanh(tmp6) * tl.sigmoid(tmp0)
    tl.store(out_ptr0 + (xindex), tmp9, m)
'''

FINGERPRINT = f'''
@triton.jit
def {KERNEL}(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    first = tl.load(in_ptr0)
    m = tl.where(KNOWN, xmask, False)
    tmp0 = tl.load(in_ptr0 + (xindex), m)
    tmp6 = triton_helpers.maximum(tl.full([1], 0, tl.int32), tmp0 * 2.0 + 1.0)
    tmp9 = libdevice.tanh(tmp6) * tl.sigmoid(tmp0)
    tl.store(out_ptr0 + (xindex), tmp9, m)
'''

TIME_BOMB = f'''
@triton.jit
def {KERNEL}(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex), xmask)
    now = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)
    late = now > 1800000000000000000
    tmp6 = triton_helpers.maximum(tl.full([1], 0, tl.int32), tmp0 * 2.0 + 1.0)
    tmp9 = libdevice.tanh(tmp6) * tl.sigmoid(tmp0)
    tl.store(out_ptr0 + (xindex), tl.where(late, tmp9 * 1.5, tmp9), xmask)
'''


def _summary(res) -> dict:
    failed = res.failed_gate
    perf = res.gate("performance")
    n = perf.numbers if perf is not None else {}
    return {"decision": res.decision, "failed_gate": failed.gate if failed else None, "reason": res.reason,
            "seconds": round(res.seconds, 2), "gates": [g.to_json() for g in res.gates],
            "speedup": n.get("speedup"), "samples": n.get("samples"), "rounds": n.get("rounds"),
            "gate_peak_ratio": n.get("gate_peak_ratio")}


def cheats(settings) -> dict:
    from pytest_kernelopt.candidate import Candidate
    from pytest_kernelopt.gates.seed_plan import SeedPlan
    from pytest_kernelopt.isolate import IsolatedEvaluator
    from pytest_kernelopt.problems import ProblemSpec, build_problem

    # the seed schedule a pinned base_seed=0 would draw (the old fixed schedule), fingerprinted by first element
    from pytest_kernelopt.backends import select_backend

    problem = build_problem(ProblemSpec.from_file(CHAIN), select_backend("auto").device, 0)
    plan = SeedPlan.make(settings.seeds, 0)
    firsts = [float(problem.draw_inputs(s)[0].reshape(-1)[0]) for s in plan.seeds]
    del problem
    known = " | ".join(f"(first == {v!r})" for v in firsts)
    out = {}
    with IsolatedEvaluator(ProblemSpec.from_file(CHAIN), settings) as ev:
        for name, src in (("stale_buffer", STALE), ("fingerprint", FINGERPRINT.replace("KNOWN", known)),
                          ("time_bomb_globaltimer", TIME_BOMB)):
            t0 = time.perf_counter()
            res = ev.evaluate(Candidate((KERNEL,), src, origin="red-team"))
            out[name] = _summary(res) | {"wall": round(time.perf_counter() - t0, 2)}
            print(f"{name:24} {res.decision:9} {res.reason[:150]}", flush=True)
    return out


ONLY: list[str] = []


AA_CONFIG = False


def aa(settings, repeats: int) -> dict:
    from pytest_kernelopt.candidate import Candidate
    from pytest_kernelopt.isolate import IsolatedEvaluator
    from pytest_kernelopt.launch_space import own_candidate
    from pytest_kernelopt.problems import ProblemSpec

    rows = []
    for path in sorted((ROOT / "examples" / "problems").glob("[!_]*.py")):
        if ONLY and path.stem not in ONLY:
            continue
        with IsolatedEvaluator(ProblemSpec.from_file(path), settings) as ev:
            for graph in ev.graphs:
                for name, kernel in graph.kernels.items():
                    for r in range(repeats):
                        # the source alone is free-form (no config: its own worker, every check); under the
                        # baseline's own config it is a launch-config candidate (the clean worker, the checks its
                        # class needs: gates/provenance.py)
                        cand = (own_candidate(graph, name) if AA_CONFIG else
                                Candidate((name,), kernel.source, origin="a/a"))
                        res = ev.evaluate(cand)
                        corr = res.gate("correctness")
                        row = {"problem": path.stem, "kernel": name, "repeat": r,
                               "provenance": corr.numbers.get("provenance") if corr is not None else None,
                               "workers_started": ev.workers_started} | _summary(res)
                        rows.append(row)
                        print(f"A/A {path.stem:16} {name[:44]:44} {res.decision:9} "
                              f"{row['speedup'] if row['speedup'] is not None else '-'} n={row['samples']} "
                              f"rounds={row['rounds']} mem={row['gate_peak_ratio']} {res.seconds:.1f}s "
                              f"{res.reason[:160]}",
                              flush=True)
    accepted = sum(r["decision"] == "accepted" for r in rows)
    return {"candidates": len(rows), "false_accepts": accepted, "rows": rows}


COST = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
from pytest_kernelopt.backends import prepare
prepare("auto")
from pytest_kernelopt.candidate import Candidate
from pytest_kernelopt.config import Settings
from pytest_kernelopt.isolate import IsolatedEvaluator
from pytest_kernelopt.problems import ProblemSpec
spec = ProblemSpec.from_file(sys.argv[2])
ev = IsolatedEvaluator(spec, Settings(mode="optimize"))
(graph,) = ev.graphs
name, kernel = next(iter(graph.kernels.items()))
times = []
for _ in range(3):
    t0 = time.perf_counter()
    res = ev.evaluate(Candidate((name,), kernel.source, origin="a/a"))
    times.append(round(time.perf_counter() - t0, 2))
ev.close()
print(json.dumps({"per_candidate_s": times, "decision": res.decision}))
'''


def cost(old: str | None) -> dict:
    out = {}
    problem = str(ROOT / "examples" / "problems" / "softmax_scale.py")
    for label, tree in (("new", str(ROOT)), ("old", old)):
        if not tree:
            continue
        p = subprocess.run([sys.executable, "-c", COST, tree, problem], capture_output=True, text=True, timeout=900)
        line = (p.stdout.strip().splitlines() or ["{}"])[-1]
        try:
            out[label] = json.loads(line)
        except ValueError:
            out[label] = {"error": (p.stderr or p.stdout)[-2000:]}
        print(f"isolation cost {label}: {out[label]}", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--old", default=None, help="folder holding an older pytest_kernelopt package, for the cost")
    ap.add_argument("--aa-repeats", type=int, default=1)
    ap.add_argument("--skip", nargs="*", default=[], choices=["cheats", "aa", "cost"])
    ap.add_argument("--only", nargs="*", default=[], help="A/A over these example problems only")
    ap.add_argument("--aa-config", action="store_true",
                    help="A/A candidates under the baseline's own launch config (launch-config class) instead of "
                         "the source alone (free-form)")
    args = ap.parse_args()
    ONLY.extend(args.only)
    global AA_CONFIG
    AA_CONFIG = args.aa_config
    from pytest_kernelopt.backends import prepare

    prepare("auto")
    import torch

    from pytest_kernelopt.config import Settings

    settings = Settings(mode="optimize")
    result = {"gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else "none (CPU)",
              "torch": torch.__version__}
    import triton

    result["triton"] = triton.__version__
    steps = {"cheats": lambda: cheats(settings), "aa": lambda: aa(settings, args.aa_repeats),
             "cost": lambda: cost(args.old)}
    for name, step in steps.items():
        if name in args.skip:
            continue
        t0 = time.perf_counter()
        result[name] = step()
        result[f"{name}_seconds"] = round(time.perf_counter() - t0, 1)
        Path(args.out).write_text(json.dumps(result, indent=1, default=str))
    print(json.dumps({k: v for k, v in result.items() if k not in ("aa", "cheats")}, default=str)[:2000])
    if "aa" in result:
        print(f"A/A: {result['aa']['false_accepts']} false accepts of {result['aa']['candidates']}")


if __name__ == "__main__":
    main()
