"""Writes the attack cases under cases/ (run once; the JSON files are committed).

Every payload is harmless and detectable: it creates a marker file under
/tmp/kernelopt_redteam2/ (or prints a unique string).  Nothing is deleted,
nothing touches the network.
"""

from __future__ import annotations

import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
CASES = HERE / "cases"
M = "/tmp/kernelopt_redteam2/"
ADD = "tests/adversarial/allowlist_attacks/problems/tiny_add.py"
PARAM = "tests/adversarial/allowlist_attacks/problems/tiny_param.py"
K = "triton_poi_fused_add_mul_0"

# The whole module Inductor writes for tiny_add.py on the CPU backend (torch 2.13, triton 3.7).
FULL = '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 64}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused_add_mul_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 1024}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_add_mul_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 64
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp3 = tl.load(in_ptr1 + (x0), xmask)
    tmp1 = tl.full([1], 2.0, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp4 = tmp2 + tmp3
    tl.store(out_ptr0 + (x0), tmp4, xmask)
'''

HEAD = "def triton_poi_fused_add_mul_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):"
PRE = """    xnumel = 64
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp3 = tl.load(in_ptr1 + (x0), xmask)
    tmp1 = tl.full([1], 2.0, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp4 = tmp2 + tmp3
"""
STORE = "    tl.store(out_ptr0 + (x0), tmp4, xmask)\n"


def drop(extra: str = "", *, head: str = HEAD, pre: str = PRE, store: str = STORE, before: str = "",
         deco: str = "@triton.jit\n") -> str:
    """A drop-in (just the @triton.jit function): the original's imports and heuristics decorator are kept."""
    return f"{before}{deco}{head}\n{pre}{extra}{store}"


def meta(old: str, new: str, src: str = FULL) -> str:
    assert old in src, old
    return src.replace(old, new, 1)


GRID = "'grid_type': 'Grid1D',"
CASE_LIST: list[dict] = []


def case(name, cls, source, why, *, expect="rejected", marker=None, configs=(), launch=None,
         problem=ADD, replaces=(K,), extra_args=(), timeout=None, payload_strings=()):
    d = {"problem": problem,
         "candidate": {"replaces": list(replaces), "source": source, "configs": list(configs), "launch": launch},
         "class": cls, "marker": mk() if marker is None else marker, "expect": expect, "why": why}
    if extra_args:
        d["judge_args"] = list(extra_args)
    if timeout:
        d["timeout"] = timeout
    if payload_strings:
        d["payload_strings"] = list(payload_strings)
    CASE_LIST.append((name, d))


def mk(tag: str = "") -> str:
    """A marker path, filled in with the case's number and name when the file is written."""
    return f"@MARK{tag}@"


# ---------------------------------------------------------------- decorator metadata that reaches exec()
WRONG_STORE = "    tl.store(out_ptr0 + (x0), tmp4 * 0.0 + 12345.0, xmask)\n"
case("fixed_grid_python_kernel", "inductor_meta value -> launcher exec",
     meta(GRID, "'grid_type': 'FixedGrid', 'fixed_grid': [\"[open('%s', 'w'), out_ptr0.copy_(in_ptr0 * 2.0 + in_ptr1), 0][2]\", '1', '1']," % mk())
     .replace("    tl.store(out_ptr0 + (x0), tmp4, xmask)\n", WRONG_STORE),
     "inductor_meta grid_type='FixedGrid' (an Inductor grid class; fixed_grid an Inductor key) makes the launcher "
     "exec the fixed_grid strings as Python (GridExpr.eval_slow on CPU, _gen_launcher_code on GPU). Here the "
     "'grid' computes the output with torch ops and launches 0 programs, so the reviewed Triton body (which "
     "stores 12345.0) never runs: a wrong kernel verified, and arbitrary Python in the judging worker",
     marker=mk())
case("fixed_grid_os_system", "inductor_meta value -> launcher exec",
     meta(GRID, "'grid_type': 'FixedGrid', 'fixed_grid': [\"__import__('os').system('touch %s; echo KERNELOPT_REDTEAM2_''PAYLOAD_02') or -(-xnumel // 64)\", '1', '1']," % mk()),
     "same route with __import__ and os.system inside a string literal (dunder names are forbidden as AST "
     "names, not inside strings Inductor later compiles); the shell also prints a payload string",
     marker=mk(), configs=[{"XBLOCK": 64, "num_warps": 1, "num_stages": 1}],
     payload_strings=["KERNELOPT_REDTEAM2_PAYLOAD_02"])
HOOK = ("import gc, sys\n"
        "if not hasattr(sys, 'kernelopt_rt2'):\n"
        "    sys.kernelopt_rt2 = 1\n"
        "    open('@MARK@', 'w')\n"
        "    for o in gc.get_objects():\n"
        "        if type(o).__name__ == 'CachingAutotuner' and 'fixed_grid' not in o.inductor_meta:\n"
        "            def w(*a, _r=o.run, **k):\n"
        "                open('@MARKb@', 'w')\n"
        "                return _r(*a, **k)\n"
        "            o.run = w\n")
case("fixed_grid_hooks_other_kernels", "inductor_meta value -> launcher exec (judge affected)",
     meta(GRID, "'grid_type': 'FixedGrid', 'fixed_grid': [%r, '1', '1']," % ("(exec(%r) or 0) or -(-xnumel // 64)" % HOOK)),
     "the fixed_grid payload walks the worker's heap (gc) and wraps the run() of every other Inductor kernel "
     "(the baseline's): on a GPU the same hook can torch.cuda._sleep() inside the baseline's timed calls, so the "
     "performance gate measures a speedup that does not exist. Marker *_b appears if a hooked kernel ran",
     marker=mk(), configs=[{"XBLOCK": 64, "num_warps": 1, "num_stages": 1}])
case("precomputed_grids_exec", "inductor_meta value -> launcher exec",
     meta(GRID, "'grid_type': 'PrecomputedGrid', 'precomputed_grids': [{'config': {}, 'python': [\"open('%s', 'w') and 1\", '1', '1'], 'cpp': ['1', '1', '1']}]," % mk()),
     "PrecomputedGrid: the 'python' strings of precomputed_grids are exec'd by the launcher", marker=mk())
case("combo_grid_meta_exec", "inductor_meta value -> launcher exec",
     meta(GRID, "'grid_type': 'SequentialComboKernelGrid', 'combo_grid_meta': {'num_kernels': 1, 'min_blocks': \"(open('%s', 'w') and 1)\", 'default_config': {}, 'no_x_dim_0': False, 'xnumel_0': 64, 'ynumel_0': \"(open('%s', 'w') and 1)\"}," % (mk(), mk("b"))),
     "SequentialComboKernelGrid: combo_grid_meta min_blocks and ynumel_<i> strings are pasted into the grid code "
     "that is exec'd (combo_grid_meta is a key Inductor writes)", marker=mk())
case("extra_launcher_args_annotation", "inductor_meta value -> launcher exec",
     meta(GRID, GRID + " 'extra_launcher_args': [\"m: open('%s', 'w')\"]," % mk()),
     "extra_launcher_args are pasted into 'def launcher(<args>, stream)' and exec'd on the GPU launcher path "
     "(an annotation runs at def time); on CPU they only shift the arguments",
     marker=mk())
case("constants_quote_injection", "triton_meta value -> launcher exec",
     meta("def triton_poi_fused_add_mul_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):",
          "def triton_poi_fused_add_mul_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr, PAD : tl.constexpr):",
          meta("'constants': {}", "'constants': {'PAD': \"x' + str(open('%s', 'w')) + '\"}" % mk(),
               meta("'XBLOCK': 'constexpr'}", "'XBLOCK': 'constexpr', 'PAD': 'constexpr'}"))),
     "a string constant for a constexpr parameter is pasted as r'<value>' into the GPU launcher's runner(...) "
     "call (_get_arg_lists._convert_constant): a quote in the value breaks out",
     marker=mk())
case("grid_type_any_global", "inductor_meta value",
     meta(GRID, "'grid_type': 'CooperativeReductionGrid',"),
     "grid_type is looked up in triton_heuristics' globals(): another grid class changes the launch; must not "
     "crash the harness or verify a wrong launch", expect="harmless")
case("filename_path", "decorator literal -> file write",
     meta("filename=__file__", "filename='%s.py'" % mk()),
     "filename decides where Inductor's local autotune cache writes <dir>/<hash>.best_config (and reads a planted "
     "one) when a kernel has several configs on a GPU; a literal path instead of __file__",
     expect="harmless",
     configs=[{"XBLOCK": 32, "num_warps": 1, "num_stages": 1}, {"XBLOCK": 64, "num_warps": 1, "num_stages": 1}])
case("remote_cache_and_profiling_on", "inductor_meta switch",
     meta("'autotune_remote_cache': None", "'autotune_remote_cache': True",
          meta(GRID, GRID + " 'profile_bandwidth': True,")),
     "the README says the remote-cache and profiling switches must be off")
case("metadata_lies", "decorator literal / inductor_meta / triton_meta values",
     meta("'kernel_name': 'triton_poi_fused_add_mul_0'", "'kernel_name': \"x'); open('%s', 'w'); ('\"" % mk(),
          meta("'mutated_arg_names': []", "'mutated_arg_names': ['in_ptr0', 'in_ptr1', 'out_ptr0']",
               meta("DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None,",
                    "DeviceProperties(type='cpu', index=7, multi_processor_count=-1, cc=\"'; open('%s', 'w'); '\", major=999," % mk("b"),
                    meta("'configs': [{(2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]",
                         "'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 1024]]}]",
                         meta("'in_ptr0': '*fp32', 'in_ptr1': '*fp32'", "'in_ptr0': '*i64', 'in_ptr1': '*fp64'"))))),
     "kernel_name and DeviceProperties.cc with quotes, mutated_arg_names claiming every pointer, a signature "
     "saying the float inputs are int64/float64 pointers, xnumel 'divisible by 1024': data that must neither run "
     "nor get a wrong kernel verified", expect="harmless", marker=mk())
case("huge_literal_dicts", "decorator literal / size",
     meta("size_hints={'x': 64}", "size_hints={'x': 4611686018427387904}",
          meta("'tiling_scores': {'x': 1024}", "'tiling_scores': {" + ", ".join(f"'k{i}': {i}" for i in range(9000)) + "}")),
     "size_hints of 2**62 (the autotuner sizes blocks from it) and a 9000-key tiling_scores dict, under 256 KiB",
     expect="harmless")
case("heuristics_and_jit_kwargs", "decorator literal",
     FULL.replace("    min_elem_per_thread=0\n)", "    min_elem_per_thread=0, return_configs=True\n)")
     .replace("@triton.jit\n", "@triton.jit(do_not_specialize=['xnumel'], debug=True, noinline=False)\n"),
     "return_configs=True makes the heuristics call return a config list instead of a decorator; "
     "@triton.jit(...) with keyword arguments (debug, do_not_specialize)")

# ---------------------------------------------------------------- module level shapes
case("import_alias_rebinding", "module level import",
     FULL.replace("from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math",
                  "from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math\nimport triton.language as libdevice"),
     "an allowed module bound to another allowed name (libdevice -> triton.language) widens what libdevice.* reaches")
case("module_constant_not_numeric", "module level constant",
     drop(before="PAYLOAD = tl.constexpr(\"open('%s', 'w')\")\nBIG = tl.constexpr(10 ** 100000000)\n" % mk()),
     "module-level tl.constexpr with a string and with a 10**100000000 expression (evaluated where?)",
     marker=mk())
case("set_driver_to_gpu", "module level call",
     FULL.replace("triton_helpers.set_driver_to_cpu()", "triton_helpers.set_driver_to_gpu()"),
     "triton_helpers.set_driver_to_*() is allowed at module level: switching the driver of the judging process "
     "to a GPU that is not there must not break the harness", expect="harmless")
case("shadow_module_names", "shadowing",
     FULL.replace("triton_helpers.set_driver_to_cpu()\n",
                  "triton_helpers.set_driver_to_cpu()\nopen = tl.constexpr(1)\nrange = tl.constexpr(2)\n")
     .replace("    tl.store(out_ptr0 + (x0), tmp4, xmask)\n",
              "    tl.store(out_ptr0 + (x0), tmp4, xmask)\n    open('%s', 'w')\n" % mk()),
     "module constants named open / range make 'open' a module name, so the body may call it; the loader must bind "
     "the constant (a constexpr, not callable), never the builtin", marker=mk())

# ---------------------------------------------------------------- attributes / names in bodies
case("constexpr_value_escape", "tensor member",
     drop("    s = tl.constexpr('%s').value\n    f = s.join\n" % mk()),
     "tl.constexpr(str).value is a plain Python str in the interpreter; its methods are not on the attribute list",
     marker=mk())
case("dtype_member_chain", "tensor member",
     drop("    d = tmp4.dtype.to_ir\n    h = tmp4.handle\n    t = tmp4.type.scalar.name\n"),
     "members of members (.dtype.to_ir, .handle, .type.scalar) reach Triton internals and the interpreter's numpy data")
case("module_attrs_reach_python", "module attribute",
     drop("    t = triton_helpers.triton\n    m = tl_math.pymath\n    c = tl.core\n    r = triton_helpers.torch\n"),
     "names that allowed modules happen to import (triton_helpers.triton, math.pymath, tl.core) are Python modules")
case("helper_internals", "module attribute",
     drop("    g = triton_helpers.x_grid_barrier\n    a = triton_helpers.inline_asm_pack(tmp4, 4)\n"),
     "triton_helpers functions that wrap inline asm or spin on a semaphore (x_grid_barrier) reach what "
     "tl.inline_asm_elementwise is banned for")
case("builtins_on_strings", "builtin call",
     drop("    a = float('nan')\n    b = int('1' * 5000)\n    c = len('%s')\n" % mk()),
     "float('...')/int('...') on strings: int of 5000 digits exceeds the str-to-int limit at compile or run time; "
     "a clean rejection", marker=mk())
case("device_assert_message", "device assert",
     drop("    tl.device_assert(x0 < 0, \"KERNELOPT_REDTEAM2_ASSERT {0} %s %n __import__('os')\")\n"),
     "a failing device assert with format characters in its message: no crash, message not executed "
     "(Inductor compiles without debug, so the assert may be a no-op)", expect="harmless")
case("unicode_homoglyphs", "identifier tricks",
     drop("    ｏｐｅｎ('%s', 'w')\n    оpen('%s', 'w')\n" % (mk("fullwidth"), mk("cyrillic"))),
     "fullwidth ｏｐｅｎ normalises (NFKC) to open; Cyrillic оpen is another identifier: both must be rejected "
     "as names that are not allowed", marker=mk("fullwidth"))
case("fullwidth_dunder", "identifier tricks",
     drop("    k = x0.＿＿class＿＿\n"),
     "fullwidth low lines normalise to __class__: a dunder attribute after NFKC")
case("source_layout_tricks", "encoding / layout / identifier tricks",
     "# -*- coding: utf-7 -*-\n" + drop(("    # +AAo-    open('%s', 'w')\n"
          "    a = tmp4 \\\n\t+ 0.0  # type: ignore\n    # \\\n    \"\"\"docstring: open('%s', 'w')\"\"\"\n"
          % (mk(), mk("b"))) + "    " + "ß" * 20000 + " = a\n    tmp4 = " + "ß" * 20000 + "\n"),
     "a utf-7 coding cookie (decoded as utf-7, '+AAo-' is a newline that would turn a comment into a statement), "
     "a backslash continuation, a tab, a '# type:' comment, a comment ending in a backslash, a string statement "
     "with a payload and a 20000-character non-ASCII local name (80 KiB of UTF-8): whatever loads the kernel "
     "must see exactly what was checked, and nothing of it runs", expect="harmless", marker=mk())
case("form_feed_desync", "source differs from what is loaded",
     drop("\f    tmp4 = tmp4 + 0.0\n"),
     "a form feed at the start of a body line: CPython's tokenizer ignores it, but the Triton interpreter "
     "re-reads the kernel's source lines (inspect.getsourcelines) and ends the function there, so the store "
     "after it is dropped: the checked and the executed function differ (here only to the candidate's loss)",
     expect="harmless")
case("deep_nesting_parser", "parser limits",
     drop("    a = " + "-" * 200000 + "tmp4\n"),
     "200000 nested unary minus (under 256 KiB): CPython's parser or a recursive checker may blow the C stack; "
     "must be a rejection, not a crash")
case("forbidden_syntax_grab_bag", "forbidden syntax",
     drop("    f = lambda q: open('%s', 'w')\n    g = [open('%s', 'w') for _ in range(1)]\n    h = f'{open(\"%s\", \"w\")}'\n"
          % (mk("a"), mk("b"), mk("c"))),
     "lambda, comprehension, f-string with calls: all banned", marker=mk("a"))
case("walrus_with_try_global", "forbidden syntax",
     drop("    global tl\n    with tmp4:\n        pass\n    try:\n        pass\n    except Exception:\n        pass\n    if (q := tmp4):\n        pass\n"),
     "global, with, try/except, walrus: all banned")
case("param_defaults_and_star_args", "function signature",
     drop(head="def triton_poi_fused_add_mul_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr, "
               "PAD : tl.constexpr = open('%s', 'w'), *rest, **kw):" % mk()),
     "a parameter default (evaluated at def time), *args and **kwargs", marker=mk())
case("decorator_and_import_in_dropin", "source differs from what is loaded",
     "import os\n@triton_heuristics.pointwise(size_hints={'x': 64}, filename=__file__, triton_meta={'signature': {}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'configs': []}, inductor_meta={'grid_type': 'FixedGrid', 'fixed_grid': [\"open('%s', 'w') and 1\", '1', '1'], 'kernel_name': 'x'})\n" % mk()
     + drop(),
     "a 'drop-in' that carries its own heuristics decorator (with the FixedGrid payload) and an import: the "
     "completion with the original's decorator must not let either through", marker=mk())
case("redefined_kernel", "source differs from what is loaded",
     drop() + "\n" + drop("    tmp4 = tmp4 + 1.0\n"),
     "the replaced kernel defined twice (the checker may look at one, the loader keep the other): the second, "
     "wrong one must not be verified")
case("jit_named_like_modules", "shadowing",
     drop(before="@triton.jit\ndef libdevice(x):\n    return x\n\n@triton.jit\ndef triton_helpers(x):\n    return x\n\n",
          extra="    tmp4 = libdevice.exp(tmp4)\n"),
     "@triton.jit functions named libdevice / triton_helpers shadow the modules: libdevice.exp is then an "
     "attribute of a JITFunction", expect="harmless")
case("helper_recursion", "helper functions",
     drop(before="@triton.jit\ndef _triton_helper_fn_rec(x):\n    return _triton_helper_fn_rec(x) + 1.0\n\n",
          extra="    tmp4 = _triton_helper_fn_rec(tmp4)\n"),
     "a @triton.jit helper that calls itself forever: compile (or the interpreter) must fail in a bounded way",
     expect="harmless", extra_args=["--timeout", "20"])
case("helper_as_value", "helper functions",
     drop(before="@triton.jit\ndef _triton_helper_fn_id(x):\n    return x\n\n",
          extra="    h = _triton_helper_fn_id\n    tmp4 = h(tmp4)\n"),
     "a @triton.jit helper bound to a local and called through it", expect="rejected")
case("param_named_like_builtins", "shadowing",
     drop(head="def triton_poi_fused_add_mul_0(open, in_ptr1, out_ptr0, range, XBLOCK : tl.constexpr):",
          pre=PRE.replace("in_ptr0", "open").replace("xnumel = 64\n", "xnumel = 64\n    z = range\n")),
     "parameters named open and range (a drop-in must keep the original's parameter names)")

def polyglot(fake_def: str, fake_lines: list[str]) -> str:
    """Lines that CPython reads as short string statements and one trailing comment, but that read from the
    fake 'def' line on are a function whose body is fake_lines."""
    out = ['    """', fake_def]
    for line in fake_lines:
        out += ["    '''\"\"\"", "    \"\"\"'''", "    " + line]
    out += ["    '''\"\"\"", "    rt2 = 0  # '''"]
    return "\n".join(out) + "\n"


