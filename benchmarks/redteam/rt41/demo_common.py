import os, sys, re, importlib
os.environ["TRITON_INTERPRET"] = "1"
import torch
def load(path, name):
    src = open(path).read()
    body = src[src.index("@triton.jit"):]
    body = body.replace("libdevice.exp", "tl.exp").replace("tl_math.log", "tl.log").replace("libdevice.rsqrt", "tl.math.rsqrt")
    body = body.replace("triton_helpers.maximum", "tl.maximum")
    body = re.sub(r"triton_helpers\.max2\(", "tl.max(", body)
    d = os.path.dirname(os.path.abspath(path))
    mod = "_k_" + os.path.basename(path)[:-3]
    open(os.path.join(d, mod + ".py"), "w").write("import triton, triton.language as tl\n" + body)
    sys.path.insert(0, d)
    return getattr(importlib.import_module(mod), name)
def report(label, out, ref, unit="positions"):
    err = (out - ref).abs()
    print(f"{label}: max abs err {err.max().item():.4f}, {unit} > 1e-3 off: {(err > 1e-3).float().mean().item():.0%}")
