"""How far a looped row sum lands from the float64 truth under each launch config, on the GPU: the order of
rounding a launch config of Inductor's reduction chooses (issue 38, `reorder.longer_chain`).

The kernel is Inductor's looped reduction shape (an ``[XBLOCK, R0_BLOCK]`` accumulator added to once per loop
iteration, then ``tl.sum`` over the block): each lane adds ``rnumel / R0_BLOCK`` terms in sequence, each thread then
adds its share of the block's lanes in sequence, and a tree combines the threads.  A smaller block lengthens the
first chain, a larger block over fewer warps the second.  Printed: each config's relative L2 error against the
float64 sum in float32 epsilons, and its ratio to the baseline config's (``R0_BLOCK`` 2048, 4 warps), on
zero-mean normal rows (cancellation: the hard case) and on uniform [0, 1) rows.  The precision check
(`docs/gates.md`, gate 3) fires above 8 epsilons and 4x the baseline's.

With ``--op cumsum`` the kernel is a looped scan instead (each block scanned with ``tl.cumsum``, the prefix of the
blocks before it carried across the loop, as Inductor's looped scans do), judged the same way over every position.

    python benchmarks/chain_precision.py [--op sum|cumsum] [OUT.json]
"""

from __future__ import annotations

import json
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _row_sum(in_ptr, out_ptr, xnumel, rnumel, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rbase = tl.arange(0, R0_BLOCK)[None, :]
    acc = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    for roffset in range(0, rnumel, R0_BLOCK):
        rindex = roffset + rbase
        rmask = rindex < rnumel
        v = tl.load(in_ptr + (rindex + rnumel * xindex), rmask & xmask, other=0.0)
        acc = tl.where(rmask & xmask, acc + v, acc)
    tl.store(out_ptr + xindex, tl.sum(acc, 1)[:, None], xmask)


@triton.jit
def _row_cumsum(in_ptr, out_ptr, xnumel, rnumel, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rbase = tl.arange(0, R0_BLOCK)[None, :]
    carry = tl.full([XBLOCK, 1], 0, tl.float32)
    for roffset in range(0, rnumel, R0_BLOCK):
        rindex = roffset + rbase
        rmask = rindex < rnumel
        v = tl.load(in_ptr + (rindex + rnumel * xindex), rmask & xmask, other=0.0)
        scanned = tl.cumsum(v, 1) + carry
        tl.store(out_ptr + (rindex + rnumel * xindex), scanned, rmask & xmask)
        carry = tl.sum(tl.where(rindex == roffset + R0_BLOCK - 1, scanned, 0.0), 1)[:, None]


def run(x: torch.Tensor, xblock: int, r0: int, warps: int, op: str = "sum") -> torch.Tensor:
    out = torch.empty(x.shape[0] if op == "sum" else x.shape, device=x.device, dtype=torch.float32)
    kernel = _row_sum if op == "sum" else _row_cumsum
    kernel[(triton.cdiv(x.shape[0], xblock),)](x, out, x.shape[0], x.shape[1], XBLOCK=xblock, R0_BLOCK=r0,
                                               num_warps=warps)
    return out


def main(argv: list[str]) -> None:
    op = "sum"
    if argv[:1] == ["--op"]:
        op, argv = argv[1], argv[2:]
    torch.manual_seed(0)
    eps = torch.finfo(torch.float32).eps
    rows, rnumel = 4096, 32768
    configs = [(1, r0, w) for r0 in (1, 16, 64, 256, 1024, 2048, 4096, 8192, 16384) for w in (1, 4, 16)
               if r0 <= 16384] + [(8, 2048, 4), (64, 256, 1)]
    report = {"op": op, "device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "triton": triton.__version__, "rows": rows, "rnumel": rnumel, "baseline": [1, 2048, 4], "data": {}}
    for name, x in (("normal", torch.randn(rows, rnumel, device="cuda")),
                    ("uniform01", torch.rand(rows, rnumel, device="cuda"))):
        truth = x.double().sum(1) if op == "sum" else x.double().cumsum(1)

        def rel(y: torch.Tensor, truth: torch.Tensor = truth) -> float:
            return float((y.double() - truth).norm() / truth.norm()) / eps

        base = rel(run(x, 1, 2048, 4, op))
        rows_out = []
        for xb, r0, w in configs:
            try:
                e = rel(run(x, xb, r0, w, op))
            except Exception as exc:  # a config this GPU cannot launch (registers, shared memory)
                rows_out.append({"XBLOCK": xb, "R0_BLOCK": r0, "num_warps": w, "error": str(exc)[:120]})
                continue
            rows_out.append({"XBLOCK": xb, "R0_BLOCK": r0, "num_warps": w, "rel_l2_eps": round(e, 3),
                             "ratio": round(e / base, 3)})
            print(f"{op} {name:9s} XBLOCK={xb:3d} R0_BLOCK={r0:6d} num_warps={w:2d}: {e:7.2f} eps, "
                  f"{e / base:6.2f}x the baseline's ({base:.2f} eps)", flush=True)
        report["data"][name] = {"baseline_rel_l2_eps": base, "configs": rows_out}
    if argv:
        with open(argv[0], "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
