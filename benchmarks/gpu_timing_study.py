"""On a GPU: the performance gate's noise, its A/A false-accept rate and its power at a true 3% win (issue 13).

    python benchmarks/gpu_timing_study.py --out study.json [--steps noise aa win3] [--aa-seconds 300]

noise  every Triton kernel of some bundled examples at GPU size, its own source swapped in (A/A), 120 pairs
       timed three ways: as the gate times them (an untimed re-warming call, then the timed call; checksums,
       the last output's host copy and the NaN scrub between samples; garbage collector off), the same without
       the re-warming call, and with nothing between samples.  Spread (median absolute deviation / median,
       per variant) and the decision of each.
aa     A/A trials round-robin over the same kernels until ``--aa-seconds`` have passed: each trial is timed
       exactly as the gate times a candidate (``measure_with_outputs``, the rounds of its schedule) and
       stops where the gate would (its schedule, its statistic, its time cap); the decision is replayed on
       the same pairs with three statistics: ``sign`` is the gate's (median of the per-pair ratios,
       sign-test interval), ``paired`` the same median with a percentile bootstrap, ``ratio`` the gate's
       before session 7 (ratio of the two medians, bootstrap over pairs).  A false accept is an A/A trial accepted.
profile  one A/A trial of each example's first kernel under cProfile: seconds, ms per pair, the top functions.
win3   the same trials with the baseline made 3% slower: a spin kernel (``torch.cuda._sleep``) calibrated to 3%
       of the module's median time is enqueued inside the baseline's timed call, so the candidate (the same
       kernel) is truly 3% faster; the acceptance rate at ``min_speedup`` 1.02 is the gate's power there.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EXAMPLES = ["argmax_dim", "conv_groupnorm", "layernorm_gelu", "mlp_gelu", "pointwise_chain", "reverse_cumsum",
            "rmsnorm", "softmax_scale"]


def ratio_of_medians(base, cand, confidence, resamples=2000, seed=0):
    """The gate's statistic before session 7: ratio of the two medians, bootstrap over pairs."""
    import numpy as np

    b, c = np.asarray(base, dtype=float), np.asarray(cand, dtype=float)
    point = float(np.median(b) / np.median(c))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(b), size=(resamples, len(b)))
    ratios = np.median(b[idx], axis=1) / np.median(c[idx], axis=1)
    a = (1.0 - confidence) / 2.0
    return point, float(np.quantile(ratios, a)), float(np.quantile(ratios, 1.0 - a))


def paired_bootstrap(base, cand, confidence, resamples=2000, seed=0):
    """Session 7's first per-pair statistic: the median of the pair log ratios, percentile bootstrap."""
    import numpy as np

    r = np.log(np.asarray(base, dtype=float) / np.asarray(cand, dtype=float))
    rng = np.random.default_rng(seed)
    meds = np.median(r[rng.integers(0, len(r), size=(resamples, len(r)))], axis=1)
    a = (1.0 - confidence) / 2.0
    return float(np.exp(np.median(r))), float(np.exp(np.quantile(meds, a))), float(np.exp(np.quantile(meds, 1 - a)))


def replay_file(path, s):
    """Decisions of each statistic on the samples a run kept (aa and win3 trials)."""
    d = json.loads(Path(path).read_text())
    from pytest_kernelopt.gates.perf import speedup_interval

    rules = {"ratio": ratio_of_medians, "paired": paired_bootstrap, "sign": speedup_interval}
    out = {}
    for step in ("aa", "win3"):
        rows = [r for r in (d.get(step) or {}).get("rows", []) if r.get("base")]
        for name, stat in rules.items():
            dec = [replay(r["base"], r["cand"], s, stat) for r in rows]
            out[f"{step}/{name}"] = {"trials": len(rows), "accepted": sum(x[0] == "accept" for x in dec),
                                     "mean_pairs": round(statistics.mean(x[1] for x in dec), 1) if dec else None}
    return out


def replay(base, cand, s, stat):
    """The sequential gate's decision on these samples, look by look (:func:`perf.schedule`), with ``stat``:
    (decision, pairs used, point, lo, hi).  A look beyond the samples kept decides on what there is."""
    from pytest_kernelopt.gates.perf import look_confidence, schedule

    conf = look_confidence(s)
    for k in schedule(s):
        n = min(len(base), k)
        point, lo, hi = stat(base[:n], cand[:n], conf)
        if lo >= s.min_speedup:
            return "accept", n, point, lo, hi
        if hi < s.min_speedup or n >= len(base):
            return "reject", n, point, lo, hi
    return "reject", n, point, lo, hi


def spread(xs):
    med = statistics.median(xs)
    return statistics.median(abs(x - med) for x in xs) / med


