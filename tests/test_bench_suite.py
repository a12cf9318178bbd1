"""The benchmark suite of our own (``benchmarks/problems/``, issue 14 item 3), checked on the CPU.

(a) Every problem loads through the harness at ``KERNELOPT_PROBLEM_SCALE=small``, stays under
    ~100k input elements, and its eager forward gives a finite output of the expected kind
    (shape, dtype, and for the scans and normalisers the values themselves).
(b) Its H200 size (``KERNELOPT_PROBLEM_SCALE`` unset) is at most 8 GiB of inputs, computed on the
    ``meta`` device from the shapes the file declares: nothing of that size is allocated.
(c) ``benchmarks/problems/README.md`` lists every problem with that size.

Eager only, no compile: the whole file runs in a few seconds.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.problems import ProblemSpec, build_problem, looks_like_problem  # noqa: E402

SUITE = Path(__file__).resolve().parent.parent / "benchmarks" / "problems"
FILES = sorted(p for p in SUITE.glob("*.py") if not p.name.startswith("_"))
IDS = [p.stem for p in FILES]
GIB = 2 ** 30
MAX_GPU_INPUT_BYTES = 8 * GIB
MAX_SMALL_NUMEL = 100_000


def _isolated_scale(monkeypatch, small: bool) -> None:
    """This suite's ``_scale`` (examples/problems has another one of the same module name), at one scale."""
    if small:
        monkeypatch.setenv("KERNELOPT_PROBLEM_SCALE", "small")
    else:
        monkeypatch.delenv("KERNELOPT_PROBLEM_SCALE", raising=False)
    spec = importlib.util.spec_from_file_location("_scale", SUITE / "_scale.py")
    scale = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scale)
    monkeypatch.setitem(sys.modules, "_scale", scale)


def _fresh_module(path: Path, tag: str):
    """Import a problem file as a new module (the harness caches one per path, at the scale it first saw)."""
    spec = importlib.util.spec_from_file_location(f"bench_suite_{tag}_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _tensors(obj) -> list:
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors(o)]
    return []


def _nbytes(obj) -> int:
    return sum(t.numel() * t.element_size() for t in _tensors(obj))


def gpu_sizes(monkeypatch, path: Path) -> dict:
    """Bytes of inputs, parameters/buffers and outputs at the GPU size, all on ``meta`` (nothing allocated)."""
    _isolated_scale(monkeypatch, small=False)
    mod = _fresh_module(path, "gpu")
    torch.manual_seed(0)
    with torch.device("meta"):
        inputs = mod.get_inputs()
        model = mod.Model(*mod.get_init_inputs())
        out = model(*inputs)
    assert all(t.device.type == "meta" for t in _tensors(inputs)), "get_inputs() must not pin a device"
    state = list(model.parameters()) + list(model.buffers())
    return {"inputs": _nbytes(inputs), "params": _nbytes(state), "outputs": _nbytes(out),
            "shapes": [tuple(t.shape) for t in _tensors(inputs)]}


# --- what each problem's output must look like (the input is inputs[0] unless said) ---------------------------

def _pool_len(n: int, k: int, s: int, p: int) -> int:
    return (n + 2 * p - k) // s + 1


def _scan_reference(stem: str, x: torch.Tensor, mod) -> torch.Tensor:
    """Each scan recomputed in float64 another way (prefix sums and totals, logs for the products)."""
    x64 = x.double()
    if stem.startswith("cumprod"):
        x64 = torch.log(1.0 + mod.get_init_inputs()[1] * x64)
    inc = torch.cumsum(x64, dim=1)
    total = inc[:, -1:]
    ref = {
        "cumsum": inc,
        "cumsum_reverse": total - inc + x64,
        "cumsum_reverse_long": total - inc + x64,
        "cumsum_exclusive": inc - x64,
        "cumsum_reverse_exclusive": total - inc,
        "cumprod": inc,
        "cumprod_reverse_exclusive": total - inc,
    }[stem]
    return torch.exp(ref) if stem.startswith("cumprod") else ref


