"""The allowlist (allowlist.py) and the loader that builds kernels from checked source (kernel_loader.py).

Every construct that once ran Python while a candidate was judged is refused here
by shape, before anything executes; every kernel Inductor generates still passes.
A payload in these sources would create a marker file: none may appear.
"""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest

from pytest_kernelopt.allowlist import AllowlistError, check_configs, check_source

HEADER = '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()
'''

KERNEL = '''
@triton_heuristics.pointwise(
    size_hints={'x': 1024}, filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'},
                 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None,
                                            regs_per_multiprocessor=None, max_threads_per_multi_processor=None,
                                            max_threads_per_block=1024, warp_size=None),
                 'constants': {}, 'configs': [{(0,): [['tt.divisibility', 16]]}]},
    inductor_meta={'kernel_name': 'k', 'autotune_hints': set(), 'autotune_remote_cache': None},
    min_elem_per_thread=0
)
@triton.jit
def k(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex), xmask, eviction_policy='evict_last', other=0.0)
    tmp1 = libdevice.exp(tmp0) + tl_math.abs(tmp0.to(tl.float32))
    tmp2 = triton_helpers.maximum(tmp1, 0.0)
    # BODY
    tl.store(out_ptr0 + (xindex), tmp2, xmask)
'''
GOOD = HEADER + KERNEL
MARKER_DIR = Path(os.environ.get("TMPDIR", "/tmp")) / "kernelopt_allowlist_markers"


def body(line: str) -> str:
    return GOOD.replace("    # BODY", textwrap.indent(line, "    "))


def refused(source: str, *fragments: str) -> str:
    with pytest.raises(AllowlistError) as info:
        check_source(source)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)
    return str(info.value)


def test_inductors_shapes_pass():
    check_source(GOOD)


# ----------------------------------------------------------------------------- names reached through allowed modules


@pytest.mark.parametrize("line", [
    "t = triton_helpers.torch",                       # torch re-exported by Inductor's runtime helpers
    "b = tl.core.builtins",                           # builtins through triton.language.*
    "i = tl.standard.inspect",
    "p = triton.runtime.driver",
    "x = libdevice.__builtins__",
    "x = tl.math.core",
    "x = triton_helpers.triton.testing",
    "x = triton_helpers.warnings.warn('hi')",
    "x = tl.extra.cuda.globaltimer()",
    "x = tmp0.__class__.__mro__",
    "x = tmp0.handle",
])
def test_names_re_exported_by_allowed_modules_are_refused(line):
    msg = refused(body(line))
    assert "not on the allowlist" in msg or "private attribute" in msg, msg


@pytest.mark.parametrize("header", [
    "import triton.language as tl, os",
    "import triton.language.core as tl",
    "from triton.language import core",
    "from triton.language.core import builtins",
    "from torch._inductor.runtime.triton_helpers import torch",
    "from torch._inductor.runtime import triton_helpers as os",
    "import triton as builtins",
    "from torch._inductor.runtime.hints import DeviceProperties as tl",
    "from . import x",
    "import importlib",
])
def test_import_lines_outside_the_closed_list_are_refused(header):
    refused(header + "\n" + GOOD, "import not allowed")


# ----------------------------------------------------------------------------- evaluated when a function is defined


@pytest.mark.parametrize("decorator", [
    "@triton_heuristics.pointwise(size_hints=__import__('os').system('touch /tmp/x'))",
    "@triton_heuristics.pointwise(size_hints={'x': (lambda: 1)()})",
    "@triton_heuristics.pointwise(size_hints={'x': print('pwned')})",
    "@triton_heuristics.pointwise(filename=open('/etc/passwd').read())",
    "@triton_heuristics.pointwise(size_hints={'x': [c for c in 'ab']})",
    "@triton_heuristics.pointwise(inductor_meta={'autotune_remote_cache': True})",
    "@triton_heuristics.pointwise(inductor_meta={'profile_bandwidth_output': '/tmp/x'})",
    "@triton_heuristics.user_autotune(configs=[])",
    "@triton_heuristics.cached_autotune(size_hints=None)",
    "@triton_heuristics.pointwise(*[])",
    "@triton_heuristics.pointwise(**{})",
    "@triton.jit(do_not_specialize=[print('x')])",
    "@(lambda f: f)",
    "@tl.core.builtin",
    "@triton_helpers.torch.no_grad()",
])
def test_decorators_must_be_inductors_with_literal_arguments(decorator):
    src = HEADER + f"\n{decorator}\n@triton.jit\ndef k(in_ptr0, XBLOCK: tl.constexpr):\n    pass\n"
    refused(src)


@pytest.mark.parametrize("signature", [
    "def k(in_ptr0, XBLOCK: tl.constexpr = print('x')):",
    "def k(in_ptr0, XBLOCK: print('x')):",
    "def k(in_ptr0, XBLOCK: tl.constexpr) -> print('x'):",
    "def k(in_ptr0, *rest):",
    "def k(in_ptr0, **kw):",
    "def k(in_ptr0, *, XBLOCK):",
    "def k(tl, XBLOCK: tl.constexpr):",
])
def test_signatures_evaluate_nothing(signature):
    refused(HEADER + f"\n@triton.jit\n{signature}\n    pass\n")


def test_walrus_lambda_comprehension_fstring_are_refused():
    refused(body("x = (y := 1)"), "NamedExpr")
    refused(body("x = (lambda: 1)()"), "calls 'lambda: 1'")
    refused(body("x = k(lambda: 1)"), "Lambda")
    refused(body("x = [v for v in range(3)]"), "ListComp")
    refused(body("x = {v: v for v in range(3)}"), "DictComp")
    refused(body("x = f'{tmp0}'"), "JoinedStr")
    refused(body("x = {'a': 1}"), "Dict")


# ----------------------------------------------------------------------------- statements in kernel bodies


@pytest.mark.parametrize("stmt, fragment", [
    ("import os", "Import statements"),
    ("global SCALE", "Global statements"),
    ("with open('/tmp/x', 'w') as f:\n    pass", "With statements"),
    ("try:\n    pass\nexcept Exception:\n    pass", "Try statements"),
    ("assert False", "Assert statements"),
    ("del tmp0", "Delete statements"),
    ("def inner():\n    pass", "FunctionDef statements"),
    ("class C:\n    pass", "ClassDef statements"),
    ("tmp0.attr = 1", "only plain local names"),
    ("tmp0[0] = 1", "only plain local names"),
    ("for i in [1, 2]:\n    pass", "must iterate over range"),
    ("for i in tl.static_range(100000):\n    pass", "compile-time unroll"),
    ("print('x')", "calls 'print'"),
    ("getattr(tl, 'load')", "calls 'getattr'"),
    ("eval('1')", "calls 'eval'"),
    ("__import__('os')", "calls '__import__'"),
    ("x = tl.load(in_ptr0, _builder=None)", "private keyword"),
    ("x = tl.inline_asm_elementwise('mov.u64 $0, %globaltimer;', '=l', [], dtype=tl.int64, is_pure=False, "
     "pack=1)", "tl.inline_asm_elementwise is not on the allowlist"),
    ("x = tl.device_print('x', tmp0)", "tl.device_print is not on the allowlist"),
    ("x = tl.static_print(tmp0)", "tl.static_print is not on the allowlist"),
    ("x = tl.map_elementwise(k, tmp0)", "tl.map_elementwise is not on the allowlist"),
    ("x = triton_helpers.inline_asm_pack(tmp0)", "triton_helpers.inline_asm_pack is not on the allowlist"),
    ("x = tl", "module 'tl' used as a value"),
    ("x = (triton.language, 0)[0].dtype", "module 'triton.language' used as a value"),
    ("x = (tl.math, 0)[0].exp(tmp0)", "module 'tl.math' used as a value"),
    ("tl = 1", "reserved name 'tl'"),
    ("range = 1", "reserved name 'range'"),
    ("x = '" + "a" * 1000 + "'", "string constant of 1000 characters"),
    ("x = (3 ** 30000000) % 2", "the ** operator"),  # red team 22: folded at compile time, held the judge
    ("x = tmp0 ** 2", "the ** operator"),
])
def test_kernel_body_statements_outside_the_shapes_are_refused(stmt, fragment):
    refused(body(stmt), fragment)


def test_module_level_is_imports_driver_constants_and_functions():
    refused(GOOD + "\nprint('x')\n", "module-level Expr")
    refused(GOOD + "\nX = [1]\n", "module-level Assign")
    refused(GOOD + "\nX = tl.constexpr(print('x'))\n", "module-level Assign")
    refused(GOOD + "\nif True:\n    pass\n", "module-level If")
    refused(GOOD + "\ndef helper():\n    return 1\n", "every function must be @triton.jit")
    refused(GOOD + "\n@triton.jit\ndef __init__():\n    pass\n", "dunder")
    check_source(GOOD + "\nBLOCK = tl.constexpr(128)\nSCALE: tl.constexpr = 0.5\n")
    refused(GOOD + "\nBIG = tl.constexpr(3 ** 30000000)\n", "numeric tl.constexpr constants")  # literals only


def test_a_module_level_name_is_bound_once():
    """A constant or a function may not take the name of an import, nor of each other: the kernel would call what
    the name is bound to last."""
    refused(GOOD + "\nlibdevice: tl.constexpr = 0\n", "bound twice", "libdevice")
    refused(GOOD + "\nk = tl.constexpr(1)\n", "bound twice", "'k'")
    refused(GOOD.replace("@triton.jit\ndef k(", "@triton.jit\ndef tl_math(", 1), "bound twice", "tl_math")


# ----------------------------------------------------------------------------- bounded work


def test_oversized_sources_are_refused_in_bounded_time():
    t0 = time.perf_counter()
    refused(body("x = " + "(" * 5000 + "1" + ")" * 5000), "nested")
    refused(body("\n".join(f"t{i} = tmp0 + {i}" for i in range(60_000))), "bytes")
    refused(HEADER + "\n@triton.jit\ndef k(a):\n" + "".join(f"    t{i} = a\n" for i in range(12_000)), "syntax nodes")
    refused(body("x = " + " + ".join(["tmp0"] * 20_000)), "")
    refused("\x00", "")
    assert time.perf_counter() - t0 < 10


def test_launch_configurations_are_small_integers():
    assert check_configs([{"XBLOCK": 64, "num_warps": 4}]) is None
    assert "not an integer" in check_configs([{"XBLOCK": "64"}])
    assert "not an integer" in check_configs([{"XBLOCK": 2**40}])
    assert "plain name" in check_configs([{"__class__": 1}])
    assert "not a mapping" in check_configs([[1, 2]])


# ----------------------------------------------------------------------------- the loader


def test_the_loader_refuses_unchecked_source_and_binds_names_itself():
    pytest.importorskip("torch")
    from pytest_kernelopt.kernel_loader import load_kernel_module

    marker = MARKER_DIR / "loader"
    payload = f"import os\nos.makedirs({str(marker)!r}, exist_ok=True)\n"
    with pytest.raises(AllowlistError):
        load_kernel_module(payload + GOOD)
    assert not marker.exists(), "the payload ran"
    mod = load_kernel_module(GOOD, "k")
    import triton.language as tl

    assert mod.tl is tl and callable(getattr(mod.k, "run", None) or mod.k)
    assert set(mod.__dict__["__builtins__"]) <= {"range", "min", "max", "float", "int", "abs", "len", "bool", "set"}
    assert Path(mod.__file__).read_text() == GOOD, "the source inspect.getsource reads is the checked source"


def test_every_inductor_kernel_in_the_corpus_passes_as_its_own_candidate():
    """No honest work lost: every kernel Inductor generated for the collected module kinds is on the allowlist."""
    corpus = pytest.importorskip("inductor_corpus").corpus()
    assert len(corpus) >= 50, "the corpus under tests/data/inductor_kernels is missing"
    failures = []
    for ident, _name, source in corpus:
        try:
            check_source(source)
        except AllowlistError as e:
            failures.append(f"{ident}: {e}")
    assert not failures, "\n".join(failures[:20])


HELPERS = {
    "itself": '''
@triton.jit
def helper(x, n: tl.constexpr):
    return helper(x + 0.0, n + 1)
''',
    "a-pair": '''
@triton.jit
def ping(x, n: tl.constexpr):
    return pong(x, n + 1)


@triton.jit
def pong(x, n: tl.constexpr):
    return ping(x, n + 1)
''',
}


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_recursive_functions_are_refused_before_compiling(name):
    """Red team 18: a helper recursing on an unbounded constexpr held the static gate's compile until the
    timeout (300 s by default); refused at once now, a cycle of calls among the module's functions."""
    entry = "helper" if name == "itself" else "ping"
    source = HEADER + HELPERS[name] + KERNEL.replace("    # BODY", f"    tmp2 = {entry}(tmp2, 0)")
    t0 = time.perf_counter()
    reason = refused(source, "recursive functions", entry)
    assert time.perf_counter() - t0 < 5, reason


def test_helpers_that_call_each_other_without_a_cycle_pass():
    source = HEADER + '''
@triton.jit
def inner(x):
    return x * 2.0


@triton.jit
def outer(x):
    return inner(x) + inner(x + 1.0)
''' + KERNEL.replace("    # BODY", "    tmp2 = outer(tmp2)")
    check_source(source)
