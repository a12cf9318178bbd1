"""Gate 1, static (gates/static.py): one test per rejection reason, and acceptances."""

from __future__ import annotations

import os

import pytest

from pytest_kernelopt.candidate import Candidate, LaunchSpec
from pytest_kernelopt.gates.static import StaticGate
from pytest_kernelopt.parse import parse_kernel_source

# An Inductor-shaped pointwise kernel, parsed as the capture would parse it.
ORIGINAL = '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 1024}, filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'},
                 'constants': {}, 'configs': [{(0,): [['tt.divisibility', 16]]}]},
    inductor_meta={'kernel_name': 'triton_poi_fused_mul_0', 'autotune_hints': set()},
)
@triton.jit
def triton_poi_fused_mul_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex), xmask)
    tl.store(out_ptr0 + (xindex), tmp0 * 2.0, xmask)
'''
NAME = "triton_poi_fused_mul_0"
KERNEL = parse_kernel_source(NAME, ORIGINAL, "cpu")
KERNELS = {NAME: KERNEL}

GOOD = '''
import triton
import triton.language as tl
from torch._inductor.runtime.triton_helpers import libdevice

SCALE = tl.constexpr(2.0)
LOG2E: tl.constexpr = tl.constexpr(1.4426950408889634)


@triton.jit
def _double(x):
    return x * SCALE


@triton.jit
def triton_poi_fused_mul_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    xmask = xindex < xnumel
    x = tl.load(in_ptr0 + xindex, xmask, other=0.0)
    # BODY
    tl.store(out_ptr0 + xindex, _double(x), xmask)