def check_output(stem: str, mod, inputs: tuple, out) -> None:
    x = inputs[0]
    assert isinstance(out, torch.Tensor), f"{stem}: output is {type(out).__name__}, not a tensor"
    m = re.fullmatch(r"reduce_(sum|mean|max|argmax|argmin)_dim(\d)", stem)
    if m:
        op, dim = m.group(1), int(m.group(2))
        assert out.shape == x.shape[:dim] + x.shape[dim + 1:]
        if op.startswith("arg"):
            assert out.dtype == torch.int64
            assert 0 <= int(out.min()) and int(out.max()) < x.shape[dim]
            want = (x.max if op == "argmax" else x.min)(dim=dim).values
            assert torch.equal(torch.gather(x, dim, out.unsqueeze(dim)).squeeze(dim), want)
            return
        ref = {"sum": x.double().sum(dim), "mean": x.double().mean(dim), "max": x.double().amax(dim)}[op]
        torch.testing.assert_close(out.double(), ref, rtol=1e-5, atol=1e-5)
        return
    else:
        assert out.dtype == torch.float32, f"{stem}: {out.dtype}"
    assert torch.isfinite(out).all(), f"{stem}: non-finite output"

    if stem.startswith("loss_"):
        assert out.dim() == 0, f"{stem}: a loss is a scalar"
        assert float(out) >= -1e-6, f"{stem}: negative loss {float(out)}"
    elif stem.startswith("softmax"):
        assert out.shape == x.shape and float(out.min()) >= 0
        torch.testing.assert_close(out.sum(-1), torch.ones(x.shape[0]), rtol=0, atol=1e-5)
    elif stem == "log_softmax":
        assert out.shape == x.shape and float(out.max()) <= 0
        torch.testing.assert_close(out.exp().sum(-1), torch.ones(x.shape[0]), rtol=0, atol=1e-5)
    elif stem == "logsumexp":
        assert out.shape == x.shape[:-1]
        assert (out >= x.max(-1).values - 1e-6).all()
    elif stem.startswith("cum"):
        assert out.shape == x.shape
        torch.testing.assert_close(out.double(), _scan_reference(stem, x, mod), rtol=1e-4, atol=1e-4)
    elif stem.startswith(("maxpool", "avgpool")):
        k, s, p = mod.get_init_inputs()
        spatial = tuple(_pool_len(n, k, s, p) for n in x.shape[2:])
        assert out.shape == x.shape[:2] + spatial
        if stem.startswith("maxpool"):
            assert float(out.max()) == float(x.max())
    elif stem.startswith("gemm"):
        assert out.shape == (x.shape[0], mod.d_out)
        if "relu" in stem:
            assert float(out.min()) >= 0
    elif stem.startswith("conv2d"):
        assert out.shape == (x.shape[0], mod.c_out) + x.shape[2:]
        assert 0 <= float(out.min()) and float(out.max()) <= 1  # sigmoid of a relu
    elif stem.startswith("conv3d"):
        assert out.shape == (x.shape[0],) + x.shape[2:]  # channels averaged away
    elif stem in ("groupnorm_big", "instancenorm2d", "layernorm"):
        assert out.shape == x.shape  # the statistics: _check_normalised
    else:  # pointwise chains, batch norm, rms norm, attention, transformer block: shape-preserving
        assert out.shape == x.shape, f"{stem}: {tuple(out.shape)} != {tuple(x.shape)}"


def _check_normalised(stem: str, model, x: torch.Tensor) -> None:
    """Group/instance/layer norm with their affine parameters undone: zero mean, unit variance per group."""
    with torch.no_grad():
        if stem == "layernorm":
            y = (model(x) - model.norm.bias) / model.norm.weight
            groups = y.reshape(x.shape[0], -1)
        else:
            shape = (1, -1) + (1,) * (x.dim() - 2)
            y = (model(x) - model.norm.bias.view(shape)) / model.norm.weight.view(shape)
            n_groups = model.norm.num_groups if stem == "groupnorm_big" else x.shape[1]
            groups = y.reshape(x.shape[0] * n_groups, -1)
    torch.testing.assert_close(groups.mean(-1), torch.zeros(groups.shape[0]), rtol=0, atol=1e-4)
    torch.testing.assert_close(groups.var(-1, unbiased=False), torch.ones(groups.shape[0]), rtol=0, atol=1e-2)


def test_the_suite_is_big_enough_and_every_file_is_a_problem():
    assert len(FILES) >= 30, f"{len(FILES)} problems in {SUITE}"
    assert all(looks_like_problem(p) for p in FILES)
    assert not looks_like_problem(SUITE / "_scale.py")


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_small_scale_eager_forward(monkeypatch, path):
    _isolated_scale(monkeypatch, small=True)
    problem = build_problem(ProblemSpec.from_file(path), "cpu")  # the harness's own loader and size check
    inputs = problem.example_inputs
    numel = sum(t.numel() for t in _tensors(inputs))
    assert numel <= MAX_SMALL_NUMEL, f"{path.stem}: {numel:,} input elements at small scale"
    mod = _fresh_module(path, "small")
    with torch.no_grad():
        out = problem.module(*inputs)
    check_output(path.stem, mod, inputs, out)
    if path.stem in ("groupnorm_big", "instancenorm2d", "layernorm"):
        _check_normalised(path.stem, problem.module, inputs[0])
    # fresh inputs (what the gates draw per seed) keep the output finite too
    with torch.no_grad():
        again = problem.module(*problem.draw_inputs(7))
    assert all(torch.isfinite(t.float()).all() for t in _tensors(again))


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_gpu_size_is_at_most_8_gib(monkeypatch, path):
    sizes = gpu_sizes(monkeypatch, path)
    assert 0 < sizes["inputs"] <= MAX_GPU_INPUT_BYTES, f"{path.stem}: {sizes['inputs'] / GIB:.2f} GiB of inputs"
    # parameters are small next to the inputs; the module's own peak (inputs + outputs) fits an H200 twice over
    assert sizes["inputs"] + sizes["params"] <= MAX_GPU_INPUT_BYTES
    assert sizes["inputs"] + sizes["params"] + sizes["outputs"] <= 16 * GIB


def test_issue_13_sizes_are_there(monkeypatch):
    assert gpu_sizes(monkeypatch, SUITE / "softmax_rows_big.py")["shapes"] == [(4096, 393216)]
    assert gpu_sizes(monkeypatch, SUITE / "groupnorm_big.py")["shapes"] == [(112, 64, 512, 512)]


def test_readme_lists_every_problem_with_its_gpu_size(monkeypatch):
    text = (SUITE / "README.md").read_text()
    rows = dict(re.findall(r"^\|\s*`?([a-z0-9_]+)\.py`?\s*\|\s*([0-9.]+)\s*\|", text, flags=re.M))
    assert sorted(rows) == IDS, f"README rows differ: missing {sorted(set(IDS) - set(rows))}, " \
                                f"extra {sorted(set(rows) - set(IDS))}"
    for path in FILES:
        gib = gpu_sizes(monkeypatch, path)["inputs"] / GIB
        assert math.isclose(float(rows[path.stem]), round(gib, 2), abs_tol=0.006), f"{path.stem}: README says " \
            f"{rows[path.stem]} GiB, the file declares {gib:.3f}"
