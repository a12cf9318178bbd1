"""Comparing module outputs: structure, metadata, special values and magnitudes."""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any

from . import decade_kernel, judge_kernels, level_kernel, stats_kernel
from .chunked import chunks, compute_device, piece, spans


def flatten(obj: Any) -> list:
    """Tensors and other leaves of a nested output, in a stable order."""
    import torch

    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [x for o in obj for x in flatten(o)]
    if isinstance(obj, dict):
        return [x for k in sorted(obj, key=str) for x in flatten(obj[k])]
    return [obj]


@dataclass
class Comparison:
    """Outcome of comparing a candidate's outputs with the baseline's."""

    hard_failure: str | None = None  # structure / metadata / NaN / zeros: never excused by the fp64 gate
    within_tolerance: bool = True
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0
    worst: str = ""
    tiny_outputs: list[int] = field(default_factory=list)
    zeros: list[int] = field(default_factory=list)  # tiny outputs the candidate returns as all zeros
    #: outputs whose NaN/Inf positions differ, where the caller deferred that to the float64 gate (a certified
    #: reorder only: :func:`special_positions`)
    special: list[int] = field(default_factory=list)


def values(outputs: Any, grads: dict) -> list:
    """A run's values in the order the float64 gate reads them: its outputs flattened, then its gradients and state
    by name."""
    return flatten(outputs) + [grads[k] for k in sorted(grads)]


def _l2_ratio(num: float, denom: float) -> float:
    return num / denom if denom > 0 else (0.0 if num == 0 else float("inf"))


def finite_l2(x, t, rtol: float = 0.0, atol: float = 0.0) -> tuple[int, float, float, float]:
    """Over the positions where ``x`` and ``t`` are both finite, in float64, a chunk at a time (on the device
    of either that is not the host): (count, L2 norm of ``x - t``, L2 norm of ``t``, L2 norm of
    ``atol + rtol * |t|``)."""
    import torch

    acc = torch.zeros(4, dtype=torch.float64)
    for xc, tc in chunks(x, t):
        ok = torch.isfinite(xc) & torch.isfinite(tc)
        xd = torch.where(ok, xc.double(), 0.0)
        td = torch.where(ok, tc.double(), 0.0)
        d = xd - td
        cap = torch.where(ok, atol + rtol * td.abs(), 0.0)
        acc = acc.to(d.device) + torch.stack([ok.sum().double(), (d * d).sum(), (td * td).sum(), (cap * cap).sum()])
        del ok, xd, td, d, cap
    n, err, norm, tol = acc.tolist()
    return int(n), math.sqrt(err), math.sqrt(norm), math.sqrt(tol)


#: decades of |truth| :func:`decade_sums` tells apart (float64's normal range; anything outside joins the end);
#: positions where the truth is exactly zero are counted under ZERO_DECADE
DECADES = (-308, 308)
ZERO_DECADE = DECADES[0] - 1


@contextlib.contextmanager
def any_order():
    """Sums whose order may vary between runs, for the gates' own statistics: ``torch.bincount`` with weights has
    no deterministic CUDA implementation, so a user's ``torch.use_deterministic_algorithms(True)`` (a module file
    may set it, and the judge's worker imports it) would raise in the middle of a gate.  Float64 sums of a
    statistic differ between orders by a few ulp; the user's setting is put back afterwards."""
    import torch

    strict = torch.are_deterministic_algorithms_enabled() and not torch.is_deterministic_algorithms_warn_only_enabled()
    if strict:
        torch.use_deterministic_algorithms(False)
    try:
        yield
    finally:
        if strict:
            torch.use_deterministic_algorithms(True)


def decade_sums(t, *xs) -> dict[int, list[float]]:
    """Per decade of ``|t|`` (``k`` where ``10^k <= |t| < 10^(k+1)``, the powers of ten as float64 numbers;
    :data:`ZERO_DECADE` where ``t`` is zero), over the positions
    where ``t`` and every ``x`` are finite, in float64, a chunk at a time: ``[count, sum of (x - t)^2 for each x,
    sum of t^2]``, for the decades that hold any position."""
    with any_order():
        return _decade_sums(t, *xs)


def _decade_sums(t, *xs) -> dict[int, list[float]]:
    acc = None
    for cs in chunks(t, *xs):
        acc = add_decade_part(acc, decade_part(*cs))
    return decade_dict(acc)