'''


def body(line: str) -> str:
    return GOOD.replace("    # BODY", "    " + line)


def check(source: str, *, launch: LaunchSpec | None = None, kernels=KERNELS, replaces=(NAME,), target=None):
    return StaticGate().check(Candidate(tuple(replaces), source, launch=launch), kernels, compile_target=target)


def assert_fails(result, *fragments: str) -> None:
    assert result.gate == "static"
    assert result.status == "fail", "the candidate was accepted"
    for fragment in fragments:
        assert fragment in result.reason, result.reason
    assert result.numbers["compiled"] is False


def test_the_template_passes_and_says_it_was_not_compiled():
    result = check(GOOD)
    assert result.gate == "static" and result.status == "pass", result.reason
    assert result.numbers["compiled"] is False and "compile_skipped" in result.numbers


# ----------------------------------------------------------------------------- rejections


def test_rejects_a_syntax_error():
    assert_fails(check(body("x = (")), "does not parse", "line")


@pytest.mark.parametrize("module", ["os", "subprocess", "ctypes", "socket", "importlib", "sys"])
def test_rejects_importing_forbidden_modules(module):
    assert_fails(check(f"import {module}\n" + GOOD), "import not allowed", f"import {module}")


def test_rejects_from_imports_outside_the_allowed_set():
    assert_fails(check("from ctypes import CDLL\n" + GOOD), "import not allowed", "from ctypes import CDLL")
    assert_fails(check("from torch._inductor.runtime import codecache\n" + GOOD), "import not allowed",
                 "codecache")
    assert_fails(check("import torch\n" + GOOD), "import not allowed", "import torch")
    assert_fails(check("from . import helpers\n" + GOOD), "import not allowed")
    # the name after ``as`` is checked too: an allowed module bound to another name is not an allowed line
    assert_fails(check("import triton.language as tlx\n" + GOOD), "import not allowed")
    assert_fails(check("from triton.language import core\n" + GOOD), "import not allowed")


@pytest.mark.parametrize("line, fragment", [
    ("os.system('true')", "attribute .system of 'os' is not on the allowlist"),
    ("f = open('/etc/passwd')", "calls 'open'"),
    ("eval('1')", "calls 'eval'"),
    ("exec('x = 1')", "calls 'exec'"),
    ("m = __import__('os')", "calls '__import__'"),
    ("g = globals()", "calls 'globals'"),
    ("setattr(tl, 'sum', tl.max)", "calls 'setattr'"),
    ("c = tl.__dict__", "private attribute '__dict__'"),
    ("b = triton.testing.do_bench", "triton.testing.do_bench is not on the allowlist"),
    ("b = tl.core.builtins", "tl.core.builtins is not on the allowlist"),
    ("h = triton_helpers.torch", "triton_helpers.torch is not on the allowlist"),
    ("z = (y := 3)", "NamedExpr expressions are not allowed"),
    ("f = lambda: 0", "Lambda expressions are not allowed"),
    ("s = [v for v in range(3)]", "ListComp expressions are not allowed"),
    ("s = f'{x}'", "JoinedStr expressions are not allowed"),
    ("t = tl.inline_asm_elementwise('mov.u64 $0, %globaltimer;', '=l', [], dtype=tl.int64, is_pure=False, pack=1)",
     "tl.inline_asm_elementwise is not on the allowlist"),
])
def test_rejects_file_process_and_dynamic_code(line, fragment):
    assert_fails(check(body(line)), fragment)


def test_rejects_torch_calls_and_tensor_ops():
    assert_fails(check(body("y = torch.empty(4)")), "attribute .empty of 'torch' is not on the allowlist")
    assert_fails(check(body("v = x.item()")), "attribute .item of 'x' is not on the allowlist")


@pytest.mark.parametrize("line, fragment", [
    ("t0 = time.perf_counter()", "attribute .perf_counter of 'time'"),
    ("s = cuda.current_stream()", "attribute .current_stream of 'cuda'"),
    ("e = Event(enable_timing=True)", "calls 'Event'"),
    ("cuda.synchronize()", "attribute .synchronize of 'cuda'"),
    ("threading.Thread(target=None).start()", "not on the allowlist"),
    ("t = tl.extra.cuda.globaltimer()", "tl.extra.cuda.globaltimer is not on the allowlist"),
])
def test_rejects_streams_threads_and_timers(line, fragment):
    assert_fails(check(body(line)), fragment)


def test_rejects_a_module_level_cache():
    assert_fails(check("_CACHE = {}\n" + GOOD), "module-level Assign")
    assert_fails(check("_SEEN = []\n" + GOOD), "module-level Assign")
    assert_fails(check("SCALE2 = 2.0\n" + GOOD), "module-level Assign")
    assert_fails(check(GOOD + "\nclass Holder:\n    pass\n"), "module-level ClassDef")
    assert_fails(check(GOOD + "\nif True:\n    SCALE = 3.0\n"), "module-level If")


def test_rejects_global_and_nonlocal_statements():
    assert_fails(check(body("global SCALE")), "Global statements are not allowed")
    nested = GOOD + "\n@triton.jit\ndef outer():\n    n = 0\n    def inner():\n        nonlocal n\n    return inner\n"
    assert_fails(check(nested), "FunctionDef statements are not allowed")


def test_rejects_mutable_default_arguments():
    src = GOOD + "\n@triton.jit\ndef helper(seen=[]):\n    return seen\n"
    assert_fails(check(src), "may not have default values")
    assert_fails(check(GOOD + "\ndef helper(seen):\n    return seen\n"), "every function must be @triton.jit")


def test_rejects_monkeypatching():
    assert_fails(check(GOOD + "\ntl.sum = tl.max\n"), "module-level Assign")
    assert_fails(check(body("triton_helpers.maximum = tl.minimum")), "only plain local names may be assigned")
    assert_fails(check(GOOD + "\n@triton.jit\ndef f():\n    SCALE[0] = 1\n"), "only plain local names may be assigned")


def test_rejects_a_wrong_kernel_name():
    src = GOOD.replace(f"def {NAME}(", "def triton_poi_fused_mul_9(")
    assert_fails(check(src), f"defines no @triton.jit function named {NAME}", "triton_poi_fused_mul_9")


def test_rejects_a_function_that_is_not_jitted():
    src = GOOD.replace(f"@triton.jit\ndef {NAME}", f"def {NAME}")
    assert_fails(check(src), "defines no @triton.jit function")
    src = GOOD.replace(f"@triton.jit\ndef {NAME}", f"@triton.jit\n@triton.jit\ndef {NAME}")
    assert_fails(check(src), "at most one heuristics decorator")


@pytest.mark.parametrize("params", [
    "out_ptr0, in_ptr0, xnumel, XBLOCK: tl.constexpr",
    "in_ptr0, out_ptr0, n, XBLOCK: tl.constexpr",
    "in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr, YBLOCK: tl.constexpr = 1",
    "in_ptr0, out_ptr0, xnumel, *rest",
])
def test_rejects_an_incompatible_signature(params):
    src = GOOD.replace("in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr", params, 1)
    assert_fails(check(src), "incompatible signature")


def test_rejects_an_unknown_replaced_kernel():
    assert_fails(check(GOOD, replaces=("triton_poi_nope_7",)), "unknown kernel")


# ----------------------------------------------------------------------------- LaunchSpec candidates

LAUNCHED = '''
import triton
import triton.language as tl


