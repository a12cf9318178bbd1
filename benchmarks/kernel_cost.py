"""What the judge's own statistics over a large output cost on the GPU, its Triton kernels against the torch
paths they replace: one keyed digest (gates/digests.py: the two digests must be the same) and one pass of
per-decade sums of a float32 output against its float64 truth, one comparison of two float32 outputs (gates/compare.py)
and the bias check's error moments (gates/fp64.py): the counts must be the same.

    python benchmarks/kernel_cost.py OUT.json [GiB ...]      (default 1 and 6: float32 outputs of that size)

Each size: the median of 5 timed calls of each path (after one untimed).
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import torch

from pytest_kernelopt.gates import (compare, decade_kernel, digest_kernel, digests, fp64, judge_kernels, moments_kernel,
                                    stats_kernel)


def _timed(fn, reps: int = 5) -> tuple[float, object]:
    fn()
    out, times = None, []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(out: str, sizes: list[float]) -> None:
    rows = []
    for gib in sizes:
        n = int(gib * 2**30) // 4
        t = torch.randn(n, device="cuda")
        t[7] = float("nan")
        key = (1 << 63) + 99
        k_s, k = _timed(lambda: digests.digest(t, key))
        assert not digest_kernel.status(), digest_kernel.status()
        with judge_kernels.torch_only():
            t_s, ref = _timed(lambda: digests.digest(t, key))
        row = {"what": "digest", "gib": gib, "elements": n, "kernel_s": round(k_s, 5), "torch_s": round(t_s, 5),
               "ratio": round(t_s / k_s, 1), "same": k == ref, "device": torch.cuda.get_device_name()}
        print(json.dumps(row), flush=True)
        rows.append(row)
        truth = t.double()
        t.add_(torch.randn_like(t).mul_(1e-4))
        k_s, k = _timed(lambda: compare.decade_sums(truth, t), reps=3)
        assert not decade_kernel.status(), decade_kernel.status()
        with judge_kernels.torch_only():
            t_s, ref = _timed(lambda: compare.decade_sums(truth, t), reps=3)
        same = k.keys() == ref.keys() and all(k[d][0] == ref[d][0] for d in k)
        close = all(abs(a - b) <= 1e-9 * abs(b) for d in k for a, b in zip(k[d], ref[d]))
        row = {"what": "decade sums", "gib": gib, "elements": n, "kernel_s": round(k_s, 5), "torch_s": round(t_s, 5),
               "ratio": round(t_s / k_s, 1), "same_counts": same, "sums_within_1e-9": close,
               "device": torch.cuda.get_device_name()}
        print(json.dumps(row), flush=True)
        rows.append(row)
        base = truth.float()
        k_s, k = _timed(lambda: compare._float_stats(t, base, 1.3e-6, 1e-5), reps=3)
        assert not stats_kernel.status(), stats_kernel.status()
        with judge_kernels.torch_only():
            t_s, ref = _timed(lambda: compare._float_stats(t, base, 1.3e-6, 1e-5), reps=3)
        row = {"what": "outputs compared", "gib": gib, "elements": n, "kernel_s": round(k_s, 5),
               "torch_s": round(t_s, 5), "ratio": round(t_s / k_s, 1),
               "same_counts_and_maxima": [k[0][i] for i in (0, 1, 2, 3, 4, 7)] == [ref[0][i] for i in (0, 1, 2, 3, 4, 7)]
               and k[1] == ref[1], "device": torch.cuda.get_device_name()}
        print(json.dumps(row), flush=True)
        rows.append(row)
        k_s, k = _timed(lambda: fp64._error_moments(t, base, truth), reps=3)
        assert not moments_kernel.status(), moments_kernel.status()
        with judge_kernels.torch_only():
            t_s, ref = _timed(lambda: fp64._error_moments(t, base, truth), reps=3)
        row = {"what": "error moments", "gib": gib, "elements": n, "kernel_s": round(k_s, 5),
               "torch_s": round(t_s, 5), "ratio": round(t_s / k_s, 1),
               "same_counts": k[0] == ref[0] and bool(torch.equal(k[4][0], ref[4][0])),
               "means": [k[1][0], ref[1][0]], "m2": [k[1][1], ref[1][1]], "device": torch.cuda.get_device_name()}
        print(json.dumps(row), flush=True)
        rows.append(row)
        del t, truth, base
        torch.cuda.empty_cache()
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], [float(s) for s in sys.argv[2:]] or [1.0, 6.0])
