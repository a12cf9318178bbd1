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
from pytest_kernelopt.gates.timing import time_interleaved  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem, input_signature  # noqa: E402
from pytest_kernelopt.workflow import cache_key, device_key  # noqa: E402
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
    # phase 1: the captured module with and without the cached kernels (no Dynamo reset in between:
    # a reset would make the module recompile into a new wrapper and the swap would no longer apply)
    with torch.no_grad():
        before = swap.launches
        t1 = time_interleaved([(swap.off, lambda i: cap(*x)), (swap.on, lambda i: cap(*x))], 1, 40, 5)
    assert not cands or swap.launches > before, "the cached kernels never ran"
    swap.off()
    d1, k1 = (statistics.median(t) for t in t1)
    rec = {"problem": path.stem, "cached_kernels": [c.replaces[0] for c in cands], "default_ms": d1,
           "default+kernelopt_ms": k1, "kernelopt_vs_default": d1 / k1, "swapped_launches": swap.launches - before}
    if path.stem in ma:
        # phase 2: a fresh default compile against max-autotune-no-cudagraphs, same timer
        t0 = time.perf_counter()
        torch._dynamo.reset()
        default = torch.compile(problem.module)
        mam = torch.compile(problem.module, mode="max-autotune-no-cudagraphs")
        with torch.no_grad():
            default(*x)
            mam(*x)
            rec["max_autotune_compile_s"] = round(time.perf_counter() - t0, 1)
            t2 = time_interleaved([(lambda: None, lambda i: default(*x)), (lambda: None, lambda i: mam(*x))],
                                  1, 40, 5)
        d2, m2 = (statistics.median(t) for t in t2)
        rec.update({"default2_ms": d2, "max-autotune_ms": m2, "max_autotune_vs_default": d2 / m2,
                    "kernelopt_vs_max_autotune": (d1 / k1) / (d2 / m2)})
    print(json.dumps(rec), flush=True)
    rows.append(rec)
    del cap, swap
    torch._dynamo.reset()
Path(out_path).write_text(json.dumps(rows, indent=2))
print("\nproblem           default_ms  +kernelopt_ms  vs_default  max-autotune_vs_default  kernelopt_vs_max-autotune")
for r in rows:
    print(f"{r['problem']:<17} {r['default_ms']:<11.4f} {r['default+kernelopt_ms']:<14.4f} "
          f"{r['kernelopt_vs_default']:<11.3f} {r.get('max_autotune_vs_default', float('nan')):<24.3f} "
          f"{r.get('kernelopt_vs_max_autotune', float('nan')):.3f}")