@triton.jit
def scale_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask) * 2.0, mask=mask)
'''


def spec(**kw):
    base = dict(kernel="scale_kernel", args=("in_ptr0", "out_ptr0", "xnumel"), grid="(cdiv(n, BLOCK),)",
                constexprs={"BLOCK": 256})
    return LaunchSpec(**{**base, **kw})


def test_accepts_and_compiles_a_launchspec_candidate():
    result = check(LAUNCHED, launch=spec(), target=("cuda", 90, 32))
    assert result.status == "pass", result.reason
    assert result.numbers["compiled"] is True and result.numbers["configs_compiled"] == 1
    assert result.numbers["compile_seconds"] > 0 and result.numbers["max_shared_bytes"] is not None


@pytest.mark.parametrize("grid, fragment", [
    ("__import__('os')", "calls __import__"),
    ("(open('x'),)", "calls open"),
    ("(n.bit_length(),)", "only cdiv, min, max"),
    ("(lambda: 1)()", "calls lambda"),
    ("(cdiv(n, BLOCK), nope)", "names 'nope'"),
    ("(n / 2,)", "Div"),
    ("(1, 1, 1, 1)", "1 to 3 dimensions"),
    ("(cdiv(n,", "does not parse"),
    ("[n for n in range(3)]", "ListComp"),
])
def test_rejects_a_bad_grid_expression(grid, fragment):
    assert_fails(check(LAUNCHED, launch=spec(grid=grid)), "grid expression", fragment)


def test_rejects_a_launch_spec_on_a_kernel_with_inductors_heuristics_decorator():
    """Red team 11, F13: the static gate passed it and the judge then failed with its own internal TypeError
    (Inductor's launcher wants a stream): refused up front, with what to do instead."""
    launch = LaunchSpec(kernel=NAME, args=("in_ptr0", "out_ptr0", "xnumel"), grid="(cdiv(xnumel, XBLOCK),)",
                        constexprs={"XBLOCK": 256})
    assert_fails(check(ORIGINAL, launch=launch), "heuristics decorator", "drop the decorator")


def test_rejects_launch_mismatches():
    assert_fails(check(LAUNCHED, launch=spec(kernel="other")), "defines no such @triton.jit function")
    assert_fails(check(LAUNCHED, launch=spec(args=("in_ptr0", "out_ptr0"))), "incompatible signature",
                 "3 runtime parameters")
    assert_fails(check(LAUNCHED, launch=spec(args=("in_ptr0", "out_ptr0", "bogus"))), "'bogus'")
    assert_fails(check(LAUNCHED, launch=spec(constexprs={})), "no value for constexpr", "BLOCK")
    assert_fails(check(LAUNCHED, launch=spec(constexprs={"BLOCK": 8, "ZZ": 1})), "ZZ")
    assert_fails(check(LAUNCHED, launch=spec(args=("k.in_ptr0", "out_ptr0", "xnumel"))), "'k.in_ptr0'")


def test_launchspec_candidate_that_does_not_compile_is_rejected_with_the_compilers_message():
    broken = LAUNCHED.replace("tl.arange(0, BLOCK)", "tl.arange(0, 3)")
    result = check(broken, launch=spec(), target=("cuda", 90, 32))
    assert_fails(result, "does not compile for cuda:90:32", "power of 2", "^")


FUSED = '''
import triton
import triton.language as tl


@triton.jit
def fused(a, b, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(a + offs, mask=mask) + tl.load(b + offs, mask=mask), mask=mask)
'''


def test_fusion_launch_args_name_kernel_and_parameter():
    second = parse_kernel_source("triton_poi_fused_add_1", ORIGINAL.replace(NAME, "triton_poi_fused_add_1"), "cpu")
    kernels = {NAME: KERNEL, second.name: second}
    replaces = (NAME, second.name)
    ok = LaunchSpec("fused", (f"{NAME}.in_ptr0", f"{second.name}.in_ptr0", f"{second.name}.out_ptr0",
                              f"{NAME}.xnumel"), "(cdiv(n, BLOCK),)", constexprs={"BLOCK": 128})
    result = check(FUSED, launch=ok, kernels=kernels, replaces=replaces, target=("cuda", 90, 32))
    assert result.status == "pass", result.reason
    assert result.numbers["compiled"] is True
    bad = LaunchSpec("fused", ("in_ptr0", "in_ptr0", "out_ptr0", "xnumel"), "(n,)", constexprs={"BLOCK": 128})
    assert_fails(check(FUSED, launch=bad, kernels=kernels, replaces=replaces), "'<kernel>.<param>'")


# ----------------------------------------------------------------------------- captured kernels


@pytest.fixture(scope="module")
def softmax_kernel():
    torch = pytest.importorskip("torch")
    from pytest_kernelopt.capture import capture

    interpreting = os.environ.get("TRITON_INTERPRET") == "1"
    x = torch.randn(8, 64, device="cpu" if interpreting else "cuda")
    cap = capture(lambda x: torch.softmax(x * 2, -1), (x,), backend="cpu" if interpreting else "auto")
    (kernel,) = cap.graphs[0].kernels.values()
    return kernel


def rewrite(k) -> str:
    """A plainer softmax(2x) over rows of 64 with the captured kernel's name and parameters."""
    src = next(p for p in k.params if p.startswith("in_ptr"))
    dst = next(p for p in k.params if p.startswith(("out_ptr", "in_out_ptr")))
    assert k.params[-1] == "XBLOCK"
    params = ", ".join(k.params[:-1])
    return f'''