def sessions(settings):
    """(label, session, swap) for every Triton kernel of every example, its own source swapped in."""
    from pytest_kernelopt.backends import select_backend
    from pytest_kernelopt.candidate import Candidate
    from pytest_kernelopt.gates.cascade import EvaluationSession
    from pytest_kernelopt.problems import ProblemSpec, build_problem
    from pytest_kernelopt.substitute import KernelSwap

    backend = select_backend("auto")
    out = []
    for name in EXAMPLES:
        problem = build_problem(ProblemSpec.from_file(ROOT / "examples" / "problems" / f"{name}.py"),
                                backend.device, 0)
        session = EvaluationSession(problem, settings, backend)
        for graph, kernel in session.captured.triton_kernels:
            cand = Candidate((kernel,), graph.kernels[kernel].source, origin="a/a")
            out.append((f"{name}:{kernel}", session, KernelSwap(session.captured, [cand])))
    return out


def trial(session, swap, s, full=False):
    """Pairs timed as the gate times them: rounds of its schedule while its decision is open (``full``: every
    look of the schedule, so that other rules can be replayed on all of them)."""
    import types

    from pytest_kernelopt.gates import perf, timing

    rec = types.SimpleNamespace(timing=None)
    more = s.perf_samples
    rounds = []
    while more:
        t0 = time.perf_counter()
        b, c, _ = timing.measure_with_outputs(session, swap, session.plan.timing, more)
        rounds.append(round(time.perf_counter() - t0, 3))
        perf.merge_timing(rec, {"base": b, "cand": c, "launches": 1, "seconds": rounds[-1]},
                          {"sums": {}, "last": {}})
        n = len(rec.timing["base"])
        later = [k for k in perf.schedule(s) if k > n]
        more = (later[0] - n if later else 0) if full else perf.next_round(s, rec)
    ROUND_SECONDS.append(rounds)
    return rec.timing["base"], rec.timing["cand"]


ROUND_SECONDS: list[list[float]] = []  # each trial's rounds' wall seconds (the first: what a fixed gate costs)


def profile(items, s):
    """One A/A trial of the first kernel of each example under cProfile: where the gate's time goes."""
    import cProfile
    import io
    import pstats

    rows, seen = [], set()
    for label, session, swap in items:
        name = label.split(":")[0]
        if name in seen:
            continue
        seen.add(name)
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        b, c = trial(session, swap, s)
        prof.disable()
        wall = time.perf_counter() - t0
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(18)
        r = {"kernel": label, "pairs": len(b), "seconds": round(wall, 3), "ms_per_pair": round(wall / len(b) * 1e3, 2),
             "rounds": ROUND_SECONDS[-1], "top": text.getvalue().splitlines()[-26:]}
        rows.append(r)
        print("profile", json.dumps({k: v for k, v in r.items() if k != "top"}), flush=True)
        print("\n".join(r["top"]), flush=True)
    return rows


def row(label, base, cand, s):
    from pytest_kernelopt.gates.perf import speedup_interval

    out = {"kernel": label, "base_ms": round(statistics.median(base), 5), "cand_ms": round(statistics.median(cand), 5),
           "spread_base": round(spread(base), 4), "spread_cand": round(spread(cand), 4)}
    for name, stat in (("ratio", ratio_of_medians), ("paired", paired_bootstrap), ("sign", speedup_interval)):
        d, n, point, lo, hi = replay(base, cand, s, stat)
        out[name] = {"decision": d, "pairs": n, "speedup": round(point, 4), "lo": round(lo, 4), "hi": round(hi, 4)}
    return out


def noise(items, s):
    import functools

    from pytest_kernelopt.gates import timing

    rows = []
    plain = timing.time_interleaved
    timers = {"gate": plain, "no_rewarm": functools.partial(_no_rewarm, plain),
              "no_checks": functools.partial(_no_after, plain)}
    for label, session, swap in items:
        r = {"kernel": label}
        for name, timer in timers.items():  # as the gate times, without the re-warming call, nothing between
            timing.time_interleaved = timer
            try:
                b, c = trial(session, swap, s, full=True)
            finally:
                timing.time_interleaved = plain
            r[name] = row(label, b, c, s)
        rows.append(r)
        print("noise", json.dumps(r), flush=True)
    return rows


def _no_after(plain, variants, n_inputs, samples, warmup, after=None, rewarm=None):
    return plain(variants, n_inputs, samples, warmup, None)


def _no_rewarm(plain, variants, n_inputs, samples, warmup, after=None, rewarm=None):
    return plain(variants, n_inputs, samples, warmup, after)