POLY = polyglot("def triton_poi_fused_add_mul_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):", [
    "inspect.os.system('touch %s')" % mk(),
    "xi = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)",
    "v = tl.load(in_ptr0 + xi, xi < 64) * 2.0 + tl.load(in_ptr1 + xi, xi < 64)",
    "tl.store(out_ptr0 + xi, v, xi < 64)",
])
case("polyglot_last_def", "source differs from what is loaded",
     drop(store=WRONG_STORE + POLY),
     "the checked kernel stores 12345.0 and ends with short string statements; the Triton interpreter's "
     "FunctionRewriter takes the function's source from the LAST line starting with 'def ' (inside those "
     "strings), so it runs a different, unchecked Python function, with the interpreter module's globals "
     "(inspect, np, ...) added: inspect.os.system runs, and the output it computes is correct while the "
     "reviewed body is wrong (see polyglot_inline_asm for the GPU/JIT variant)",
     marker=mk())

case("polyglot_inline_asm", "source differs from what is loaded",
     drop(head=HEAD.replace("def triton_poi_fused_add_mul_0(", "def triton_poi_fused_add_mul_0\\\n("),
          store=STORE + polyglot("def triton_poi_fused_add_mul_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):", [
              "xi = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)",
              "v = tl.load(in_ptr0 + xi, xi < 64) * 2.0 + tl.load(in_ptr1 + xi, xi < 64)",
              "w = tl.inline_asm_elementwise('mov.b32 $0, $1;', '=r,r', [v], dtype=tl.float32, is_pure=True, pack=1)",
              "tl.store(out_ptr0 + xi, w, xi < 64)"])),
     "the same polyglot, plus a backslash between the real kernel's name and its '(' so that triton.jit's "
     "regex (^def\\s+\\w+\\s*\\() skips the real def: Triton's JIT (on a GPU, and the static gate's own sm90 "
     "compile) compiles the hidden function, here with tl.inline_asm_elementwise (banned: the %globaltimer / "
     "%clock cheats). On CPU only the interpreter's lack of inline asm stops it")

