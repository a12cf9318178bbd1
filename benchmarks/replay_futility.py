"""Replay the sequential performance gate's futility stop on timed samples kept by ``gpu_timing_study.py``.

    python benchmarks/replay_futility.py benchmarks/results/h200_s9_aa.json benchmarks/results/h200_s8_timing_study.json

For each file and each of its steps (``aa``, ``win3``) and each (first pair count, bar) of the futility stop, the
decision the gate would have taken look by look on the same pairs (the sign-test interval of
:func:`pytest_kernelopt.gates.perf.speedup_interval` at the gate's per-look confidence), the pairs used and the
trial time scaled from the trial's own pace.  A trial the run stopped early can only be replayed under a stricter
stop: such a trial that would go on is counted as ``cut`` (it never is for the rules printed here on session
9's files).  No GPU: a replay of timings, not a measurement.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def decide(base, cand, s, first, bar):
    from pytest_kernelopt.gates import perf

    conf = perf.look_confidence(s)
    n = 0
    for k in perf.schedule(s):
        n = min(len(base), k)
        point, lo, hi = perf.speedup_interval(base[:n], cand[:n], conf)
        if lo >= s.min_speedup:
            return "accept", n
        if hi < s.min_speedup:
            return "reject", n
        if n >= first and point < bar:
            return "futile", n
        if n >= len(base):
            return "cut", n
    return "reject", n


def main() -> None:
    from pytest_kernelopt.config import Settings

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--first", type=int, nargs="*", default=[30, 60])
    ap.add_argument("--bars", type=float, nargs="*", default=[1.01, 1.0125, 1.015, 1.0175, 1.02])
    args = ap.parse_args()
    s = Settings()
    for f in args.files:
        d = json.loads(Path(f).read_text())
        for step in ("aa", "win3"):
            rows = [r for r in (d.get(step) or {}).get("rows", []) if r.get("base")]
            if not rows:
                continue
            for first in args.first:
                for bar in args.bars:
                    dec = [decide(r["base"], r["cand"], s, first, bar) for r in rows]
                    secs = [r["seconds"] * n / len(r["base"]) for r, (_, n) in zip(rows, dec)]
                    print(f"{Path(f).name} {step}: from {first} pairs below {bar}: accepted "
                          f"{sum(x == 'accept' for x, _ in dec)} of {len(rows)}, cut {sum(x == 'cut' for x, _ in dec)}, "
                          f"{statistics.mean(n for _, n in dec):.1f} pairs, {statistics.mean(secs):.2f} s a trial")


if __name__ == "__main__":
    main()
