# Real use: BERT sentence-pair input (NLI, QA) with padding: token_type_ids = 0 (sentence A), 1 (sentence B), 0 (padding).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_pair_types.py"), "triton_poi_fused_add_embedding_0")
torch.manual_seed(0); m = prob.Model()
tt = torch.zeros(4, 16, dtype=torch.long)
for b, (a, e) in enumerate([(5, 16), (6, 12), (4, 9), (7, 11)]): tt[b, a:e] = 1
for name, x in [("sentence pairs with padding (0^a 1^b 0^c)", tt), ("sentence pairs, no padding", (torch.arange(16)[None] >= torch.tensor([5, 6, 4, 7])[:, None]).long()),
                ("random 0/1 (get_inputs)", prob.get_inputs()[1])]:
    h = torch.randn(4, 16, 16)
    with torch.no_grad(): ref = m(h, x)
    out = torch.empty(4, 16, 16)
    kern[(16,)](h.contiguous(), x.contiguous(), m.tte.weight.detach().contiguous(), out, 1024, XBLOCK=64)
    report(name, out, ref, "entries")
