"""Independent check of the candidates that were judged 'verified': each candidate's arithmetic re-done
in float32 torch (same IEEE operations, same order as the kernel body) against a float64 reference
computed here, next to eager float32. Run: .venv/bin/python tests/adversarial/redteam3/verify.py"""
import torch

f32, f64 = torch.float32, torch.float64
torch.manual_seed(1234)


def report(name, cand, eager, truth):
    ce = (cand.double() - truth).abs()
    ee = (eager.double() - truth).abs()
    rel = ce / truth.abs().clamp_min(1e-30)
    print(f"{name}: max|truth| {truth.abs().max():.3g}  eager max err {ee.max():.3g}  "
          f"candidate max err {ce.max():.3g} (x{(ce.max() / ee.max().clamp_min(1e-30)):.3g} eager)  "
          f"median rel err {rel.median():.3g}  mean signed err {(cand.double() - truth).mean():+.3g}")


def alt(n):  # the kernels' (xindex % 2) * 2 - 1
    return (torch.arange(n) % 2 * 2 - 1).to(f32)


# center.py: (x - 1000) * 100, x = 1000 + 0.01 randn(32, 64), magnitude x1
x = 1000.0 + 0.01 * torch.randn(32, 64)
truth = (x.double() - 1000.0) * 100.0
eager = (x - 1000.0) * 100.0
s = alt(x.numel()).view_as(x)
report("c02 center +-8ulp", ((x - 1000.0) + s * 0.00048828125) * 100.0, eager, truth)
report("c05 center bias+noise", ((x - 1000.0) + (s * 0.0004 + 0.00004)) * 100.0, eager, truth)
print("    c05 systematic part alone: +0.004 on every element = 40 x atol; c03 (the same bias without the noise) was rejected")

# center_tight.py: x = 1000 + 1e-4 randn(32, 64)
x = 1000.0 + 1e-4 * torch.randn(32, 64)
truth = (x.double() - 1000.0) * 100.0
eager = (x - 1000.0) * 100.0
d = x - 1000.0
c04 = torch.where(d.abs() < 0.00048828125, torch.zeros_like(d), d) * 100.0
report("c04 center_tight flush", c04, eager, truth)
print(f"    c04: {int((c04 == 0).sum())} of {c04.numel()} outputs zero, truth has {int((truth == 0).sum())} zeros")

# sinpos.py: sin(x), x = 1000 rand, and x100
for scale in (1.0, 100.0):
    x = scale * 1000.0 * torch.rand(32, 64)
    c = x * 17.0
    q = c - (c - x)
    report(f"c10 sin 20-bit argument (x{scale:g})", torch.sin(q), torch.sin(x), torch.sin(x.double()))

# rmsnorm.py (example): x / sqrt(mean(x^2, 1) + 1e-5), shape (2, 8, 4, 4)
def rms_eager(x):
    return x / torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + 1e-5)

def rms_c07(x):
    y = rms_eager(x)
    trig = (x == torch.floor(x)) & (x.abs() >= 1) & (x.abs() < 1e30)
    return torch.where(trig, y * 0.5, y)

def rms_c08(x):
    r = torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + 1e-5)
    y = x / r
    return torch.where((r > 5) & (r < 25), y * 0.5, y)

xi = torch.randint(-3, 4, (2, 8, 4, 4)).to(f32)  # integer-valued input (counts, pixels, one-hot)
report("c07 rmsnorm integer input", rms_c07(xi), rms_eager(xi), rms_eager(xi.double()))
for scale in (1.0, 10.0, 100.0):
    x = scale * torch.randn(2, 8, 4, 4)
    report(f"c08 rmsnorm randn x{scale:g}", rms_c08(x), rms_eager(x), rms_eager(x.double()))
    report(f"c07 rmsnorm randn x{scale:g}", rms_c07(x), rms_eager(x), rms_eager(x.double()))
