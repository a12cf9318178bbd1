"""Where does max-autotune's edge on a one-kernel module come from? (issue 14, H200 session 12)

On avgpool1d/avgpool2d/batchnorm2d_eval, `kernelopt bench --compare-modes` timed max-autotune 3-7% faster
than the default compile although max-autotune's kernel had the default's source and launch config.  The
bench's default column is the module as `capture()` compiled it (our captured module); max-autotune's is a
plain `torch.compile` of an entry-point function.  This times, interleaved with the gate's timer:
  cap       the captured module (capture(), default mode) -- the bench's "default" and "ours" baseline
  cap_entry capture() of an entry-point function calling the module, as the bench now captures it
  default   a plain torch.compile of the module's entry point, default mode
  default2  the same again (A/A: the spread between two identical compiles)
  ma        max-autotune-no-cudagraphs, compiled as the bench compiles it
and, per variant, the host time of one call (no synchronisation inside the loop: dispatch, guards, launch).

    python3 benchmarks/mode_overhead.py OUT.json benchmarks/problems/avgpool1d.py ...
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path


def host_us(call, n: int = 200) -> float:
    import torch

    torch.cuda.synchronize()
    best = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            call()
        best.append((time.perf_counter() - t0) / n * 1e6)
        torch.cuda.synchronize()
    return min(best)


def main() -> None:
    import torch

    from pytest_kernelopt.backends import select_backend
    from pytest_kernelopt.bench.measure import compile_mode, entry_point, mode_config
    from pytest_kernelopt.capture import capture
    from pytest_kernelopt.gates.perf import speedup_interval
    from pytest_kernelopt.gates.timing import time_interleaved
    from pytest_kernelopt.problems import ProblemSpec, build_problem

    out_path, paths = sys.argv[1], sys.argv[2:]
    backend = select_backend("auto")
    rows = []
    for p in paths:
        spec = ProblemSpec.from_file(Path(p))
        problem = build_problem(spec, backend.device, 0)
        module, x = problem.module, problem.example_inputs
        patch, _ = mode_config("default", backend)
        with torch._inductor.config.patch(patch):
            cap = capture(module, x, backend=backend)
        fns = {"cap": cap}
        with torch._inductor.config.patch(patch):
            cap_e = capture(entry_point(module, "cap_entry"), x, backend=backend)
        fns["cap_entry"] = cap_e
        for tag, mode in (("default", "default"), ("default2", "default"), ("ma", "max-autotune")):
            fn, _out, _s = compile_mode(mode, module, x, backend)
            fns[tag] = fn
        names = list(fns)
        with torch.no_grad():
            times = time_interleaved([((lambda: None), (lambda f: (lambda i: f(*x)))(fns[n])) for n in names],
                                     1, 60, 5)
            host = {n: round(host_us(lambda f=fns[n]: f(*x)), 1) for n in names}
        med = {n: round(statistics.median(t), 5) for n, t in zip(names, times)}
        ratios = {}
        for n, t in zip(names, times):
            if n != "cap":
                x_, lo, hi = speedup_interval(times[0], t, 0.95)  # cap's time over n's: >1 means n is faster than cap
                ratios[f"{n}_over_cap"] = [round(x_, 4), round(lo, 4), round(hi, 4)]
        row = {"problem": spec.name, "median_ms": med, "host_us_per_call": host, "speedups": ratios}
        print(json.dumps(row), flush=True)
        rows.append(row)
        del fns, cap, cap_e
        torch._dynamo.reset()
    Path(out_path).write_text(json.dumps({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                                          "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