import triton
import triton.language as tl


@triton.jit
def {k.name}({params}, XBLOCK: tl.constexpr):
    R0_BLOCK: tl.constexpr = 64
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < 8
    r0 = tl.arange(0, R0_BLOCK)[None, :]
    x = tl.load({src} + (r0 + 64 * xindex), xmask, other=0.0) * 2.0
    m = tl.max(tl.where(xmask, x, float("-inf")), 1)[:, None]
    e = tl.exp(x - m)
    s = tl.sum(tl.where(xmask, e, 0.0), 1)[:, None]
    tl.store({dst} + (r0 + 64 * xindex), e / s, xmask)
'''


def test_accepts_the_captured_kernel_itself(softmax_kernel):
    k = softmax_kernel
    result = StaticGate().check(Candidate((k.name,), k.source), {k.name: k})
    assert result.status == "pass", result.reason
    assert result.numbers["compiled"] is True
    assert result.numbers["configs_compiled"] == result.numbers["configs"] >= 1


def test_accepts_a_clean_rewrite_of_a_captured_kernel(softmax_kernel):
    k = softmax_kernel
    cand = Candidate((k.name,), rewrite(k), configs=({"XBLOCK": 4, "num_warps": 4, "num_stages": 1},))
    result = StaticGate().check(cand, {k.name: k})
    assert result.gate == "static" and result.status == "pass", result.reason
    assert result.numbers["compiled"] is True and result.numbers["configs_compiled"] == 1
    assert result.numbers["n_regs"][0] is None or result.numbers["n_regs"][0] > 0


def test_rejects_a_candidate_with_several_launch_configurations(softmax_kernel):
    """Red team 8: a kernel exact under its first configuration and wrong under its second passed on the CPU,
    which runs the first; on a GPU the autotuner picks one per process by timing."""
    k = softmax_kernel
    cand = Candidate((k.name,), rewrite(k), configs=({"XBLOCK": 4, "num_warps": 4, "num_stages": 1},
                                                     {"XBLOCK": 2, "num_warps": 2, "num_stages": 1}))
    result = StaticGate().check(cand, {k.name: k})
    assert result.status == "fail" and "2 launch configurations" in result.reason, result.reason
    assert "at most one" in result.reason


def test_rejects_a_captured_kernel_rewrite_that_does_not_compile(softmax_kernel):
    k = softmax_kernel
    src = rewrite(k).replace("tl.exp(x - m)", "tl.exp(x - m, 3, 4)")
    assert_fails(StaticGate().check(Candidate((k.name,), src), {k.name: k}), "does not compile", "tl.exp")


def test_accepts_a_launchspec_candidate_for_a_captured_kernel(softmax_kernel):
    k = softmax_kernel
    source = '''
import triton
import triton.language as tl


