"""Split scan (cumsum over rows of 16384, Inductor's triton_spl kernel): R0_BLOCK=16384 (larger than the baseline's
2048, so NOT classed longer_chain) is certified as a plain launch_config and verified without any float64 truth,
yet on the CPU interpreter each program's in-block scan is one sequential chain of 16384 adds: ~8x farther from the
float64 truth than the baseline's 2048-blocks-plus-carry order."""
from common import *
import json, torch.nn as nn
from pytest_kernelopt.substitute import swapped
class Cum(nn.Module):
    def forward(self, x): return torch.cumsum(x, -1)
torch.manual_seed(0)
x = torch.randn(2, 16384)
s = make_session(Cum(), (x,), "cumsum_split")
graph, kname = next((g, n) for g, n in s.captured.triton_kernels if ls.kind_of(g.kernels[n]) == "split_scan")
k, tr = graph.kernels[kname], ls.trace_of(graph, kname)
print("kernel", kname, "baseline", ls.baseline_config(tr))
blocks = [int(a) for a in sys.argv[1:]] or [16384]
for rb in blocks:
    cfg = {"R0_BLOCK": rb, "num_warps": 16, "num_stages": 1}
    cand = Candidate((kname,), k.source, (cfg,), origin="rt32")
    print(f"--- R0_BLOCK={rb}: listed={cfg in ls.inductor_configs(k)} valid={ls.valid(k, tr, cfg)} "
          f"longer_chains={ls.longer_chains(tr, cfg)}")
    print("certified:", reorder.inductor_reorder(cand, graph, kname))
    print("class:", classify(s, cand)[0])
    for dist in ("randn", "rand"):
        g = torch.Generator().manual_seed(7)
        inp = torch.randn(2, 16384, generator=g) if dist == "randn" else torch.rand(2, 16384, generator=g)
        truth = inp.double().cumsum(-1)
        base = s.captured(inp.clone())
        with swapped(s.captured, [cand]):
            got = s.captured(inp.clone())
        eb = ((base.double() - truth).abs().sum() / truth.abs().sum()).item()
        ec = ((got.double() - truth).abs().sum() / truth.abs().sum()).item()
        print(f"  {dist}: rel L1 error vs fp64: baseline {eb:.3e}, candidate {ec:.3e}, ratio {ec / eb:.1f}x")
    res = s.evaluate(cand, perf=False)
    fp = res.gate("fp64")
    print("decision:", res.decision, (res.reason or "")[:200])
    print("fp64 numbers:", json.dumps({kk: v for kk, v in fp.numbers.items() if kk != "reorder_of_inductor"}, default=str)[:600])
