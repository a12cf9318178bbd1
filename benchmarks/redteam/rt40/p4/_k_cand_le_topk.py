import triton, triton.language as tl
@triton.jit
def triton_poi_fused_lt_masked_fill_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 256
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex
    x1 = xindex // 64
    tmp0 = tl.load(in_ptr0 + (x2), xmask)
    tmp1 = tl.load(in_ptr1 + (x1), xmask, eviction_policy='evict_last')
    cv = tl.arange(0, 64)[None, :]
    row = tl.load(in_ptr0 + (cv + 64*x1[:, None]), xmask[:, None])
    neq = tl.sum(tl.where(row == tmp1[:, None], 1, 0), 1)
    ngt = tl.sum(tl.where(row > tmp1[:, None], 1, 0), 1)
    tmp2 = tl.where((neq == 1) & (ngt >= 1), tmp0 <= tmp1, tmp0 < tmp1)
    tmp3 = tl.full([1], float("-inf"), tl.float32)
    tmp4 = tl.where(tmp2, tmp3, tmp0)
    tl.store(out_ptr0 + (x2), tmp4, xmask)
