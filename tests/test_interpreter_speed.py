"""The CPU path's interpreter speed-ups (backends/cpu_interpret.py, backends/interp_combines.py) change nothing a
kernel computes: the integer-overflow check that ``debug=False`` throws away is no longer computed, numpy dtypes come
from a table, and Inductor's reduction combine functions run as numpy twins checked bit for bit here."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def test_the_dtype_table_answers_as_the_interpreters_own_function(cpu_interpreter):
    import triton.language as tl
    from triton.runtime import interpreter as interp

    fast = interp._get_np_dtype
    assert getattr(fast, "_kernelopt_cached", False), "installed by the CPU backend"
    scalars = [getattr(tl, n) for n in ("int1", "float16", "float32", "float64", "int8", "uint8", "int16", "uint16",
                                        "int32", "uint32", "int64", "uint64", "bfloat16", "float8e5", "float8e4nv")]
    types = [*scalars, *(tl.block_type(t, [4, 2]) for t in scalars), tl.pointer_type(tl.float32),
             tl.block_type(tl.pointer_type(tl.int64), [8])]
    import numpy as np

    want = {tl.int1: np.bool_, tl.float16: np.float16, tl.float32: np.float32, tl.float64: np.float64,
            tl.int8: np.int8, tl.uint8: np.uint8, tl.int16: np.int16, tl.uint16: np.uint16, tl.int32: np.int32,
            tl.uint32: np.uint32, tl.int64: np.int64, tl.uint64: np.uint64, tl.bfloat16: np.uint16,
            tl.float8e5: np.uint8, tl.float8e4nv: np.uint8}  # (bfloat16 and fp8 are held as their bits)
    for ty in types:
        scalar = ty.element_ty if isinstance(ty, tl.block_type) else ty
        expected = np.uint64 if isinstance(scalar, tl.pointer_type) else want[scalar]
        assert fast(ty) == np.dtype(expected), ty
    with pytest.raises(KeyError):  # what the interpreter does not know, it still refuses
        fast(tl.void)


def test_int32_arithmetic_still_wraps_as_on_a_gpu_with_the_dead_check_gone(cpu_interpreter):
    import triton
    import triton.language as tl
    from triton.runtime import interpreter as interp

    assert interp.interpreter_builder.options.sanitize_overflow is False
    assert interp.interpreter_builder.options.debug is False

    @triton.jit
    def wrap(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        i = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + i, mask=i < n)
        tl.store(y_ptr + i, x * 3 + 2147483000, mask=i < n)

    x = torch.tensor([0, 1000, 2**30, -(2**30)], dtype=torch.int32)
    y = torch.empty_like(x)
    wrap[(1,)](x, y, 4, BLOCK=4)
    want = ((x.long() * 3 + 2147483000 + 2**31) % 2**32 - 2**31).int()
    assert torch.equal(y, want), (y, want)



triton = pytest.importorskip("triton")
tl = triton.language
from torch._inductor.runtime import triton_helpers  # noqa: E402


@triton.jit
def _reduce_all_kernel(x_ptr, y_ptr, w_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, FLOAT: tl.constexpr):
    """Every combine function with a numpy twin, reduced along the last dim of an (R, C) block."""
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    o = tl.arange(0, R)
    x = tl.load(x_ptr + r * C + c)
    idx = tl.broadcast_to(c, [R, C])
    tl.store(out_ptr + o, triton_helpers.max2(x, 1).to(tl.float64))
    tl.store(out_ptr + R + o, triton_helpers.min2(x, 1).to(tl.float64))
    v, i = triton_helpers.max_with_index(x, idx, 1)
    tl.store(out_ptr + 2 * R + o, v.to(tl.float64))
    tl.store(out_ptr + 3 * R + o, i.to(tl.float64))
    v, i = triton_helpers.min_with_index(x, idx, 1)
    tl.store(out_ptr + 4 * R + o, v.to(tl.float64))
    tl.store(out_ptr + 5 * R + o, i.to(tl.float64))
    tl.store(out_ptr + 6 * R + o, triton_helpers.prod(x, 1).to(tl.float64))
    tl.store(out_ptr + 7 * R + o, triton_helpers.any(x != 0, 1).to(tl.float64))
    if FLOAT:
        y = tl.load(y_ptr + r * C + c)
        w = tl.load(w_ptr + r * C + c)
        m, m2, ww = triton_helpers.welford(x, y, w, 1)
        tl.store(out_ptr + 8 * R + o, m.to(tl.float64))
        tl.store(out_ptr + 9 * R + o, m2.to(tl.float64))
        tl.store(out_ptr + 10 * R + o, ww.to(tl.float64))


def _reduce_all(x, y, w):
    out = torch.full((11 * 8,), -7.0, dtype=torch.float64)
    _reduce_all_kernel[(1,)](x, y, w, out, R=8, C=8, FLOAT=x.dtype.is_floating_point)
    return out


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64", "int8"])
def test_the_numpy_twins_of_inductors_combine_functions_reduce_bit_for_bit_as_the_interpreted_ones(
        dtype, cpu_interpreter, monkeypatch):
    from pytest_kernelopt.backends import interp_combines

    dt = getattr(torch, dtype)
    g = torch.Generator().manual_seed(0)
    if dt.is_floating_point:  # NaN, signed zeros, infinities and ties in every row
        special = torch.tensor([float("nan"), 0.0, -0.0, float("inf"), -float("inf"), 1.0, 1.0, -2.5])
        x = torch.stack([special[torch.randperm(8, generator=g)] for _ in range(4)]
                        + [torch.randn(8, generator=g) for _ in range(4)]).to(dt)
        y = torch.rand(8, 8, generator=g).to(dt)
        w = torch.randint(0, 3, (8, 8), generator=g).to(dt)  # zero weights too (welford's 0/0 guard)
        w[0] = 0
    else:
        x = torch.randint(-3, 3, (8, 8), generator=g).to(dt)  # ties and zeros
        y = w = x
    calls = []
    real = interp_combines.twin_for
    monkeypatch.setattr(interp_combines, "twin_for", lambda *a: calls.append(real(*a)) or calls[-1])
    fast = _reduce_all(x, y, w)
    used = 6 + (dt in (torch.float32, torch.float64))  # welford's twin: float32 and float64 only
    assert sum(t is not None for t in calls) == used, "the twins were used"
    monkeypatch.setattr(interp_combines, "twin_for", lambda *a: None)
    slow = _reduce_all(x, y, w)
    same = (fast.view(torch.int64) == slow.view(torch.int64))
    assert bool(same.all()), f"differ at {same.logical_not().nonzero().flatten().tolist()}: {fast} vs {slow}"


def test_a_candidates_own_combine_function_of_the_same_name_is_interpreted_as_written():
    import numpy as np
    import triton.language as tl

    from pytest_kernelopt.backends import interp_combines

    table = interp_combines.twins()
    assert len(table) == 7

    class Own:  # a JIT function whose Python function is not Inductor's, though named alike
        def fn(self, a, b):
            return a

    Own.fn.__name__ = "maximum"
    assert interp_combines.twin_for(Own(), table, [tl.float32, tl.float32]) is None
    from torch._inductor.runtime import triton_helpers

    assert interp_combines.twin_for(triton_helpers.maximum, table, [tl.float32, tl.float32]) is not None
    assert interp_combines.twin_for(triton_helpers.maximum, table, [tl.bfloat16, tl.bfloat16]) is None
    assert interp_combines.twin_for(triton_helpers.welford_combine, table, [tl.int32] * 6) is None
    assert interp_combines.twin_for(triton_helpers.welford_combine, table, [tl.float16] * 6) is None
    assert np.array_equal(interp_combines._maximum(np.array([np.nan, 1.0]), np.array([2.0, np.nan]))[0],
                          np.array([np.nan, np.nan]), equal_nan=True)


def test_a_launch_patches_every_builtin_the_language_holds_now_whatever_an_earlier_launch_listed(cpu_interpreter,
                                                                                                  monkeypatch):
    """Each launch's list of the language's builtins is kept between launches (backends/cpu_interpret.py,
    ``_cache_builtin_lists``) only while the language holds the same ones: a builtin put in place after a launch
    (here ``tl.math.exp`` replaced by another builtin that doubles the result) is patched for the next launch, and
    the result is the new builtin's."""
    import triton
    import triton.language as tl
    from triton.runtime import interpreter as interp

    assert getattr(interp._patch_builtin, "_kernelopt_patched", False), "installed by the CPU backend"

    @triton.jit
    def k(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.math.exp(tl.load(x_ptr + offs)))

    x = torch.linspace(-2, 2, 16)
    y = torch.empty_like(x)
    k[(1,)](x, y, BLOCK=16)
    assert torch.allclose(y, torch.exp(x))
    original = tl.math.exp

    @tl.core.builtin
    def doubled_exp(x, _semantic=None):
        return original(x, _semantic=_semantic).__mul__(2.0, _semantic=_semantic)

    monkeypatch.setattr(tl.math, "exp", doubled_exp)
    k[(1,)](x, y, BLOCK=16)
    assert torch.allclose(y, 2 * torch.exp(x))
