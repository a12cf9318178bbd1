"""Substitution: live swap, load-time wrapper edit, compile-time replacement, fusion, and bad replacements."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from kernel_sources import FUSED_REVERSE_CUMSUM  # noqa: E402

from pytest_kernelopt.candidate import Candidate, LaunchSpec  # noqa: E402
from pytest_kernelopt.capture import capture  # noqa: E402
from pytest_kernelopt.errors import SubstitutionError, TritonOOBError  # noqa: E402
from pytest_kernelopt.graph import source_hash  # noqa: E402
from pytest_kernelopt.substitute import (  # noqa: E402
    KernelSwap,
    apply_permanently,
    load_wrapper,
    run_wrapper,
    substitute_during_compile,
    swapped,
)


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x * 0.5, dim=-1)


class ReverseCumsum(torch.nn.Module):
    def forward(self, x):
        return torch.cumsum(x.flip(1), dim=1).flip(1)


@pytest.fixture
def softmax_capture(backend):
    x = torch.randn(8, 32, device=backend.device)
    cap = capture(Softmax(), (x,), backend=backend)
    g = cap.graphs[0]
    (name,) = g.kernels
    return cap, g, name, x


def _store_line(src: str) -> str:
    return next(line for line in src.splitlines() if "tl.store(" in line)


def test_equivalent_replacement_matches(softmax_capture):
    cap, g, name, x = softmax_capture
    src = g.kernels[name].source
    assert "tl_math.exp(" in src or "libdevice.exp(" in src
    # exp(v) == exp2(v * log2(e)): a different instruction sequence computing the same thing
    new = src.replace("tl_math.exp(", "libdevice.exp2(1.4426950408889634 * ").replace(
        "libdevice.exp(", "libdevice.exp2(1.4426950408889634 * ")
    assert new != src
    with torch.no_grad():
        ref = cap(x)
        with swapped(cap, [Candidate((name,), new)]):
            out = cap(x)
        after = cap(x)
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-6)
    assert torch.equal(after, ref), "the baseline kernel is back after the block"


def test_planted_bug_is_detected(softmax_capture):
    cap, g, name, x = softmax_capture
    src = g.kernels[name].source
    line = _store_line(src)
    value = line.split(",")[1].strip()
    buggy = src.replace(line, line.replace(f", {value},", f", {value} * 1.001,"))
    assert buggy != src
    with torch.no_grad():
        ref = cap(x)
        with swapped(cap, [Candidate((name,), buggy)]):
            out = cap(x)
    assert not torch.allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_out_of_bounds_replacement_is_a_clean_error(softmax_capture, backend):
    if backend.name != "cpu":
        pytest.skip("the interpreter's bounds checker; on a GPU the gates run candidates in a worker process")
    cap, g, name, x = softmax_capture
    src = g.kernels[name].source
    line = _store_line(src)
    ptr = line.split("tl.store(")[1].split(" + ")[0]
    oob = src.replace(line, line.replace(f"tl.store({ptr} + (", f"tl.store({ptr} + 100000 + ("))
    assert oob != src
    with torch.no_grad():
        with pytest.raises(TritonOOBError, match="store out of bounds in kernel"):
            with swapped(cap, [Candidate((name,), oob)]):
                cap(x)
        # the process is intact: the baseline still runs and is right
        torch.testing.assert_close(cap(x), Softmax()(x), rtol=1e-4, atol=1e-5)


def test_load_time_wrapper_path(softmax_capture):
    cap, g, name, x = softmax_capture
    src = g.kernels[name].source
    base = load_wrapper(g)
    marked = src.replace(_store_line(src), _store_line(src).replace("tl.store(", "tl.store(", 1))
    mod = load_wrapper(g, [Candidate((name,), marked)])
    args = base.get_args()
    kept = [a.clone() for a in args]
    a, b = run_wrapper(base, args), run_wrapper(mod, args)
    torch.testing.assert_close(a[0], b[0])
    assert all(torch.equal(k, v) for k, v in zip(kept, args)), "run_wrapper must not let call() consume inputs"


def test_compile_time_substitution_applies_to_plain_torch_compile(softmax_capture, backend):
    cap, g, name, x = softmax_capture
    src = g.kernels[name].source
    line = _store_line(src)
    value = line.split(",")[1].strip()
    plus_one = src.replace(line, line.replace(f", {value},", f", {value} + 1.0,"))
    torch._dynamo.reset()
    with substitute_during_compile({source_hash(src, name): Candidate((name,), plus_one)}) as hits:
        compiled = torch.compile(Softmax(), options=backend.inductor_options)
        with torch.no_grad():
            out = compiled(x)
    assert set(hits) == {name}, hits
    torch.testing.assert_close(out, Softmax()(x) + 1.0, rtol=1e-4, atol=1e-5)


def test_replacement_with_wrong_name_or_syntax_is_rejected(softmax_capture):
    cap, g, name, x = softmax_capture
    with pytest.raises(SubstitutionError, match="no @triton.jit function named"):
        with swapped(cap, [Candidate((name,), "import triton\n@triton.jit\ndef other(a):\n    pass\n")]):
            pass
    with pytest.raises(SubstitutionError, match="does not parse"):
        with swapped(cap, [Candidate((name,), "def (:")]):
            pass


FUSED = FUSED_REVERSE_CUMSUM



def test_fusion_candidate_replaces_a_run_with_one_kernel(backend):
    x = torch.randn(4, 64, device=backend.device)
    module = ReverseCumsum()
    cap = capture(module, (x,), backend=backend)
    g = cap.graphs[0]
    runs = g.contiguous_runs()
    assert runs and len(runs[0]) == 2, g.summary()
    first, last = runs[0]
    p_first, p_last = g.kernels[first].runtime_params, g.kernels[last].runtime_params
    assert "in_ptr0" in p_first and "out_ptr0" in p_last
    spec = LaunchSpec(kernel="fused_reverse_cumsum", args=(f"{first}.in_ptr0", f"{last}.out_ptr0", "64"),
                      grid="(4,)", num_warps=4, constexprs={"RBLOCK": 64})
    # "64" is not a launch argument: the launcher must say so instead of guessing
    with pytest.raises(SubstitutionError, match="names argument '64'"):
        with torch.no_grad(), swapped(cap, [Candidate((first, last), FUSED, launch=spec)]):
            cap(x)
    rnumel_ref = next(f"{first}.{p}" for p in p_first if p.startswith("r"))
    # the grid is an expression over the fused kernel's own parameters (rnumel * 0 + 4 rows here)
    spec = LaunchSpec(kernel="fused_reverse_cumsum", args=(f"{first}.in_ptr0", f"{last}.out_ptr0", rnumel_ref),
                      grid="(cdiv(rnumel * 0 + 4, 1),)", num_warps=4, constexprs={"RBLOCK": 64})
    swap = KernelSwap(cap, [Candidate((first, last), FUSED, launch=spec)])
    with torch.no_grad(), swap.applied():
        out = cap(x)
    torch.testing.assert_close(out, module(x), rtol=1e-4, atol=1e-4)
    assert swap.launches == 2, "both replaced launch sites went through the fusion launcher"


def test_fusion_of_non_contiguous_kernels_is_refused(backend):
    x = torch.randn(4, 64, device=backend.device)
    cap = capture(ReverseCumsum(), (x,), backend=backend)
    g = cap.graphs[0]
    first, last = g.contiguous_runs()[0]
    spec = LaunchSpec(kernel="fused_reverse_cumsum", args=(), grid="(1,)")
    with pytest.raises(SubstitutionError, match="not a contiguous run"):
        with swapped(cap, [Candidate((last, first), FUSED, launch=spec)]):
            pass


def test_apply_permanently_keeps_replacement(softmax_capture):
    cap, g, name, x = softmax_capture
    src = g.kernels[name].source
    line = _store_line(src)
    value = line.split(",")[1].strip()
    plus_one = src.replace(line, line.replace(f", {value},", f", {value} + 1.0,"))
    with torch.no_grad():
        ref = cap(x)
        assert apply_permanently(cap, [Candidate((name,), plus_one)]) == [name]
        torch.testing.assert_close(cap(x), ref + 1.0)
        torch.testing.assert_close(cap(x), ref + 1.0)


def test_a_candidate_runs_one_launch_configuration_wherever_it_is_loaded(softmax_capture):
    """Red team 8: with several configurations the autotuner picks one per process by timing, so a body wrong
    under one block size could pass where another was picked.  A candidate without configurations of its own
    keeps only its decorator's first; with one of its own, that one."""
    from pytest_kernelopt.substitute import _load_module, load_kernel_object, make_kernel_objects

    cap, g, name, x = softmax_capture
    src = g.kernels[name].source
    listed = getattr(_load_module(src + "\n# probe: the decorator's own list\n"), name).configs
    assert len(listed) > 1, "the test needs a kernel whose decorator lists several configurations"
    obj = make_kernel_objects(g, Candidate((name,), src))[name]
    assert len(obj.configs) == 1 and obj.configs[0].kwargs == listed[0].kwargs
    assert obj.configs[0].num_warps == listed[0].num_warps
    own = load_kernel_object(name, src, ({"XBLOCK": 2, "num_warps": 1, "num_stages": 1},))
    assert [c.kwargs for c in own.configs] == [{"XBLOCK": 2}]


def test_a_kernel_written_under_max_autotune_keeps_the_config_it_was_judged_with(backend):
    """compile_mode max-autotune-no-cudagraphs: Inductor's kernels ask for coordinate descent at their first
    launch; loaded as a candidate, a kernel must launch with the config it carries, in every process."""
    import torch

    from pytest_kernelopt.capture import capture
    from pytest_kernelopt.substitute import load_kernel_object

    cap = capture(lambda x: torch.sigmoid(x) * 2.0 + 1.0, (torch.randn(64, 64, device=backend.device),),
                  backend=backend, mode="max-autotune-no-cudagraphs")
    ((graph, name),) = cap.triton_kernels
    kernel = graph.kernels[name]
    assert "'coordinate_descent_tuning': True" in kernel.source  # what Inductor wrote
    trace = next(t for t in graph.traces if t.kernel == name)
    cfg = {**{k: int(v) for k, v in trace.config.items()}, "num_warps": 2}
    obj = load_kernel_object(name, kernel.source, [cfg])
    assert obj.inductor_meta["coordinate_descent_tuning"] is False
    assert [c.num_warps for c in obj.configs] == [2]
