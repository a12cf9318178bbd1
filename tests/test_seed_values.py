"""A seed's input values made in place a chunk at a time (:mod:`pytest_kernelopt.gates.seed_values`).

The transforms once were whole-tensor expressions (kept below as the reference): on the H200 they took a
7 GiB input to 8.25 times its size on the device (session 9).  The chunked ones must give the same values bit
for bit, in the same layouts, leave the problem's own draw untouched, and hold about one copy of an input.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.gates import chunked  # noqa: E402
from pytest_kernelopt.tensor_layout import in_layout  # noqa: E402
from pytest_kernelopt.gates.seed_values import HALF_RUN, OFFSET_SPREADS, OUTLIER_FACTOR, edge_values, seed_inputs  # noqa: E402
from pytest_kernelopt.gates.seed_plan import SeedPlan  # noqa: E402


def _reference():
    """The whole-tensor transforms of sessions 8 and before, verbatim (the sorted rows as of session 9)."""
    from typing import Any

    def with_specials(inputs: tuple, seed: int) -> tuple:
        """Floating tensor inputs with a few elements (about 1%, 1 to 64) set to NaN, +Inf and -Inf."""
        import torch

        gen = torch.Generator(device="cpu").manual_seed(seed + 271828)
        out = []
        for x in inputs:
            if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel():
                n = max(1, min(64, x.numel() // 100))
                idx = torch.randint(0, x.numel(), (n,), generator=gen)
                vals = torch.tensor([float("nan"), float("inf"), float("-inf")]).repeat(n // 3 + 1)[:n]
                y = x.detach().clone(memory_format=torch.contiguous_format)  # laid out again by the caller
                with torch.no_grad():
                    y.view(-1)[idx.to(y.device)] = vals.to(dtype=y.dtype, device=y.device)
                out.append(y.requires_grad_(x.requires_grad))
            else:
                out.append(x)
        # session 10: as many other elements set to exact small numbers, both zeros, subnormals, large
        # non-integers (after every tensor's NaN/Inf positions are drawn); session 11: large magnitudes within
        # the dtype's range, every value once where there are 16 elements for each, from a drawn start
        for y in out:
            if isinstance(y, torch.Tensor) and y.is_floating_point() and y.numel():
                info = torch.finfo(y.dtype)
                sub = info.tiny / 4
                edges = [1.0, -1.0, 0.0, -0.0, 2.0, 0.5, sub, -sub, 1234.567, -4321.125]
                edges += [v for v in (2.5e4, -6.0e4, 3.0e5, -7.0e6) if abs(v) < info.max]
                n = max(1, min(256, y.numel() // 400), min(len(edges), y.numel() // 16))
                idx = torch.randint(0, y.numel(), (n,), generator=gen)
                start = int(torch.randint(0, len(edges), (1,), generator=gen))
                edges = edges[start:] + edges[:start]
                vals = torch.tensor(edges, dtype=torch.float64).repeat(n // len(edges) + 1)[:n]
                with torch.no_grad():
                    y.view(-1)[idx.to(y.device)] = vals.to(dtype=y.dtype, device=y.device)
        return tuple(out)


    def _floating_map(inputs: tuple, fn: Any) -> tuple:
        """``fn`` applied to every floating tensor input (gradients' requirement kept), other inputs as they are."""
        import torch

        out = []
        for x in inputs:
            if isinstance(x, torch.Tensor) and x.is_floating_point():
                with torch.no_grad():
                    y = fn(x.detach())
                out.append(y.requires_grad_(x.requires_grad))
            else:
                out.append(x)
        return tuple(out)


    def _rounded_to(x: Any, dtype: Any) -> Any:
        import torch

        return torch.where(x.abs() < torch.finfo(dtype).max, x.to(dtype).to(x.dtype), x)


    def _outlier_channel(x: Any) -> Any:
        """The last dimension's first column :data:`OUTLIER_FACTOR` times larger (tensors of 2 or more dims)."""
        import torch

        if x.dim() < 2 or x.shape[-1] < 2:
            return x
        y = x.clone(memory_format=torch.contiguous_format)
        y[..., 0] *= OUTLIER_FACTOR
        return y


    def half_rounded(inputs: tuple) -> tuple:
        """Floating inputs with an outlier channel, rounded to float16 values where a float16 can hold them, in
        alternate runs of HALF_RUN elements (red team 20: wholly float16-valued, the seed could be recognised)."""
        import torch

        from pytest_kernelopt.gates.seed_values import HALF_RUN

        def runs(x):
            y = _outlier_channel(x).contiguous()
            keep = (torch.arange(y.numel()).reshape(y.shape) // HALF_RUN) % 2 == 0
            return torch.where(keep, _rounded_to(y, torch.float16), y)

        return _floating_map(inputs, runs)


    def nonnegative(inputs: tuple) -> tuple:
        """Floating inputs as ReLU outputs (negatives to exact zeros), rounded to bfloat16 values."""
        import torch

        return _floating_map(inputs, lambda x: _rounded_to(x.clamp_min(0), torch.bfloat16))


    def whole_runs(inputs: tuple, seed: int) -> tuple:
        """Session 16 (red team 18): in the non-negative seed, runs of 32 elements set to whole numbers 0..32, one
        run per 2048 elements (1 to 16), from a generator of the seed shared by the tensors in order."""
        import torch

        gen = torch.Generator(device="cpu").manual_seed(seed + 314159)
        out = []
        for x in inputs:
            if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel() >= 64:
                y = x.detach().clone(memory_format=torch.contiguous_format)
                runs = max(1, min(16, y.numel() // 2048))
                starts = torch.randint(0, y.numel() - 31, (runs,), generator=gen)
                vals = torch.randint(0, 33, (runs, 32), generator=gen).to(torch.float64)
                for k in range(runs):
                    lo = int(starts[k])
                    y.view(-1)[lo:lo + 32] = vals[k].to(y.dtype)
                out.append(y.requires_grad_(x.requires_grad))
            else:
                out.append(x)
        return tuple(out)

    def dead_column(inputs: tuple, seed: int) -> tuple:
        """Session 20 (red team 27): after the whole-number runs, one column of the last dimension zero in every
        row, drawn from the same generator (tensors in order; whole_runs draws first for each tensor)."""
        import torch

        gen = torch.Generator(device="cpu").manual_seed(seed + 314159)
        out = []
        for x in inputs:
            if isinstance(x, torch.Tensor) and x.is_floating_point():
                y = x.detach().clone(memory_format=torch.contiguous_format)
                if y.numel() >= 64:
                    runs = max(1, min(16, y.numel() // 2048))
                    starts = torch.randint(0, y.numel() - 31, (runs,), generator=gen)
                    vals = torch.randint(0, 33, (runs, 32), generator=gen).to(torch.float64)
                    for k in range(runs):
                        lo = int(starts[k])
                        y.view(-1)[lo:lo + 32] = vals[k].to(y.dtype)
                if y.dim() >= 2 and y.shape[-1] >= 2:
                    y[..., int(torch.randint(0, y.shape[-1], (1,), generator=gen))] = 0
                out.append(y.requires_grad_(x.requires_grad))
            else:
                out.append(x)
        return tuple(out)

    def row_structures(inputs: tuple) -> tuple:
        """Session 20 (red teams 26, 27, 29): rows in thirds: on multiples of 1/255; probability rows (|x| over
        the row's sum); every other row a copy of the row before."""
        import torch

        def f(x):
            if x.numel() < 2:
                return x
            rows = x.reshape(-1, x.shape[-1]).clone()
            n = rows.shape[0]
            a, b = (n + 2) // 3, (2 * n + 2) // 3
            wide = rows.dtype in (torch.float32, torch.float64)  # half types: k / 255 in float32, then rounded
            top = rows[:a] if wide else rows[:a].float()
            rows[:a] = ((top * 1.25 * 255).round().clamp(0, 255) / 255).to(rows.dtype)
            mag = rows[a:b].double().abs()
            rows[a:b] = (mag / mag.sum(-1, keepdim=True)).to(rows.dtype)
            for r in range(b + 1, n, 2):
                rows[r] = rows[r - 1]
            return rows.reshape(x.shape)

        return _floating_map(inputs, f)

    def sorted_rows(inputs: tuple) -> tuple:
        """Floating inputs sorted along their last dimension."""
        return _floating_map(inputs, lambda x: _four_kinds(x.sort(dim=-1).values) if x.dim() else x)

    def _four_kinds(v: Any) -> Any:  # session 9 (red team 10): rows up, down, constant, zero by index mod 4
        rows = v.reshape(-1, v.shape[-1]).clone()
        kind = torch.arange(rows.shape[0]) % 4
        rows[kind == 1] = rows[kind == 1].flip(-1)
        mid = v.shape[-1] // 2
        rows[kind == 2] = rows[kind == 2][:, mid:mid + 1].expand(-1, v.shape[-1])
        rows[kind == 3] = 0
        k = max(2, v.shape[-1] // 4)  # session 20 (red team 29): rows 5 and 6 mod 8 end in masked scores
        rows[5::8, v.shape[-1] - k:] = float("-inf")
        rows[6::8, v.shape[-1] - k:] = torch.finfo(v.dtype).min
        return rows.reshape(v.shape)


    def offset(inputs: tuple) -> tuple:
        """Floating inputs moved by :data:`OFFSET_SPREADS` times their spread (whole numbers stay whole)."""
        def move(x: Any) -> Any:
            if not x.numel():
                return x
            spread = float(x.float().std()) if x.numel() > 1 else float(x.float().abs().max())
            return x + round(OFFSET_SPREADS * max(spread, 1.0))

        return _floating_map(inputs, move)


    def rounded(inputs: tuple) -> tuple:
        """Floating tensor inputs rounded to whole numbers (the integer-valued seed)."""
        return _floating_map(inputs, lambda x: x.round())

    def repeated_items(inputs: tuple) -> tuple:
        """Session 20 (red team 30): every other item along the first dimension a copy of the one before."""
        def f(x):
            if x.dim() < 2 or x.shape[0] < 2:
                return x
            y = x.clone()
            n = x.shape[0] // 2
            y[1::2][:n] = y[0::2][:n]
            return y

        return _floating_map(inputs, f)


    def scaled(inputs: tuple, scale: float) -> tuple:
        """Floating-point tensor inputs times ``scale`` (integer and boolean inputs carry meaning: kept)."""
        if scale == 1.0:
            return inputs
        return _floating_map(inputs, lambda x: (x * scale).to(x.dtype))


    return locals()


def reference_inputs(original, plan, seed):
    """The seed's inputs as session 8 made them (cascade.EvaluationSession.inputs)."""
    r = _reference()
    drawn = r["scaled"](original, plan.scale(seed))
    if plan.integral(seed):
        drawn = r["repeated_items"](r["offset"](r["rounded"](drawn)))
    if plan.half_rounded(seed):
        drawn = r["half_rounded"](drawn)
    if plan.varied_state(seed):
        drawn = r["row_structures"](drawn)
    if plan.nonnegative(seed):
        drawn = r["dead_column"](r["nonnegative"](drawn), seed)
    if plan.sorted_rows(seed):
        drawn = r["sorted_rows"](drawn)
    if plan.special(seed):
        drawn = r["with_specials"](drawn, seed)
    if plan.integral(seed):  # (session 22) square matrices symmetric
        drawn = tuple(torch.triu(d) + torch.triu(d, 1).transpose(-1, -2) if _floating(d) and d.dim() >= 2
                      and d.shape[-1] == d.shape[-2] >= 2 else d for d in drawn)
    drawn = _one_hot_reference(drawn, plan, seed)
    return tuple(in_layout(o, d) for o, d in zip(original, drawn))


def _floating(x) -> bool:
    return isinstance(x, torch.Tensor) and x.is_floating_point()


def _one_hot_reference(drawn, plan, seed):
    """(Session 22) the floating inputs after the first one-hot, over what the other steps made: along the last
    dimension on the integer seed, along dim 1 (three or more dimensions) on the ReLU seed; (session 23) the first
    of two or more on the float16 seed.  Each one-hot input's indices come from a generator seeded from the seed's
    own (drawn where the input is: ``seed_values.device_generator``), then the multi-hot mask's from another."""
    gen = torch.Generator().manual_seed(seed + 161803)

    def seeded():
        return torch.Generator().manual_seed(int(torch.randint(0, 1 << 62, (1,), generator=gen)))

    def along_dim1(d):
        g = seeded()
        cols = torch.randint(0, d.shape[1], (d.shape[0], 1, *d.shape[2:]), generator=g)
        return torch.zeros_like(d).scatter_(1, cols, 1.0)

    def along_last(d):
        g = seeded()
        rows = d.reshape(-1, d.shape[-1])
        cols = torch.randint(0, rows.shape[1], (rows.shape[0], 1), generator=g)
        return torch.zeros_like(rows).scatter_(1, cols, 1.0).reshape(d.shape)

    out, index = list(drawn), 0
    count = sum(_floating(d) for d in drawn)
    for i, d in enumerate(drawn):
        if not _floating(d):
            continue
        if index == 0 and plan.half_rounded(seed) and count >= 2 and d.dim() >= 2 and d.numel():
            # (session 23) the first of two or more one-hot: along dim 1 with four or more dims, else the last
            if d.dim() >= 4 and d.shape[1] >= 2:
                out[i] = along_dim1(d)
            elif d.dim() < 4 and d.shape[-1] >= 2:
                out[i] = along_last(d)
        if index >= 1 and d.dim() >= 2 and d.numel():
            if plan.integral(seed) and d.shape[-1] >= 2:
                out[i] = along_last(d)
            elif plan.nonnegative(seed) and d.dim() >= 3 and d.shape[1] >= 2:
                out[i] = along_dim1(d)
            elif plan.nonnegative(seed) and d.shape[-1] >= 2:  # multi-hot rows
                rows = d.reshape(-1, d.shape[-1])
                g, mgen = seeded(), seeded()
                cols = torch.randint(0, rows.shape[1], (rows.shape[0], 1), generator=g)
                hot = torch.rand(rows.shape, generator=mgen).lt_(3.0 / rows.shape[1]).to(rows.dtype)
                out[i] = hot.scatter_(1, cols, 1.0).reshape(d.shape)
        index += 1
    return tuple(out)


def draw():
    g = torch.Generator().manual_seed(7)
    x = torch.randn(3, 5, 41, generator=g)
    gapped = torch.randn(6, 80, generator=g)[:, ::2]  # rows with gaps
    transposed = torch.randn(33, 9, generator=g).t()
    return (x, gapped, transposed, torch.randn(50, generator=g), torch.randint(0, 9, (4, 4), generator=g), 0.5)


@pytest.mark.parametrize("chunk", [7, 40, 1 << 24])
def test_the_chunked_seeds_give_the_whole_tensor_values_bit_for_bit(monkeypatch, chunk):
    monkeypatch.setattr(chunked, "CHUNK", chunk)
    plan = SeedPlan.make(8, base_seed=123)
    square = torch.randn(2, 7, 7, generator=torch.Generator().manual_seed(3))  # first: the integer seed's symmetric
    for seed, original in [(sd, o) for sd in plan.seeds for o in (draw(), (square, *draw()))]:
        got, want = seed_inputs(original, plan, seed), reference_inputs(original, plan, seed)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            if isinstance(w, torch.Tensor):
                assert g.dtype == w.dtype and g.shape == w.shape and g.stride() == w.stride(), plan.describe(seed)
                torch.testing.assert_close(g, w, rtol=0, atol=0, equal_nan=True, msg=plan.describe(seed))
            else:
                assert g == w


def test_the_structured_seeds_are_what_they_say(monkeypatch):
    """Not only equal to the old code: sorted rows are sorted, the integer seed whole and offset, the half seed
    float16 values with a 50x first column, the non-negative one without negatives."""
    monkeypatch.setattr(chunked, "CHUNK", 11)
    plan = SeedPlan.make(8, base_seed=5)
    x = torch.randn(16, 64, generator=torch.Generator().manual_seed(1))
    by = {plan.describe(s): seed_inputs((x,), plan, s)[0] for s in plan.seeds}
    (half,) = [v for k, v in by.items() if "outlier" in k]
    runs = half.reshape(-1, HALF_RUN)
    assert torch.equal(runs[0::2], runs[0::2].half().float()), "alternate runs hold float16 values"
    assert (runs[1::2] != runs[1::2].half().float()).float().mean() > 0.9, "the others plain float32 values"
    (hs,) = [sd for sd in plan.seeds if plan.half_rounded(sd)]
    assert torch.equal(half[:, 0], (x[:, 0] * OUTLIER_FACTOR * plan.scale(hs)).half().float())
    (nonneg,) = [v for k, v in by.items() if "ReLU" in k]
    assert (nonneg >= 0).all() and (nonneg == 0).float().mean() > 0.3
    flat = nonneg.reshape(-1)
    small_whole = (flat == flat.round()) & (flat >= 3) & (flat < 32)
    assert (small_whole[1:] & small_whole[:-1]).sum() >= 8, "neighbouring small whole numbers (red team 18)"
    (srt,) = [v for k, v in by.items() if "sorted" in k]
    assert (srt.isnan() | srt.isinf()).any(), "the sorted seed also carries NaN and Inf"
    edges = torch.tensor(edge_values(srt.dtype), dtype=srt.dtype)
    is_edge = (srt.unsqueeze(-1) == edges).any(-1)
    assert is_edge.any() and (srt.abs() == 1234.567).any() | (srt == 1.0).any() | (srt == -4321.125).any(), \
        "and the edge values"
    ok = ~(srt.isnan() | srt.isinf() | is_edge | (srt == torch.finfo(srt.dtype).min))  # masked scores aside
    pairs = ok[:, 1:] & ok[:, :-1]
    up, down = srt[:, 1:] >= srt[:, :-1], srt[:, 1:] <= srt[:, :-1]
    for r in range(srt.shape[0]):
        p = pairs[r]
        if r % 4 == 0:
            assert up[r][p].all() and not down[r][p].all(), r
        elif r % 4 == 1:
            assert down[r][p].all() and not up[r][p].all(), r
        elif r % 4 == 2:
            assert (srt[r][ok[r]] == srt[r][ok[r]][0]).all() and srt[r][ok[r]][0] != 0, r
        else:
            assert (srt[r][ok[r]] == 0).all(), r
    assert (nonneg == 0).all(0).sum() >= 1, "a dead column: zero in every row (red team 27)"
    (rows,) = [v for k, v in by.items() if "8-bit" in k]
    top, mid, bottom = rows[:6], rows[6:11], rows[11:]  # 16 rows: thirds of 6, 5 and 5
    assert torch.equal(top, (top * 255).round().clamp(0, 255) / 255), "the first third 8-bit pixels"
    assert (top == 1.0).any() and (top == 0.0).any(), "saturated and dark pixels among them"
    assert (mid > 0).all() and torch.allclose(mid.sum(-1), torch.ones(5)), "the second, probability rows"
    assert torch.equal(bottom[1::2], bottom[0::2][:2]), "the last repeats every other row"
    for part in (mid, bottom):
        assert not torch.equal(part, (part * 255).round() / 255), "off the 8-bit levels"
    assert not torch.equal(top[1::2], top[0::2]) and not torch.equal(mid[1::2], mid[0::2][:2])
    assert not torch.allclose(bottom.abs().sum(-1), torch.ones(5))
    masked = srt[5::8, -16:]
    assert (masked == float("-inf")).float().mean() > 0.9 and (srt[6::8, -16:] == torch.finfo(srt.dtype).min).any()
    (whole,) = [v for k, v in by.items() if "whole numbers on an offset" in k]
    assert torch.equal(whole, whole.round()) and whole.mean() > OFFSET_SPREADS * 0.5
    assert torch.equal(whole[1::2], whole[0::2]) and not torch.equal(whole[2::2], whole[0:-2:2]), \
        "every other batch item repeats the one before"


def test_the_problems_own_draw_is_never_edited():
    """A get_inputs() may hand out a module-level tensor: every seed edits a copy."""
    shared = torch.randn(8, 32)
    keep = shared.clone()
    plan = SeedPlan.make(8, base_seed=9)
    for seed in plan.seeds:
        seed_inputs((shared,), plan, seed)
    assert torch.equal(shared, keep)


def test_half_precision_inputs_get_the_same_structure():
    plan = SeedPlan.make(8, base_seed=3)
    x = torch.randn(4, 128).to(torch.bfloat16)
    for seed in plan.seeds:
        (got,) = seed_inputs((x,), plan, seed)
        (want,) = reference_inputs((x,), plan, seed)
        assert got.dtype == torch.bfloat16
        if plan.integral(seed):  # the spread is a float64 sum here, a float32 std there: the offset may differ
            assert torch.equal(got, got.round()) and (got - want).abs().max() <= 2 * 2 ** 8  # bf16 spacing there
        else:
            torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)


PEAK_SCRIPT = textwrap.dedent("""
    import json, resource, sys
    import torch
    from pytest_kernelopt.gates import chunked
    from pytest_kernelopt.gates.seed_values import seed_inputs
    from pytest_kernelopt.gates.seed_plan import SeedPlan

    chunked.CHUNK = 1 << 18
    x = torch.randn(4096, 4096)  # 64 MiB
    x.add_(0)  # touched
    plan = SeedPlan.make(8, base_seed=1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for seed in plan.seeds:  # each seed's copy is dropped before the next: the high-water mark is the worst seed's
        ys = seed_inputs((x,), plan, seed)
        del ys
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"growth": (after - before) * 1024, "input": x.numel() * 4}))
""")


def test_a_seed_holds_about_one_copy_of_its_input():
    """Measured as the process's peak resident memory: drawing every seed of a plan raises it by at most 1.25
    inputs (the copy and a chunk).  The whole-tensor transforms raised it by 4.3 (the float16 seed's outlier
    copy, magnitude, mask and conversions at once), the sort by three (values, and int64 indices)."""
    proc = subprocess.run([sys.executable, "-c", PEAK_SCRIPT], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    d = json.loads(proc.stdout.strip().splitlines()[-1])
    assert d["growth"] <= 1.25 * d["input"], d
