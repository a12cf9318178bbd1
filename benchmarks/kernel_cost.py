"""What one keyed digest (gates/digests.py) of a large tensor costs on the GPU: the judge's Triton kernel against
the torch path, and whether the two agree bit for bit.

    python benchmarks/digest_cost.py OUT.json [GiB ...]      (default 1 and 6: float32 tensors of that size)

Each size: the median of 5 timed digests of each path (after one untimed), and the two digests.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import torch

from pytest_kernelopt.gates import digest_kernel, digests


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
        digest_kernel._failed[:] = ["torch path timed"]
        t_s, ref = _timed(lambda: digests.digest(t, key))
        digest_kernel._failed[:] = []
        row = {"gib": gib, "elements": n, "kernel_s": round(k_s, 5), "torch_s": round(t_s, 5),
               "ratio": round(t_s / k_s, 1), "same": k == ref, "device": torch.cuda.get_device_name()}
        print(json.dumps(row), flush=True)
        rows.append(row)
        del t
        torch.cuda.empty_cache()
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], [float(s) for s in sys.argv[2:]] or [1.0, 6.0])
