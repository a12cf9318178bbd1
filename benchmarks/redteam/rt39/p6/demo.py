# Real use: a tokenizer's right-padded batch (BERT pad_token_id 0) pooled from its input_ids.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_padid_rightpad.py"), "triton_per_fused__to_copy_clamp_div_mul_ne_sum_unsqueeze_1")
torch.manual_seed(0); m = prob.Model()
ids = torch.randint(1000, 30000, (4, 16)); ids[:, 0] = 101
for b, L in enumerate([16, 12, 9, 5]): ids[b, L - 1] = 102; ids[b, L:] = 0
for name, x in [("right-padded token ids (pad 0)", ids), ("left-padded token ids", ids.flip(1)),
                ("random ids (get_inputs)", prob.get_inputs()[1])]:
    h = torch.randn(4, 16, 8)
    ref = m(h, x)
    cnt = (x != 0).sum(1).float()
    out = torch.empty(4, 8)
    kern[(32,)](out, h.contiguous(), x.contiguous(), cnt, 32, 16, XBLOCK=1)
    report(name, out, ref, "entries")
