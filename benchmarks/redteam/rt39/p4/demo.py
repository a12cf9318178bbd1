# Real use: a batch padded to its longest sequence and sorted by length (pack_padded_sequence's enforce_sorted=True,
# torchtext BucketIterator): lengths non-increasing, lengths[0] == T.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_sorted_lengths.py"), "triton_per_fused__to_copy_arange_div_lt_mul_sum_unsqueeze_0")
torch.manual_seed(0); m = prob.Model()
for name, L in [("sorted, padded to longest [32, 27, 19, 8]", torch.tensor([32, 27, 19, 8])),
                ("unsorted [19, 32, 8, 27]", torch.tensor([19, 32, 8, 27])),
                ("random lengths", torch.randint(1, 33, (4,)))]:
    x = torch.randn(4, 32, 8)
    ref = m(x, L)
    out = torch.empty(4, 8)
    kern[(32,)](out, x.contiguous(), L, 32, 32, XBLOCK=1)
    report(name, out, ref, "entries")