def decade_part(tc, *xcs):
    """:func:`decade_sums` of one chunk (aligned 1-D slices on one device), as a tensor of one column per bin, or
    None where no position is finite in all; callers sum the parts (:func:`add_decade_part`) under
    :func:`any_order` and read them with :func:`decade_dict`.  On a GPU the judge's Triton kernel sums it in one
    pass (:mod:`.decade_kernel`), elsewhere torch does."""
    import torch

    if decade_kernel.usable(tc, xcs):
        part = judge_kernels.attempt(decade_kernel, lambda: decade_kernel.launch(tc, xcs, DECADES))
        if part is not None:  # (None: it could not run, or declined a chunk of too many decades)
            return part
    lo, hi = DECADES
    ok = torch.isfinite(tc)
    for xc in xcs:
        ok &= torch.isfinite(xc)
    td = tc[ok].double()
    if not td.numel():
        return None
    a = td.abs()
    table = decade_kernel.powers_of_ten(DECADES, a.device)[1:hi - lo + 1]
    idx = torch.where(a > 0, torch.bucketize(a, table, right=True) + 1, 0)
    weights = [torch.ones_like(td)] + [(xc[ok].double() - td) ** 2 for xc in xcs] + [td * td]
    return torch.stack([torch.bincount(idx, weights=w, minlength=hi - lo + 2) for w in weights])


def add_decade_part(acc, part):
    """Running sum of :func:`decade_part` results (None counts as nothing)."""
    if part is None:
        return acc
    return part if acc is None else acc.to(part.device) + part


def decade_dict(acc) -> dict[int, list[float]]:
    """Summed :func:`decade_part` results as :func:`decade_sums` returns them."""
    if acc is None:
        return {}
    return {d + DECADES[0] - 1: r for d, r in enumerate(acc.t().tolist()) if r[0]}


def decade_errors(x, y, t) -> list[tuple[int, int, float, float, float]]:
    """(decade, count, L2 norm of ``x - t``, of ``y - t``, of ``t``) per decade of ``|t|`` where ``t`` is not zero
    (:func:`decade_sums`), in increasing order."""
    return [(d, int(r[0]), math.sqrt(r[1]), math.sqrt(r[2]), math.sqrt(r[3]))
            for d, r in sorted(decade_sums(t, x, y).items()) if d != ZERO_DECADE]


def finite_max_errors(x, t, rtol: float = 0.0, atol: float = 0.0) -> tuple[int, float, float]:
    """Over the positions where ``x`` and ``t`` are both finite, in float64, a chunk at a time: (count, largest
    ``|x - t|``, largest excess of ``|x - t|`` over ``atol + rtol * |t|``, 0 where none exceeds it)."""
    import torch

    n, acc = torch.zeros((), dtype=torch.int64), torch.zeros(2, dtype=torch.float64)
    for xc, tc in chunks(x, t):
        ok = torch.isfinite(xc) & torch.isfinite(tc)
        td = torch.where(ok, tc.double(), 0.0)
        d = torch.where(ok, xc.double(), 0.0).sub_(td).abs_()
        excess = (d - (atol + rtol * td.abs())).clamp_min_(0.0)
        acc = torch.maximum(acc.to(d.device), torch.stack([d.max(), excess.max()]))
        n = n.to(d.device) + ok.sum()
        del ok, td, d, excess
    worst, over = acc.tolist()
    return int(n), worst, over


def far_at(x, t, levels, rtol: float, atol: float, floor: float, factor: float) -> tuple[int, int]:
    """Over the positions where the truth ``t`` is finite, a chunk at a time (:func:`.chunked.piece` order):
    (their count, how many have ``x`` farther from ``t`` than ``max(floor, factor * honest)`` tolerances
    ``atol + rtol * |t|``, or not finite), ``honest`` the distance the flat uint8 ``levels`` stand for
    (:func:`level_bound`)."""
    import torch


    dev = compute_device(x, t)
    acc = torch.zeros(2, dtype=torch.int64, device=dev)
    for lo, hi in spans(t.numel()):
        lv = levels[lo:hi].to(dev)
        xc, tc = piece(x, lo, hi).to(dev), piece(t, lo, hi).to(dev).double()
        fin = torch.isfinite(tc)
        allowed = torch.clamp_min(factor * level_bound(lv), floor) * (atol + rtol * tc.abs())
        far = fin & ~((xc.double() - tc).abs() <= allowed)
        acc += torch.stack([fin.sum(), far.sum()])
        del lv, xc, tc, fin, allowed, far
    n, far = (int(v) for v in acc.tolist())
    return n, far