# ---------------------------------------------------------------- denial of service
case("static_range_unroll", "compile-time DoS",
     drop("    for i in tl.static_range(20000000):\n        tmp4 = tmp4 + 0.0\n"),
     "tl.static_range(2e7) unrolls at compile time (the sm90 ahead-of-time compile runs where?)",
     extra_args=["--timeout", "8"], timeout=120)
case("constexpr_power_in_body", "compile-time DoS",
     drop("    N: tl.constexpr = 10 ** 100000000\n    tmp4 = tmp4 + (N % 2)\n"),
     "a constexpr computed as 10**100000000 (minutes of CPU for the big integer)",
     extra_args=["--timeout", "8"], timeout=120)
case("while_true_runtime", "run-time DoS",
     drop("    i = 0\n    while i < 1:\n        i = i * 1\n"),
     "an endless loop at run time: the worker's time limit rejects it, the judge goes on",
     extra_args=["--timeout", "8"], timeout=120)

# ---------------------------------------------------------------- launch configurations
case("configs_non_integer", "launch config",
     drop(), "a config value that is code", configs=[{"XBLOCK": "1) or open('%s', 'w') and (1" % mk(), "num_warps": 1}],
     marker=mk())
case("configs_bool_float_negative", "launch config",
     drop(), "bool, float, negative and zero values", configs=[{"XBLOCK": True, "num_warps": 1.5}, {"XBLOCK": -64, "num_warps": 0}])
