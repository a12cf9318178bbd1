"""A seed's input values: the structured transforms, applied in place to the seed's own copy a chunk at a time.

The correctness seeds reshape the inputs a problem draws (a magnitude, whole numbers on an offset, float16
values with an outlier channel, ReLU outputs in bfloat16 values, sorted rows, NaN and Inf; see
:class:`pytest_kernelopt.gates.seed_plan.SeedPlan`).  Written as whole-tensor expressions, each step held several
full-size temporaries at once (a sort's int64 indices alone are twice a float32 input): a 7 GiB
group-norm input reached 8.25 times its size on the device while the float64 gate drew its seeds.  Here each
floating input is copied once and every step edits that copy in place, at most
:data:`pytest_kernelopt.gates.chunked.CHUNK` elements (or rows, for the sort) at a time, so a seed costs its
copy and a chunk.  The values are those of the whole-tensor expressions, bit for bit
(tests/test_seed_values.py).
"""

from __future__ import annotations

from typing import Any, Callable, cast

from ..tensor_layout import in_layout
from . import chunked
from .chunked import spans

#: the first column of the last dimension is this many times larger in the float16-valued seed
OUTLIER_FACTOR = 50.0
#: the integer seed's inputs move by this many times their spread (whole numbers stay whole)
OFFSET_SPREADS = 100.0


def _flat_chunks(y: Any):
    """1-D views of the contiguous ``y``, a chunk each."""
    flat = y.view(-1)
    for lo, hi in spans(flat.numel()):
        yield flat[lo:hi]


def scale_(y: Any, scale: float) -> None:
    for c in _flat_chunks(y):
        c.mul_(scale)


def round_(y: Any) -> None:
    for c in _flat_chunks(y):
        c.round_()


def _spread(y: Any) -> float:
    """The standard deviation of ``y`` (its largest magnitude for one element): torch's own for 32- and 64-bit
    floats (a reduction, no copy), else a chunked float64 one (``float()`` of a half tensor is a full copy)."""
    import torch

    if y.numel() == 1:
        return float(y.float().abs().max())
    if y.dtype in (torch.float32, torch.float64):
        return float(y.std())
    s1 = s2 = 0.0
    for c in _flat_chunks(y):
        d = c.double()
        s1 += float(d.sum())
        s2 += float((d * d).sum())
    n = y.numel()
    return max(0.0, (s2 - s1 * s1 / n) / (n - 1)) ** 0.5


def offset_(y: Any) -> None:
    """Moved by :data:`OFFSET_SPREADS` times the spread, rounded to a whole number."""
    if not y.numel():
        return
    shift = round(OFFSET_SPREADS * max(_spread(y), 1.0))
    for c in _flat_chunks(y):
        c.add_(shift)


def outlier_channel_(y: Any) -> None:
    """The last dimension's first column :data:`OUTLIER_FACTOR` times larger (tensors of 2 or more dims)."""
    if y.dim() >= 2 and y.shape[-1] >= 2:
        y[..., 0] *= OUTLIER_FACTOR


