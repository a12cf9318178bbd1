"""Collect real Inductor-generated Triton kernel sources into a corpus.

Builds a broad list of tiny modules (pointwise chains, broadcasting, tiled
transposes, reductions of every kind, scans, norms, pooling, losses, indirect
indexing, random numbers, sort/topk, upsampling, matmul/conv epilogues,
attention, a transformer block, training graphs, half precision,
channels_last, dynamic shapes and a few Inductor options), compiles each with
the project's capture on the backend in use, and writes every Triton kernel's
source to ``OUTDIR/<torch version>-<device>/<module>__<kernel>.py`` plus an
``index.json``: each module (kernel count, ok or not, seconds; a module whose
ops all stay ATen calls has 0 kernels), each kernel (module, kernel name, kind,
heuristic, graph role, file) and each module that failed (with its error).
A kernel name too long for a file name is cut and given a hash.

A module whose compiled run fails after Inductor generated code (an
interpreter limitation on CPU, say) still contributes its kernels: the
wrappers Inductor loaded are read back and their kernels are recorded as
``"salvaged": true``.

    python benchmarks/collect_inductor_kernels.py tests/data/inductor_kernels                  # CPU: ~2-4 min
    python3 benchmarks/collect_inductor_kernels.py tests/data/inductor_kernels --backend cuda  # GPU: ~5 min

Each backend and torch version gets its own folder; a run replaces its folder
(a run with ``--only`` replaces only its own cases' entries).

Options: ``--only SUBSTR`` (repeatable) runs the cases whose name contains it,
``--max-per-module N`` keeps at most N kernels of each module, ``--list``
prints the case names.  Each module is tiny (well under 50k elements): on CPU
the Triton interpreter runs every kernel once.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@dataclass
class Case:
    name: str
    build: Callable[[], tuple[Any, tuple]]  # -> (module or callable, inputs), on CPU, before moving
    training: bool = False
    dynamic: bool | None = None
    options: dict[str, Any] | None = None
    mode: str | None = None
    train_mode: bool = False  # module.train() for an inference (no_grad) capture, e.g. batchnorm stats


CASES: list[Case] = []


def case(name: str, **kw):
    """Register ``build`` (a function returning (module, inputs)) as a case."""
    if not re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", name):
        raise ValueError(f"case name {name!r}: lowercase words joined by single underscores")

    def deco(build):
        CASES.append(Case(name, build, **kw))
        return build

    return deco


# --------------------------------------------------------------------------- helpers (torch imported lazily)


def _torch():
    import torch

    return torch


def gen(seed: int = 0):
    return _torch().Generator().manual_seed(seed)


def randn(*shape, dtype=None, seed=0, requires_grad=False):
    torch = _torch()
    t = torch.randn(*shape, generator=gen(seed))
    if dtype is not None:
        t = t.to(dtype)
    return t.requires_grad_(requires_grad)


def rand(*shape, dtype=None, seed=0):
    torch = _torch()
    t = torch.rand(*shape, generator=gen(seed))
    return t.to(dtype) if dtype is not None else t


def randint(low, high, *shape, dtype=None, seed=0):
    torch = _torch()
    t = torch.randint(low, high, shape, generator=gen(seed))
    return t.to(dtype) if dtype is not None else t


def fn_module(fn: Callable, name: str):
    """A callable wrapped as an nn.Module (capture's messages name the module's class)."""
    torch = _torch()

    cls = type(name, (torch.nn.Module,), {"forward": lambda self, *a: fn(*a)})
    return cls()


def fcase(name: str, fn: Callable, *inputs_fn: Callable, **kw):
    """Register a functional case: ``fn(*inputs)`` with inputs built lazily."""

    @case(name, **kw)
    def _build():
        return fn_module(fn, _camel(name)), tuple(f() for f in inputs_fn)


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_"))


# --------------------------------------------------------------------------- the cases
# Sizes stay tiny (a few thousand elements, a few dozen rows): on CPU every program of every
# kernel is run by the Triton interpreter, one Python call per program.  Inputs are built on the
# CPU (seeded) and moved to the backend's device; a tensor made inside a case's function must name
# its device (device=x.device), since `with torch.device(...)` would break the graph.


def _define_cases() -> None:  # noqa: C901  (one long list on purpose)
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    X = lambda: randn(32, 64)  # noqa: E731
    Y = lambda: randn(32, 64, seed=1)  # noqa: E731
    POS = lambda: rand(32, 64) + 0.1  # noqa: E731
    I32 = lambda: randint(-1000, 1000, 32, 64, dtype=torch.int32)  # noqa: E731
    I32b = lambda: randint(1, 1000, 32, 64, dtype=torch.int32, seed=1)  # noqa: E731

    # ---- pointwise chains
    fcase("pw_add_mul_relu", lambda x, y: torch.relu(x * 2.0 + y) - 0.5, X, Y)
    fcase("pw_gelu", lambda x: F.gelu(x) * 1.5, X)
    fcase("pw_gelu_tanh", lambda x: F.gelu(x, approximate="tanh") + 1, X)
    fcase("pw_silu_mul", lambda x, y: F.silu(x) * y, X, Y)
    fcase("pw_tanh_sigmoid", lambda x: torch.tanh(x) + torch.sigmoid(x * 3), X)
    fcase("pw_exp_log", lambda x, p: torch.exp(x) + torch.log(p) + torch.log1p(p) + torch.expm1(x * 0.1), X, POS)
    fcase("pw_erf", lambda x: torch.erf(x) + torch.erfc(x * 0.5) + torch.special.erfinv(x.clamp(-0.9, 0.9)), X)
    fcase("pw_pow", lambda x, p: x ** 3 + p.pow(x) + torch.pow(2.0, x) + p ** 0.5, X, POS)
    fcase("pw_clamp", lambda x: torch.clamp(x, -0.5, 0.5) + x.clamp(min=0) + F.hardtanh(x), X)
    fcase("pw_clamp_tensor", lambda x, y: torch.clamp(x, min=y, max=y + 1), X, Y)
    fcase("pw_where", lambda x, y: torch.where(x > y, x, y * 2) + torch.where(x < 0, 0.0, x), X, Y)
    fcase("pw_abs_sign", lambda x: torch.abs(x) * torch.sign(x) + torch.sgn(x) + torch.signbit(x).float(), X)
    fcase("pw_rounding", lambda x: torch.floor(x * 3) + torch.ceil(x) + torch.round(x * 7) + torch.trunc(x)
       + torch.frac(x) + torch.round(x, decimals=2), X)
    fcase("pw_rsqrt_sqrt", lambda p: torch.rsqrt(p) + torch.sqrt(p) + torch.reciprocal(p), POS)
    fcase("pw_fmod_remainder", lambda x, y: torch.fmod(x, 0.3) + torch.remainder(x, y.abs() + 0.1)
       + torch.floor_divide(x, 0.25), X, Y)
    fcase("pw_int_div_mod", lambda a, b: (a // b) + (a % b) + torch.fmod(a, b) + torch.div(a, b, rounding_mode="trunc"),
       I32, I32b)
    fcase("pw_true_div_int", lambda a, b: a / b, I32, I32b)
    fcase("pw_bitwise", lambda a, b: ((a & b) | (a ^ 7)) + (~a) + (a << 2) + (b >> 1), I32, I32b)
    fcase("pw_bitwise_bool", lambda x, y: ((x > 0) & (y > 0)) | ((x < -1) ^ (y < -1)) | ~(x == y), X, Y)
    fcase("pw_logical", lambda x, y: torch.logical_and(x > 0, y > 0) | torch.logical_xor(x > 1, y < 0)
       | torch.logical_not(x > y), X, Y)
    fcase("pw_comparisons", lambda x, y: torch.stack([x < y, x <= y, x > y, x >= y, x == y, x != y]).sum(0), X, Y)
    fcase("pw_minmax_binary", lambda x, y: torch.maximum(x, y) - torch.minimum(x, y) + torch.fmax(x, y)
       + torch.fmin(x, y), X, Y)
    fcase("pw_trig", lambda x: torch.sin(x) + torch.cos(x) + torch.tan(x * 0.3) + torch.atan2(x, x + 2)
       + torch.asin(x.clamp(-1, 1)) + torch.acos(x.clamp(-1, 1)) + torch.atan(x) + torch.sinh(x) + torch.cosh(x)
       + torch.asinh(x) + torch.atanh(x.clamp(-0.9, 0.9)), X)
    fcase("pw_activations", lambda x: F.leaky_relu(x, 0.1) + F.elu(x) + F.selu(x) + F.celu(x) + F.softplus(x)
       + F.mish(x) + F.hardswish(x) + F.hardsigmoid(x) + F.relu6(x) + F.logsigmoid(x) + F.softsign(x)
       + F.tanhshrink(x) + F.threshold(x, 0.1, -1.0) + F.hardshrink(x) + F.softshrink(x), X)
    fcase("pw_glu", lambda x: F.glu(x, dim=-1), X)
    fcase("pw_lerp_addcmul", lambda x, y: torch.lerp(x, y, 0.3) + torch.addcmul(x, x, y, value=0.5)
       + torch.addcdiv(x, x, y.abs() + 1), X, Y)
    fcase("pw_nan_handling", lambda x: torch.nan_to_num(torch.log(x)) + torch.isnan(x.log()).float()
       + torch.isinf(1 / x).float() + torch.isfinite(x).float(), X)
    fcase("pw_logaddexp", lambda x, y: torch.logaddexp(x, y) + torch.logaddexp2(x, y) + torch.special.xlogy(x, y.abs()),
       X, Y)
    fcase("pw_hypot_copysign", lambda x, y: torch.hypot(x, y) + torch.copysign(x, y) + torch.nextafter(x, y), X, Y)
    fcase("pw_special", lambda x, p: torch.lgamma(p) + torch.digamma(p) + torch.special.i0(x)
       + torch.special.ndtr(x) + torch.special.log_ndtr(x), X, POS)
    fcase("pw_scalar_tensor", lambda x, s: x * s + s.exp(), X, lambda: torch.tensor(0.7))
    fcase("pw_arange_iota", lambda x: x + torch.arange(64, dtype=torch.float32, device=x.device)
       * torch.arange(32, device=x.device).view(32, 1), X)
    fcase("pw_full_like", lambda x: torch.full_like(x, 3.0) + torch.ones(32, 64, device=x.device) * x
       + torch.zeros_like(x), X)
    fcase("pw_one_hot", lambda i: F.one_hot(i, 10).float() * 2, lambda: randint(0, 10, 256))
    fcase("pw_bucketize", lambda x, b: torch.bucketize(x, b) + torch.searchsorted(b, x.contiguous(), right=True), X,
       lambda: torch.linspace(-2, 2, 17))

    # ---- casts
    fcase("cast_fp32_fp16", lambda x: (x * 2).half(), X)
    fcase("cast_fp32_bf16", lambda x: (x * 2).bfloat16(), X)
    fcase("cast_fp16_fp32", lambda h: h.float() * 2 + 1, lambda: randn(32, 64, dtype=torch.float16))
    fcase("cast_bf16_fp32", lambda h: h.float().exp(), lambda: randn(32, 64, dtype=torch.bfloat16))
    fcase("cast_fp16_bf16", lambda h: (h * 2).to(torch.bfloat16), lambda: randn(32, 64, dtype=torch.float16))
    fcase("cast_int_float", lambda a: a.float() / 3 + a.to(torch.float16).float(), I32)
    fcase("cast_float_int", lambda x: (x * 100).int() + (x * 10).long() + (x * 10).to(torch.int8), X)
    fcase("cast_bool_float", lambda x: (x > 0).float() + (x > 0).to(torch.int32) + x.bool().half(), X)
    fcase("cast_uint8", lambda u: (u.float() / 255.0 - 0.5).clamp(0, 1) * 255,
       lambda: randint(0, 256, 32, 64, dtype=torch.uint8))
    fcase("cast_int64_arith", lambda a: a * 3 + (a >> 2) - 7, lambda: randint(-10**12, 10**12, 2048))
    fcase("cast_fp64", lambda x: (x.double() * 1e-3).exp().float(), X)

    # ---- broadcasting
    fcase("bcast_3d", lambda a, b: a + b * 2, lambda: randn(4, 1, 64), lambda: randn(1, 32, 64, seed=1))
    fcase("bcast_row_col", lambda x, r, c: x * r + c, X, lambda: randn(64), lambda: randn(32, 1, seed=2))
    fcase("bcast_outer", lambda a, b: torch.relu(a[:, None] * b[None, :]), lambda: randn(128), lambda: randn(96, seed=1))
    fcase("bcast_expand_contig", lambda a: a.expand(8, 32, 64).contiguous() + 1, lambda: randn(32, 64))

    # ---- layout: transposes, permutes, 2D tiled kernels
    fcase("transpose_2d", lambda x: x.t().contiguous() * 2, lambda: randn(96, 80))
    fcase("transpose_add", lambda x, y: x.t() + y, lambda: randn(64, 96), lambda: randn(96, 64, seed=1))
    fcase("permute_3d", lambda x: x.permute(0, 2, 1).contiguous() + 1, lambda: randn(4, 48, 40))
    fcase("permute_4d_nhwc", lambda x: x.permute(0, 2, 3, 1).contiguous().relu(), lambda: randn(2, 16, 12, 12))
    fcase("to_channels_last", lambda x: x.contiguous(memory_format=torch.channels_last) * 2,
       lambda: randn(2, 16, 12, 12))
    fcase("permute_reshape", lambda x: x.view(4, 8, 8, 16).permute(0, 2, 1, 3).reshape(32, 128) + 1,
       lambda: randn(32, 128))

    # ---- cat / stack / pad / slicing / views
    fcase("cat_dim0", lambda a, b: torch.cat([a * 2, b + 1], 0), X, Y)
    fcase("cat_dim1", lambda a, b, c: torch.cat([a, b.relu(), c], 1), X, Y, lambda: randn(32, 16, seed=2))
    fcase("stack", lambda a, b: torch.stack([a, b, a * b], dim=1), X, Y)
    fcase("pad_constant", lambda x: F.pad(x, (1, 2, 3, 0), value=-1.0), lambda: randn(2, 3, 16, 16))
    fcase("pad_reflect", lambda x: F.pad(x, (2, 2, 2, 2), mode="reflect") * 2, lambda: randn(2, 3, 16, 16))
    fcase("pad_replicate", lambda x: F.pad(x, (1, 3, 1, 3), mode="replicate"), lambda: randn(2, 3, 16, 16))
    fcase("pad_circular", lambda x: F.pad(x, (2, 2, 2, 2), mode="circular"), lambda: randn(2, 3, 16, 16))
    fcase("slice_step", lambda x: x[:, ::2] + x[:, 1::2] + x.flip(0)[:, 5:37], lambda: randn(32, 64))
    fcase("narrow_select", lambda x: x.narrow(1, 3, 20) * x[:, 0:1] + x[3, :20], lambda: randn(32, 64))
    fcase("flip_roll", lambda x: x.flip(0) + torch.roll(x, shifts=(3, -5), dims=(0, 1)), X)
    fcase("repeat_tile", lambda x: x.repeat(2, 3) + 1, lambda: randn(16, 32))
    fcase("repeat_interleave", lambda x: x.repeat_interleave(3, dim=1) * 2, lambda: randn(16, 32))
    fcase("tril_triu", lambda x: torch.tril(x) + torch.triu(x, 1) * 2, lambda: randn(48, 48))
    fcase("diag_embed", lambda x: torch.diag_embed(x) + torch.diagonal(torch.diag_embed(x), 0, 1, 2).sum(),
       lambda: randn(4, 32))
    fcase("slice_scatter", lambda x, y: x.clone().index_fill_(1, torch.tensor([1, 5, 7], device=x.device), 0.0)
       + torch.slice_scatter(x, y[:, :16], 1, 0, 16), X, Y)
    fcase("setitem_slice", lambda x: _setitem(x), X)
    fcase("unfold_im2col", lambda x: F.unfold(x, kernel_size=3, padding=1), lambda: randn(1, 4, 12, 12))
    fcase("fold_col2im", lambda x: F.fold(x, output_size=(8, 8), kernel_size=2, stride=2), lambda: randn(1, 16, 16))
    fcase("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2) + 1, lambda: randn(1, 16, 8, 8))
    fcase("as_strided", lambda x: torch.as_strided(x, (16, 16), (64, 3)) * 2, X)

    # ---- reductions
    R = lambda: randn(4, 16, 48)  # noqa: E731
    for red in ("sum", "mean", "amax", "amin", "prod", "argmax", "argmin"):
        for d in (0, 1, 2):
            fcase(f"red_{red}_dim{d}", lambda x, red=red, d=d: getattr(torch, red)(x, dim=d) * 2 if red not in
               ("argmax", "argmin") else getattr(torch, red)(x, dim=d), R)
    fcase("red_sum_all", lambda x: x.sum() * 2, R)
    fcase("red_max_values_indices", lambda x: torch.max(x, dim=1), R)
    fcase("red_min_values_indices", lambda x: torch.min(x, dim=-1), R)
    fcase("red_var_std", lambda x: torch.var(x, dim=-1) + torch.std(x, dim=0).sum(), R)
    fcase("red_var_mean", lambda x: torch.var_mean(x, dim=1, correction=0), R)
    fcase("red_any_all", lambda x: (x > 1).any(dim=1).float() + (x > -3).all(dim=1).float(), R)
    fcase("red_norm", lambda x: torch.linalg.vector_norm(x, dim=-1) + x.norm(p=1, dim=1).sum()
       + torch.linalg.vector_norm(x, ord=float("inf"), dim=0).sum(), R)
    fcase("red_logsumexp", lambda x: torch.logsumexp(x, dim=-1), R)
    fcase("red_aminmax", lambda x: torch.aminmax(x, dim=1), R)
    fcase("red_nansum_nanmean", lambda x: torch.nansum(x.log(), dim=1) + torch.nanmean(x.log(), dim=1), R)
    fcase("red_int_sum", lambda a: a.sum(dim=1) + (a > 0).sum(dim=1) + torch.count_nonzero(a, dim=1), I32)
    fcase("red_bool_sum", lambda x: (x > 0).sum() + (x > 0).sum(0), X)
    fcase("red_multi_output", lambda x: (x.sum(-1), x.amax(-1), x.mean(-1), (x * x).sum(-1)), R)
    fcase("red_keepdim_sub", lambda x: x - x.mean(dim=-1, keepdim=True), R)
    # large reduction dims: looped (non-persistent) reductions, and split reductions of a whole tensor
    fcase("red_large_sum_rows", lambda x: x.sum(-1), lambda: randn(8, 4096))
    fcase("red_large_amax_rows", lambda x: x.amax(-1) + x.argmax(-1), lambda: randn(8, 4096))
    fcase("red_large_var_rows", lambda x: x.var(-1), lambda: randn(8, 4096))
    fcase("red_large_sum_cols", lambda x: x.sum(0), lambda: randn(2048, 16))
    fcase("red_split_sum_all", lambda x: x.sum(), lambda: randn(40000))
    fcase("red_split_amax_all", lambda x: x.amax() + x.argmax(), lambda: randn(40000))
    fcase("red_split_var_all", lambda x: x.var(), lambda: randn(40000))
    fcase("red_small_persistent", lambda x: x.sum(-1) * x.amax(-1), lambda: randn(256, 8))

    # ---- softmax
    fcase("softmax_last", lambda x: torch.softmax(x, -1), lambda: randn(32, 64))
    fcase("softmax_dim0", lambda x: torch.softmax(x, 0), lambda: randn(32, 64))
    fcase("log_softmax", lambda x: F.log_softmax(x, -1), lambda: randn(32, 64))
    fcase("softmax_large", lambda x: torch.softmax(x, -1), lambda: randn(4, 4096))
    fcase("softmax_scaled_masked", lambda x, m: torch.softmax((x * 0.125).masked_fill(m, float("-inf")), -1),
       lambda: randn(4, 8, 16, 16), lambda: torch.triu(torch.ones(16, 16, dtype=torch.bool), 1))

    # ---- normalisation layers
    @case("norm_layernorm")
    def _():
        return nn.LayerNorm(64), (randn(32, 64),)

    @case("norm_layernorm_large")
    def _():
        return nn.LayerNorm(2048), (randn(4, 2048),)

    @case("norm_rmsnorm")
    def _():
        return nn.RMSNorm(64), (randn(32, 64),)

    fcase("norm_rmsnorm_manual", lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
       lambda: randn(32, 64), lambda: randn(64, seed=3))

    @case("norm_groupnorm")
    def _():
        return nn.GroupNorm(4, 16), (randn(2, 16, 8, 8),)

    @case("norm_batchnorm_eval")
    def _():
        m = nn.BatchNorm2d(16).eval()
        m.running_mean.normal_(generator=gen(4))
        m.running_var.uniform_(0.5, 2.0, generator=gen(5))
        return m, (randn(2, 16, 8, 8),)

    @case("norm_batchnorm_train", train_mode=True)
    def _():
        return nn.BatchNorm2d(16).train(), (randn(2, 16, 8, 8),)

    @case("norm_batchnorm1d_train", train_mode=True)
    def _():
        return nn.BatchNorm1d(32).train(), (randn(16, 32),)

    @case("norm_instancenorm")
    def _():
        return nn.InstanceNorm2d(8, affine=True), (randn(2, 8, 8, 8),)

    fcase("norm_normalize", lambda x: F.normalize(x, dim=-1) + F.normalize(x, p=1, dim=0), X)
    fcase("norm_cosine_similarity", lambda a, b: F.cosine_similarity(a, b, dim=-1), X, Y)
    fcase("norm_cdist", lambda a, b: torch.cdist(a, b), lambda: randn(16, 8), lambda: randn(24, 8, seed=1))

    # ---- scans
    fcase("scan_cumsum", lambda x: torch.cumsum(x, -1), lambda: randn(16, 64))
    fcase("scan_cumsum_dim0", lambda x: torch.cumsum(x, 0), lambda: randn(64, 16))
    fcase("scan_cumprod", lambda x: torch.cumprod(x, -1), lambda: rand(16, 64) + 0.5)
    fcase("scan_reverse_cumsum", lambda x: torch.cumsum(x.flip(-1), -1).flip(-1), lambda: randn(16, 64))
    fcase("scan_cumsum_int", lambda a: torch.cumsum(a, -1), lambda: randint(0, 10, 16, 64))
    fcase("scan_logcumsumexp", lambda x: torch.logcumsumexp(x, -1), lambda: randn(16, 64))
    fcase("scan_cummax", lambda x: torch.cummax(x, -1).values + torch.cummin(x, -1).values, lambda: randn(16, 64))
    fcase("scan_cumsum_large_1d", lambda x: torch.cumsum(x, 0), lambda: randn(32768))
    fcase("scan_cumsum_large_rows", lambda x: torch.cumsum(x, -1), lambda: randn(4, 4096))

    # ---- pooling
    fcase("pool_max1d", lambda x: F.max_pool1d(x, 3, 2, 1), lambda: randn(2, 8, 64))
    fcase("pool_max2d", lambda x: F.max_pool2d(x, 2), lambda: randn(2, 8, 16, 16))
    fcase("pool_max2d_pad_stride", lambda x: F.max_pool2d(x, 3, 2, 1), lambda: randn(2, 8, 16, 16))
    fcase("pool_max2d_indices", lambda x: F.max_pool2d(x, 2, return_indices=True), lambda: randn(2, 8, 16, 16))
    fcase("pool_max3d", lambda x: F.max_pool3d(x, 2), lambda: randn(1, 4, 8, 8, 8))
    fcase("pool_avg1d", lambda x: F.avg_pool1d(x, 4), lambda: randn(2, 8, 64))
    fcase("pool_avg2d", lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), lambda: randn(2, 8, 16, 16))
    fcase("pool_avg3d", lambda x: F.avg_pool3d(x, 2), lambda: randn(1, 4, 8, 8, 8))
    fcase("pool_adaptive_avg2d", lambda x: F.adaptive_avg_pool2d(x, (5, 3)), lambda: randn(2, 8, 16, 16))
    fcase("pool_adaptive_avg_global", lambda x: F.adaptive_avg_pool2d(x, 1).flatten(1), lambda: randn(2, 16, 12, 12))
    fcase("pool_adaptive_max2d", lambda x: F.adaptive_max_pool2d(x, (4, 4)), lambda: randn(2, 8, 16, 16))
    fcase("pool_adaptive_avg1d", lambda x: F.adaptive_avg_pool1d(x, 7), lambda: randn(2, 8, 64))
    fcase("pool_lp2d", lambda x: F.lp_pool2d(x, 2, 2), lambda: randn(2, 8, 16, 16))

    # ---- losses
    T = lambda: randn(32, 64, seed=9)  # noqa: E731
    fcase("loss_mse", lambda x, t: F.mse_loss(x, t), X, T)
    fcase("loss_l1", lambda x, t: F.l1_loss(x, t), X, T)
    fcase("loss_smooth_l1", lambda x, t: F.smooth_l1_loss(x, t, beta=0.5), X, T)
    fcase("loss_huber", lambda x, t: F.huber_loss(x, t, delta=0.7), X, T)
    fcase("loss_kl_div", lambda x, t: F.kl_div(F.log_softmax(x, -1), F.softmax(t, -1), reduction="batchmean"), X, T)
    fcase("loss_cross_entropy", lambda x, t: F.cross_entropy(x, t), lambda: randn(32, 10),
       lambda: randint(0, 10, 32))
    fcase("loss_cross_entropy_smooth", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1, ignore_index=3),
       lambda: randn(32, 10), lambda: randint(0, 10, 32))
    fcase("loss_cross_entropy_probs", lambda x, t: F.cross_entropy(x, t.softmax(-1)), lambda: randn(32, 10),
       lambda: randn(32, 10, seed=1))
    fcase("loss_nll", lambda x, t: F.nll_loss(F.log_softmax(x, -1), t, reduction="sum"), lambda: randn(32, 10),
       lambda: randint(0, 10, 32))
    fcase("loss_nll_2d", lambda x, t: F.nll_loss(x.log_softmax(1), t), lambda: randn(2, 5, 8, 8),
       lambda: randint(0, 5, 2, 8, 8))
    fcase("loss_bce", lambda x, t: F.binary_cross_entropy(torch.sigmoid(x), t), X, lambda: rand(32, 64))
    fcase("loss_bce_logits", lambda x, t: F.binary_cross_entropy_with_logits(
        x, t, pos_weight=torch.full((64,), 2.0, device=x.device)),
       X, lambda: rand(32, 64))
    fcase("loss_triplet", lambda a, p, n: F.triplet_margin_loss(a, p, n), X, Y, T)
    fcase("loss_cosine_embedding", lambda a, b, y: F.cosine_embedding_loss(a, b, y), X, Y,
       lambda: randint(0, 2, 32) * 2 - 1)
    fcase("loss_margin_ranking", lambda a, b, y: F.margin_ranking_loss(a, b, y, margin=0.1), lambda: randn(64),
       lambda: randn(64, seed=1), lambda: (randint(0, 2, 64) * 2 - 1).float())
    fcase("loss_hinge_soft_margin", lambda x, y: F.hinge_embedding_loss(x, y) + F.soft_margin_loss(x, y), X,
       lambda: (randint(0, 2, 32, 64) * 2 - 1).float())
    fcase("loss_poisson_gaussian", lambda x, t, v: F.poisson_nll_loss(x, t) + F.gaussian_nll_loss(x, t, v), X, POS,
       lambda: rand(32, 64) + 0.5)

    # ---- indirect indexing, scatter, atomics
    @case("idx_embedding")
    def _():
        return nn.Embedding(100, 32), (randint(0, 100, 8, 16),)

    fcase("idx_embedding_padding", lambda i, w: F.embedding(i, w, padding_idx=0) * 2,
       lambda: randint(0, 50, 64), lambda: randn(50, 16))
    fcase("idx_index_select", lambda x, i: torch.index_select(x, 0, i) + 1, X, lambda: randint(0, 32, 20))
    fcase("idx_gather", lambda x, i: torch.gather(x, 1, i) * 2, X, lambda: randint(0, 64, 32, 8))
    fcase("idx_take_along_dim", lambda x, i: torch.take_along_dim(x, i, dim=0), X, lambda: randint(0, 32, 4, 64))
    fcase("idx_advanced", lambda x, i, j: x[i, j] + x[i].sum(-1), X, lambda: randint(0, 32, 50),
       lambda: randint(0, 64, 50, seed=1))
    # on CPU Inductor sends scatter-sum to ATen unless told otherwise (no effect on a GPU)
    no_cpp_scatter_fallback = {"cpp.fallback_scatter_reduce_sum": False}
    fcase("idx_scatter_add", lambda x, i, s: x.clone().scatter_add_(1, i, s), X, lambda: randint(0, 64, 32, 16),
       lambda: randn(32, 16, seed=2), options=no_cpp_scatter_fallback)
    fcase("idx_scatter_reduce_sum", lambda x, i, s: x.scatter_reduce(0, i, s, reduce="sum"), X,
       lambda: randint(0, 32, 8, 64), lambda: randn(8, 64, seed=2), options=no_cpp_scatter_fallback)
    fcase("idx_scatter", lambda x, i, s: torch.scatter(x, 1, i, s), X, lambda: randint(0, 64, 32, 16),
       lambda: randn(32, 16, seed=2))
    fcase("idx_scatter_reduce_amax", lambda x, i, s: x.scatter_reduce(0, i, s, reduce="amax", include_self=True), X,
       lambda: randint(0, 32, 8, 64), lambda: randn(8, 64, seed=2))
    fcase("idx_index_add", lambda x, i, s: x.index_add(0, i, s, alpha=2.0), X, lambda: randint(0, 32, 10),
       lambda: randn(10, 64, seed=2))
    fcase("idx_index_put", lambda x, i, v: torch.index_put(x, (i,), v), X, lambda: torch.tensor([1, 5, 9, 30]),
       lambda: randn(4, 64, seed=2))
    fcase("idx_index_put_accumulate", lambda x, i, v: torch.index_put(x, (i,), v, accumulate=True), X,
       lambda: randint(0, 32, 20), lambda: randn(20, 64, seed=2))
    fcase("idx_index_put_bool_mask", lambda x, m: x.masked_fill(m, 0.0) + torch.where(m, x, -x), X,
       lambda: rand(32, 64) > 0.5)
    fcase("idx_negative_wrap", lambda x, i: x[:, i], X, lambda: randint(-64, 64, 12))
    fcase("idx_histogram_bincount_like", lambda i, w: torch.zeros(16, device=w.device).index_add(0, i, w),
       lambda: randint(0, 16, 500),
       lambda: rand(500))
    fcase("idx_grid_sample", lambda x, g: F.grid_sample(x, g, align_corners=False), lambda: randn(1, 3, 12, 12),
       lambda: rand(1, 8, 8, 2) * 2 - 1)
    fcase("idx_embedding_bag", lambda i, w, o: F.embedding_bag(i, w, o, mode="sum"), lambda: randint(0, 40, 30),
       lambda: randn(40, 16), lambda: torch.tensor([0, 4, 10, 20]))

    # ---- masking
    fcase("masked_fill", lambda x, m: x.masked_fill(m, -1e4) * 2, X, lambda: rand(32, 64) > 0.7)
    fcase("masked_fill_bcast", lambda x, m: x.masked_fill(m[None, :, :], float("-inf")).softmax(-1),
       lambda: randn(4, 16, 16), lambda: torch.triu(torch.ones(16, 16, dtype=torch.bool), 1))

    # ---- random numbers (fresh graph each run: seeds are inputs)
    @case("rand_dropout_train", train_mode=True)
    def _():
        return nn.Sequential(nn.Dropout(0.3), nn.ReLU()).train(), (randn(32, 64),)

    fcase("rand_rand_like", lambda x: x + torch.rand_like(x) + torch.randn_like(x) * 0.1, X)
    fcase("rand_bernoulli", lambda p: torch.bernoulli(p) * 2, lambda: rand(32, 64))
    fcase("rand_randint", lambda x: x + torch.randint(0, 10, x.shape, device=x.device), X)

    # ---- sort / topk
    fcase("sort_topk", lambda x: torch.topk(x, 5, dim=-1), lambda: randn(16, 64))
    fcase("sort_sort", lambda x: torch.sort(x, dim=-1), lambda: randn(16, 64))
    fcase("sort_sort_stable_desc", lambda x: torch.sort(x, dim=-1, descending=True, stable=True).values * 2,
       lambda: randn(16, 64))
    fcase("sort_argsort", lambda x: torch.argsort(x, dim=0), lambda: randn(32, 16))
    fcase("sort_kthvalue_median", lambda x: torch.kthvalue(x, 3, dim=-1).values + torch.median(x, dim=-1).values,
       lambda: randn(16, 33))

    # ---- upsample / interpolate
    fcase("up_nearest2x", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), lambda: randn(1, 4, 12, 12))
    fcase("up_nearest_exact", lambda x: F.interpolate(x, size=(17, 9), mode="nearest-exact"),
       lambda: randn(1, 4, 12, 12))
    fcase("up_bilinear", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
       lambda: randn(1, 4, 12, 12))
    fcase("up_bilinear_align", lambda x: F.interpolate(x, size=(20, 20), mode="bilinear", align_corners=True),
       lambda: randn(1, 4, 12, 12))
    fcase("up_bicubic", lambda x: F.interpolate(x, scale_factor=2, mode="bicubic"), lambda: randn(1, 2, 8, 8))
    fcase("up_linear1d", lambda x: F.interpolate(x, scale_factor=3, mode="linear"), lambda: randn(2, 4, 32))
    fcase("up_trilinear", lambda x: F.interpolate(x, scale_factor=2, mode="trilinear"), lambda: randn(1, 2, 6, 6, 6))
    fcase("up_nearest3d", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), lambda: randn(1, 2, 6, 6, 6))

    # ---- matmul / conv with epilogues (the mm/conv itself stays a vendor call)
    @case("linear_bias_gelu")
    def _():
        return nn.Sequential(nn.Linear(64, 96), nn.GELU()), (randn(32, 64),)

    @case("linear_silu_gate")
    def _():
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(32, 64, bias=False)
                self.b = nn.Linear(32, 64, bias=False)

            def forward(self, x):
                return F.silu(self.a(x)) * self.b(x)

        return M(), (randn(16, 32),)

    @case("linear_layernorm")
    def _():
        return nn.Sequential(nn.Linear(64, 64), nn.LayerNorm(64), nn.Tanh()), (randn(32, 64),)

    fcase("bmm_epilogue", lambda a, b, c: torch.relu(torch.bmm(a, b) + c), lambda: randn(4, 16, 32),
       lambda: randn(4, 32, 24, seed=1), lambda: randn(24, seed=2))
    fcase("matmul_addmm_scale", lambda x, w, b: torch.addmm(b, x, w, alpha=0.5, beta=2.0).sigmoid(),
       lambda: randn(32, 48), lambda: randn(48, 40, seed=1), lambda: randn(40, seed=2))
    fcase("einsum_reduce", lambda a, b: torch.einsum("bij,bjk->bik", a.exp(), b).sum(-1),
       lambda: randn(2, 8, 16), lambda: randn(2, 16, 8, seed=1))

    @case("conv2d_bias_relu")
    def _():
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU()), (randn(2, 3, 12, 12),)

    @case("conv1d_silu")
    def _():
        return nn.Sequential(nn.Conv1d(4, 8, 5, padding=2), nn.SiLU()), (randn(2, 4, 32),)

    @case("conv2d_bn_relu_eval")
    def _():
        return nn.Sequential(nn.Conv2d(4, 8, 3), nn.BatchNorm2d(8), nn.ReLU()).eval(), (randn(2, 4, 10, 10),)

    @case("conv_transpose2d_tanh")
    def _():
        return nn.Sequential(nn.ConvTranspose2d(4, 3, 2, stride=2), nn.Tanh()), (randn(1, 4, 8, 8),)

    @case("conv_depthwise_hardswish")
    def _():
        return nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.Hardswish()), (randn(1, 8, 10, 10),)

    @case("conv2d_residual_groupnorm")
    def _():
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(8, 8, 3, padding=1)
                self.gn = nn.GroupNorm(2, 8)

            def forward(self, x):
                return F.silu(self.gn(self.conv(x))) + x

        return M(), (randn(1, 8, 8, 8),)

    # ---- attention
    fcase("attn_manual", lambda q, k, v: torch.softmax(q @ k.transpose(-2, -1) * 0.25, -1) @ v,
       lambda: randn(2, 4, 16, 16), lambda: randn(2, 4, 16, 16, seed=1), lambda: randn(2, 4, 16, 16, seed=2))
    fcase("attn_causal_manual", lambda q, k, v: _causal_attn(q, k, v),
       lambda: randn(2, 4, 16, 16), lambda: randn(2, 4, 16, 16, seed=1), lambda: randn(2, 4, 16, 16, seed=2))
    fcase("attn_bias_gate", lambda q, k, v, b, g: (torch.softmax(q @ k.transpose(-2, -1) * 0.25 + b, -1) * g) @ v,
       lambda: randn(2, 4, 16, 16), lambda: randn(2, 4, 16, 16, seed=1), lambda: randn(2, 4, 16, 16, seed=2),
       lambda: randn(4, 16, 16, seed=3), lambda: rand(2, 4, 16, 1))
    fcase("attn_sdpa", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
       lambda: randn(1, 2, 16, 16), lambda: randn(1, 2, 16, 16, seed=1), lambda: randn(1, 2, 16, 16, seed=2))
    fcase("attn_rope", lambda x, c, s: _rope(x, c, s), lambda: randn(2, 4, 16, 32), lambda: randn(16, 16, seed=1),
       lambda: randn(16, 16, seed=2))

    @case("transformer_block")
    def _():
        return _transformer(), (randn(2, 8, 32),)

    @case("mha_module")
    def _():
        class Mha(nn.Module):  # the attention module is a submodule, so that .to(device) moves it
            def __init__(self):
                super().__init__()
                self.mha = nn.MultiheadAttention(32, 4, batch_first=True)

            def forward(self, x):
                return self.mha(x, x, x, need_weights=False)[0]

        return Mha().eval(), (randn(2, 8, 32),)

    # ---- training (forward + backward graphs)
    @case("train_mlp_gelu", training=True)
    def _():
        return nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 16)), (randn(16, 32),)

    @case("train_layernorm", training=True)
    def _():
        return nn.LayerNorm(64), (randn(32, 64, requires_grad=True),)

    @case("train_rmsnorm", training=True)
    def _():
        return nn.RMSNorm(64), (randn(32, 64, requires_grad=True),)

    fcase("train_softmax", lambda x: torch.softmax(x * 2, -1), lambda: randn(32, 64, requires_grad=True), training=True)
    fcase("train_log_softmax_large", lambda x: F.log_softmax(x, -1), lambda: randn(4, 2048, requires_grad=True),
       training=True)
    fcase("train_cross_entropy", lambda x, t: F.cross_entropy(x, t), lambda: randn(32, 10, requires_grad=True),
       lambda: randint(0, 10, 32), training=True)
    fcase("train_pointwise_chain", lambda x, y: torch.tanh(x) * torch.sigmoid(y) + F.silu(x * y),
       lambda: randn(32, 64, requires_grad=True), lambda: randn(32, 64, seed=1, requires_grad=True), training=True)
    fcase("train_cumsum", lambda x: torch.cumsum(x, -1) * 2, lambda: randn(16, 64, requires_grad=True), training=True)
    fcase("train_maxpool", lambda x: F.max_pool2d(x, 2), lambda: randn(2, 4, 8, 8, requires_grad=True), training=True)
    fcase("train_avgpool_upsample", lambda x: F.interpolate(F.avg_pool2d(x, 2), scale_factor=2, mode="bilinear"),
       lambda: randn(1, 4, 8, 8, requires_grad=True), training=True)
    fcase("train_gather_index", lambda x, i: torch.gather(x, 1, i).sum(-1) + x[i[:, 0]].mean(-1),
       lambda: randn(32, 64, requires_grad=True), lambda: randint(0, 32, 32, 4), training=True)

    fcase("train_attention", lambda q, k, v: torch.softmax(q @ k.transpose(-2, -1) * 0.25, -1) @ v,
       lambda: randn(1, 2, 16, 16, requires_grad=True), lambda: randn(1, 2, 16, 16, seed=1, requires_grad=True),
       lambda: randn(1, 2, 16, 16, seed=2, requires_grad=True), training=True)
    fcase("train_losses", lambda x, t, i: F.mse_loss(x, t) + F.smooth_l1_loss(x, t) + F.binary_cross_entropy_with_logits(
        x, t.sigmoid()) + F.kl_div(x.log_softmax(-1), t.softmax(-1), reduction="batchmean") + F.nll_loss(
        x.log_softmax(-1), i), lambda: randn(16, 32, requires_grad=True), lambda: randn(16, 32, seed=1),
       lambda: randint(0, 32, 16), training=True)
    fcase("train_reflect_pad", lambda x: F.pad(x, (2, 2, 2, 2), mode="reflect") * 2,
       lambda: randn(1, 2, 8, 8, requires_grad=True), training=True)
    # pointwise ops around it: grid_sample's own backward is an ATen call, and a backward graph without Triton
    # kernels is not seen as one when the FX graph cache serves it
    fcase("train_grid_sample", lambda x, g: F.grid_sample(x * 2, g, align_corners=True).sigmoid(),
       lambda: randn(1, 2, 8, 8, requires_grad=True), lambda: rand(1, 6, 6, 2) * 2 - 1, training=True)
    fcase("train_upsample_nearest", lambda x: F.interpolate(x, scale_factor=2, mode="nearest") * 3,
       lambda: randn(1, 2, 6, 6, requires_grad=True), training=True)
    fcase("train_cumprod_logcumsumexp", lambda x: torch.cumprod(x, -1) + torch.logcumsumexp(x, -1),
       lambda: (rand(8, 32) + 0.5).requires_grad_(), training=True)
    fcase("train_topk_sort", lambda x: torch.sort(x, -1).values * torch.arange(32.0, device=x.device),
       lambda: randn(8, 32, requires_grad=True), training=True)
    fcase("train_adaptive_pool", lambda x: F.adaptive_avg_pool2d(x, 3) + F.adaptive_max_pool2d(x, 3),
       lambda: randn(1, 2, 8, 8, requires_grad=True), training=True)

    @case("train_layernorm_large", training=True)
    def _():
        return nn.LayerNorm(2048), (randn(4, 2048, requires_grad=True),)

    @case("train_instancenorm", training=True)
    def _():
        return nn.InstanceNorm2d(4, affine=True), (randn(2, 4, 6, 6, requires_grad=True),)

    @case("train_batchnorm1d", training=True)
    def _():
        return nn.BatchNorm1d(16).train(), (randn(32, 16, requires_grad=True),)

    @case("train_mlp_fp16", training=True)
    def _():
        m = nn.Sequential(nn.Linear(32, 32), nn.SiLU(), nn.Linear(32, 8)).half()
        return m, (randn(8, 32, dtype=torch.float16),)

    @case("train_embedding", training=True)
    def _():
        return nn.Sequential(nn.Embedding(64, 16), nn.LayerNorm(16)), (randint(0, 64, 4, 16),)

    @case("train_conv_bn_relu", training=True)
    def _():
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU()).train(), \
            (randn(2, 3, 8, 8),)

    @case("train_groupnorm", training=True)
    def _():
        return nn.GroupNorm(4, 16), (randn(2, 16, 4, 4, requires_grad=True),)

    @case("train_dropout_linear", training=True)
    def _():
        return nn.Sequential(nn.Linear(32, 32), nn.Dropout(0.2)).train(), (randn(16, 32),)

    @case("train_transformer_block", training=True)
    def _():
        return _transformer(), (randn(2, 8, 32),)

    # ---- half precision
    fcase("half_pointwise_fp16", lambda x, y: F.gelu(x) * y + 1, lambda: randn(32, 64, dtype=torch.float16),
       lambda: randn(32, 64, seed=1, dtype=torch.float16))
    fcase("half_pointwise_bf16", lambda x: F.silu(x) * torch.tanh(x), lambda: randn(32, 64, dtype=torch.bfloat16))
    fcase("half_softmax_fp16", lambda x: torch.softmax(x, -1), lambda: randn(32, 64, dtype=torch.float16))
    fcase("half_softmax_bf16_large", lambda x: torch.softmax(x, -1), lambda: randn(4, 2048, dtype=torch.bfloat16))
    fcase("half_sum_bf16", lambda x: x.sum(-1) + x.amax(-1), lambda: randn(16, 64, dtype=torch.bfloat16))
    fcase("half_var_fp16", lambda x: x.var(0), lambda: randn(64, 32, dtype=torch.float16))
    fcase("half_cumsum_fp16", lambda x: x.cumsum(-1), lambda: randn(16, 64, dtype=torch.float16))

    @case("half_layernorm_fp16")
    def _():
        return nn.LayerNorm(64).half(), (randn(32, 64, dtype=torch.float16),)

    @case("half_rmsnorm_bf16")
    def _():
        return nn.RMSNorm(64).to(torch.bfloat16), (randn(32, 64, dtype=torch.bfloat16),)

    @case("half_linear_relu_bf16")
    def _():
        return nn.Sequential(nn.Linear(32, 48), nn.ReLU()).to(torch.bfloat16), (randn(16, 32, dtype=torch.bfloat16),)

    @case("half_train_layernorm_bf16", training=True)
    def _():
        return nn.LayerNorm(64).to(torch.bfloat16), (randn(16, 64, dtype=torch.bfloat16, requires_grad=True),)

    # ---- channels_last inputs
    CL = lambda *s, seed=0: randn(*s, seed=seed).contiguous(memory_format=torch.channels_last)  # noqa: E731
    fcase("cl_add_relu", lambda x, y: torch.relu(x + y * 2), lambda: CL(2, 16, 8, 8), lambda: CL(2, 16, 8, 8, seed=1))
    fcase("cl_mixed_layout_add", lambda x, y: x + y, lambda: CL(2, 16, 8, 8), lambda: randn(2, 16, 8, 8, seed=1))
    fcase("cl_bias_channel", lambda x, b: x * b.view(1, -1, 1, 1) + 1, lambda: CL(2, 16, 8, 8), lambda: randn(16))
    fcase("cl_maxpool", lambda x: F.max_pool2d(x, 2), lambda: CL(2, 8, 16, 16))
    fcase("cl_upsample_bilinear", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), lambda: CL(1, 8, 8, 8))
    fcase("cl_mean_hw", lambda x: x.mean((2, 3)), lambda: CL(2, 16, 8, 8))

    @case("cl_conv_bn_relu")
    def _():
        m = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU()).eval()
        return m.to(memory_format=torch.channels_last), (CL(2, 8, 8, 8),)

    @case("cl_groupnorm")
    def _():
        return nn.GroupNorm(2, 8), (CL(2, 8, 8, 8),)

    # ---- dynamic shapes (symbolic sizes in the kernels)
    fcase("dyn_pointwise", lambda x, y: torch.relu(x * y + 1), X, Y, dynamic=True)
    fcase("dyn_sum_rows", lambda x: x.sum(-1), lambda: randn(24, 40), dynamic=True)
    fcase("dyn_softmax", lambda x: torch.softmax(x, -1), lambda: randn(24, 40), dynamic=True)
    fcase("dyn_transpose", lambda x: x.t().contiguous() + 1, lambda: randn(40, 24), dynamic=True)

    fcase("dyn_cat_pad", lambda x, y: F.pad(torch.cat([x, y], 0), (1, 1)) * 2, lambda: randn(12, 40),
       lambda: randn(20, 40, seed=1), dynamic=True)
    fcase("dyn_index_select", lambda x, i: x[i] * 2, lambda: randn(24, 40), lambda: randint(0, 24, 10), dynamic=True)
    fcase("dyn_cumsum", lambda x: torch.cumsum(x, -1), lambda: randn(12, 40), dynamic=True)
    fcase("dyn_sum_large", lambda x: x.sum(), lambda: randn(20000), dynamic=True)
    fcase("dyn_reduction_dim0", lambda x: x.amax(0) + x.var(0), lambda: randn(40, 24), dynamic=True)

    @case("dyn_train_mlp", dynamic=True, training=True)
    def _():
        return nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32)), (randn(10, 16),)

    @case("dyn_layernorm", dynamic=True)
    def _():
        return nn.LayerNorm(40), (randn(24, 40),)

    # ---- Inductor options that change the kernels' shape
    fcase("opt_no_persistent_reductions", lambda x: torch.softmax(x, -1) + x.sum(-1, keepdim=True),
       lambda: randn(16, 64), options={"triton.persistent_reductions": False})
    fcase("opt_cooperative_reduction", lambda x: x.sum() + x.amax(), lambda: randn(32768),
       options={"triton.cooperative_reductions": True})
    fcase("opt_no_split_reductions", lambda x: x.sum(), lambda: randn(32768), options={"split_reductions": False})
    fcase("opt_combo_kernels", lambda a, b: (a.sin() + 1, b.cos() * 2, a.sum(-1)), X, lambda: randn(16, 48, seed=1),
       options={"combo_kernels": True})
    fcase("opt_foreach", lambda xs, ys: torch._foreach_add([x * 1 for x in xs], ys, alpha=0.5),
       lambda: [randn(8, 16, seed=i) for i in range(3)], lambda: [randn(8, 16, seed=10 + i) for i in range(3)])
    fcase("opt_tile_reductions", lambda x: x.sum(0) + x.sum(1).sum(), lambda: randn(64, 48),
       options={"triton.tile_reductions": True})
    # Triton templates (mm/bmm/conv with fused prologues and epilogues).  mode="max-autotune-no-cudagraphs"
    # cannot be combined with the CPU backend's options, so it is asked for as options; Triton alone, so a
    # template wins; no benchmarked fusion (on CPU Inductor writes benchmark modules that do not import)
    tem = {"max_autotune_gemm": True, "max_autotune_gemm_backends": "TRITON", "benchmark_epilogue_fusion": False}
    fcase("tem_mm_relu", lambda a, b: torch.relu(a @ b) + 1, lambda: randn(32, 32), lambda: randn(32, 32, seed=1),
       options=tem)
    fcase("tem_addmm_gelu", lambda x, w, b: F.gelu(F.linear(x, w, b)), lambda: randn(16, 32),
       lambda: randn(48, 32, seed=1),
       lambda: randn(48, seed=2), options=tem)
    fcase("tem_bmm_scale", lambda a, b: (a @ b) * 0.5, lambda: randn(2, 16, 32), lambda: randn(2, 32, 16, seed=1),
       options=tem)
    fcase("tem_mm_prologue", lambda a, b: (a.to(torch.bfloat16).float() * 2) @ b, lambda: randn(32, 32),
       lambda: randn(32, 32, seed=1), options=tem)
    fcase("tem_mm_fp16", lambda a, b: (a @ b).relu(), lambda: randn(32, 32, dtype=torch.float16),
       lambda: randn(32, 32, seed=1, dtype=torch.float16), options=tem)

    @case("tem_conv2d_relu", options={**tem, "max_autotune_conv_backends": "TRITON"})
    def _():
        return nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU()), (randn(1, 4, 8, 8),)

    fcase("opt_max_autotune_pointwise", lambda x: F.gelu(x) + x.sum(-1, keepdim=True), X,
       options={"max_autotune_pointwise": True})
    fcase("opt_native_matmul", lambda a, b, c: torch.relu(a @ b + c), lambda: randn(32, 32), lambda: randn(32, 16, seed=1),
       lambda: randn(16, seed=2), options={"triton.native_matmul": True})
    fcase("opt_native_bmm", lambda a, b: torch.softmax(a @ b, -1), lambda: randn(2, 16, 32),
       lambda: randn(2, 32, 16, seed=1),
       options={"triton.native_matmul": True})
    fcase("opt_block_ptr", lambda x, y: (x.t() + y).relu().sum(-1), lambda: randn(64, 48), lambda: randn(48, 64, seed=1),
       options={"triton.use_block_ptr": True})
    fcase("opt_block_ptr_softmax", lambda x: torch.softmax(x, -1) * 2, lambda: randn(16, 64),
       options={"triton.use_block_ptr": True})
    fcase("opt_tensor_descriptor", lambda x, y: (x.t() + y).relu().sum(-1), lambda: randn(64, 48),
       lambda: randn(48, 64, seed=1), options={"triton.use_tensor_descriptor": True})
    fcase("opt_nd_tiling", lambda x: x.permute(0, 2, 3, 1).contiguous() * 2, lambda: randn(2, 16, 12, 12),
       options={"triton.max_tiles": 3, "triton.prefer_nd_tiling": True})
    fcase("opt_tiled_reduction_2d", lambda x: x.sum((0, 2)) + x.amax((0, 2)), lambda: randn(8, 16, 32),
       options={"triton.tile_reductions": True, "triton.prefer_nd_tiling": True})
    fcase("opt_multi_kernel", lambda x: torch.softmax(x, -1), lambda: randn(16, 512), options={"triton.multi_kernel": 1})
    fcase("opt_no_upcast_fp16", lambda x: F.silu(x) * x + x.sum(-1, keepdim=True),
       lambda: randn(16, 64, dtype=torch.float16), options={"triton.codegen_upcast_to_fp32": False})
    fcase("opt_emulate_precision_casts", lambda x: (x * 2).to(torch.bfloat16).float() + x.exp(),
       lambda: randn(16, 64), options={"emulate_precision_casts": True})
    fcase("opt_benchmark_kernel", lambda x: torch.relu(x) + x.sum(-1, keepdim=True), X,
       options={"benchmark_kernel": True})
    fcase("opt_no_indirect_assert", lambda x, i: x[i] * 2, X, lambda: randint(0, 32, 20),
       options={"assert_indirect_indexing": False})
    fcase("opt_coordinate_descent", lambda x: torch.softmax(x, -1), lambda: randn(8, 64),
       options={"coordinate_descent_tuning": True})
    fcase("opt_fallback_random", lambda x: F.dropout(x, 0.5, training=True), X, options={"fallback_random": True})

    # ---- misc fusions seen in real models
    fcase("misc_swiglu_rmsnorm", lambda x, w: F.silu(x[..., :64]) * x[..., 64:] * torch.rsqrt(
        (x[..., 64:] ** 2).mean(-1, keepdim=True) + 1e-5) * w, lambda: randn(16, 128), lambda: randn(64, seed=1))
    fcase("misc_mean_var_norm_3d", lambda x: (x - x.mean((0, 2), keepdim=True)) / (x.var((0, 2), keepdim=True) + 1e-5)
       .sqrt(), lambda: randn(4, 16, 32))
    fcase("misc_sum_over_middle", lambda x: x.sum(1) * x.amax(1), lambda: randn(8, 32, 16))
    fcase("misc_softmax_cross_entropy_manual", lambda x, t: -(F.log_softmax(x, -1) * F.one_hot(t, 10)).sum(-1).mean(),
       lambda: randn(32, 10), lambda: randint(0, 10, 32))
    fcase("misc_clip_grad_norm_like", lambda a, b: [g * (1.0 / torch.clamp(torch.sqrt(a.pow(2).sum() + b.pow(2).sum()),
                                                          min=1.0)) for g in (a, b)],
       lambda: randn(32, 64), lambda: randn(128, seed=1))
    fcase("misc_complex_ops", lambda x: torch.view_as_real(torch.view_as_complex(x) * 2j).abs(),
       lambda: randn(16, 32, 2))
    fcase("misc_graph_break", lambda x: _graph_break(x), X)
    fcase("misc_cat_many", lambda *xs: torch.cat([x * (i + 1) for i, x in enumerate(xs)], 1),
       *[(lambda i=i: randn(8, 4 + i, seed=i)) for i in range(12)])
    fcase("misc_quant_dequant", lambda x, s: ((x / s).round().clamp(-128, 127).to(torch.int8).float() * s).relu(), X,
       lambda: torch.tensor(0.05))
    fcase("misc_fp8_cast", lambda x: (x.to(torch.float8_e4m3fn).float() + x.to(torch.float8_e5m2).float()), X)
    fcase("misc_int8_matmul_dequant", lambda a, w, s: (a.float() @ w.float()) * s, lambda: randint(-8, 8, 16, 32,
       dtype=torch.int8), lambda: randint(-8, 8, 32, 24, dtype=torch.int8, seed=1), lambda: rand(24))
    fcase("misc_where_scalar_cond", lambda x, y: torch.where(x.sum() > 0, x, y) * 2, X, Y)
    fcase("misc_index_put_2idx", lambda x, i, j, v: x.index_put((i, j), v, accumulate=True), X,
       lambda: randint(0, 32, 40), lambda: randint(0, 64, 40, seed=1), lambda: randn(40, seed=2))
    fcase("misc_pad_1d_3d", lambda a, b: (F.pad(a, (3, 1), mode="reflect"), F.pad(b, (1, 1, 1, 1, 1, 1))),
       lambda: randn(2, 4, 32), lambda: randn(1, 2, 6, 6, 6))
    fcase("misc_layernorm_nonaffine_large_fp16", lambda x: F.layer_norm(x, (4096,)),
       lambda: randn(2, 4096, dtype=torch.float16))
    fcase("misc_sum_outer_3d", lambda x: x.sum(0), lambda: randn(512, 4, 16))
    fcase("misc_inplace_mutation", lambda x, y: _inplace(x, y), lambda: randn(32, 64), Y)


def _setitem(x):
    y = x.clone()
    y[:, :8] = 0.0
    y[4:10, 20:30] *= 2
    return y


def _graph_break(x):
    import torch

    y = torch.relu(x) * 2
    torch._dynamo.graph_break()
    return y.softmax(-1)


def _inplace(x, y):
    x.mul_(2).add_(y)  # mutates the input: Inductor writes back in place
    return x.sum(-1)


def _causal_attn(q, k, v):
    import torch

    s = q @ k.transpose(-2, -1) / (q.shape[-1] ** 0.5)
    n = q.shape[-2]
    mask = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
    return torch.softmax(s.masked_fill(~mask, float("-inf")), -1) @ v


def _rope(x, cos, sin):
    import torch

    x1, x2 = x[..., :16], x[..., 16:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)


def _transformer():
    import torch.nn as nn

    return nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0, batch_first=True, norm_first=True)


# --------------------------------------------------------------------------- running


def _to_device(obj: Any, device: str):
    import torch

    if isinstance(obj, torch.Tensor):
        if obj.device.type == device:
            return obj
        t = obj.detach().to(device)
        return t.requires_grad_(obj.requires_grad) if obj.is_floating_point() else t
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(o, device) for o in obj)
    if isinstance(obj, torch.nn.Module):
        return obj.to(device)
    return obj


@contextlib.contextmanager
def _wrapper_files(paths: list[str]):
    """Record every module file Inductor loads (wrappers included), to salvage kernels when a run fails."""
    from torch._inductor.codecache import PyCodeCache

    orig = PyCodeCache.__dict__["load_by_key_path"]

    def load_by_key_path(cls, key, path, *args, **kwargs):
        paths.append(path)
        return orig.__func__(cls, key, path, *args, **kwargs)

    PyCodeCache.load_by_key_path = classmethod(load_by_key_path)
    try:
        yield
    finally:
        PyCodeCache.load_by_key_path = orig


def _salvage(paths: list[str], torch_version: str) -> list[dict]:
    """Kernels of the wrappers loaded before a run failed (no launch order needed)."""
    from pytest_kernelopt.parse import find_kernel_defs, parse_kernel_source

    out: list[dict] = []
    seen: set[str] = set()
    gi = -1
    for path in dict.fromkeys(paths):
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        if "def call(" not in text or "async_compile" not in text:
            continue  # a kernel module, not a wrapper
        gi += 1
        defs, _ = find_kernel_defs(text, torch_version)
        for d in defs.values():
            if d.name in seen:
                continue
            seen.add(d.name)
            k = parse_kernel_source(d.name, d.source, d.device_str, torch_version)
            out.append({"graph": gi, "role": "unknown", "kernel": k})
    return out


def run_case(c: Case, backend, device: str, torch_version: str) -> tuple[list[dict], str | None, bool]:
    """(kernels as dicts with graph/role/kernel, error or None, salvaged)."""
    from pytest_kernelopt.capture import capture

    module, inputs = c.build()
    if c.train_mode and hasattr(module, "train"):
        module.train()
    module = _to_device(module, device)
    inputs = _to_device(tuple(inputs), device)
    paths: list[str] = []
    try:
        with _wrapper_files(paths):
            cap = capture(module, inputs, training=c.training, backend=backend, options=c.options, mode=c.mode,
                          dynamic=c.dynamic)
    except Exception as e:  # noqa: BLE001  (one failing module does not stop the collection)
        err = f"{type(e).__name__}: {e}"
        try:
            kernels = _salvage(paths, torch_version)
        except Exception as e2:  # noqa: BLE001
            err += f" (salvage failed: {type(e2).__name__}: {e2})"
            kernels = []
        return kernels, err, bool(kernels)
    kernels = [{"graph": g.index, "role": g.role, "kernel": k} for g in cap.graphs for k in g.kernels.values()]
    return kernels, None, False


def _file_name(module: str, kernel: str, content_hash: str, limit: int = 160) -> str:
    """``<module>__<kernel>.py``; a kernel name too long for a file name (Inductor names a kernel after every
    op fused into it) is cut and given a hash; index.json keeps the full name."""
    name = f"{module}__{kernel}"
    if len(name) > limit:
        name = f"{name[: limit - 17]}_{content_hash[:16]}"
    return name + ".py"


def _short(err: str, limit: int = 600) -> str:
    err = " ".join(err.split())
    return err if len(err) <= limit else err[: limit - 3] + "..."


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir", nargs="?", default="tests/data/inductor_kernels")
    p.add_argument("--backend", choices=["auto", "cpu", "cuda"], default="auto")
    p.add_argument("--only", action="append", default=[], metavar="SUBSTR",
                   help="run only the cases whose name contains SUBSTR (repeatable)")
    p.add_argument("--max-per-module", type=int, default=0, metavar="N",
                   help="keep at most N kernels of each module (0: all)")
    p.add_argument("--list", action="store_true", help="print the case names and exit")
    args = p.parse_args(argv)

    from pytest_kernelopt.backends import prepare

    prepare(args.backend)  # before torch/triton import: TRITON_INTERPRET=1 on the CPU backend
    from pytest_kernelopt.backends import select_backend

    _define_cases()
    cases = [c for c in CASES if not args.only or any(s in c.name for s in args.only)]
    if args.list:
        for c in cases:
            print(c.name)
        return 0

    backend = select_backend(args.backend)
    import torch
    import triton

    torch_version = torch.__version__
    device = backend.device
    folder = Path(args.outdir) / f"{torch_version}-{device}"
    if folder.exists() and not args.only:
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    print(f"backend: {backend.description}")
    print(f"{len(cases)} modules -> {folder}/", flush=True)

    index_path = folder / "index.json"
    index: dict[str, Any] = {"torch": torch_version, "triton": triton.__version__, "device": device,
                             "backend": backend.description, "modules": [], "kernels": [], "failures": []}
    if args.only and index_path.exists():  # a partial re-run replaces only its own cases' entries
        old = json.loads(index_path.read_text())
        names = {c.name for c in cases}
        index["modules"] = [m for m in old.get("modules", []) if m["module"] not in names]
        index["kernels"] = [k for k in old.get("kernels", []) if k["module"] not in names]
        index["failures"] = [f for f in old.get("failures", []) if f["module"] not in names]
        for f in folder.glob("*__*.py"):
            if f.name.split("__", 1)[0] in names:
                f.unlink()

    t_all = time.perf_counter()
    for i, c in enumerate(cases, 1):
        t0 = time.perf_counter()
        torch.manual_seed(0)
        try:
            kernels, err, salvaged = run_case(c, backend, device, torch_version)
        except Exception as e:  # noqa: BLE001  (building the module failed)
            kernels, err, salvaged = [], f"{type(e).__name__}: {e}", False
            if os.environ.get("COLLECT_TRACEBACK"):
                traceback.print_exc()
        total = len(kernels)
        if args.max_per_module and total > args.max_per_module:
            kernels = kernels[: args.max_per_module]
        written: dict[str, str] = {}
        for k in kernels:
            kern = k["kernel"]
            fname = _file_name(c.name, kern.name, kern.content_hash)
            if fname in written and written[fname] != kern.source:  # same name in two graphs of one module
                fname = _file_name(c.name, f"{kern.name}_g{k['graph']}", kern.content_hash)
            try:
                (folder / fname).write_text(kern.source)
            except OSError as e:
                err = (err + "; " if err else "") + f"writing {fname}: {e}"
                continue
            written[fname] = kern.source
            index["kernels"].append({
                "module": c.name, "kernel": kern.name, "kind": kern.kind, "heuristic": kern.heuristic,
                "graph": k["graph"], "role": k["role"], "training": c.training, "file": fname,
                "hash": kern.content_hash[:16], **({"salvaged": True} if salvaged else {}),
            })
        kernels = [k for k in kernels if any(k["kernel"].source == v for v in written.values())]
        index["modules"].append({"module": c.name, "kernels": total, "kept": len(kernels), "training": c.training,
                                 "ok": err is None, "seconds": round(time.perf_counter() - t0, 2)})
        if err is not None:
            index["failures"].append({"module": c.name, "error": _short(err), "kernels_salvaged": len(kernels)})
        dt = time.perf_counter() - t0
        kinds = ",".join(sorted({k["kernel"].heuristic or k["kernel"].kind for k in kernels}))
        status = "ok" if err is None else ("SALVAGED" if salvaged else "FAILED")
        kept = f" (kept {len(kernels)} of {total})" if len(kernels) != total else ""
        print(f"[{i:3d}/{len(cases)}] {c.name:<34} {status:<8} {len(kernels):2d} kernels{kept} {kinds:<40} "
              f"{dt:5.1f}s" + (f"\n      {_short(err, 300)}" if err else ""), flush=True)
        index_path.write_text(json.dumps(index, indent=1) + "\n")  # written after each module: a kill keeps it

    index["modules"].sort(key=lambda m: m["module"])
    index["kernels"].sort(key=lambda k: (k["module"], k["kernel"]))
    index["failures"].sort(key=lambda f: f["module"])
    index_path.write_text(json.dumps(index, indent=1) + "\n")
    counts: dict[str, int] = {}
    for k in index["kernels"]:
        key = k["heuristic"] or k["kind"]
        counts[key] = counts.get(key, 0) + 1
    size = sum(f.stat().st_size for f in folder.iterdir())
    print(f"\n{len(index['kernels'])} kernels from {len(index['modules'])} modules ({len(cases)} run now, "
          f"{time.perf_counter() - t_all:.0f}s); "
          f"by heuristic: {counts}; {len(index['failures'])} failures; {size / 1e6:.2f} MB in {folder}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
