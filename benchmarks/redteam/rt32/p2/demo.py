# The running normaliser in a streaming loop, as in real use (build once, a fresh batch every call): the
# compiled graph's kernels as Inductor wrote them (batch sums / M2, the output from the old statistics plus
# the batch's), with the in-place EMA update (`triton_poi_fused_add_copy__mean_mul_2`, launched twice as
# Inductor launches it: once for running_mean, once for running_var, XBLOCK 32, grid 1) replaced by the
# candidate, run in the Triton interpreter; the eager module is the reference.
# usage: python demo.py [cand_skipjump.py]
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_skipjump.py"
src = open(os.path.join(d, cand)).read()
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + src[src.index("@triton.jit"):])
sys.path.insert(0, d); import _k, prob
kern = _k.triton_poi_fused_add_copy__mean_mul_2

def compiled_call(m, x):
    with torch.no_grad():
        s = x.sum(0).contiguous()                                  # kernel 0: column sums ...
        M2 = ((x - s / 64.0) ** 2).sum(0).contiguous()             # ... and sums of squared deviations
        rm = m.running_mean * 0.9 + (s / 64.0) * 0.1               # kernel 1: output from old stats + batch's
        rv = m.running_var * 0.9 + (M2 / 64.0) * 0.1
        y = (x - rm) / torch.sqrt(rv + 1e-5)
        kern[(1,)](s, m.running_mean, m.running_mean, 32, XBLOCK=32)   # kernel 2 (candidate): mean update
        kern[(1,)](M2, m.running_var, m.running_var, 32, XBLOCK=32)    # kernel 2 again: variance update
    return y

scenarios = [
    ("stationary N(0, 1) features (as get_inputs draws), 300 calls", lambda t: torch.randn(64, 32)),
    ("N(0, 1) for 150 calls, then a sensor offset: N(4, 1) from call 151", lambda t: torch.randn(64, 32) + (4.0 if t > 150 else 0.0)),
    ("N(0, 1) for 150 calls, then the feature scale grows 3x (std 3) from call 151", lambda t: torch.randn(64, 32) * (3.0 if t > 150 else 1.0)),
    ("raw pixel-like observations in [0, 255] from the start", lambda t: torch.rand(64, 32) * 255),
    ("features with mean 5, std 1 (e.g. temperatures) from the start", lambda t: torch.randn(64, 32) + 5.0),
]
for label, draw in scenarios:
    print("==", label)
    torch.manual_seed(0)
    ref, cm = prob.Model(), prob.Model()
    first = None
    for t in range(1, 301):
        x = draw(t)
        with torch.no_grad():
            y_ref = ref(x)
        y = compiled_call(cm, x)
        err = (y - y_ref).abs()
        tol = 1e-4 + 1e-4 * y_ref.abs()
        e, frac = err.max().item(), (err > 10 * tol).float().mean().item()
        es = max((cm.running_mean - ref.running_mean).abs().max().item(), (cm.running_var - ref.running_var).abs().max().item())
        if first is None and e > 1e-3: first = t
        if t in (1, 2, 3, 10, 100, 150, 151, 152, 160, 200, 300):
            print(f"call {t:3d}: output max abs err {e:9.3g} (beyond 10 tolerances at {frac:4.0%} of positions); "
                  f"state max abs err {es:9.3g}; |y| max {y_ref.abs().max().item():.3g}")
    print("first call with output off by >1e-3:", first)
