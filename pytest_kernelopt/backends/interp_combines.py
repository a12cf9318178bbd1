"""Numpy twins of Inductor's reduction combine functions, for the CPU interpreter's pairwise tree.

The interpreter reduces with a ``@triton.jit`` combine function (``max2``, ``min2``, ``argmax``, ``welford``,
``any``, ``prod``) by calling it through Triton's frontend once per level of a pairwise tree; the frontend's type
and broadcast checks are most of a reduction-heavy kernel's time there.  Each twin below computes exactly what its
combine function computes, the same numpy operations in the same order, so a level of the tree costs a few numpy
calls instead.

Rule: a twin is used only for the very function object it mirrors (Inductor's ``triton_helpers``; a candidate's
own function of the same name is interpreted as written) and only for numpy-native dtypes (no bfloat16 or fp8,
which the interpreter rounds between operations).  ``tests/test_interpreter_speed.py`` checks every twin against
the interpreted combine bit for bit, NaN, signed zeros, infinities and ties included.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

#: Triton scalar types the interpreter holds as numpy's own (bfloat16 and fp8 are held in wider types and rounded)
NATIVE = frozenset(("int1", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "fp16",
                    "fp32", "fp64"))
#: welford's arithmetic is mirrored where Triton computes it in the operands' own type (float16 operands are
#: promoted through Triton's scalar rules, so they stay interpreted; Inductor's welford accumulates in float32)
WIDE_FLOATING = frozenset(("fp32", "fp64"))


def _floating(a: np.ndarray) -> bool:
    return a.dtype.kind == "f"


def _minimum(a, b):
    mask = a < b
    if _floating(a):
        mask |= a != a
    return (np.where(mask, a, b),)


def _maximum(a, b):
    mask = a > b
    if _floating(a):
        mask |= a != a
    return (np.where(mask, a, b),)


def _interpreted_not(block: np.ndarray) -> bool:
    """``not block`` as the interpreter evaluates it (``_get_bool``): the truth of a one-element block, else the
    block counts as true, so ``not`` of it is false.  (Compiled for a GPU it is an element-wise not.)"""
    return not bool(block.reshape(-1)[0]) if block.size == 1 else False


def _with_index(greater: bool):
    def combine(a_value, a_index, b_value, b_index):
        mask = a_value > b_value if greater else a_value < b_value
        equal = a_value == b_value
        if _floating(a_value):
            a_isnan = a_value != a_value
            b_isnan = b_value != b_value
            mask |= a_isnan & _interpreted_not(b_isnan)
            equal |= a_isnan & b_isnan
        mask |= equal & (a_index < b_index)
        return np.where(mask, a_value, b_value), np.where(mask, a_index, b_index)

    return combine


def _welford_combine(mean_1, m2_1, weight_1, mean_2, m2_2, weight_2):
    zero = np.zeros((), mean_1.dtype)
    delta = np.where(mean_1 == mean_2, zero, mean_2 - mean_1)
    new_weight = weight_1 + weight_2
    w2_over_w = np.where(new_weight == np.zeros((), new_weight.dtype), np.zeros((), new_weight.dtype),
                         weight_2 / new_weight)
    return mean_1 + delta * w2_over_w, m2_1 + m2_2 + delta * delta * weight_1 * w2_over_w, new_weight


def _any_combine(a, b):
    return (a | b,)


def _prod(a, b):
    return (a * b,)


def twins() -> dict[int, Callable[..., tuple[Any, ...]]]:
    """``id`` of each mirrored Python function -> its twin (empty where this torch has none of them)."""
    try:
        from torch._inductor.runtime import triton_helpers as h
    except ImportError:  # pragma: no cover - a torch without Inductor's runtime helpers
        return {}
    table = {"minimum": _minimum, "maximum": _maximum, "minimum_with_index": _with_index(False),
             "maximum_with_index": _with_index(True), "welford_combine": _welford_combine,
             "_any_combine": _any_combine, "_prod_accumulate": _prod}
    found = {}
    for name, twin in table.items():
        fn = getattr(getattr(h, name, None), "fn", None)
        if fn is not None:
            found[id(fn)] = twin
    return found


def twin_for(combine_fn: Any, table: dict[int, Callable], dtypes: list[Any]) -> Callable | None:
    """The twin of ``combine_fn`` where it has one and every operand's Triton type is held as numpy's own (float32
    or float64 for welford's arithmetic), else ``None``."""
    twin = table.get(id(getattr(combine_fn, "fn", None)))
    names = {getattr(getattr(dt, "scalar", dt), "name", None) for dt in dtypes}
    if twin is None or not names <= (WIDE_FLOATING if twin is _welford_combine else NATIVE):
        return None
    return twin
