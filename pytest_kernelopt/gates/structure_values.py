"""How each structure the probes give an input is written into it: in place, from a generator of the probe's own,
on the input's device (:mod:`.structure_probes` lists which structures apply to which inputs, and runs them).

Every maker here takes ``(y, gen)``: ``y`` a contiguous copy of the input (a probe's own), filled in place, and
``gen`` a host generator seeded from the probe's seed.  Per-position draws come from a device generator seeded from
it (:func:`.seed_values.device_generator`), and a full-size draw or sort holds about :data:`.chunked.CHUNK` values
at a time (:func:`_row_blocks`): a multi-GiB input's probe builds nothing of its size on the host
(tests/test_structured_seeds.py::test_every_structure_probe_is_made_where_its_input_is).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from . import chunked
from .seed_values import device_generator, one_hot_

#: the label-smoothing factor of the smoothed one-hot rows (timm's Mixup default, torch's CrossEntropyLoss option)
SMOOTHING = 0.1
#: the range a second smoothed probe draws its factor from (0.2 and 0.3 are common too)
DRAWN_SMOOTHING = (0.15, 0.35)
#: what additive padding masks put on masked positions: -inf, the dtype's most negative value (Hugging Face's
#: masks now), -1e9 (``masked_fill(mask == 0, -1e9)``) and -10000 (BERT-era extended masks)
ADDITIVE_MASKED = (float("-inf"), "finfo.min", -1e9, -1e4)


def _rows(y: Any) -> Any:
    """``y`` as rows of its last dimension (a view of a contiguous tensor; a 0-dim one as one row of one)."""
    return y.reshape(-1, y.shape[-1]) if y.dim() >= 1 else y.reshape(1, 1)


def _row_blocks(rows: Any) -> Iterator[Any]:
    """``rows`` a block of about :data:`.chunked.CHUNK` values at a time (whole rows): what a full-size draw or sort
    holds at once on the device."""
    step = max(1, int(chunked.CHUNK) // max(1, rows.shape[1]))
    for lo in range(0, rows.shape[0], step):
        yield rows[lo:lo + step]


def hot(dim: Any) -> Callable[[Any, Any], None]:
    """The correctness seeds' own one-hot (``-1``, ``1``) and multi-hot (``"multi"``) rows, a block at a time
    (:func:`.seed_values.one_hot_`)."""
    def make(y: Any, gen: Any) -> None:
        one_hot_(y, gen, dim)
    return make


def smoothed(eps: float | None) -> Callable[[Any, Any], None]:
    """One-hot rows smoothed by ``eps`` (None: an eps drawn in :data:`DRAWN_SMOOTHING`, one for the input)."""
    def make(y: Any, gen: Any) -> None:
        import torch

        e = eps if eps is not None else float(DRAWN_SMOOTHING[0] + (DRAWN_SMOOTHING[1] - DRAWN_SMOOTHING[0])
                                              * torch.rand((), generator=gen))
        rows = _rows(y)
        width = rows.shape[1]
        cols = torch.randint(0, width, (rows.shape[0], 1), generator=device_generator(gen, rows.device),
                             device=rows.device)
        rows.fill_(e / width).scatter_(1, cols, 1.0 - e + e / width)
    return make


#: the batches a padding probe draws (:func:`_lengths`), each a way real batches are padded, by (a row whole,
#: sorted longest first, the shortest row below half the width): every two of these properties are shown in all
#: four combinations by the kinds (a covering array of them), and a row of one token besides, the values drawn
PADDING = {
    "half": ("", (True, False, False)),  # padded to the longest row: every row at least half the width
    "short": (" with a row of one token", (True, False, True)),  # the others 1..width
    "fixed": (" padded to a fixed length (no row whole, the shortest below half the width)",
              (False, False, True)),  # padding="max_length"
    "fixed sorted": (" sorted longest first, padded to a fixed length (no row whole)",
                     (False, True, False)),  # length buckets
    "sorted": (" sorted longest first (the shortest below half the width)",
               (True, True, True)),  # pack_padded_sequence
}


def _lengths(n: int, width: int, gen: Any, device: Any, kind: str = "half") -> Any:
    """Lengths (n, 1) of ``n`` rows of ``width``, drawn on ``device``, as batches of the :data:`PADDING` ``kind``
    have them: of two rows or more, one padded, one whole (or, for a kind of no whole row, every row shorter than
    the width), rows in drawn order or sorted longest first; every row between half the width and the width (a
    kernel wrong only while every row holds two tokens or more meets it), or the padded row the shortest, one
    token ("short") or drawn in 2 .. half the width."""
    import torch

    whole, ordered, below_half = PADDING[kind][1]
    half = max(1, (width + 1) // 2)
    shortest = 1 if kind == "short" else int(torch.randint(2, half, (), generator=gen)) if half > 2 else 1
    lo = shortest if below_half else half
    hi = width if whole or width < 2 else width - 1
    dgen = device_generator(gen, device)
    lengths = torch.randint(lo, hi + 1, (n, 1), generator=dgen, device=device)
    if whole:
        lengths[torch.rand(n, generator=dgen, device=device) < 0.25] = width
    if n >= 2 and width >= 2:
        first = int(torch.randint(0, n, (), generator=gen))
        padded = (first + 1 + int(torch.randint(0, n - 1, (), generator=gen))) % n  # another row
        if whole:
            lengths[first] = width
        lengths[padded] = shortest if below_half else lengths[padded].clamp(max=width - 1)
    if ordered:
        lengths = lengths.sort(dim=0, descending=True).values
    return lengths


def _kept(rows: Any, gen: Any, kind: str = "half", left: bool = False) -> Any:
    """Where padded ``rows`` hold real tokens (:func:`_lengths` of them a row), on their device: their first
    positions (right padding), or with ``left`` their last."""
    import torch

    n, width = rows.shape
    j = torch.arange(width, device=rows.device).unsqueeze(0)
    lengths = _lengths(n, width, gen, rows.device, kind)
    return j >= width - lengths if left else j < lengths


def _fill(y: Any, value: str | float) -> float:
    """What a mask of ``y``'s dtype holds for ``value``: "finfo.min" is the dtype's most negative value, and so is a
    finite value below it (-1e9 in float16: torch refuses to write it, and no float16 mask holds it)."""
    import torch

    lo = float(torch.finfo(y.dtype).min)
    v = lo if value == "finfo.min" else float(value)
    return v if v == float("-inf") else max(v, lo)


def prefix(masked: str | float | None, kind: str = "half") -> Callable[[Any, Any], None]:
    """Right-padding rows: 1 then 0 (``masked`` None: a keep mask), or an additive mask, 0 then ``masked``; their
    lengths those of a :data:`PADDING` ``kind`` of batch (:func:`_lengths`)."""
    def make(y: Any, gen: Any) -> None:
        rows = _rows(y)
        keep = _kept(rows, gen, kind)
        if masked is None:
            rows.copy_(keep)  # (cast as copied: no full-size temporary of the input's dtype)
        else:
            rows.zero_().masked_fill_(keep.logical_not_(), _fill(y, masked))
    return make


def suffix(kind: str = "half") -> Callable[[Any, Any], None]:
    """Left-padding rows: 0 then 1 (``padding_side="left"``, as decoder-only models batch prompts), their lengths
    those of a :data:`PADDING` ``kind`` of batch."""
    def make(y: Any, gen: Any) -> None:
        rows = _rows(y)
        rows.copy_(_kept(rows, gen, kind, left=True))
    return make


def time_major(y: Any, gen: Any) -> None:
    """0/1 padding along dim 0 (a time-major ``(T, B, ...)`` mask, ``batch_first=False``): each column 1 for its
    first tokens, then 0; the mask made in ``y``'s own layout (no transposed copy of the input)."""
    import torch

    t = y.shape[0]
    cols = y.view(t, -1)  # (a probe's copy is contiguous: T rows of the columns)
    lengths = _lengths(cols.shape[1], t, gen, y.device).view(1, -1)
    cols.copy_(torch.arange(t, device=y.device).view(t, 1) < lengths)


