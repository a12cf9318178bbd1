"""Per problem: torch.compile default vs default + the cached kernels vs max-autotune (no cudagraphs).

All variants of one problem are timed in the same process, interleaved, with CUDA events and L2 flushed
(the performance gate's timer), on the problem's inputs.  Usage:
    python benchmarks/compare_modes.py CACHE_DIR OUT.json [--max-autotune name,name,...] problem.py ...
"""

import json
import statistics
import sys
import time
from pathlib import Path

from pytest_kernelopt.backends import prepare, select_backend

prepare("cuda")
backend = select_backend("cuda")
import torch  # noqa: E402

from pytest_kernelopt.cache import KernelCache  # noqa: E402
from pytest_kernelopt.capture import capture  # noqa: E402
from pytest_kernelopt.gates.perf import time_interleaved  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem, input_signature  # noqa: E402
from pytest_kernelopt.session import cache_key, device_key  # noqa: E402
from pytest_kernelopt.substitute import KernelSwap  # noqa: E402

args = sys.argv[1:]
cache_dir, out_path = args[0], args[1]
ma = set()
if args[2] == "--max-autotune":
    ma = set(args[3].split(","))
    args = args[4:]
else:
    args = args[2:]
cache = KernelCache(cache_dir)
rows = []
for path in map(Path, args):
    problem = build_problem(ProblemSpec.from_file(path), "cuda")
    x = problem.example_inputs
    cap = capture(problem.module, x, backend=backend)
    sig = input_signature(x)
    cands = []
    for g in cap.graphs:
        for name in g.kernels:
            e = cache.lookup(cache_key(g, (name,), sig, device_key(backend)))
            if e is not None and e.is_accepted:
                cands.append(e.candidate(replaces=(name,)))
    swap = KernelSwap(cap, cands)
    variants = [(swap.off, lambda i: cap(*x)), (swap.on, lambda i: cap(*x))]
    names = ["default", "default+kernelopt"]
    t_ma = None
    if path.stem in ma:
        t0 = time.perf_counter()
        torch._dynamo.reset()
        mam = torch.compile(problem.module, mode="max-autotune-no-cudagraphs")
        with torch.no_grad():
            mam(*x)
        t_ma = time.perf_counter() - t0
        variants.append((swap.off, lambda i: mam(*x)))
        names.append("max-autotune")
    with torch.no_grad():
        times = time_interleaved(variants, 1, 40, 5)
    meds = [statistics.median(t) for t in times]
    rec = {"problem": path.stem, "cached_kernels": [c.replaces[0] for c in cands],
           **{f"{n}_ms": m for n, m in zip(names, meds)},
           "kernelopt_vs_default": meds[0] / meds[1]}
    if len(meds) > 2:
        rec["kernelopt_vs_max_autotune"] = meds[2] / meds[1]
        rec["max_autotune_vs_default"] = meds[0] / meds[2]
        rec["max_autotune_compile_s"] = round(t_ma, 1)
    rows.append(rec)
    print(json.dumps(rec), flush=True)
    swap.off()
    del cap, swap
    torch._dynamo.reset()
Path(out_path).write_text(json.dumps(rows, indent=2))
print("\nproblem           default_ms  +kernelopt_ms  speedup  max-autotune_ms  kernelopt/max-autotune")
for r in rows:
    print(f"{r['problem']:<17} {r['default_ms']:<11.4f} {r['default+kernelopt_ms']:<14.4f} "
          f"{r['kernelopt_vs_default']:<8.3f} {r.get('max-autotune_ms', float('nan')):<16.4f} "
          f"{r.get('kernelopt_vs_max_autotune', float('nan')):.3f}")
