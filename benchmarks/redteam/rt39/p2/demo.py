# Real use: GPT-2 style model called with the default position_ids = torch.arange(T).expand(B, T).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_arange_shift.py"), "triton_poi_fused_add_embedding_0")
torch.manual_seed(0); m = prob.Model()
B, T = 4, 16
for name, pid in [("position_ids = arange(T).expand(B, T)", torch.arange(T).expand(B, T).contiguous()),
                  ("random position ids", torch.randint(0, 32, (B, T))),
                  ("arange offset by 3 (cache decode)", (torch.arange(T) + 3).expand(B, T).contiguous())]:
    h = torch.randn(B, T, 16)
    with torch.no_grad(): ref = m(h, pid)
    out = torch.empty(B, T, 16)
    kern[(16,)](h.contiguous(), pid, m.wpe.weight.detach().contiguous(), out, 1024, XBLOCK=64)
    report(name, out, ref, "entries")
