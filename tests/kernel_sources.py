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
