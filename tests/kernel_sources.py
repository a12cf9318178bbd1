"""Hand-written Triton kernels shared by several tests."""

# One kernel for the two Inductor generates for torch.cumsum(x.flip(1), 1).flip(1): a reversed scan per row.
FUSED_REVERSE_CUMSUM = '''
import triton
import triton.language as tl


@triton.jit
def fused_reverse_cumsum(in_ptr, out_ptr, rnumel, RBLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, RBLOCK)
    mask = cols < rnumel
    x = tl.load(in_ptr + row * rnumel + cols, mask=mask, other=0.0)
    y = tl.cumsum(x, 0, reverse=True)
    tl.store(out_ptr + row * rnumel + cols, y, mask=mask)
'''


# The same reversed scan for rows of any length: chunks of RBLOCK from the end of the row, each chunk's
# reversed scan plus the sum of everything after it (the carry).  One program per row.
FUSED_REVERSE_CUMSUM_CHUNKED = '''
import triton
import triton.language as tl


@triton.jit
def fused_reverse_cumsum_chunked(in_ptr, out_ptr, rnumel, RBLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = tl.sum(tl.zeros([RBLOCK], dtype=tl.float32), 0)
    nchunks = tl.cdiv(rnumel, RBLOCK)
    for i in range(0, nchunks):
        cols = (nchunks - 1 - i) * RBLOCK + tl.arange(0, RBLOCK)
        mask = cols < rnumel
        x = tl.load(in_ptr + row * rnumel + cols, mask=mask, other=0.0)
        y = tl.cumsum(x, 0, reverse=True) + carry
        tl.store(out_ptr + row * rnumel + cols, y, mask=mask)
        carry += tl.sum(x, 0)
'''


def reverse_cumsum_launch(graph, run, kernel: str, rows: int, rblock: int, num_warps: int = 4) -> dict:
    """The launch spec a fusion answer gives for a reversed-scan kernel replacing ``run`` (flip..scan..flip):
    the first kernel's input, the last kernel's output, the row length, one program per row."""
    first, last = run[0], run[-1]
    r_param = next(p for p in graph.kernels[first].runtime_params if p.startswith("r"))
    return {"kernel": kernel, "args": [f"{first}.in_ptr0", f"{last}.out_ptr0", f"{first}.{r_param}"],
            "grid": f"({rows},)", "num_warps": num_warps, "constexprs": {"RBLOCK": rblock}}