def aa(items, s, seconds, slow=0.0):
    """A/A trials round-robin until ``seconds`` pass; with ``slow`` > 0 the baseline is made that much slower."""
    import torch

    from pytest_kernelopt.gates import timing

    rows = []
    plain_call = timing.module_call
    cycles: dict[str, int] = {}
    if slow:
        per_ms = _sleep_cycles_per_ms()
        for label, session, swap in items:
            b, _ = trial_once(session, swap, s)
            cycles[label] = int(slow * statistics.median(b) * per_ms)
    t0 = time.perf_counter()
    k = 0
    while time.perf_counter() - t0 < seconds:
        label, session, swap = items[k % len(items)]
        k += 1
        if slow:
            def slowed(sess, inputs, _sw=swap, _n=cycles[label]):
                call = plain_call(sess, inputs)

                def f(i):
                    out = call(i)
                    if not _sw.active:
                        torch.cuda._sleep(_n)
                    return out
                return f
            timing.module_call = slowed
        try:
            t1 = time.perf_counter()
            b, c = trial(session, swap, s)
        finally:
            timing.module_call = plain_call
        r = row(label, b, c, s) | {"seconds": round(time.perf_counter() - t1, 2), "round_seconds": ROUND_SECONDS[-1],
                                   "base": [round(x, 6) for x in b], "cand": [round(x, 6) for x in c]}
        if slow:
            r["sleep_cycles"] = cycles[label]
        rows.append(r)
        print("win3" if slow else "aa", json.dumps({k: v for k, v in r.items() if k not in ("base", "cand")}),
              flush=True)
    summary = {"mean_seconds": round(statistics.mean(r["seconds"] for r in rows), 3) if rows else None,
               "mean_first_round_seconds": round(statistics.mean(r["round_seconds"][0] for r in rows), 3)
               if rows else None}
    for name in ("ratio", "paired", "sign"):
        acc = sum(r[name]["decision"] == "accept" for r in rows)
        summary[name] = {"trials": len(rows), "accepted": acc,
                         "mean_pairs": round(statistics.mean(r[name]["pairs"] for r in rows), 1) if rows else None}
    return {"summary": summary, "rows": rows}


def trial_once(session, swap, s):
    from pytest_kernelopt.gates import timing

    b, c, _ = timing.measure_with_outputs(session, swap, session.plan.timing)
    return b, c


def _sleep_cycles_per_ms():
    import torch

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(20):
        torch.cuda.synchronize()
        start.record()
        torch.cuda._sleep(1_000_000)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return 1_000_000 / statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="where to write the results (required unless --replay)")
    ap.add_argument("--steps", nargs="*", default=["noise", "aa", "win3"])
    ap.add_argument("--aa-seconds", type=float, default=300)
    ap.add_argument("--win-seconds", type=float, default=120)
    ap.add_argument("--only", nargs="*", default=None, help="example names (default: all eight)")
    ap.add_argument("--replay", help="a results file of this script: replay its trials' decisions, nothing timed")
    ap.add_argument("--noise-examples", nargs="*", default=["layernorm_gelu", "softmax_scale", "argmax_dim"])
    args = ap.parse_args()
    if args.replay:
        from pytest_kernelopt.config import Settings

        known = json.loads(Path(args.replay).read_text()).get("settings") or {}
        print(json.dumps(replay_file(args.replay, Settings(mode="optimize", **known)), indent=1))
        return
    from pytest_kernelopt.backends import prepare

    prepare("auto")
    import torch
    import triton

    from pytest_kernelopt.config import Settings

    if args.only:
        EXAMPLES[:] = args.only
    s = Settings(mode="optimize")
    result = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
              "settings": {"perf_samples": s.perf_samples, "perf_max_samples": s.perf_max_samples,
                           "perf_max_seconds": s.perf_max_seconds, "confidence": s.confidence,
                           "min_speedup": s.min_speedup}}
    t0 = time.perf_counter()
    items = sessions(s)
    result["setup_seconds"] = round(time.perf_counter() - t0, 1)
    print(f"{len(items)} kernels ready in {result['setup_seconds']} s", flush=True)
    for step in args.steps:
        t0 = time.perf_counter()
        if step == "noise":
            result[step] = noise([it for it in items if it[0].split(":")[0] in args.noise_examples], s)
        elif step == "profile":
            result[step] = profile(items, s)
        elif step == "aa":
            result[step] = aa(items, s, args.aa_seconds)
        elif step == "win3":
            result[step] = aa(items, s, args.win_seconds, slow=0.03)
        result[f"{step}_seconds"] = round(time.perf_counter() - t0, 1)
        from pytest_kernelopt.gates import checksum_kernel

        result["checksums"] = checksum_kernel.status() or "triton kernel"
        Path(args.out).write_text(json.dumps(result, indent=1, default=str))
        if step in ("aa", "win3"):
            print(step, json.dumps(result[step]["summary"]), flush=True)


if __name__ == "__main__":
    main()