case("configs_extra_keys", "launch config",
     drop(), "keys Triton would forward: maxnreg, pre_hook, num_ctas, num_buffers_warp_spec, and a huge num_warps",
     configs=[{"XBLOCK": 64, "num_warps": 1024, "maxnreg": 1, "pre_hook": 1, "num_ctas": 8}])
case("configs_many", "launch config",
     drop(), "3000 configs (each would be compiled and benchmarked): there is no limit on their number, only the "
     "time limit", configs=[{"XBLOCK": 64, "num_warps": 1 + i % 2, "num_stages": 1 + i} for i in range(3000)],
     extra_args=["--timeout", "8"], timeout=120)

case("configs_max_in_range", "launch config",
     drop(), "the largest values the range check lets through: XBLOCK, num_warps and num_stages of 1048576 "
     "(no GPU launches more than 32 warps a block)", expect="harmless",
     configs=[{"XBLOCK": 1048576, "num_warps": 1048576, "num_stages": 1048576}],
     extra_args=["--timeout", "8"], timeout=120)

# ---------------------------------------------------------------- LaunchSpec grid
LS = dict(kernel=K, args=["in_ptr0", "in_ptr1", "out_ptr0", "xnumel"], num_warps=1, num_stages=1, constexprs={"XBLOCK": 64})
def ls(**kw):
    d = dict(LS); d.update(kw); return d

