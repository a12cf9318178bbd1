"""Where do Inductor's reduction kernels leave bandwidth on the table, and does a mechanical code variant win it
back?  (GPU; an exploration, not a product path.)

On the H200 suite (``results/compare_modes/``) eager beats both compiles on seven reductions of a 1 GiB tensor
(reduce_sum_dim1: eager 0.302 ms, max-autotune 0.364 ms, default 0.371 ms).  For each problem given, this
script times eager against the default compile (CUDA events, alternating, median), then screens the kernel's
own source and source variants of its reduction loop -- ``tl.range(..., loop_unroll_factor=U)`` and
``tl.range(..., num_stages=S)`` -- each at the baseline's launch config and the tuner's nearest configs,
interleaved (``EvaluationSession.rank``, the tuner's screening), and sends the fastest screened candidates
through the whole cascade (``EvaluationSession.evaluate``: correctness, fp64, the performance gate's
bootstrap interval against the baseline).

    python benchmarks/reduction_headroom.py OUT.json benchmarks/problems/reduce_sum_dim1.py ...
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path

LOOP = re.compile(r"for (r0_offset) in (?:tl\.)?range\(([^\n]*?)\):")


def loop_variants(source: str) -> dict[str, str]:
    """The kernel's own source and its reduction loop rewritten (none for a persistent reduction)."""
    out = {"own": source}
    if not LOOP.search(source):
        return out
    for u in (2, 4):
        out[f"unroll{u}"] = LOOP.sub(rf"for \1 in tl.range(\2, loop_unroll_factor={u}):", source, count=1)
    for s in (2, 3):
        out[f"loopstages{s}"] = LOOP.sub(rf"for \1 in tl.range(\2, num_stages={s}):", source, count=1)
    return out


def eager_vs_compiled(problem) -> dict:
    import torch

    x = problem.example_inputs
    fns = {"eager": problem.module, "compiled": torch.compile(problem.module)}
    times: dict[str, list[float]] = {k: [] for k in fns}
    with torch.no_grad():
        for _ in range(3):
            for f in fns.values():
                f(*x)
        torch.cuda.synchronize()
        for r in range(60):
            for k in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(5):
                    fns[k](*x)
                b.record()
                b.synchronize()
                times[k].append(a.elapsed_time(b) / 5)
    med = {k: statistics.median(v) for k, v in times.items()}
    nbytes = sum(t.numel() * t.element_size() for t in x if isinstance(t, torch.Tensor))
    return {"median_ms": med, "eager_over_compiled": med["compiled"] / med["eager"],
            "input_gib": nbytes / 2**30, "eager_tb_s": nbytes / med["eager"] / 1e9,
            "compiled_tb_s": nbytes / med["compiled"] / 1e9}


def one(path: Path, backend) -> dict:
    from pytest_kernelopt.config import Settings
    from pytest_kernelopt.gates.cascade import EvaluationSession
    from pytest_kernelopt.problems import ProblemSpec, build_problem
    from pytest_kernelopt.launch_space import baseline_config, own_candidate, trace_of
    from pytest_kernelopt.tuner import config_candidate, ordered_space

    problem = build_problem(ProblemSpec.from_file(path), backend.device)
    rec = {"problem": path.stem, **eager_vs_compiled(problem)}
    print(f"{path.stem}: eager {rec['median_ms']['eager']:.4f} ms ({rec['eager_tb_s']:.2f} TB/s), compiled "
          f"{rec['median_ms']['compiled']:.4f} ms ({rec['compiled_tb_s']:.2f} TB/s)", flush=True)
    session = EvaluationSession(problem, Settings(), backend)
    rec["kernels"] = []
    for graph, name in session.captured.triton_kernels:
        kernel, trace = graph.kernels[name], trace_of(graph, name)
        if trace is None:
            continue
        base = baseline_config(trace)
        cfgs = [base] + [c for c in ordered_space(kernel, trace) if c != base][:5]
        cands, labels = [own_candidate(graph, name)], ["a/a"]
        for vname, src in loop_variants(kernel.source).items():
            for i, cfg in enumerate(cfgs):
                if vname == "own" and i == 0:
                    continue  # that is the A/A
                cands.append(config_candidate(name, src, cfg, f"{vname} "))
                labels.append(f"{vname} {cfg}")
        t0 = time.time()
        base_ms, times = session.rank(cands)
        rows = sorted(({"candidate": lab, "screened_ms": t, "screened_ratio": (base_ms / t) if t else None}
                       for lab, t in zip(labels, times)), key=lambda r: -(r["screened_ratio"] or 0))
        print(f"  {name}: baseline {base}, {base_ms:.4f} ms; {len(cands)} screened in {time.time() - t0:.0f} s",
              flush=True)
        for r in rows[:8]:
            print(f"    {r['screened_ratio'] or 0:.3f}x  {r['candidate']}", flush=True)
        gated = []
        for r in [x for x in rows if x["candidate"] != "a/a"][:2]:
            res = session.evaluate(cands[labels.index(r["candidate"])])
            perf = res.gate("performance")
            n = perf.numbers if perf is not None else {}
            gated.append({"candidate": r["candidate"], "decision": res.decision, "reason": res.reason,
                          "speedup": n.get("speedup"), "ci": [n.get("ci_low"), n.get("ci_high")]})
            print(f"    gate: {r['candidate']}: {res.decision}, {n.get('speedup')} "
                  f"[{n.get('ci_low')}, {n.get('ci_high')}] {res.reason[:120]}", flush=True)
        rec["kernels"].append({"kernel": name, "baseline_config": base, "baseline_ms": base_ms,
                               "screened": rows, "gated": gated})
    return rec


def main() -> None:
    from pytest_kernelopt.backends import prepare, select_backend

    prepare("auto")
    backend = select_backend("auto")
    if not backend.measures_time:
        sys.exit(f"needs a GPU: {backend.description} measures no time")
    out, paths = Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]]
    records = []
    for p in paths:
        try:
            records.append(one(p, backend))
        except Exception as exc:  # one problem's failure is recorded and the run goes on
            records.append({"problem": p.stem, "error": f"{type(exc).__name__}: {exc}"[:2000]})
            print(f"{p.stem}: {records[-1]['error']}", flush=True)
        out.write_text(json.dumps(records, indent=1))


if __name__ == "__main__":
    main()
