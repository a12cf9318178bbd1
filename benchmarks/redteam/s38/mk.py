import re,sys
src=open('orig.py').read()
K=open('kname').read().strip()
body_anchor="    tmp28 = libdevice.exp(tmp27)\n"
def w(name, s): open(name,'w').write(s)
# A1: module-level monkeypatch statement
w('a01_module_assign.py', src.replace("triton_helpers.set_driver_to_cpu()\n","triton_helpers.set_driver_to_cpu()\ntl.math.exp = tl.math.exp2\nlibdevice.exp = libdevice.exp2\n"))
# A2: attribute assignment in body
w('a02_body_attr_assign.py', src.replace(body_anchor, "    libdevice.exp = libdevice.exp2\n"+body_anchor))
# A3: import of the interpreter
w('a03_import_interp.py', src.replace("import triton.language as tl\n","import triton.language as tl\nfrom triton.runtime import interpreter\n"))
# A4: setattr call
w('a04_setattr.py', src.replace(body_anchor, "    setattr(libdevice, 'exp', libdevice.exp2)\n"+body_anchor))
# A5: for-loop target is an attribute
w('a05_for_target_attr.py', src.replace(body_anchor, "    for libdevice.exp in range(1):\n        pass\n"+body_anchor))
# A6: tuple-unpack target attribute
w('a06_tuple_target_attr.py', src.replace(body_anchor, "    a, tl.math.exp = 1, tl.math.exp2\n"+body_anchor))
# A7: augmented assign on attribute of tl.tensor class via module path
w('a07_augassign_attr.py', src.replace(body_anchor, "    tl.math.exp += 0\n"+body_anchor))
# A8: module object as value via tl.math (allowed prefix) and reach interpreter via private attr
w('a08_module_value_private.py', src.replace(body_anchor, "    m = (tl.math, 0)[0]\n    b = m._semantic\n"+body_anchor))
# A9: module object as value, call a non-listed member through TENSOR_ATTRS (dtype class)
w('a09_module_value_dtype.py', src.replace(body_anchor, "    m = (triton.language, 0)[0]\n    d = m.dtype\n"+body_anchor))
# A10: default argument that patches at definition time
w('a10_default_arg.py', src.replace("XBLOCK : tl.constexpr):", "XBLOCK : tl.constexpr, _p=setattr(tl.math, 'exp', tl.math.exp2)):",1))
# A11: module constant shadowing the tl binding with a constexpr (to redirect _patch_lang)
w('a11_const_shadow.py', src.replace("triton_helpers.set_driver_to_cpu()\n","triton_helpers.set_driver_to_cpu()\nlibdevice: tl.constexpr = 0\n"))
# A12: helper jit function named like a libdevice member / interpreter global
w('a12_helper_named_global.py', src.replace("@triton_heuristics.persistent_reduction(", "@triton.jit\ndef interpreter_builder(x):\n    return x\n\n@triton_heuristics.persistent_reduction(").replace(body_anchor, "    tmp27 = interpreter_builder(tmp27)\n"+body_anchor))
# A13: decorator with a payload in inductor_meta (unknown key)
w('a13_meta_payload.py', src.replace("'grid_type': 'Grid1D',", "'grid_type': 'Grid1D', 'patch': 'tl.math.exp=tl.math.exp2',"))
# A14: interpreter globals leak: name interpreter_semantic used (added to fn globals by the rewriter)
w('a14_interp_global_name.py', src.replace(body_anchor, "    s = interpreter_semantic\n"+body_anchor))
# A15: polyglot: 'def' inside a one-line triple-quoted string after a statement
w('a15_polyglot_def.py', src.replace(body_anchor, body_anchor+"    '''x'''; \"\"\"\ndef triton_per_fused__softmax_abs_all_amax_eq_mul_ne_sub_0(a):\"\"\"\n"))
# A17: flip Triton's active driver at module level, then back
w('a17_driver_flip.py', src.replace("triton_helpers.set_driver_to_cpu()\n", "triton_helpers.set_driver_to_cpu()\ntriton_helpers.set_driver_to_gpu()\ntriton_helpers.set_driver_to_cpu()\n", 1))
# A18: a wrong exp2 reached through a module used as a value
w('a18_module_value_wrong.py', src.replace(body_anchor, "    tmp28 = (triton.language, 0)[0].exp2(tmp27)\n"))
# control: plainly wrong values (exp2 for exp)
w('ctl_wrong.py', src.replace(body_anchor, "    tmp28 = libdevice.exp2(tmp27)\n"))
