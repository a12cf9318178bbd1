"""Comparing module outputs: structure, metadata, special values and magnitudes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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


def _rel_l2(a, b) -> float:
    import torch

    denom = torch.linalg.vector_norm(b.double()).item()
    num = torch.linalg.vector_norm((a.double() - b.double())).item()
    return num / denom if denom > 0 else (0.0 if num == 0 else float("inf"))


def compare_outputs(cand: Any, base: Any, tolerance, *, tiny_factor: float, tiny_rel_tol: float,
                    label: str = "output") -> Comparison:
    """Compare two nested outputs; ``tolerance(dtype_name) -> (rtol, atol)``."""
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
        if x.device != y.device:
            res.hard_failure = f"{name}: device {x.device}, baseline {y.device}"
            return res
        if x.numel() == 0:
            continue
        x, y = x.detach(), y.detach()
        if not x.is_floating_point() and not x.is_complex():
            if not torch.equal(x, y):
                n = int((x != y).sum())
                res.hard_failure = f"{name}: {n} of {x.numel()} integer/bool elements differ"
                return res
            continue
        xn, yn = torch.isnan(x), torch.isnan(y)
        if not torch.equal(xn, yn):
            res.hard_failure = (f"{name}: NaN positions differ ({int(xn.sum())} NaN, baseline {int(yn.sum())})")
            return res
        xi, yi = torch.isinf(x), torch.isinf(y)
        if not torch.equal(xi, yi) or not torch.equal(x[xi], y[yi]):
            res.hard_failure = f"{name}: Inf positions or signs differ"
            return res
        finite = ~(yn | yi)
        xf, yf = x[finite].double(), y[finite].double()
        if xf.numel() == 0:
            continue
        rtol, atol = tolerance(str(y.dtype).replace("torch.", ""))
        diff = (xf - yf).abs()
        max_abs = float(diff.max())
        mag = float(yf.abs().max())
        rel = float((diff / yf.abs().clamp_min(atol)).max())
        if max_abs > res.max_abs_err:
            res.max_abs_err, res.worst = max_abs, name
        res.max_rel_err = max(res.max_rel_err, rel)
        if mag < tiny_factor * atol:
            # Too small to tell from zero under atol (KernelBench issue #165: returning zeros passed).
            res.tiny_outputs.append(i)
            if mag > 0 and float(xf.abs().max()) == 0.0:
                # not a hard failure: an output that is rounding noise around zero (the mean of normalised values)
                # can come out exactly zero in another summation order; the float64 gate decides, against the
                # truth and its noise floor, and turns away zeros where the truth is a real small value
                res.zeros.append(i)
                res.within_tolerance = False
                continue
            r = _rel_l2(xf, yf)
            if r > tiny_rel_tol:
                res.within_tolerance = False
            continue
        if bool((diff > atol + rtol * yf.abs()).any()):
            res.within_tolerance = False
    return res


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
            if not torch.equal(torch.nan_to_num(x.detach(), nan=0.0) if x.is_floating_point() else x.detach(),
                               torch.nan_to_num(y.detach(), nan=0.0) if y.is_floating_point() else y.detach()):
                return False
            if x.is_floating_point() and not torch.equal(torch.isnan(x), torch.isnan(y)):
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
            xd, td = x.detach().double().cpu(), t.detach().double().cpu()
            ok = torch.isfinite(td) & torch.isfinite(xd)
            errs.append(_rel_l2(xd[ok], td[ok]) if bool(ok.any()) else 0.0)
    return errs
