# Runs cand_b's kernel body in the plain Triton interpreter on a reused output buffer,
# as a caching allocator (or glibc malloc) hands a dropped result's memory back.
import os, sys, re
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from torch._inductor.runtime import triton_helpers
src = open(sys.argv[1]).read()
body = src[src.index("@triton.jit"):]
body = body.replace("libdevice.exp", "tl.exp")
ns = {"triton": triton, "tl": tl, "triton_helpers": triton_helpers}
open("/tmp/redteam23/p3/_k.py", "w").write("import triton, triton.language as tl\nfrom torch._inductor.runtime import triton_helpers\n" + body)
sys.path.insert(0, "/tmp/redteam23/p3"); import _k
kern = [getattr(_k, n) for n in dir(_k) if n.startswith("triton_per")][0]
torch.manual_seed(0)
buf = torch.empty(64, 128)                      # the memory the allocator keeps handing back
ptrs = []
for call in range(5):
    x = torch.randn(64, 128)
    kern[(64,)](buf, x, 64, 128, XBLOCK=1)
    y = buf.clone()
    ref = torch.softmax(x.double(), -1)
    err = (y.double() - ref).abs()
    print(f"call {call}: max abs err {err.max():.3g}, positions > 1e-4: {(err > 1e-4).float().mean():.1%}")
# does CPU malloc really hand back a dropped tensor's memory?
for i in range(4):
    t = torch.empty(64, 128); ptrs.append(t.data_ptr()); del t
print("data_ptr of successive dropped 32 KiB tensors:", [hex(p) for p in ptrs])