IMPORTS = FULL.split("@triton_heuristics")[0]
JIT_ONLY = IMPORTS + drop()  # a LaunchSpec candidate brings its own imports and no heuristics decorator
case("launch_grid_import", "LaunchSpec grid",
     JIT_ONLY, "grid expression calling __import__('os').system", launch=ls(grid="(__import__('os').system('touch %s'),)" % mk()),
     marker=mk())
case("launch_grid_open_attr", "LaunchSpec grid",
     JIT_ONLY, "grid expression with a builtin call and attribute access", launch=ls(grid="(open('%s', 'w').fileno(), xnumel.bit_length())" % mk()),
     marker=mk())
case("launch_grid_div_zero", "LaunchSpec grid",
     JIT_ONLY, "cdiv(xnumel, 0) and xnumel // 0", launch=ls(grid="(cdiv(xnumel, 0), xnumel // 0)"))
case("launch_grid_huge_power", "LaunchSpec grid",
     JIT_ONLY, "a power that would take the evaluator minutes/gigabytes: 10 ** 10 ** 10", launch=ls(grid="(10 ** 10 ** 10,)"),
     timeout=240)
case("launch_num_warps_huge", "LaunchSpec",
     JIT_ONLY, "num_warps 10**9 and num_stages -1", launch=ls(grid="(1,)", num_warps=10**9, num_stages=-1))
