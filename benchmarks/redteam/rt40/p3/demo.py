# Real use: idx a permutation of x's rows (PackedSequence.unsorted_indices restoring batch order, MoE un-permute, a shuffle).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
K = "triton_poi_fused_add_index_mul_0"
torch.manual_seed(0); m = prob.Model()
kern = load(os.path.join(d, "cand_perm_skip.py"), K)
lens = torch.randint(1, 20, (16,))
unsorted = torch.sort(lens, descending=True)[1].argsort()   # what pack_padded_sequence(enforce_sorted=False) stores
for name, idx in [("randperm", torch.randperm(16)), ("unsorted_indices", unsorted), ("arange (identity)", torch.arange(16)),
                  ("get_inputs", prob.get_inputs()[1])]:
    x = torch.randn(16, 32); y = torch.randn(16, 32)
    ref = m(x, idx, y); out = torch.empty(16, 32)
    kern[(2,)](idx.contiguous(), x, y, out, 512, XBLOCK=256)
    report(name, out, ref, "entries")
