# Runs the candidate's body in the plain Triton interpreter, with its output buffer reused across calls
# (as the allocator hands a freed intermediate back), followed by Inductor's downstream z * (s > 0).
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
src = open(sys.argv[1]).read()
body = src[src.index("@triton.jit"):]
d = os.path.dirname(os.path.abspath(__file__))
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + body)
sys.path.insert(0, d); import _k
kern = [getattr(_k, n) for n in dir(_k) if n.startswith("triton_")][0]
def run(buf, x):
    kern[(128,)](x, buf, 128, 64, XBLOCK=1)
torch.manual_seed(0)
for name, init in [("nan", float("nan")), ("zeros", 0.0), ("random", None)]:
    buf = torch.empty(128)
    if init is None: buf.copy_(torch.randn(128).view(torch.int32).view(torch.float32) if False else torch.randint(-2**31, 2**31-1, (128,), dtype=torch.int32).view(torch.float32))
    else: buf.fill_(init)
    for call in range(5):
        x, z = torch.randn(64, 128), torch.randn(32, 128)
        run(buf, x)
        out = z * (buf > 0)[None, :]
        ref = z * (x.sum(0) > 0)[None, :]
        err = (out - ref).abs()
        print(f"start {name:6s} call {call}: max abs err {err.max():.3g}, positions wrong {(err > 0).float().mean():.1%}, s bits-equal-ish {torch.allclose(buf.abs(), x.sum(0).abs(), rtol=1e-5)}")