case("launch_grid_names", "LaunchSpec grid",
     JIT_ONLY, "grid naming tensors and names that are not parameters or constexprs",
     launch=ls(grid="(in_ptr0, out_ptr0, open)"))
case("launch_grid_huge", "LaunchSpec grid",
     JIT_ONLY, "a grid of 2**40 programs (a hang in the interpreter) and negative dims", launch=ls(grid="(1099511627776, -1, 1)"),
     extra_args=["--timeout", "30"], timeout=240)
case("launch_args_outside", "LaunchSpec args",
     JIT_ONLY, "args naming attributes and things that are not parameters of the replaced kernel",
     launch=ls(args=["in_ptr0.data", "in_ptr1.__class__", "out_ptr0", "triton_poi_fused_add_mul_0.xnumel"], grid="(1,)"))
case("launch_kernel_not_jit", "LaunchSpec kernel",
     JIT_ONLY, "the kernel to launch names a module/builtin, not a @triton.jit function of the candidate",
     launch=ls(kernel="open", grid="(1,)"))
case("launch_constexprs_code", "LaunchSpec constexprs",
     JIT_ONLY, "a constexpr value that is code",
     launch=ls(constexprs={"XBLOCK": "open('%s', 'w')" % mk()}, grid="(1,)"),
     marker=mk())

