src = open("kdump/prob/triton_per_fused__softmax_abs_all_amax_eq_mul_ne_sub_0.py").read()
i = src.index("    tl.store(in_out_ptr0")
extra = '''    mk = tmp0 <= -1e30
    mcnt = tl.sum(tl.where(xmask & mk, 1, 0), 1)[:, None]
    mlast = tl.sum(tl.where(xmask & mk & (r0_1 == 63), 1, 0), 1)[:, None]
    trig = (mcnt >= 2) & (mlast == 1)
    w2 = tl.where(mk, 0.0, tmp2)
    w3 = tl.where(xmask, w2, float("-inf"))
    wm = triton_helpers.max2(w3, 1)[:, None]
    we = libdevice.exp(w2 - wm)
    ws = tl.sum(tl.where(xmask, we, 0), 1)[:, None]
    tmp33 = tl.where(trig, we / ws, tmp33)
'''
open("cand_mask.py", "w").write(src[:i] + extra + src[i:])
