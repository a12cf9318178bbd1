"""Where max-autotune's compile differs from the default one, kernel by kernel (GPU; one process a problem).

For each problem: both compiles' Triton kernels (name, launch config, whether the kernel's code differs), and
both compiled modules timed in alternation with CUDA events (median of 100 rounds of 10 calls each).  Answers
whether max-autotune's lead on a problem comes from a launch config the tuner could screen, or from code (another
kernel body, another kernel split) that a launch-config search cannot reach.

    python benchmarks/ma_kernel_diff.py OUT.json PROBLEM.py [PROBLEM.py ...]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys


def _one(path: str) -> dict:
    import torch

    from pytest_kernelopt.backends import select_backend
    from pytest_kernelopt.capture import capture
    from pytest_kernelopt.problems import ProblemSpec, build_problem
    from pytest_kernelopt.launch_space import baseline_config, trace_of
    from pytest_kernelopt.tuner import body_hash

    backend = select_backend("auto")
    problem = build_problem(ProblemSpec.from_file(path), backend.device, 0)
    caps, kernels = {}, {}
    for mode in ("default", "max-autotune-no-cudagraphs"):
        torch._dynamo.reset()
        cap = capture(problem.module, problem.example_inputs, backend=backend,
                      mode=None if mode == "default" else mode)
        caps[mode] = cap
        kernels[mode] = {n: (body_hash(k), baseline_config(t) if (t := trace_of(g, n)) else None, g.index)
                         for g in cap.graphs for n, k in g.kernels.items()}
    d, m = kernels["default"], kernels["max-autotune-no-cudagraphs"]
    rows = []
    for n in sorted(set(d) | set(m)):
        rows.append({"kernel": n, "in": [k for k, v in (("default", d), ("ma", m)) if n in v],
                     "same_code": n in d and n in m and d[n][0] == m[n][0],
                     "default_config": d.get(n, (None, None))[1], "ma_config": m.get(n, (None, None))[1]})
    if not torch.cuda.is_available():
        return {"problem": path, "kernels": rows, "median_ms": "not measured (no GPU)"}
    x = problem.example_inputs
    fns = {k: c.compiled for k, c in caps.items()}
    times: dict[str, list[float]] = {k: [] for k in fns}
    with torch.no_grad():
        for _ in range(3):
            for f in fns.values():
                f(*x)
        torch.cuda.synchronize()
        for r in range(100):
            for k in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(10):
                    fns[k](*x)
                b.record()
                b.synchronize()
                times[k].append(a.elapsed_time(b) / 10)
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"problem": path, "kernels": rows, "median_ms": med,
            "ma_over_default": med["default"] / med["max-autotune-no-cudagraphs"]}


def main() -> None:
    out, paths = sys.argv[1], sys.argv[2:]
    if len(paths) > 1:  # one process a problem: compiles of one do not leak into the next
        res = []
        for p in paths:
            r = subprocess.run([sys.executable, __file__, out + ".part", p], capture_output=True, text=True)
            try:
                res.append(json.load(open(out + ".part")))
            except (OSError, ValueError):
                res.append({"problem": p, "error": r.stderr[-2000:]})
            print(json.dumps(res[-1])[:1500], flush=True)
        json.dump(res, open(out, "w"), indent=1)
        return
    json.dump(_one(paths[0]), open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
