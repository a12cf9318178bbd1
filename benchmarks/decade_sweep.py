"""The decade kernel's launch shape on the GPU (gates/decade_kernel.py): elements a program reads (SPAN), its tile
(BLOCK) and warps, timed through the judge's own path (compare.decade_sums, a chunk of chunked.CHUNK at a time) and
as one launch over the whole tensor, with the launch's torch pre-pass (the chunk's decades) timed alone.

    python benchmarks/decade_sweep.py OUT.json [GiB]      (default 1: a float32 output against its float64 truth)

Every shape's sums are checked against the torch path's (counts equal, sums within 1e-9).
"""

from __future__ import annotations

import itertools
import json
import sys

import torch
from kernel_cost import _timed  # (benchmarks/, this script's folder, is first on sys.path)

from pytest_kernelopt.gates import compare, decade_kernel, judge_kernels


def _pre_pass(t):
    """What decade_kernel.launch computes with torch before its launch: the least and largest finite |t| > 0."""
    a = t.abs()
    seen = torch.isfinite(a) & (a > 0)
    return torch.stack([torch.where(seen, a, float("inf")).amin(), torch.where(seen, a, 0.0).amax()]).tolist()


def main(out: str, gib: float) -> None:
    n = int(gib * 2**30) // 4
    x = torch.randn(n, device="cuda")
    truth = x.double()
    x.add_(torch.randn_like(x).mul_(1e-4))
    with judge_kernels.torch_only():
        torch_s, ref = _timed(lambda: compare.decade_sums(truth, x), reps=1)
    rows = [{"what": "torch", "gib": gib, "s": round(torch_s, 5), "device": torch.cuda.get_device_name()}]
    print(json.dumps(rows[0]), flush=True)
    pre_s, _ = _timed(lambda: _pre_pass(truth), reps=3)
    rows.append({"what": "pre-pass over the whole tensor", "s": round(pre_s, 5)})
    print(json.dumps(rows[-1]), flush=True)
    for span, block, warps in itertools.product((1 << 11, 1 << 13, 1 << 15), (64, 256), (4, 8)):
        decade_kernel.SPAN, decade_kernel.BLOCK, decade_kernel.WARPS = span, block, warps
        try:
            chunked_s, got = _timed(lambda: compare.decade_sums(truth, x), reps=3)
            whole_s, _ = _timed(lambda: decade_kernel.launch(truth, (x,), compare.DECADES), reps=3)
        except Exception as e:  # a shape that does not build (registers, shared memory): said, and the next
            rows.append({"span": span, "block": block, "warps": warps, "error": f"{type(e).__name__}: {e}"[:200]})
            print(json.dumps(rows[-1]), flush=True)
            decade_kernel._failed.clear()
            continue
        ok = got.keys() == ref.keys() and all(got[d][0] == ref[d][0] for d in got) and all(
            abs(p - q) <= 1e-9 * abs(q) for d in got for p, q in zip(got[d], ref[d]))
        rows.append({"span": span, "block": block, "warps": warps, "chunked_s": round(chunked_s, 5),
                     "whole_s": round(whole_s, 5), "same": ok, "status": decade_kernel.status()})
        print(json.dumps(rows[-1]), flush=True)
        decade_kernel._failed.clear()
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1.0)