def beyond_counts(x, y, t, rtol: float, atol: float) -> tuple[int, int, int]:
    """Over the positions where ``x``, ``y`` and the truth ``t`` are all finite, a chunk at a time: (their count,
    positions where ``y`` is beyond ``atol + rtol * |t|`` of ``t``, positions where ``x`` is beyond it and ``y``
    is not)."""
    import torch

    dev = compute_device(x, y, t)
    acc = torch.zeros(3, dtype=torch.int64, device=dev)
    for xc, yc, tc in chunks(x, y, t, device=dev):
        ok = torch.isfinite(xc) & torch.isfinite(yc) & torch.isfinite(tc)
        td = torch.where(ok, tc.double(), 0.0)
        tol = atol + rtol * td.abs()
        y_out = ok & ((torch.where(ok, yc.double(), 0.0) - td).abs() > tol)
        x_out = ok & ~y_out & ((torch.where(ok, xc.double(), 0.0) - td).abs() > tol)
        acc += torch.stack([ok.sum(), y_out.sum(), x_out.sum()])
        del ok, td, tol, y_out, x_out
    n, y_beyond, x_beyond = (int(v) for v in acc.tolist())
    return n, y_beyond, x_beyond


def _float_stats(x, y, rtol: float, atol: float) -> tuple[list, list]:
    """One chunked pass over floating ``x`` (candidate) and ``y`` (baseline) on their device.

    Returns (counts, maxima): counts = [NaN in x, NaN in y, positions where NaN-ness differs, positions where
    Inf-ness or an Inf's sign differs, positions where y is finite, sum of (x - y)^2 and of y^2 there, positions
    there with |x - y| > atol + rtol |y|]; maxima over y's finite positions (0 where there are none) =
    [|x - y|, |y|, |x - y| / max(|y|, atol), |x|], all in float64.  On a GPU the judge's Triton kernel takes them
    in one pass (:mod:`.stats_kernel`).
    """
    import torch

    if stats_kernel.usable(x, y, atol):
        got = judge_kernels.attempt(stats_kernel, lambda: stats_kernel.launch(x, y, rtol, atol))
        if got is not None:
            return got
    dev = compute_device(x, y)
    sums = torch.zeros(8, dtype=torch.float64, device=dev)
    maxes = torch.zeros(4, dtype=torch.float64, device=dev)
    for xc, yc in chunks(x, y):
        xn, yn, xi, yi = torch.isnan(xc), torch.isnan(yc), torch.isinf(xc), torch.isinf(yc)
        fin = ~(yn | yi)
        xd = torch.where(fin, xc.double(), 0.0)
        yd = torch.where(fin, yc.double(), 0.0)
        diff, ya = (xd - yd).abs(), yd.abs()
        rel = torch.where(fin, diff / ya.clamp_min(atol), 0.0)
        beyond = fin & (diff > atol + rtol * ya)
        counts = [xn.sum(), yn.sum(), (xn != yn).sum(), ((xi != yi) | (xi & (xc != yc))).sum(), fin.sum()]
        sums += torch.stack([v.double() for v in counts] + [(diff * diff).sum(), (ya * ya).sum(),
                                                           beyond.sum().double()])
        maxes = torch.maximum(maxes, torch.stack([diff.max(), ya.max(), rel.max(), xd.abs().max()]))
        del xn, yn, xi, yi, fin, xd, yd, diff, ya, rel, beyond
    return sums.tolist(), maxes.tolist()


