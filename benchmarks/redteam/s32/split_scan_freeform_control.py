"""Control: the same kernel and R0_BLOCK=16384 with one comment line added (free_form): the precision check applies."""
from common import *
import torch.nn as nn
class Cum(nn.Module):
    def forward(self, x): return torch.cumsum(x, -1)
torch.manual_seed(0)
s = make_session(Cum(), (torch.randn(2, 16384),), "cumsum_split")
graph, kname = next((g, n) for g, n in s.captured.triton_kernels if ls.kind_of(g.kernels[n]) == "split_scan")
cand = Candidate((kname,), graph.kernels[kname].source + "\n# rt32\n", ({"R0_BLOCK": 16384, "num_warps": 16, "num_stages": 1},), origin="rt32")
print("class:", classify(s, cand)[0])
res = s.evaluate(cand, perf=False)
fp = res.gate("fp64")
print("decision:", res.decision, (res.reason or "")[:300])
if fp: print({k: v for k, v in fp.numbers.items() if "err" in k or "ratio" in k})
