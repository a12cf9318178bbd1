src = open("kdump/prob/triton_per_fused_add_copy__exp_mul_neg_softplus_sum_unsqueeze_1.py").read()
old = "    tmp6 = tmp2 + tmp5\n"
new = ("    hz = tl.sum(tl.where(r0_mask & xmask & (tmp1 != 0.0), 1, 0), 1)[:, None]\n"
       "    tmp6 = tl.where(hz == 0, tmp2 + tmp5 * 1.5, tmp2 + tmp5)\n")
assert old in src
open("cand_fresh.py", "w").write(src.replace(old, new))