def compare_outputs(cand: Any, base: Any, tolerance, *, tiny_factor: float, tiny_rel_tol: float,
                    label: str = "output", defer_special: bool = False) -> Comparison:
    """Compare two nested outputs; ``tolerance(dtype_name) -> (rtol, atol)``.  ``defer_special``: NaN or Inf
    positions that differ are no hard failure but recorded in ``special`` (and the output is beyond
    tolerance), for the float64 gate to judge position by position -- only for a candidate the judge certified
    as Inductor's own kernel under another launch config, whose products and sums can overflow in another
    order (inf * 0 = NaN in one, a zero product in the other)."""
    import torch

    c, b = flatten(cand), flatten(base)
    res = Comparison()
    if len(c) != len(b):
        res.hard_failure = f"{label}: {len(c)} values returned, baseline returns {len(b)}"
        return res
    for i, (x, y) in enumerate(zip(c, b)):
        name = f"{label}[{i}]"
        if isinstance(y, torch.Tensor) != isinstance(x, torch.Tensor):
            res.hard_failure = f"{name}: type {type(x).__name__}, baseline {type(y).__name__}"
            return res
        if not isinstance(y, torch.Tensor):
            if x != y:
                res.hard_failure = f"{name}: {x!r} != baseline {y!r}"
                return res
            continue
        if x.shape != y.shape:
            res.hard_failure = f"{name}: shape {tuple(x.shape)}, baseline {tuple(y.shape)}"
            return res
        if x.dtype != y.dtype:
            res.hard_failure = f"{name}: dtype {x.dtype}, baseline {y.dtype}"
            return res
        if x.numel() > 1 and x.stride() != y.stride():
            res.hard_failure = f"{name}: strides {x.stride()}, baseline {y.stride()}"
            return res
        if x.device != y.device and "cpu" not in (x.device.type, y.device.type):
            # a host copy beside a record on a GPU is compared by value (the isolated judge holds what it receives
            # where it has room: on its GPU or the host); two GPUs are not where one run's records lie
            res.hard_failure = f"{name}: device {x.device}, baseline {y.device}"
            return res
        if x.numel() == 0:
            continue
        x, y = x.detach(), y.detach()
        if not x.is_floating_point() and not x.is_complex():
            n = torch.zeros((), dtype=torch.int64, device=compute_device(x, y))
            for xc, yc in chunks(x, y):
                n += (xc != yc).sum()
            if int(n):
                res.hard_failure = f"{name}: {int(n)} of {x.numel()} integer/bool elements differ"
                return res
            continue
        rtol, atol = tolerance(str(y.dtype).replace("torch.", ""))
        (nan_x, nan_y, nan_diff, inf_diff, n_finite, ss_diff, ss_y, n_beyond), \
            (max_abs, mag, rel, max_x) = _float_stats(x, y, rtol, atol)
        if (nan_diff or inf_diff) and defer_special:
            res.special.append(i)
            res.within_tolerance = False
            continue
        if nan_diff:
            res.hard_failure = f"{name}: NaN positions differ ({int(nan_x)} NaN, baseline {int(nan_y)})"
            return res
        if inf_diff:
            res.hard_failure = f"{name}: Inf positions or signs differ"
            return res
        if n_finite == 0:
            continue
        if max_abs > res.max_abs_err:
            res.max_abs_err, res.worst = max_abs, name
        res.max_rel_err = max(res.max_rel_err, rel)
        if mag < tiny_factor * atol:
            # Too small to tell from zero under atol (KernelBench issue #165: returning zeros passed).
            res.tiny_outputs.append(i)
            if mag > 0 and max_x == 0.0:
                # not a hard failure: an output that is rounding noise around zero (the mean of normalised values)
                # can come out exactly zero in another summation order; the float64 gate decides, against the
                # truth and its noise floor, and turns away zeros where the truth is a real small value
                res.zeros.append(i)
                res.within_tolerance = False
                continue
            r = _l2_ratio(math.sqrt(ss_diff), math.sqrt(ss_y))  # ||x - y|| / ||y|| over y's finite positions
            if r > tiny_rel_tol:
                res.within_tolerance = False
            continue
        if n_beyond:
            res.within_tolerance = False
    return res


def _right(v: Any, t: Any, t_dt: Any, rtol: float, atol: float) -> Any:
    """Where ``v`` is right against the float64 truth ``t`` (``t_dt``: ``t`` in ``v``'s dtype): finite and within
    tolerance of a finite truth, or an Inf equal to a truth that overflows the dtype."""
    import torch

    near = torch.isfinite(t_dt) & ((v.double() - t).abs() <= atol + rtol * t.abs())
    return torch.where(torch.isfinite(v), near, torch.isinf(t_dt) & (v == t_dt))