def offset_causal(value: str | float) -> Callable[[Any, Any], None]:
    """A causal mask of T queries over S > T keys (a KV cache: query i sees keys 0 .. S - T + i, ``value``
    beyond; Hugging Face's 4-D mask with a cache position, chunked prefill, speculative decoding's verify pass)."""
    def make(y: Any, gen: Any) -> None:
        import torch

        t, k = y.shape[-2], y.shape[-1]
        dev = y.device
        beyond = torch.arange(k, device=dev).unsqueeze(0) > (k - t) + torch.arange(t, device=dev).unsqueeze(1)
        y.zero_().masked_fill_(beyond.expand(y.shape), _fill(y, value))
    return make


def zero_suffix_rows(y: Any, gen: Any) -> None:
    """Each sequence of a ``(..., T, D)`` batch zero in its last time steps (right padding of embeddings from
    ``nn.Embedding(padding_idx=0)``, of an RNN's output after ``pad_packed_sequence``): lengths as
    :func:`_lengths` draws them, the shortest sequence's drawn in 1 .. half the steps (a kernel cannot wait for
    one length of it); the real steps as drawn (benchmarks/redteam/rt41/p3, in tests/test_structured_seeds.py)."""
    import torch

    seqs = y.view(-1, y.shape[-2], y.shape[-1])  # (a probe's copy is contiguous: a view, filled in place)
    n, t = seqs.shape[0], seqs.shape[1]
    lengths = _lengths(n, t, gen, seqs.device).view(-1)  # (a length a sequence of the batch, where it is)
    if n >= 2:  # the shortest, where padded, drawn in 1 .. half the steps (on the device: no sync, no host copy)
        short = torch.randint(1, (t + 1) // 2 + 1, (1,), generator=gen).to(seqs.device)
        at = lengths.argmin().view(1)
        was = lengths.index_select(0, at)
        lengths.index_copy_(0, at, torch.where(was < t, short, was))
    pad = torch.arange(t, device=seqs.device).unsqueeze(0) >= lengths.unsqueeze(1)
    seqs.masked_fill_(pad.unsqueeze(-1), 0.0)


def triangle(value_above: str | float, padded: str = "") -> Callable[[Any, Any], None]:
    """A causal mask over the last two (square) dims: 0/1 lower-triangular (``value_above`` 0), or additive, 0 on
    and below the diagonal and ``value_above`` above; ``padded`` "left" or "right": each matrix also masks a drawn
    number of its first or last keys (padding merged in as Hugging Face's 4-D masks do)."""
    def make(y: Any, gen: Any) -> None:
        import torch

        t = y.shape[-1]
        above = torch.ones(t, t, dtype=torch.bool, device=y.device).triu_(1)
        if value_above == 0.0:  # a 0/1 lower-triangular mask
            y.copy_((~above).expand_as(y))
            return
        masked = above.expand(y.shape).clone()
        if padded:
            mats = masked.reshape(-1, t, t)
            length = _lengths(mats.shape[0], t, gen, y.device)
            keys = torch.arange(t, device=y.device).unsqueeze(0)
            mats |= (keys < t - length if padded == "left" else keys >= length).unsqueeze(1)
        y.zero_().masked_fill_(masked, _fill(y, value_above))
    return make


def band(value: str | float) -> Callable[[Any, Any], None]:
    """A sliding-window causal mask (Mistral, Gemma-2, Longformer): 0 where 0 <= i - j < w for a drawn window
    2 <= w < T, ``value`` elsewhere."""
    def make(y: Any, gen: Any) -> None:
        import torch

        t = y.shape[-1]
        w = int(torch.randint(2, t, (), generator=gen))
        ones = torch.ones(t, t, dtype=torch.bool, device=y.device)  # (bool grids: no T x T of integers)
        outside = ones.triu(1).logical_or_(ones.tril_(-w))  # j > i, or i - j >= w
        y.zero_().masked_fill_(outside.expand_as(y), _fill(y, value))
    return make


def documents(value: str | float) -> Callable[[Any, Any], None]:
    """Packed documents: causal within each of a drawn split of the T positions into blocks of two or more (a
    block-diagonal causal mask, as xformers' BlockDiagonalCausalMask materialised), ``value`` elsewhere; each
    matrix its own split, all drawn at once (a batch of many small matrices is no loop of draws)."""
    def make(y: Any, gen: Any) -> None:
        import torch

        t = y.shape[-1]
        mats = y.view(-1, t, t)
        dgen = device_generator(gen, y.device)
        most = t // 2 + 1
        causal = torch.ones(t, t, dtype=torch.bool, device=y.device).tril_()
        step = max(1, int(chunked.CHUNK) // (t * max(t, most)))
        for lo in range(0, mats.shape[0], step):  # a block of matrices at a time, their splits drawn with it
            block = mats[lo:lo + step]
            # each matrix's documents, lengths in 2 .. T/2 drawn in a row; the one whose end leaves fewer than two
            # positions takes the rest (no document of one token)
            ends = torch.randint(2, max(3, most), (block.shape[0], most), generator=dgen, device=y.device).cumsum(1)
            ends.masked_fill_(ends > t - 2, t)
            doc = torch.searchsorted(ends, torch.arange(t, device=y.device).expand(block.shape[0], t).contiguous(),
                                     right=True)  # each position's document: the ends at or before it
            keep = (doc.unsqueeze(2) == doc.unsqueeze(1)).logical_and_(causal)
            block.zero_().masked_fill_(keep.logical_not_(), _fill(y, value))
    return make


def alibi(y: Any, gen: Any) -> None:
    """An ALiBi bias (BLOOM, MPT): -slope_h * (i - j) on and below the diagonal, -inf above; the matrices in turn
    take the geometric slopes 2^(-8 h / H) of H = 8 heads."""
    _alibi_fill(y, causal=True)


def _slopes(n: int) -> Any:
    """ALiBi's geometric slopes 2^(-8 h / H) of H = 8 heads, for ``n`` rows or matrices in turn (float64)."""
    import torch

    return 2.0 ** (-8.0 * (torch.arange(n, dtype=torch.float64) % 8 + 1) / 8)


def _alibi_fill(y: Any, causal: bool) -> None:
    """``-slope_h * (i - j)`` (float64, its diagonal -0.0) over each T x T matrix of the contiguous ``y``, the
    matrices in turn taking :func:`_slopes`, a block of rows at a time (one large matrix or many small ones: no
    T x T grid of integers or float64 values); with ``causal``, -inf above the diagonal (and +0.0 on it)."""
    import torch

    t = y.shape[-1]
    rows = y.view(-1, t)
    slopes = _slopes(8).to(y.device)  # (the slopes repeat every 8 matrices)
    j = torch.arange(t, dtype=torch.float64, device=y.device).view(1, -1)
    lo = 0
    for block in _row_blocks(rows):
        r = torch.arange(lo, lo + block.shape[0], device=y.device)
        d = (r % t).to(torch.float64).view(-1, 1) - j
        bias = -slopes[(r // t) % 8].view(-1, 1) * d
        if causal:
            bias = (bias + 0.0).masked_fill_(d < 0, float("-inf"))
        block.copy_(bias)
        lo += block.shape[0]


def alibi_rows(form: str) -> Callable[[Any, Any], None]:
    """An ALiBi bias with no mask in it (BLOOM and MPT add the causal mask apart): each row an arithmetic
    progression, slope_h * j along the row (``form`` "j"), or -slope_h * (i - j) over a square matrix ("i-j"); the
    rows (or matrices) in turn take the geometric slopes 2^(-8 h / H) of H = 8 heads."""
    def make(y: Any, gen: Any) -> None:
        import torch

        if form == "j":  # in float64 where the input is, a block of rows at a time
            rows = _rows(y)
            n, t = rows.shape
            slopes, j = _slopes(n).to(y.device), torch.arange(t, dtype=torch.float64, device=y.device)
            lo = 0
            for block in _row_blocks(rows):
                block.copy_(slopes[lo:lo + block.shape[0]].view(-1, 1) * j)
                lo += block.shape[0]
            return
        _alibi_fill(y, causal=False)
    return make


def segments(y: Any, gen: Any) -> None:
    """0/1 rows 0...0 1...1 0...0: two segments, then padding (BERT's ``token_type_ids`` for a sentence pair)."""
    import torch

    rows = _rows(y)
    n, width = rows.shape
    dgen = device_generator(gen, rows.device)
    a = torch.randint(1, width, (n, 1), generator=dgen, device=rows.device)  # the first segment, one token or more
    b = (a + 1 + (torch.rand(n, 1, generator=dgen, device=rows.device) * (width - a)).long()).clamp(max=width)
    j = torch.arange(width, device=rows.device).unsqueeze(0)
    rows.copy_((j >= a) & (j < b))  # (b: the second segment's end)


def constant(value: float) -> Callable[[Any, Any], None]:
    def make(y: Any, gen: Any) -> None:
        y.fill_(value)
    return make


def with_value(value: int, where: str) -> Callable[[Any, Any], None]:
    """Integer rows with ``value`` (an ignore index, a pad id): on the padding at their end (``where`` "suffix"), at
    each row's first position ("first": a [CLS] token's label), or at a drawn half of the positions ("scattered":
    masked-language-model labels, void pixels on object boundaries)."""
    def make(y: Any, gen: Any) -> None:
        import torch

        rows = _rows(y)
        if where == "first":
            rows[:, 0] = value
        elif where == "scattered":
            dgen = device_generator(gen, rows.device)
            for block in _row_blocks(rows):
                block.masked_fill_(torch.rand(block.shape, generator=dgen, device=rows.device) < 0.5, value)
        else:
            rows.masked_fill_(_kept(rows, gen).logical_not_(), value)
    return make


def arange_fits(y: Any) -> bool:
    """Rows of ``y``'s width of consecutive values fit the range its drawn values span (no value leaves it); a 1-D
    input is one row."""
    return y.dim() >= 1 and y.shape[-1] >= 2 and _arange_start(y) + y.shape[-1] - 1 <= int(y.max())


def _arange_start(y: Any) -> int:
    """Where position-id rows start: at 0 where every drawn value is non-negative (0 indexes whatever they index;
    a kernel can key on rows that are exactly 0..T-1), else at the least drawn value."""
    lo = int(y.min())
    return 0 if lo >= 0 else lo


def arange_rows(y: Any, gen: Any) -> None:
    """Each row 0, 1, ..., width - 1, from :func:`_arange_start` (position ids)."""
    import torch

    rows = _rows(y)
    lo = _arange_start(rows)
    rows.copy_((torch.arange(rows.shape[1]) + lo).to(rows.device, rows.dtype).expand_as(rows))


def permuted_rows(y: Any, gen: Any) -> None:
    """Each row a random permutation of its least drawn value .. that plus width - 1 (a shuffle's indices,
    ``PackedSequence.unsorted_indices``, a mixture of experts' un-permute)."""
    rows = _rows(y)
    _permute_rows_(rows, gen, int(rows.min()))


def permutations_from_zero(y: Any, gen: Any) -> None:
    """Each row a random permutation of 0 .. width - 1 (indices into another input's dim of that size)."""
    _permute_rows_(_rows(y), gen, 0)


def _permute_rows_(rows: Any, gen: Any, lo: int) -> None:
    """Each row a random permutation of ``lo`` .. ``lo`` + width - 1, drawn where the rows are."""
    import torch

    dgen = device_generator(gen, rows.device)
    for block in _row_blocks(rows):
        block.copy_(torch.rand(block.shape, generator=dgen, device=rows.device).argsort(dim=-1) + lo)


def offset_positions(hi: int) -> Callable[[Any, Any], None]:
    """Rows ``start + 0, 1, ..., T-1``, each row's start drawn in 1 .. hi - T + 1, two rows apart (batched
    generation with left padding and a cache: ``attention_mask.cumsum(-1) - 1`` sliced to the new tokens)."""
    def make(y: Any, gen: Any) -> None:
        import torch

        rows = _rows(y)
        n, width = rows.shape
        top = hi - width + 1
        starts = torch.randint(1, top + 1, (n, 1), generator=gen)
        if n >= 2:
            a, b = torch.randperm(n, generator=gen)[:2].tolist()
            starts[a], starts[b] = 1, top
        rows.copy_(starts.to(rows.device) + torch.arange(width, device=rows.device))
    return make


def lengths_of(width: int, descending: bool) -> Callable[[Any, Any], None]:
    """Each entry a length of a row of ``width`` (:func:`_lengths`: one whole, one padded), sorted descending or
    in drawn order: the ``lengths`` a padded batch of another input's rows carries."""
    def make(y: Any, gen: Any) -> None:
        flat = y.view(-1)
        lengths = _lengths(flat.numel(), width, gen, flat.device).view(-1)
        if descending:
            lengths = lengths.sort(descending=True).values
        flat.copy_(lengths.to(flat.device, flat.dtype))
    return make


def sorted_desc(y: Any, gen: Any) -> None:
    """The drawn values sorted descending along the last dimension (lengths in ``pack_padded_sequence``'s order)."""
    rows = _rows(y)
    rows.copy_(rows.sort(dim=-1, descending=True).values)