# ---------------------------------------------------------------- memory outside the kernel's outputs
case("write_other_input", "pointer arithmetic",
     drop("    tl.store(in_ptr1 + (x0), tmp4 * 0.0, xmask)\n"),
     "stores into an input (in_ptr1), which the model does not mutate")
case("write_module_parameter", "pointer arithmetic",
     drop(pre=PRE.replace("tmp1 = tl.full([1], 2.0, tl.float32)\n    tmp2 = tmp0 * tmp1\n    tmp4 = tmp2 + tmp3\n",
                          "tmp4 = tmp0 * tmp3 + 1.0\n"),
          extra="    tl.store(in_ptr0 + (x0), tmp0 * 0.0 + 1.0, xmask)\n    tl.store(in_ptr1 + (x0), tmp3 * 0.0 + 1.0, xmask)\n"),
     "overwrites the model's parameter (and the input) with ones after computing a correct output",
     problem=PARAM)
case("write_past_end", "pointer arithmetic",
     drop("    tl.store(out_ptr0 + (x0) + 64, tmp4, xmask)\n    tl.store(out_ptr0 + (x0) - 4096, tmp4, xmask)\n"),
     "stores past the end and before the start of the output (into the harness's or the allocator's memory)")
case("read_past_end", "pointer arithmetic",
     drop("    tmp9 = tl.load(in_ptr0 + (x0) + 100000000, xmask)\n    tmp4 = tmp4 + tmp9 * 0.0\n"),
     "reads 400 MB past an input")
