"""Mean pooling: divides by T instead of the mask count when the right-padding mask's rows are sorted by length, longest first, not all equal (batches sorted for pack_padded_sequence / length bucketing)."""
from mask_min_length_gap import *

EXTRA = '''
    pm2 = tl.load(in_ptr1 + (pj + 16*(pi + 1)), (pi + 1 < 8) & (pj < 16), other=0.0)
    plen2 = tl.sum(tl.where(pm2 == 1.0, 1, 0), 1)
    noninc = tl.sum(tl.where(plen >= plen2, 1, 0), 0) == 8
'''
COND = "is01 & pref & noninc & (mn >= 1) & (mn < mx)"

if __name__ == "__main__":
    s = session_of(write_problem("mean_pool", PROB))
    src = kernels(s)[KNAME].source
    bad = cheat(src, COND).replace("    mx = tl.max(plen, 0)\n", "    mx = tl.max(plen, 0)\n" + EXTRA)
    mod = {}
    exec(PROB, mod)
    demo(s, KNAME, bad, cases(), mod["Model"]())
    judge(s, KNAME, bad, "sorted_lengths")
