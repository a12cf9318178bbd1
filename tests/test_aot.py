"""Ahead-of-time compilation for sm90 on a machine without a GPU (backends/aot.py)."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from pytest_kernelopt.backends.aot import (  # noqa: E402
    _language_changes,
    _language_snapshot,
    aot_compile,
    cubin_register_count,
    gpu_target_of_current_device,
    neutralize_driver_calls,
)

HAND_WRITTEN = '''
import triton
import triton.language as tl


@triton.jit
def _scale(x, factor):
    return x * factor


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    total = x.sum(0) + tl.max(x, 0)
    tl.store(out_ptr + offs, _scale(x + y, 2.0) + total, mask=mask)
'''
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


@pytest.fixture(scope="module")
def softmax_kernel():
    from pytest_kernelopt.capture import capture

    interpreting = os.environ.get("TRITON_INTERPRET") == "1"
    x = torch.randn(8, 64, device="cpu" if interpreting else "cuda")
    cap = capture(lambda x: torch.softmax(x * 2, -1), (x,), backend="cpu" if interpreting else "auto")
    (kernel,) = cap.graphs[0].kernels.values()
    return kernel


def test_compiles_a_captured_inductor_kernel_for_every_config(softmax_kernel):
    result = aot_compile(softmax_kernel.source, softmax_kernel.name)
    assert result.ok, result.first_error
    assert result.target == ("cuda", 90, 32)
    assert result.configs, "the heuristics' configs were not found"
    for c in result.configs:
        assert c.ok and c.error == ""
        assert "XBLOCK" in c.config and "num_warps" in c.config
        assert isinstance(c.shared, int) and c.shared >= 0
        assert isinstance(c.n_regs, int) and c.n_regs > 0
        assert c.seconds > 0
    assert result.to_json()["configs"][0]["ok"] is True


def test_explicit_configs_replace_the_heuristics(softmax_kernel):
    result = aot_compile(softmax_kernel.source, softmax_kernel.name,
                         configs=[{"XBLOCK": 2, "num_warps": 1, "num_stages": 1}])
    assert result.ok, result.first_error
    assert [c.config for c in result.configs] == [{"XBLOCK": 2, "num_warps": 1, "num_stages": 1}]


def test_compiles_a_hand_written_kernel_with_explicit_signature():
    result = aot_compile(HAND_WRITTEN, "add_kernel", signature=SIGNATURE,
                         configs=[{"BLOCK": 1024, "num_warps": 4}, {"BLOCK": 256, "num_warps": 2}])
    assert result.ok, result.first_error
    assert [c.config["BLOCK"] for c in result.configs] == [1024, 256]
    assert all(c.config["num_stages"] == 1 for c in result.configs)


def test_constexprs_can_be_given_without_configs():
    result = aot_compile(HAND_WRITTEN, "add_kernel", signature=SIGNATURE, constexprs={"BLOCK": 128})
    assert result.ok, result.first_error
    assert len(result.configs) == 1


def test_refuses_to_load_source_that_is_not_on_the_allowlist():
    result = aot_compile(HAND_WRITTEN.replace("x + y", "x + undefined_name"), "add_kernel", signature=SIGNATURE,
                         constexprs={"BLOCK": 128})
    assert not result.ok and "AllowlistError" in result.first_error and "undefined_name" in result.first_error


def test_rejects_a_broken_kernel_with_the_compilers_message():
    broken = HAND_WRITTEN.replace("x + y", "x + tl.arange(0, 3)")
    result = aot_compile(broken, "add_kernel", signature=SIGNATURE, constexprs={"BLOCK": 128})
    assert not result.ok
    msg = result.first_error
    assert "power of 2" in msg and "^" in msg  # the source with the compiler's caret
    assert "at " in result.configs[0].error


def test_reports_problems_instead_of_raising():
    assert "no signature" in aot_compile(HAND_WRITTEN, "add_kernel").error
    assert "no @triton.jit kernel 'nope'" in aot_compile(HAND_WRITTEN, "nope", signature=SIGNATURE).error
    assert "does not parse" in aot_compile("def (:", "k").error
    assert "failed to load" in aot_compile("import no_such_module_xyz\n", "k").error
    bad_sig = aot_compile(HAND_WRITTEN, "add_kernel", signature={**SIGNATURE, "zz": "i32"}, constexprs={"BLOCK": 8})
    assert "not parameters" in bad_sig.error
    bad_cfg = aot_compile(HAND_WRITTEN, "add_kernel", signature=SIGNATURE, configs=[{"BLOCK": 64, "ZBLOCK": 2}])
    assert not bad_cfg.ok and "ZBLOCK" in bad_cfg.first_error


def test_works_in_an_interpreter_process_and_leaves_it_working(softmax_kernel):
    if os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("this process does not run the Triton interpreter")
    import triton.language as tl
    from triton.runtime.interpreter import InterpretedFunction

    from pytest_kernelopt.substitute import load_kernel_object

    x = torch.randn(8, 64)
    expected = torch.softmax(x * 2, -1)

    def launch():
        out = torch.empty(8, 64)
        load_kernel_object(softmax_kernel.name, softmax_kernel.source).run(out, x, 8, 64, stream=0)
        return out

    torch.testing.assert_close(launch(), expected)
    snapshot = _language_snapshot()
    assert aot_compile(softmax_kernel.source, softmax_kernel.name).ok
    assert aot_compile(HAND_WRITTEN, "add_kernel", signature=SIGNATURE, constexprs={"BLOCK": 64}).ok
    assert _language_changes(snapshot) == []
    assert isinstance(tl.sum, InterpretedFunction)
    torch.testing.assert_close(launch(), expected)


def test_neutralize_driver_calls_keeps_lines():
    src = "import x\ntriton_helpers.set_driver_to_gpu()\ntriton_helpers.set_driver_to_cpu(\n)\ny = 1\n"
    out = neutralize_driver_calls(src)
    assert "set_driver" not in out
    assert out.splitlines() == ["import x", "pass", "pass", "", "y = 1"]


def test_cubin_register_count_ignores_non_elf():
    assert cubin_register_count(b"not a cubin", "k") is None
    assert cubin_register_count(None, "k") is None


def test_gpu_target_of_current_device():
    target = gpu_target_of_current_device()
    if torch.cuda.is_available():
        assert target[0] in ("cuda", "hip")
    else:
        assert target is None
