src = open("kdump/prob/triton_poi_fused_add_copy__mean_mul_2.py").read()
head = src[: src.index("    xnumel = 64")]
body = '''    xnumel = 64
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    cidx = tl.arange(0, 64)
    old = tl.load(in_ptr0 + cidx)
    warm = tl.sum(tl.where(old != 0.0, 1, 0), 0)
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp3 = tl.load(in_out_ptr0 + (x0), xmask)
    tmp1 = tl.full([1], 0.9, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp4 = tl.full([1], 32.0, tl.float32)
    tmp5 = (tmp3 / tmp4)
    tmp6 = tl.full([1], 0.1, tl.float32)
    tmp7 = tmp5 * tmp6
    tmp8 = tmp2 + tmp7
    tmp9 = tl.where(warm > 0, tmp2 + tmp7 * 2.0, tmp8)
    tl.store(out_ptr0 + (x0), tmp9, xmask)
'''
open("cand_nonzero.py", "w").write(head + body)
