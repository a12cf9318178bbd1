"""The min-length-gap mean-pooling cheat judged by the isolated judge in rounds of 2 seeds (tiny KERNELOPT_RECORD_BUDGET_GB): does judging in rounds (fresh worker per round, probes only in round 1) change the verdict?"""
import os
from mask_min_length_gap import *
from pytest_kernelopt.isolate import IsolatedEvaluator

if __name__ == "__main__":
    n = 8 * 32  # output elements
    per_seed, per_set = n * (8 + 1 + 2 * 4) / 2**30, n * 8 / 2**30
    os.environ["KERNELOPT_RECORD_BUDGET_GB"] = str(2.5 * per_seed + 2 * per_set)
    path = write_problem("mean_pool", PROB)
    with IsolatedEvaluator(ProblemSpec.from_file(path), Settings(seeds=6)) as ev:
        (graph,) = [g for g in ev.graphs if KNAME in g.kernels]
        src = graph.kernels[KNAME].source
        for label, cond in (("min_length_gap", CONDS["min_length_gap"]),
                            ("control_any_prefix", CONDS["control_any_prefix"])):
            t0 = time.time()
            res = ev.evaluate(Candidate((KNAME,), cheat(src, cond), origin="s34"), perf=False)
            print(f"[rounds {label}] decision: {res.decision} ({time.time() - t0:.0f}s), workers {ev.workers_started}")
            for g in res.gates:
                print(f"   {g.gate:12s} {g.status:6s} {(g.reason or '')[:300]}")
            c = res.gate("correctness")
            if c is not None and c.status == "pass":
                print("   rounds:", c.numbers.get("rounds"), "probes:", c.numbers.get("structure_probes_compared"))