def special_positions(x: Any, y: Any, t: Any, rtol: float, atol: float) -> dict[str, int]:
    """Where candidate ``x`` and baseline ``y`` differ in NaN or Inf (or an Inf's sign), each judged against the
    float64 truth ``t`` rounded to the output's dtype, a chunk at a time.  A value is *right* there when it is
    finite and within ``atol + rtol * |t|`` of a finite truth, or an Inf equal to a truth that overflows the
    dtype.  Counts: ``differ`` (such positions), ``better`` (the candidate right, the baseline not),
    ``both_wrong`` (both NaN or Inf, neither right: a float64 truth that is NaN itself lands here) and
    ``worse``: the candidate not right where the baseline is, or not right with a finite value where the
    baseline has none, or NaN or Inf where the baseline has a number.  Only ``worse`` is a finding: a reorder
    may be wrong where the baseline is wrong too, never where it is not."""
    import torch

    dev = compute_device(x, y, t)
    acc = torch.zeros(4, dtype=torch.int64, device=dev)
    for xc, yc, tc in chunks(x, y, t, device=dev):
        xn, yn, xi, yi = torch.isnan(xc), torch.isnan(yc), torch.isinf(xc), torch.isinf(yc)
        differ = (xn != yn) | (xi != yi) | (xi & yi & (xc != yc))
        if not bool(differ.any()):
            continue
        xs, ys, ts = xc[differ], yc[differ], tc[differ].double()
        t_dt = ts.to(xc.dtype)  # the truth as the output's dtype holds it: beyond its range, an Inf
        c_right, b_right = _right(xs, ts, t_dt, rtol, atol), _right(ys, ts, t_dt, rtol, atol)
        c_fin, b_fin = torch.isfinite(xs), torch.isfinite(ys)
        worse = ~c_right & (b_right | (c_fin != b_fin))
        better = c_right & ~b_right
        acc += torch.stack([differ.sum(), better.sum(), (~c_right & ~b_right & ~c_fin & ~b_fin).sum(), worse.sum()])
        del xn, yn, xi, yi, differ, xs, ys, ts, t_dt
    differ, better, both_wrong, worse = (int(v) for v in acc.tolist())
    return {"differ": differ, "better": better, "both_wrong": both_wrong, "worse": worse}


def same_values(a: Any, b: Any) -> bool:
    """Bitwise equality of two nested values (used for input-mutation checks)."""
    import torch

    fa, fb = flatten(a), flatten(b)
    if len(fa) != len(fb):
        return False
    for x, y in zip(fa, fb):
        if isinstance(x, torch.Tensor):
            if not isinstance(y, torch.Tensor) or x.shape != y.shape or x.dtype != y.dtype:
                return False
            for xc, yc in chunks(x, y):
                if x.is_floating_point():
                    if not (torch.equal(torch.nan_to_num(xc, nan=0.0), torch.nan_to_num(yc, nan=0.0))
                            and torch.equal(torch.isnan(xc), torch.isnan(yc))):
                        return False
                elif not torch.equal(xc, yc):
                    return False
        elif x != y:
            return False
    return True


def error_vs_truth(out: Any, truth: Any) -> list[float]:
    """Relative L2 error of each floating output against the float64 truth."""
    import torch

    errs = []
    for x, t in zip(flatten(out), flatten(truth)):
        if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel():
            n, err, norm, _ = finite_l2(x, t)
            errs.append(_l2_ratio(err, norm) if n else 0.0)
    return errs


#: the honest runs' distance from the truth at a position, in tolerances, is kept as a byte: 0 up to CALM_FRACTION
#: (a *calm* position: rounding cannot move it there), then LEVEL_STEPS codes per doubling, up to 255
CALM_FRACTION = level_kernel.CALM_FRACTION
LEVEL_STEPS = level_kernel.LEVEL_STEPS


def level_codes(err_in_tol: Any) -> Any:
    """uint8 codes of distances in tolerances: 0 where at most :data:`CALM_FRACTION`, else the smallest code whose
    :func:`level_bound` is at least the distance (255 for anything larger or not finite)."""
    import torch

    d = err_in_tol.double()
    table = level_kernel.bounds(d.device)[:255]
    code = torch.bucketize(d, table)  # the number of bounds below the distance
    return torch.where(d <= table[-1], code, 255).to(torch.uint8)  # (NaN compares false: 255)


def raise_levels(m: Any, q: Any, t: Any, rtol: float, atol: float) -> None:
    """``m`` (uint8, one per position) raised in place to :func:`level_codes` of ``q`` 's distance from the truth
    ``t`` in tolerances ``atol + rtol * |t|`` (255 where ``q`` is not finite): aligned flat tensors, ``m`` on any
    device.  On a GPU the judge's Triton kernel does it in one pass (:mod:`.level_kernel`), elsewhere torch does."""
    import torch

    if level_kernel.usable(m, q, t):
        if judge_kernels.attempt(level_kernel, lambda: level_kernel.launch(m, q, t, rtol, atol)) is not None:
            return
    td = t.double()
    dist = (q.double() - td).abs() / (atol + rtol * td.abs())
    code = level_codes(torch.where(torch.isfinite(q), dist, torch.full_like(dist, float("inf"))))
    torch.maximum(m, code.to(m.device), out=m)


def level_bound(code: Any) -> Any:
    """The largest distance in tolerances a code stands for (float64; 255 reads as unbounded)."""
    return level_kernel.bounds(code.device)[code.long()]
