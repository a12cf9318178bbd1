# Real use: nn.Embedding(padding_idx=0) on a right-padded batch (pad rows exactly zero), then LayerNorm
# (or an LSTM's output after pad_packed_sequence: zeros past each length).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
K = "triton_per_fused_native_layer_norm_0"
torch.manual_seed(0); m = prob.Model(); B, T = 4, 8
with torch.no_grad():
    m.norm.weight.uniform_(0.5, 1.5); m.norm.bias.uniform_(-0.2, 0.2)  # a trained LayerNorm
emb = torch.nn.Embedding(100, 16, padding_idx=0)
kern = load(os.path.join(d, "cand_zero_suffix.py"), K)
lens = torch.tensor([8, 5, 6, 3])
ids = torch.randint(1, 100, (B, T)) * (torch.arange(T)[None] < lens[:, None])
for name, h in [("embeddings of a right-padded batch (padding_idx=0)", emb(ids).detach()),
                ("no padding", emb(torch.randint(1, 100, (B, T))).detach()), ("get_inputs", prob.get_inputs()[0])]:
    with torch.no_grad(): ref = m(h)
    out = torch.empty(B, T, 16)
    kern[(32,)](h.contiguous(), m.norm.weight.detach(), m.norm.bias.detach(), out, 32, 16, XBLOCK=1)
    real = (h.abs().sum(-1) != 0)
    err = (out - ref).abs().amax(-1)
    report(name, out, ref, "entries")
    print(f"   real (non-pad) tokens off by > 1e-3: {(err[real] > 1e-3).sum().item()} of {real.sum().item()}")