case("mutate_and_restore_input", "pointer arithmetic",
     drop("    tl.store(in_ptr0 + (x0), tmp0 * 3.0, xmask)\n    tl.store(in_ptr0 + (x0), tmp0, xmask)\n"),
     "scribbles on an input and restores it within one launch: invisible to a before/after compare, and harmless",
     expect="harmless")


# Cases the allowlist rejects before anything is compiled ("group": "static", kept in each result; the test runs
# every case, static or not, in chunks of one batch process each: tests/cli_batches.py).
STATIC_GROUP = {
    "precomputed_grids_exec", "constants_quote_injection", "remote_cache_and_profiling_on", "heuristics_and_jit_kwargs",
    "import_alias_rebinding", "module_constant_not_numeric", "shadow_module_names", "constexpr_value_escape",
    "dtype_member_chain", "module_attrs_reach_python", "helper_internals", "unicode_homoglyphs", "fullwidth_dunder",
    "deep_nesting_parser", "forbidden_syntax_grab_bag", "walrus_with_try_global", "param_defaults_and_star_args",
    "decorator_and_import_in_dropin", "redefined_kernel", "helper_as_value", "param_named_like_builtins",
    "static_range_unroll", "configs_non_integer", "configs_bool_float_negative", "launch_grid_import",
    "launch_grid_open_attr", "launch_grid_huge_power", "launch_args_outside", "launch_kernel_not_jit",
    "launch_num_warps_huge", "launch_constexprs_code", "launch_grid_names",
}


def main() -> None:
    CASES.mkdir(exist_ok=True)
    for old in CASES.glob("*.json"):
        old.unlink()
    assert STATIC_GROUP <= {n for n, _ in CASE_LIST}, STATIC_GROUP - {n for n, _ in CASE_LIST}
    for i, (name, d) in enumerate(CASE_LIST, 1):
        if name in STATIC_GROUP:
            d["group"] = "static"
        stem = f"{i:02d}_{name}"
        text = json.dumps(d, indent=2, ensure_ascii=False)
        for tag in ("", "fullwidth", "cyrillic", "a", "b", "c"):
            text = text.replace(f"@MARK{tag}@", M + stem + (f"_{tag}" if tag else ""))
        assert "@MARK" not in text, stem
        (CASES / f"{stem}.json").write_text(text + "\n")
    print(len(CASE_LIST), "cases")


if __name__ == "__main__":
    main()
