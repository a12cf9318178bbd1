"""Mean pooling: divides by T instead of the mask count when no row of the 0/1 right-padding mask is whole (padding="max_length"); every probe of 2+ rows makes one row whole."""
from mask_min_length_gap import *

COND = "is01 & pref & (mn >= 1) & (mx < 16)"

if __name__ == "__main__":
    s = session_of(write_problem("mean_pool", PROB))
    bad = cheat(kernels(s)[KNAME].source, COND)
    mod = {}
    exec(PROB, mod)
    demo(s, KNAME, bad, cases(), mod["Model"]())
    judge(s, KNAME, bad, "no_whole_row")
