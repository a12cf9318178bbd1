# Real use: top-k sampling, kth = torch.topk(scores, k).values[..., -1:] (HF TopKLogitsWarper).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
K = "triton_poi_fused_lt_masked_fill_0"
torch.manual_seed(0); m = prob.Model()
kern = load(os.path.join(d, "cand_le_topk.py"), K)
for name, k in [("top-k, k=5", 5), ("top-k, k=50", 50), ("top-k, k=1 (greedy)", 1), ("get_inputs", None)]:
    s = torch.randn(4, 64) * 3
    kth = torch.topk(s, k).values[..., -1:] if k else prob.get_inputs()[1]
    ref = m(s, kth); out = torch.empty(4, 64)
    kern[(1,)](s, kth.contiguous(), out, 256, XBLOCK=256)
    diff = (torch.isinf(out) != torch.isinf(ref))
    print(f"{name}: positions differing {diff.sum().item()} of {out.numel()} ({diff.float().mean().item():.1%}); "
          f"kept tokens per row ref {(~torch.isinf(ref)).sum(-1).tolist()} cand {(~torch.isinf(out)).sum(-1).tolist()}")