def rounded_to_(y: Any, dtype: Any, run: int | None = None) -> None:
    """Every value a ``dtype`` can hold replaced by its nearest ``dtype`` value (larger ones kept); with ``run``,
    only in alternate runs of that many elements of the contiguous ``y`` (the first, third, ...)."""
    import torch


    top = torch.finfo(dtype).max
    flat = y.view(-1)
    for lo, hi in spans(flat.numel()):
        c = flat[lo:hi]
        keep = c.abs() < top
        if run is not None:
            keep &= (torch.arange(lo, hi, device=c.device) // run) % 2 == 0
        c.copy_(torch.where(keep, c.to(dtype).to(c.dtype), c))


#: the float16-valued seed rounds alternate runs of this many elements (row-major) and leaves the others plain:
#: wholly float16-valued, the seed could be told from real inputs, and a kernel wrong on plain float32 values
#: above 5 (where only this seed's x100 reaches) could skip it (tests/test_seed_values.py::
#: test_the_structured_seeds_are_what_they_say checks the runs)
HALF_RUN = 32


def clamp_min_zero_(y: Any) -> None:
    for c in _flat_chunks(y):
        c.clamp_min_(0)


#: in the sorted seed, rows of these indices modulo 8 end in a masked run: -inf (``masked_fill``) and the dtype's
#: lowest value (an additive mask of ``finfo.min``), over the last quarter of the row (at least 2 elements)
MASKED_ROWS = {5: float("-inf"), 6: "min"}


def masked_suffix_(y: Any) -> None:
    """Rows along the last dimension ending in a run of masked scores (:data:`MASKED_ROWS`): attention over padded
    keys or under a causal mask.  A softmax that ignored the mask only on rows ending in two or more masked
    entries would pass every other seed (tests/test_structured_seeds.py, case "masked scores"); the special
    values are single elements."""
    import torch

    if y.dim() < 1 or y.shape[-1] < 2:
        return
    rows = y.view(-1, y.shape[-1])
    width = rows.shape[1]
    k = max(2, width // 4)
    low = torch.finfo(y.dtype).min
    for r, value in MASKED_ROWS.items():
        rows[r::8, width - k:] = low if value == "min" else value


def sort_rows_(y: Any) -> None:
    """Rows along the last dimension sorted, by row index modulo 4: ascending, descending, constant (every
    element its row's middle value) and all zeros, a block of rows at a time.  One direction alone would leave a
    kernel wrong on the other unseen (a softmax wrong on non-increasing rows, top-k logits, or on rows of equal
    values, padding)."""
    import torch


    if not y.dim() or not y.numel():
        return
    rows = y.view(-1, y.shape[-1])
    width = rows.shape[1]
    step = max(4, (int(chunked.CHUNK) // max(1, width)) // 4 * 4)  # blocks start at multiples of 4: the same pattern
    for lo in range(0, rows.shape[0], step):
        block = rows[lo:lo + step]
        block.copy_(block.sort(dim=-1).values)
        kind = torch.arange(lo, lo + block.shape[0], device=block.device) % 4
        down, flat, zero = kind == 1, kind == 2, kind == 3
        block[down] = block[down].flip(-1)
        block[flat] = block[flat][:, width // 2:width // 2 + 1].expand(-1, width)
        block[zero] = 0


#: values a kernel may treat differently and no other seed holds (a kernel wrong only at exactly 1.0, on -0.0 and
#: subnormals, or on non-integers above 1000; tests/test_edge_values.py): exact small whole numbers and halves,
#: both zeros, the dtype's subnormals, large non-integers
EDGE_VALUES = (1.0, -1.0, 0.0, -0.0, 2.0, 0.5, "subnormal", "-subnormal", 1234.567, -4321.125)
#: and large magnitudes, which no seed's scale reaches (a SiLU halved for finite |x| above 2e4, or above 1e5;
#: tests/test_edge_values.py); those past a dtype's range are left out (float16 keeps the first two).  Not
#: larger: the float64 gate's noise floor is an L2 norm over the whole output, and one output element of 2e12
#: (an ulp of 2.4e5) raised it past a 1.25e4 error in another element (the same run)
LARGE_VALUES = (2.5e4, -6.0e4, 3.0e5, -7.0e6)


def edge_values(dtype: Any) -> list[float]:
    import torch

    info = torch.finfo(dtype)
    sub = info.tiny / 4  # below the smallest normal: a subnormal of ``dtype``
    return [sub if v == "subnormal" else -sub if v == "-subnormal" else cast(float, v) for v in EDGE_VALUES] + \
        [v for v in LARGE_VALUES if abs(v) < info.max]


def specials_(ys: list, seed: int) -> None:
    """A few elements (about 1%, 1 to 64) of every floating tensor set to NaN, +Inf and -Inf, and a few others
    (about 0.25%, 1 to 256) to :data:`EDGE_VALUES`, from a generator seeded by ``seed`` (the tensors in order: the
    same positions whatever their values; an edge value may overwrite a NaN or an infinity)."""
    import torch

    gen = torch.Generator(device="cpu").manual_seed(seed + 271828)
    _sprinkle_(ys, gen, 100, 64, lambda dtype: [float("nan"), float("inf"), float("-inf")])
    _sprinkle_(ys, gen, 400, 256, edge_values, each=True)


#: runs of this many consecutive elements (row-major) hold small whole numbers in the non-negative seed, about
#: one run per this many elements (1 to 16 runs a tensor), values 0 to WHOLE_MAX
WHOLE_RUN, WHOLE_RUN_EVERY, WHOLE_MAX = 32, 2048, 32


def whole_runs_(y: Any, gen: Any) -> None:
    """Runs of :data:`WHOLE_RUN` consecutive elements of the contiguous ``y`` set to whole numbers in [0,
    WHOLE_MAX] (non-negative, exact in bfloat16): the integer seed's whole numbers sit on a large offset and the
    edge values are single elements, so a kernel wrong only where neighbouring elements are small whole numbers
    (3 <= |x| < 32) would pass
    (tests/test_edge_values.py::test_a_kernel_wrong_only_where_neighbours_are_small_whole_numbers_is_rejected)."""
    import torch

    if y.numel() < 2 * WHOLE_RUN:
        return
    runs = max(1, min(16, y.numel() // WHOLE_RUN_EVERY))
    starts = torch.randint(0, y.numel() - WHOLE_RUN + 1, (runs,), generator=gen)
    vals = torch.randint(0, WHOLE_MAX + 1, (runs, WHOLE_RUN), generator=gen).to(torch.float64)
    flat = y.view(-1)
    for k, lo in enumerate(starts.tolist()):
        flat[lo:lo + WHOLE_RUN] = vals[k].to(dtype=y.dtype, device=y.device)


def _sprinkle_(ys: list, gen: Any, share: int, most: int, values: Callable[[Any], list[float]],
               each: bool = False) -> None:
    """In every tensor of ``ys`` (None: skipped), ``numel // share`` positions (1 to ``most``) drawn from ``gen``
    set to ``values(dtype)`` in turn; with ``each``, at least one position for each value where there are 16
    elements for each, and the turn starting at a value drawn from ``gen``."""
    import torch

    for y in ys:
        if y is None or not y.numel():
            continue
        vals = values(y.dtype)
        # every value at least once where the tensor has 16 elements for each (a 1024-element input has 2 at
        # 0.25%: a kernel wrong only above 2e4 met a large value in one run of five)
        n = max(1, min(most, y.numel() // share), min(len(vals), y.numel() // 16) if each else 0)
        idx = torch.randint(0, y.numel(), (n,), generator=gen)
        if each:  # a small tensor's few positions: any of the values
            start = int(torch.randint(0, len(vals), (1,), generator=gen))
            vals = vals[start:] + vals[:start]
        column = torch.tensor(vals, dtype=torch.float64).repeat(n // len(vals) + 1)[:n]
        y.view(-1)[idx.to(y.device)] = column.to(dtype=y.dtype, device=y.device)


#: the levels of an 8-bit image scaled to [0, 1]: the varied-state seed's first third of rows takes them
EIGHT_BIT_LEVELS = 255
#: ... brightened by this factor first, so that values in [0, 1] saturate too (the top fifth at 1.0)
EXPOSURE = 1.25


def row_structures_(y: Any) -> None:
    """Rows along the last dimension (of the contiguous ``y``), in thirds: the first third's values 8-bit pixels
    scaled to [0, 1], brightened by :data:`EXPOSURE` and rounded to multiples of 1 / :data:`EIGHT_BIT_LEVELS`
    clipped at 0 and 1 (dark and saturated pixels:
    a kernel wrong only on channels with pixels at exactly 1.0: tests/test_structured_seeds.py, "saturated pixels"); the
    second third's rows probability distributions (their magnitudes divided by their sum: positive, summing to
    1, as softmax outputs and label-smoothed targets are); in the last third every other row a copy of the row
    before (padding, repeated tokens).  Kernels wrong only on rows equal to the row before, on blocks of 8-bit
    levels and on rows summing to 1 pass seeds that hold none (tests/test_structured_seeds.py: "duplicate rows",
    "8-bit pixels", "probability rows").  Each third
    has one structure and not the others, so a kernel cannot wait for two together."""
    import torch


    if y.numel() < 2:  # a scalar (an eps, a temperature) keeps its value
        return
    rows = y.view(-1, y.shape[-1])
    n, width = rows.shape
    a, b = (n + 2) // 3, (2 * n + 2) // 3  # one row: the first third only
    step = max(2, (int(chunked.CHUNK) // max(1, width)) // 2 * 2)  # blocks of an even number of rows
    wide = y.dtype in (torch.float32, torch.float64)  # the arithmetic in the input's own precision, or float32
    for lo in range(0, a, step):
        block = rows[lo:min(a, lo + step)]
        work = block * EXPOSURE if wide else block.to(torch.float32) * EXPOSURE
        block.copy_(work.mul_(EIGHT_BIT_LEVELS).round_().clamp_(0, EIGHT_BIT_LEVELS).div_(EIGHT_BIT_LEVELS))
    for lo in range(a, b, step):
        block = rows[lo:min(b, lo + step)]
        mag = block.to(torch.float64).abs_()
        total = mag.sum(-1, keepdim=True)
        block.copy_(torch.where(total > 0, mag / torch.where(total > 0, total, 1.0), mag))
    for lo in range(b + 1, n, step):  # rows b+1, b+3, ... repeat the row before
        block = rows[lo - 1:min(n, lo + step)]
        block[1::2] = block[0::2][: block[1::2].shape[0]]


def repeated_items_(y: Any) -> None:
    """Along the first dimension, every other item a copy of the item before (``repeat_interleave`` of a batch:
    one prompt sampled several times, beam search; ``cat([a, a, ...])``): a LayerNorm wrong only on a batch item
    equal to the one before passes seeds that repeat only rows (tests/test_structured_seeds.py, "repeated batch
    items")."""
    if y.dim() < 2 or y.shape[0] < 2:
        return
    n = y.shape[0] // 2
    y[1::2][:n].copy_(y[0::2][:n])


def symmetric_(y: Any) -> None:
    """Every square matrix in the last two dimensions made symmetric, its upper triangle mirrored onto the lower (an
    undirected graph's adjacency, a covariance, a Gram or distance matrix), a block of rows at a time: a GCN
    normalisation wrong only on a symmetric adjacency matrix passes seeds that hold none
    (tests/test_structured_seeds.py, "symmetric matrices")."""
    import torch


    if y.dim() < 2 or y.shape[-1] != y.shape[-2] or y.shape[-1] < 2:
        return
    n = y.shape[-1]
    step = max(1, int(chunked.CHUNK) // n)
    for m in y.view(-1, n, n):
        for lo in range(0, n, step):
            hi = min(n, lo + step)
            m[lo:hi, :lo] = m[:lo, lo:hi].transpose(0, 1)
            d = m[lo:hi, lo:hi]
            d.copy_(torch.triu(d) + torch.triu(d, 1).transpose(0, 1))


def dead_column_(y: Any, gen: Any) -> None:
    """One column of the last dimension, drawn from ``gen``, zero in every row (a dead unit after a ReLU): a kernel
    wrong only where a feature is zero in every row passes seeds that hold none (tests/test_structured_seeds.py,
    "dead column")."""
    import torch

    if y.dim() < 2 or y.shape[-1] < 2:
        return
    col = int(torch.randint(0, y.shape[-1], (1,), generator=gen))
    y[..., col] = 0


def device_generator(gen: Any, device: Any) -> Any:
    """A generator on ``device`` seeded from ``gen``: for values drawn a position each, drawn where the tensor is
    (a multi-GiB input's values drawn on the host and copied over took seconds a draw)."""
    import torch

    return torch.Generator(device=device).manual_seed(int(torch.randint(0, 1 << 62, (1,), generator=gen)))


def one_hot_(y: Any, gen: Any, dim: Any) -> None:
    """``y`` one-hot along ``dim`` (-1, the last dimension, or 1): zeros, and a single 1.0 at an index drawn from
    ``gen`` along that dimension for every position of the others (hard class labels: one-hot rows of
    ``F.one_hot``, or an N, C, H, W segmentation mask one-hot along its channels), a block at a time; ``"multi"``:
    rows of 0 and 1 with at least one 1 (multi-label targets, :data:`MULTI_HOT`).  Soft-target
    losses wrong only when the whole target is one-hot pass every other seed (tests/test_structured_seeds.py,
    "one-hot targets", "one-hot channels"): whole numbers on an
    offset never are, and a part of a tensor one-hot is not a whole one."""
    import torch


    # the indices (a position each of the other dimensions) drawn where the input is, a block at a time
    dgen = device_generator(gen, y.device)
    if dim == 1 and y.dim() >= 3:  # (N, C, *spatial): one-hot along C, a block of items at a time
        per = max(1, int(chunked.CHUNK) // max(1, y[0].numel()))
        for lo in range(0, y.shape[0], per):
            items = y[lo:lo + per]
            cols = torch.randint(0, items.shape[1], (items.shape[0], 1, *items.shape[2:]), generator=dgen,
                                 device=items.device)
            items.zero_()
            items.scatter_(1, cols, 1.0)
        return
    rows = y.view(-1, y.shape[-1])
    n, width = rows.shape
    step = max(1, int(chunked.CHUNK) // max(1, width))
    # the multi-hot mask from a generator of its own, drawn where the input is
    mgen = device_generator(gen, rows.device) if dim == "multi" else None
    for lo in range(0, n, step):
        block = rows[lo:min(n, lo + step)]
        cols = torch.randint(0, width, (block.shape[0], 1), generator=dgen, device=block.device)
        if mgen is not None:  # and each other column 1.0 with probability MULTI_HOT / width
            block.copy_(torch.rand(block.shape, generator=mgen, device=block.device).lt_(MULTI_HOT / width))
        else:
            block.zero_()
        block.scatter_(1, cols, 1.0)


#: the ReLU seed's multi-hot rows: 1.0 at one column drawn, and at each other with probability this over the width
MULTI_HOT = 3.0


def one_hot_dim(plan: Any, seed: int, index: int, y: Any, count: int = 1) -> Any:
    """The dimension along which ``seed`` makes the floating input ``y`` (the ``index``-th of ``count`` floating
    inputs) one-hot (:func:`one_hot_`, over what its other steps made), ``"multi"``, or None.  Every floating
    input after the first (targets and masks mostly come after the data they apply to): on the integer seed
    one-hot along the last dimension; on the ReLU seed one-hot along dim 1 where it has three or more dimensions
    (N, C, ...: channels), else multi-hot rows (soft-target losses wrong only on hard labels:
    tests/test_structured_seeds.py, "one-hot targets", "multi-hot targets").
    And the first, where the call has two or more, on the float16 seed (the others keep its values):
    a target passed first, as Keras's ``loss(y_true, y_pred)`` does ("one-hot targets passed first"), one-hot
    along dim 1 where it has four or more dimensions (N, C, H, W), else along the last."""
    if y.dim() < 2 or not y.numel():
        return None
    if index == 0:
        if plan.half_rounded(seed) and count >= 2:
            dim = 1 if y.dim() >= 4 else -1
            return dim if y.shape[dim] >= 2 else None
        return None
    if plan.integral(seed) and y.shape[-1] >= 2:
        return -1
    if plan.nonnegative(seed):
        if y.dim() >= 3 and y.shape[1] >= 2:
            return 1
        return "multi" if y.shape[-1] >= 2 else None
    return None


def steps(plan: Any, seed: int) -> list[Callable[[Any], None]]:
    """The in-place steps ``plan`` takes on every floating input of ``seed``, in order (specials aside)."""
    import torch

    out: list[Callable[[Any], None]] = []
    s = plan.scale(seed)
    if s != 1.0:
        out.append(lambda y: scale_(y, s))
    if plan.integral(seed):
        out += [round_, offset_, repeated_items_, symmetric_]
    if plan.half_rounded(seed):
        out += [outlier_channel_, lambda y: rounded_to_(y, torch.float16, HALF_RUN)]
    if plan.varied_state(seed):
        out.append(row_structures_)
    if plan.nonnegative(seed):
        gen = torch.Generator(device="cpu").manual_seed(seed + 314159)  # the tensors in order draw from it
        out += [clamp_min_zero_, lambda y: rounded_to_(y, torch.bfloat16), lambda y: whole_runs_(y, gen),
                lambda y: dead_column_(y, gen)]
    if plan.sorted_rows(seed):
        out += [sort_rows_, masked_suffix_]
    return out


def seed_inputs(original: tuple, plan: Any, seed: int) -> tuple:
    """``seed``'s inputs made from the problem's draw ``original``: every floating tensor copied once (the draw
    is the problem's and may be shared, so it is never edited), the plan's steps applied to the copy in place,
    and the copy laid out as the original (:func:`pytest_kernelopt.tensor_layout.in_layout`); on the integer and
    ReLU seeds the floating inputs after the first one-hot instead, and on the float16 seed the first of two or more
    (:func:`one_hot_dim`).  Inputs no step touches are the original objects."""
    import torch


    todo = steps(plan, seed)
    special = plan.special(seed)
    if not todo and not special:
        return tuple(original)
    out: list = []
    edited: list = []
    hot_gen = torch.Generator(device="cpu").manual_seed(seed + 161803)
    count = sum(isinstance(x, torch.Tensor) and x.is_floating_point() for x in original)
    index = 0
    with torch.no_grad():
        for x in original:
            if isinstance(x, torch.Tensor) and x.is_floating_point():
                y = x.detach().clone(memory_format=torch.contiguous_format)
                for step in todo:  # (on a one-hot input too: the steps' generators draw the same for the rest)
                    step(y)
                hot = one_hot_dim(plan, seed, index, y, count)
                index += 1
                if hot is not None:
                    one_hot_(y, hot_gen, hot)
                out.append(y)
                edited.append(y)
            else:
                out.append(x)
                edited.append(None)
        if special:
            specials_(edited, seed)
    return tuple(in_layout(o, y).requires_grad_(o.requires_grad) if e is not None else y
                 for o, y, e in zip(original, out, edited))