@triton.jit
def softmax_rows(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * n_cols + cols, mask=mask, other=float("-inf")) * 2.0
    e = tl.exp(x - tl.max(x, 0))
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, 0), mask=mask)
'''
    dst = next(p for p in k.params if p.startswith(("out_ptr", "in_out_ptr")))
    src = next(p for p in k.params if p.startswith("in_ptr"))
    launch = LaunchSpec("softmax_rows", (dst, src, "xnumel", "r0_numel"), "(n_rows,)",
                        num_warps=2, constexprs={"BLOCK": 64})
    result = StaticGate().check(Candidate((k.name,), source, launch=launch), {k.name: k})
    assert result.status == "pass", result.reason
    assert result.numbers["compiled"] is True


@pytest.mark.parametrize("line, op", [
    # red team 15: an absolute address built from an argument's, written through (reaches any memory on a GPU)
    ("    d = (SRC.to(tl.int64) - DST.to(tl.int64)) // 4\n    tl.store(DST + d + (r0 + 64 * xindex), e / s, xmask)",
     "tt.ptr_to_int"),
    ("    p = (x.to(tl.int64) * 0 + 4096).to(tl.pointer_type(tl.float32))\n"
     "    tl.store(p + (r0 + 64 * xindex), e / s, xmask)",
     "tt.int_to_ptr"),
], ids=["pointer-to-int", "int-to-pointer"])
def test_rejects_conversions_between_integers_and_pointers(softmax_kernel, line, op):
    k = softmax_kernel
    src, dst = _src_dst(k)
    body = rewrite(k).rstrip("\n") + "\n" + line.replace("SRC", src).replace("DST", dst) + "\n"
    cand = Candidate((k.name,), body, configs=({"XBLOCK": 4, "num_warps": 4, "num_stages": 1},))
    assert_fails(StaticGate().check(cand, {k.name: k}), "converts between an integer and a pointer", op)


def test_accepts_a_pointer_to_pointer_cast(softmax_kernel):
    """Inductor's own workspace casts (split scans) are pointer-to-pointer bitcasts: not refused."""
    k = softmax_kernel
    src, dst = _src_dst(k)
    body = rewrite(k).rstrip("\n") + f"\n    q = {dst}.to(tl.pointer_type(tl.float32))\n" \
        "    tl.store(q + (r0 + 64 * xindex), e / s, xmask)\n"
    cand = Candidate((k.name,), body, configs=({"XBLOCK": 4, "num_warps": 4, "num_stages": 1},))
    result = StaticGate().check(cand, {k.name: k})
    assert result.status == "pass", result.reason


def _src_dst(k) -> tuple[str, str]:
    return (next(p for p in k.params if p.startswith("in_ptr")),
            next(p for p in k.params if p.startswith(("out_ptr", "in_out_ptr"))))


def _own_decorator(device: str, driver: str = "") -> str:
    """ORIGINAL as a module of its own (decorator kept), written for ``device`` with ``driver``'s call."""
    src = ORIGINAL.replace("triton_helpers.set_driver_to_cpu()\n", driver)
    return src.replace("'constants': {},", f"'constants': {{}}, 'device': DeviceProperties(type={device!r}, index=0),")


@pytest.mark.parametrize("device, driver, fragment", [
    ("cuda", "triton_helpers.set_driver_to_cpu()\n", "DeviceProperties(type='cuda')"),
    ("cpu", "", "DeviceProperties(type='cpu')"),
])
def test_rejects_a_kernel_module_written_for_another_device(device, driver, fragment):
    """Session 19: red team 25's CPU captures judged on the H200 passed the static gate and then failed each
    seed inside Triton ("0 compatible backends for target (cpu)"), which does not say why."""
    baseline_device = "cpu" if device == "cuda" else "cuda"
    kernel = parse_kernel_source(NAME, _own_decorator(baseline_device, driver), "cpu")
    result = check(_own_decorator(device, driver), kernels={NAME: kernel})
    assert_fails(result, "written for another device", fragment, "kernelopt capture")


def test_rejects_a_cpu_driver_call_where_the_kernel_it_replaces_has_none():
    kernel = parse_kernel_source(NAME, _own_decorator("cuda"), "cpu")
    result = check(_own_decorator("cuda", "triton_helpers.set_driver_to_cpu()\n"), kernels={NAME: kernel})
    assert_fails(result, "written for another device", "set_driver_to_cpu()", "nothing of the kind")


def test_a_kernel_module_for_the_same_device_passes_the_device_check():
    kernel = parse_kernel_source(NAME, _own_decorator("cpu", "triton_helpers.set_driver_to_cpu()\n"), "cpu")
    result = check(_own_decorator("cpu", "triton_helpers.set_driver_to_cpu()\n"), kernels={NAME: kernel})
    assert result.status == "pass", result.reason


@pytest.mark.parametrize("grid", ["(" + "+".join(["1"] * 5000) + ",)", "(" + "1+" * 600 + "1,)"])
def test_rejects_a_grid_expression_too_long_to_be_a_grid(grid):
    """Red team 26: a sum of 5000 ones in a LaunchSpec's grid crashed the judge with RecursionError in the
    parser, with no verdict."""
    spec = LaunchSpec(kernel=NAME, args=("in_ptr0", "out_ptr0", "xnumel"), grid=grid, constexprs={"XBLOCK": 64})
    assert_fails(check(GOOD, launch=spec), "grid expression of", "at most 1000 are allowed")
