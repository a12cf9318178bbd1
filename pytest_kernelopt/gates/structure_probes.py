"""Structure probes: each label and mask structure real inputs carry, given to each floating input in turn.

The correctness seeds give some inputs whole-tensor structures (one-hot targets after the first input on the
integer seed, multi-hot rows on the ReLU seed, a one-hot first input on the float16 seed), tied to an argument's
position and rank.  A kernel that reads a whole input to test it for a structure is wrong only there, so the
probes give each structure to every input it fits, whatever its position:

* floating inputs (:data:`STRUCTURES`): one-hot rows along the last dimension and along dim 1, multi-hot rows,
  smoothed one-hot rows (0.1 and a factor drawn from :data:`DRAWN_SMOOTHING`), 0/1 prefix and suffix rows
  (right and left padding), padding along dim 0 (time-major masks), additive padding at -inf, finfo.min, -1e9
  and -10000, all ones and all zeros (an unpadded batch), arithmetic-progression rows, and on square last
  dimensions causal masks (0/-inf, 0/finfo.min with padding merged in, 0/1 lower-triangular, over more keys
  than queries), a sliding-window band, packed documents' block-diagonal mask and ALiBi biases; and on inputs of
  three dims or more, zero rows at the end of each sequence (right-padded embeddings);
* bool and 0/1 integer masks (:func:`mask_probes`: a tokenizer's int64 ``attention_mask``, a bool key mask,
  ``token_type_ids``);
* other integer inputs (:func:`integer_probes`): positions, permutations, sorted lengths, the constants the
  module's own kernels compare with (ignore indices, pad ids) on padding or scattered, values tied to another
  input's shape, consecutive values each from its own start;
* structure on two or three inputs at once (:func:`joint_probes`): label rows in one input and a padding mask
  over its rows in another; a causal, sliding-window or ALiBi square mask beside a key-padding mask; an ALiBi
  bias and a causal mask kept apart beside key padding.

Other conjunctions of structures are not probed.  Guarded by tests/test_structured_seeds.py (each probe family,
and the repros in benchmarks/redteam/ that a probe refuses).

Here, after the first seed's calls, every floating input is given each structure of
:data:`STRUCTURES` in turn, the other inputs as the plain seed draws them (the problem's own ``get_inputs()``),
and the candidate's call is held to the baseline's call on the same inputs from the same state
(:func:`.calls.pair`, judged within :data:`.seed_plan.CARRIED_SLACK` tolerances: there is no float64 truth
for them).  It is still an enumeration, of structures rather than of (structure, position, rank): a structure
not in the list is not probed.  Cost: two calls of the module per (input, structure) that applies; none for a
candidate that is Inductor's own source under other launch configs (no proposer's code runs: a config cannot test
an input for a structure).  Every pair reaches the judge: past :data:`.trial_records.CARRIED_TOTAL_BYTES` of pairs kept
(loops' and streams' included), as a keyed sample of positions (:func:`.calls.keep_pair`).
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any, Callable, Iterator

from . import calls, chunked
from .gate_session import GateSession, target_for
from .module_state import copies
from .seed_values import device_generator, one_hot_
from .trial_records import PROBE

#: every probe on (single, mask, ignore-index and joint); a test of another gate turns them off
ENABLED = True
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


def _hot(dim: Any) -> Callable[[Any, Any], None]:
    """The correctness seeds' own one-hot (``-1``, ``1``) and multi-hot (``"multi"``) rows, a block at a time
    (:func:`.seed_values.one_hot_`)."""
    def make(y: Any, gen: Any) -> None:
        one_hot_(y, gen, dim)
    return make


def _smoothing(eps: float | None) -> Callable[[Any, Any], None]:
    """One-hot rows smoothed by ``eps`` (None: an eps drawn in :data:`DRAWN_SMOOTHING`, one for the input)."""
    def make(y: Any, gen: Any) -> None:
        import torch

        e = eps if eps is not None else float(DRAWN_SMOOTHING[0] + (DRAWN_SMOOTHING[1] - DRAWN_SMOOTHING[0])
                                              * torch.rand((), generator=gen))
        rows = _rows(y)
        width = rows.shape[1]
        cols = torch_randint(width, (rows.shape[0], 1), gen, rows.device)
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


def _kept(rows: Any, gen: Any, kind: str = "half") -> Any:
    """Where right-padded ``rows`` hold real tokens (:func:`_lengths` of them a row), on their device."""
    import torch

    n, width = rows.shape
    return torch.arange(width, device=rows.device).unsqueeze(0) < _lengths(n, width, gen, rows.device, kind)


def _fill(y: Any, value: str | float) -> float:
    """What a mask of ``y``'s dtype holds for ``value``: "finfo.min" is the dtype's most negative value, and so is a
    finite value below it (-1e9 in float16: torch refuses to write it, and no float16 mask holds it)."""
    import torch

    lo = float(torch.finfo(y.dtype).min)
    v = lo if value == "finfo.min" else float(value)
    return v if v == float("-inf") else max(v, lo)


def _prefix(masked: str | float | None, kind: str = "half") -> Callable[[Any, Any], None]:
    """Right-padding rows: 1 then 0 (``masked`` None: a keep mask), or an additive mask, 0 then ``masked``; their
    lengths those of a :data:`PADDING` ``kind`` of batch (:func:`_lengths`)."""
    def make(y: Any, gen: Any) -> None:
        rows = _rows(y)
        keep = _kept(rows, gen, kind)
        if masked is None:
            rows.copy_(keep.to(rows.dtype))
        else:
            rows.zero_().masked_fill_(~keep, _fill(y, masked))
    return make


def _suffix(kind: str = "half") -> Callable[[Any, Any], None]:
    """Left-padding rows: 0 then 1 (``padding_side="left"``, as decoder-only models batch prompts), their lengths
    those of a :data:`PADDING` ``kind`` of batch."""
    def make(y: Any, gen: Any) -> None:
        _prefix(None, kind)(y, gen)
        rows = _rows(y)
        rows.copy_(rows.flip(-1))
    return make


def _time_major(y: Any, gen: Any) -> None:
    """0/1 padding along dim 0 (a time-major ``(T, B, ...)`` mask, ``batch_first=False``): each column 1 for its
    first tokens, then 0."""
    cols = y.movedim(0, -1).contiguous()
    _prefix(None)(cols, gen)
    y.copy_(cols.movedim(-1, 0))


def _offset_causal(value: str | float) -> Callable[[Any, Any], None]:
    """A causal mask of T queries over S > T keys (a KV cache: query i sees keys 0 .. S - T + i, ``value``
    beyond; Hugging Face's 4-D mask with a cache position, chunked prefill, speculative decoding's verify pass)."""
    def make(y: Any, gen: Any) -> None:
        import torch

        t, k = y.shape[-2], y.shape[-1]
        dev = y.device
        beyond = torch.arange(k, device=dev).unsqueeze(0) > (k - t) + torch.arange(t, device=dev).unsqueeze(1)
        y.zero_().masked_fill_(beyond.expand(y.shape), _fill(y, value))
    return make


def _zero_suffix_rows(y: Any, gen: Any) -> None:
    """Each sequence of a ``(..., T, D)`` batch zero in its last time steps (right padding of embeddings from
    ``nn.Embedding(padding_idx=0)``, of an RNN's output after ``pad_packed_sequence``): lengths as
    :func:`_lengths` draws them, the shortest sequence's drawn in 1 .. half the steps (a kernel cannot wait for
    one length of it); the real steps as drawn (benchmarks/redteam/rt41/p3, in tests/test_structured_seeds.py)."""
    import torch

    seqs = y.view(-1, y.shape[-2], y.shape[-1])  # (a probe's copy is contiguous: a view, filled in place)
    n, t = seqs.shape[0], seqs.shape[1]
    lengths = _lengths(n, t, gen, "cpu").view(-1)  # (a length a sequence of the batch)
    if n >= 2 and bool((lengths < t).any()):  # the shortest drawn in 1 .. half the steps
        lengths[int(lengths.argmin())] = int(torch.randint(1, (t + 1) // 2 + 1, (), generator=gen))
    pad = torch.arange(t, device=seqs.device).unsqueeze(0) >= lengths.to(seqs.device).unsqueeze(1)
    seqs.masked_fill_(pad.unsqueeze(-1), 0.0)


def _triangle(value_above: str | float, padded: str = "") -> Callable[[Any, Any], None]:
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


def _offsets(t: int, device: Any) -> Any:
    """``i - j`` for query row i and key column j of a T x T mask, on ``device``."""
    import torch

    return torch.arange(t, device=device).unsqueeze(1) - torch.arange(t, device=device).unsqueeze(0)


def _band(value: str | float) -> Callable[[Any, Any], None]:
    """A sliding-window causal mask (Mistral, Gemma-2, Longformer): 0 where 0 <= i - j < w for a drawn window
    2 <= w < T, ``value`` elsewhere."""
    def make(y: Any, gen: Any) -> None:
        import torch

        t = y.shape[-1]
        w = int(torch.randint(2, t, (), generator=gen))
        d = _offsets(t, y.device)
        y.zero_().masked_fill_(((d < 0) | (d >= w)).expand_as(y), _fill(y, value))
    return make


def _documents(value: str | float) -> Callable[[Any, Any], None]:
    """Packed documents: causal within each of a drawn split of the T positions into blocks of two or more (a
    block-diagonal causal mask, as xformers' BlockDiagonalCausalMask materialised), ``value`` elsewhere; each
    matrix its own split."""
    def make(y: Any, gen: Any) -> None:
        import torch

        t = y.shape[-1]
        mats = y.numel() // (t * t)
        doc = torch.zeros(mats, t, dtype=torch.long)  # each position's document, per matrix
        for m in range(mats):
            start, k = 0, 0
            while start < t:
                n = int(torch.randint(2, max(3, t // 2 + 1), (), generator=gen))
                if t - (start + n) < 2:  # no document of one token
                    n = t - start
                doc[m, start:start + n] = k
                start, k = start + n, k + 1
        doc = doc.to(y.device)
        keep = (doc.unsqueeze(2) == doc.unsqueeze(1)) & (_offsets(t, y.device) >= 0)
        y.zero_().masked_fill_(~keep.reshape(y.shape), _fill(y, value))
    return make


def _alibi(y: Any, gen: Any) -> None:
    """An ALiBi bias (BLOOM, MPT): -slope_h * (i - j) on and below the diagonal, -inf above; the matrices in turn
    take the geometric slopes 2^(-8 h / H) of H = 8 heads."""
    above = _offsets(y.shape[-1], y.device) < 0
    for mat, bias in _alibi_bias(y):
        mat.copy_((bias + 0.0).masked_fill_(above, float("-inf")))


def _slopes(n: int) -> Any:
    """ALiBi's geometric slopes 2^(-8 h / H) of H = 8 heads, for ``n`` rows or matrices in turn (float64)."""
    import torch

    return 2.0 ** (-8.0 * (torch.arange(n, dtype=torch.float64) % 8 + 1) / 8)


def _alibi_bias(y: Any) -> Iterator[tuple[Any, Any]]:
    """(matrix, -slope_h * (i - j) for it) for each T x T matrix of the contiguous ``y``, the matrices in turn taking
    :func:`_slopes` (float64, on ``y``'s device; its diagonal -0.0)."""
    import torch

    t = y.shape[-1]
    mats = y.view(-1, t, t)
    d = _offsets(t, y.device).to(torch.float64)
    for mat, slope in zip(mats, _slopes(mats.shape[0]).tolist()):
        yield mat, -slope * d


def _alibi_rows(form: str) -> Callable[[Any, Any], None]:
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
        for mat, bias in _alibi_bias(y):
            mat.copy_(bias)
    return make


def _segments(y: Any, gen: Any) -> None:
    """0/1 rows 0...0 1...1 0...0: two segments, then padding (BERT's ``token_type_ids`` for a sentence pair)."""
    import torch

    rows = _rows(y)
    n, width = rows.shape
    a = torch.randint(1, width, (n, 1), generator=gen)  # the first segment, at least one token
    b = (a + 1 + (torch.rand(n, 1, generator=gen) * (width - a)).long()).clamp(max=width)  # the second's end
    j = torch.arange(width, device=rows.device).unsqueeze(0)
    a, b = a.to(rows.device), b.to(rows.device)
    rows.copy_((j >= a) & (j < b))


def _whole(value: float) -> Callable[[Any, Any], None]:
    def make(y: Any, gen: Any) -> None:
        y.fill_(value)
    return make


def torch_randint(high: int, shape: tuple, gen: Any, device: Any) -> Any:
    import torch

    return torch.randint(0, high, shape, generator=gen).to(device)


def _last(y: Any) -> bool:
    return y.dim() >= 2 and y.shape[-1] >= 2


def _square(y: Any) -> bool:
    return y.dim() >= 2 and y.shape[-1] == y.shape[-2] >= 2


#: (name, applies to the input, makes it in place from a generator)
STRUCTURES: tuple[tuple[str, Callable[[Any], bool], Callable[[Any, Any], None]], ...] = (
    ("one-hot along its last dimension", _last, _hot(-1)),
    ("one-hot along dim 1", lambda y: y.dim() >= 3 and y.shape[1] >= 2, _hot(1)),
    ("multi-hot rows (0 and 1)", _last, _hot("multi")),
    (f"smoothed one-hot rows (label smoothing {SMOOTHING:g})", _last, _smoothing(SMOOTHING)),
    (f"smoothed one-hot rows (label smoothing drawn in [{DRAWN_SMOOTHING[0]:g}, {DRAWN_SMOOTHING[1]:g}])", _last,
     _smoothing(None)),
    *((f"0/1 prefix rows (right padding){said}", _last, _prefix(None, kind)) for kind, (said, _) in PADDING.items()),
    ("0/1 suffix rows (left padding)", _last, _suffix()),
    ("0/1 suffix rows (left padding) with a row of one token", _last, _suffix("short")),
    ("0/1 prefix columns along dim 0 (time-major padding)", lambda y: y.dim() >= 2 and y.shape[0] >= 2, _time_major),
    *((f"additive padding rows (0, then {v if isinstance(v, str) else f'{v:g}'} on padding)", _last, _prefix(v))
      for v in ADDITIVE_MASKED),
    ("an additive causal mask (0 on and below the diagonal, -inf above)", _square, _triangle(float("-inf"))),
    ("an additive causal mask at finfo.min with left padding merged in", _square, _triangle("finfo.min", "left")),
    ("an additive causal mask at finfo.min with right padding merged in", _square, _triangle("finfo.min", "right")),
    ("an additive causal mask at finfo.min over more keys than queries (a KV cache: query i sees keys up to "
     "S - T + i)", lambda y: y.dim() >= 2 and y.shape[-1] > y.shape[-2] >= 2, _offset_causal("finfo.min")),
    ("zero rows at the end of each sequence along dim -2 (a right-padded (B, T, D) batch of embeddings)",
     lambda y: y.dim() >= 3 and y.shape[-2] >= 2, _zero_suffix_rows),
    ("a 0/1 lower-triangular mask", _square, _triangle(0.0)),
    ("a sliding-window causal mask at finfo.min (a drawn window)", lambda y: _square(y) and y.shape[-1] >= 3,
     _band("finfo.min")),
    ("a block-diagonal causal mask at -inf (packed documents)", lambda y: _square(y) and y.shape[-1] >= 4,
     _documents(float("-inf"))),
    ("an ALiBi bias with a causal -inf mask", _square, _alibi),
    ("arithmetic-progression rows (an ALiBi bias with no mask, slope_h * j)", _last, _alibi_rows("j")),
    ("an ALiBi bias with no mask (-slope_h * (i - j) everywhere)", _square, _alibi_rows("i-j")),
    ("all ones (a keep mask with no padding)", lambda y: y.numel() >= 2, _whole(1.0)),
    ("all zeros (an additive mask with no padding)", lambda y: y.numel() >= 2, _whole(0.0)),
)


#: (name, applies, makes it in place) for a mask that is not floating: a bool input, or an integer one whose drawn
#: values are all 0 or 1 (a tokenizer's int64 ``attention_mask``, SDPA's bool mask): only 0 and 1 are
#: written, values the input already holds, so no index the module takes from it leaves its range
MASK_STRUCTURES: tuple[tuple[str, Callable[[Any], bool], Callable[[Any, Any], None]], ...] = (
    *((f"0/1 prefix rows (right padding){said}", _last, _prefix(None, kind)) for kind, (said, _) in PADDING.items()),
    ("0/1 suffix rows (left padding)", _last, _suffix()),
    ("0/1 suffix rows (left padding) with a row of one token", _last, _suffix("short")),
    ("0/1 prefix columns along dim 0 (time-major padding)", lambda y: y.dim() >= 2 and y.shape[0] >= 2, _time_major),
    ("a lower-triangular (causal) mask", _square, _triangle(0.0)),
    ("all ones (no padding)", lambda y: y.numel() >= 2, _whole(1)),
    ("0...0 1...1 0...0 rows (a sentence pair, then padding: token type ids)", _last, _segments),
)


def _floating(inputs: tuple) -> list[int]:
    import torch

    return [i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel()]


def _zero_one(inputs: tuple) -> list[int]:
    """The bool inputs, and the integer ones that hold only 0 and 1 as drawn (masks): of 2 values or more."""
    import torch

    return [i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor) and not x.is_floating_point()
            and not x.is_complex() and x.numel() >= 2
            and (x.dtype == torch.bool or bool(((x == 0) | (x == 1)).all()))]


def _one_at_a_time(inputs: tuple, which: list[int], structures: Callable[[Any], Any], seed: int,
                   mix: tuple[int, int],
                   describe: Callable[[int, Any], str]) -> Iterator[tuple[str, tuple | None, str]]:
    """(label, inputs, "") for each input at the positions ``which`` and each structure ``(name, applies, make)`` of
    ``structures(input)`` that applies to it: a copy of that input made so from a generator of its own, the others
    the same objects, one at a time; (label, None, why) where a structure cannot be made (our failure, not the
    candidate's: said, not charged).  ``describe(k, x)`` names the k-th such input."""
    import torch

    for k, i in enumerate(which):
        x = inputs[i]
        for n, (name, applies, make) in enumerate(structures(x)):
            if not applies(x):
                continue
            gen = torch.Generator().manual_seed((seed * mix[0] + mix[1] * k + n) % (1 << 62))
            label = f"{PROBE}{describe(k, x)} {name}, the others as drawn"
            try:
                y = x.detach().clone(memory_format=torch.contiguous_format)
                with torch.no_grad():
                    make(y, gen)
            except Exception as e:  # noqa: BLE001 -- our probe's failure, not the candidate's
                yield label, None, f"could not be made ({type(e).__name__}: {str(e)[:200]})"
                continue
            if y.is_floating_point():
                y = y.requires_grad_(x.requires_grad)
            yield label, (*inputs[:i], y, *inputs[i + 1:]), ""
            del y


def mask_probes(inputs: tuple, seed: int) -> Iterator[tuple[str, tuple | None, str]]:
    """As :func:`probes`, for the bool and 0/1 integer inputs (:func:`_zero_one`) and :data:`MASK_STRUCTURES`."""
    import torch

    masks = _zero_one(inputs)
    yield from _one_at_a_time(
        inputs, masks, lambda x: MASK_STRUCTURES, seed, (4001, 37),
        lambda k, x: f"{'bool' if x.dtype == torch.bool else '0/1 integer'} mask input {k + 1} of {len(masks)}")


#: an integer constant of the module's own kernels (``tmp13 = tl.full([1, 1], -100, tl.int64)``), and a comparison
_INT_CONSTANT = r"(tmp[0-9]+) = tl\.full\(\[[0-9, ]*\], (-?[0-9]+), tl\.u?int(?:8|16|32|64)\)"
_COMPARISON = r"(tmp[0-9]+) (?:!=|==) (tmp[0-9]+|-?[0-9]+)\b"
#: at most this many compared values probed
COMPARED_VALUES = 3


def compared_values(sources: Iterator[str]) -> list[int]:
    """The integer constants the baseline's kernels (Inductor's own sources, not a proposer's) compare loaded values
    with, ``!=`` or ``==``: an ignore index (``F.cross_entropy``'s -100, a segmentation's void 255) or a pad id
    (``input_ids != 0``), values the module's integer inputs may hold that it treats apart."""
    found: list[int] = []
    for src in sources:
        consts = dict(re.findall(_INT_CONSTANT, src))
        for a, b in re.findall(_COMPARISON, src):
            for side in (a, b):
                v = consts.get(side, side if re.fullmatch(r"-?[0-9]+", side) else None)
                if v is not None and int(v) not in found:
                    found.append(int(v))
    return found[:COMPARED_VALUES]


def _with_value(value: int, where: str) -> Callable[[Any, Any], None]:
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
            rows.masked_fill_(~_kept(rows, gen), value)
    return make


def _arange_fits(y: Any) -> bool:
    """Rows of ``y``'s width of consecutive values fit the range its drawn values span (no value leaves it); a 1-D
    input is one row."""
    return y.dim() >= 1 and y.shape[-1] >= 2 and _arange_start(y) + y.shape[-1] - 1 <= int(y.max())


def _arange_start(y: Any) -> int:
    """Where position-id rows start: at 0 where every drawn value is non-negative (0 indexes whatever they index;
    a kernel can key on rows that are exactly 0..T-1), else at the least drawn value."""
    lo = int(y.min())
    return 0 if lo >= 0 else lo


def _arange_rows(y: Any, gen: Any) -> None:
    """Each row 0, 1, ..., width - 1, from :func:`_arange_start` (position ids)."""
    import torch

    rows = _rows(y)
    lo = _arange_start(rows)
    rows.copy_((torch.arange(rows.shape[1]) + lo).to(rows.device, rows.dtype).expand_as(rows))


def _permuted_rows(y: Any, gen: Any) -> None:
    """Each row a random permutation of its least drawn value .. that plus width - 1 (a shuffle's indices,
    ``PackedSequence.unsorted_indices``, a mixture of experts' un-permute)."""
    rows = _rows(y)
    _permute_rows_(rows, gen, int(rows.min()))


def _permutations_from_zero(y: Any, gen: Any) -> None:
    """Each row a random permutation of 0 .. width - 1 (indices into another input's dim of that size)."""
    _permute_rows_(_rows(y), gen, 0)


def _permute_rows_(rows: Any, gen: Any, lo: int) -> None:
    """Each row a random permutation of ``lo`` .. ``lo`` + width - 1, drawn where the rows are."""
    import torch

    dgen = device_generator(gen, rows.device)
    for block in _row_blocks(rows):
        block.copy_(torch.rand(block.shape, generator=dgen, device=rows.device).argsort(dim=-1) + lo)


def _offset_positions(hi: int) -> Callable[[Any, Any], None]:
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


def _lengths_of(width: int, descending: bool) -> Callable[[Any, Any], None]:
    """Each entry a length of a row of ``width`` (:func:`_lengths`: one whole, one padded), sorted descending or
    in drawn order: the ``lengths`` a padded batch of another input's rows carries."""
    def make(y: Any, gen: Any) -> None:
        flat = y.view(-1)
        lengths = _lengths(flat.numel(), width, gen, flat.device).view(-1)
        if descending:
            lengths = lengths.sort(descending=True).values
        flat.copy_(lengths.to(flat.device, flat.dtype))
    return make


#: the vendor calls that take no integer input (matrix products, convolutions): beside them an integer input is
#: indexed, if at all, only by Inductor's own Triton kernels, whose bounds :func:`index_bound` reads
FLOAT_ONLY_EXTERNS = re.compile(r"extern_kernels\.(mm|bmm|addmm|baddbmm|convolution|addmv|mv)$")
_INDEX_ASSERT = re.compile(r"index out of bounds: 0 <= \w+ < ([^\"')]+)")


def index_bound(graphs: Any) -> float:
    """How large a value an integer input may be given past what it was drawn with, as far as the baseline can
    tell: the least bound of its Triton kernels' indirect-indexing asserts (``index out of bounds: 0 <= tmp4 <
    16``), infinite where nothing indexes, and 0 (nothing past the drawn values) where a bound is not a number or
    a call other than :data:`FLOAT_ONLY_EXTERNS` runs (an ATen fallback may index with it unseen).  A value past
    an index's bound makes the baseline raise: on the CPU a probe that could not run, on a GPU a device-side
    assert that ends the worker."""
    bound = math.inf
    for g in graphs:
        if g.other_kernels or any(not FLOAT_ONLY_EXTERNS.match(c.target) for c in g.extern_calls):
            return 0
        for k in g.kernels.values():
            for b in _INDEX_ASSERT.findall(k.source):
                if not b.strip().isdigit():
                    return 0
                bound = min(bound, int(b))
    return bound


def _tied_to_shapes(inputs: tuple, x: Any,
                    bound: float = math.inf) -> list[tuple[str, Callable[[Any], bool], Callable[[Any, Any], None]]]:
    """Integer structures whose values another input's shape gives (tests/test_structured_seeds.py::
    test_integer_inputs_get_values_tied_to_another_inputs_shape_within_the_baselines_index_bounds): where ``x``'s
    width T is a dim of another input and every drawn value is below T, rows each a permutation of 0 .. T-1 (an
    index into that dim: a shuffle, ``unsorted_indices``); where ``x`` holds one value per batch item (``(B,)`` or
    ``(B, 1)``) of another input of two or more dims, the lengths of that input's rows (of its dim 1; up to two
    such widths), sorted descending from a whole row (``pack_padded_sequence``) and in drawn order.  A value past
    ``x``'s drawn maximum is written only below ``bound`` (:func:`index_bound`).  Rows of two or more get positions
    each from its own start (:func:`_offset_positions`), up to the drawn maximum or the bound."""
    import torch

    others = [o for o in inputs if isinstance(o, torch.Tensor) and o is not x and o.dim() >= 1]
    made: list[tuple[str, Callable[[Any], bool], Callable[[Any, Any], None]]] = []
    top = int(x.max())

    def fits(v: int) -> bool:
        return v <= top or v < bound

    if x.dim() >= 1 and x.shape[-1] >= 2 and any(x.shape[-1] in o.shape for o in others) \
            and top < x.shape[-1] and fits(x.shape[-1] - 1):
        made.append((f"rows each a permutation of 0..{x.shape[-1] - 1} (indices into another input's dim of "
                     f"{x.shape[-1]})", lambda y: True, _permutations_from_zero))
    hi = top if bound == math.inf else max(top, int(bound) - 1)  # the largest value that may be written
    if x.dim() >= 2 and x.shape[-1] >= 2 and hi - x.shape[-1] + 1 >= 2:
        made.append((f"rows of consecutive values each from its own start in 1..{hi - x.shape[-1] + 1} (positions "
                     "of a left-padded batch with a cache)", lambda y: True, _offset_positions(hi)))
    if x.dim() == 1 or (x.dim() == 2 and x.shape[-1] == 1):
        widths = sorted({int(o.shape[1]) for o in others if o.dim() >= 2 and o.shape[0] == x.shape[0]
                         and o.shape[1] >= 2 and fits(int(o.shape[1]))})[:2]
        for t in widths:
            made += [(f"lengths of another input's rows of {t}, sorted descending from {t} (pack_padded_sequence)",
                      lambda y: True, _lengths_of(t, True)),
                     (f"lengths of another input's rows of {t}, one whole, in drawn order", lambda y: True,
                      _lengths_of(t, False))]
    return made


def _sorted_desc(y: Any, gen: Any) -> None:
    """The drawn values sorted descending along the last dimension (lengths in ``pack_padded_sequence``'s order)."""
    rows = _rows(y)
    rows.copy_(rows.sort(dim=-1, descending=True).values)


#: structures for integer inputs that are not 0/1 masks and hold no negative value as drawn (ids, labels,
#: positions, lengths), written with the input's own drawn values only: position ids and sorted lengths
INTEGER_STRUCTURES: tuple[tuple[str, Callable[[Any], bool], Callable[[Any, Any], None]], ...] = (
    ("rows 0, 1, ..., T-1, from 0 where the values are non-negative (position ids)", _arange_fits, _arange_rows),
    ("rows each a permutation of T values from its least (a shuffle's indices)", _arange_fits, _permuted_rows),
    ("sorted descending along its last dimension (lengths, sorted)", lambda y: y.shape[-1] >= 2 if y.dim() else False,
     _sorted_desc),
)


def integer_probes(inputs: tuple, seed: int, values: list[int],
                   bound: float = math.inf) -> Iterator[tuple[str, tuple | None, str]]:
    """As :func:`probes`, for the integer inputs that hold no negative value as drawn and are not 0/1 masks
    (labels, ids, positions, lengths): each of :data:`INTEGER_STRUCTURES`, those tied to another input's shape
    (:func:`_tied_to_shapes`: indices into its dim, lengths of its rows), and each value the module's own kernels
    compare with (:func:`compared_values`) on right padding, at each row's first position and at a drawn half of
    the positions (Hugging Face's -100 labels, a void 255, a pad id).  A compared value the
    module also indexes with unguarded makes the baseline raise there (a probe that could not run; on a GPU a
    device-side assert, which ends the worker)."""
    import torch

    masks = set(_zero_one(inputs))
    ints = [i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor) and not x.is_floating_point()
            and not x.is_complex() and x.dtype != torch.bool and x.numel() >= 2 and i not in masks
            and bool((x >= 0).all())]
    made = list(INTEGER_STRUCTURES)
    for v in values:
        made += [(f"rows right-padded with {v} (a value the module's kernels compare with)", _last,
                  _with_value(v, "suffix")),
                 (f"{v} at each row's first position (a value the module's kernels compare with)", _last,
                  _with_value(v, "first")),
                 (f"{v} at a drawn half of its positions (a value the module's kernels compare with)",
                  lambda y: y.numel() >= 2, _with_value(v, "scattered"))]
    yield from _one_at_a_time(inputs, ints, lambda x: made + _tied_to_shapes(inputs, x, bound), seed, (6007, 41),
                              lambda k, x: f"integer input {k + 1} of {len(ints)}")


def probes(inputs: tuple, seed: int) -> Iterator[tuple[str, tuple | None, str]]:
    """(label, inputs, "") for each floating input of ``inputs`` and each structure that applies to it: a copy of
    that input made so, the others the same objects; one at a time (each copy is dropped before the next is made).
    A structure that cannot be made in that input: (label, None, why)."""
    floating = _floating(inputs)
    yield from _one_at_a_time(inputs, floating, lambda x: STRUCTURES, seed, (1009, 31),
                              lambda k, x: f"floating input {k + 1} of {len(floating)}")


#: (name, makes it in place) for the labels of a joint probe: one input's rows labels, another a padding mask over
#: those rows (token classification on a padded batch, right or left padding)
JOINT_LABELS: tuple[tuple[str, Callable[[Any, Any], None]], ...] = (
    ("one-hot rows", _hot(-1)),
    (f"smoothed one-hot rows (label smoothing {SMOOTHING:g})", _smoothing(SMOOTHING)),
)
#: (name, makes it in place) for the padding mask of a joint probe (in the mask's own dtype)
JOINT_PADDING: tuple[tuple[str, Callable[[Any, Any], None]], ...] = (
    ("0/1 prefix rows (right padding)", _prefix(None)),
    ("0/1 suffix rows (left padding)", _suffix()),
)
#: (name, makes it in place) for the square mask of a two-mask joint probe, by its kind ("float", or "mask": bool or
#: 0/1 integer), beside a key-padding mask (``nn.MultiheadAttention``'s attn_mask and key_padding_mask)
JOINT_SQUARE: dict[str, tuple[tuple[str, Callable[[Any, Any], None]], ...]] = {
    "float": (("an additive causal mask (-inf above the diagonal)", _triangle(float("-inf"))),
              ("an additive causal mask at finfo.min", _triangle("finfo.min")),
              ("a sliding-window causal mask at finfo.min", _band("finfo.min")),
              ("an ALiBi bias with a causal -inf mask", _alibi),
              ("an ALiBi bias with no mask", _alibi_rows("i-j"))),
    "mask": (("a lower-triangular (causal) mask", _triangle(0.0)),),
}
#: (name, makes it in place) for the key-padding mask beside it, by its kind
JOINT_KEYS: dict[str, tuple[tuple[str, Callable[[Any, Any], None]], ...]] = {
    "float": (("0/1 prefix rows (right padding)", _prefix(None)),
              ("additive padding rows at finfo.min", _prefix("finfo.min")),
              ("additive padding rows at -inf", _prefix(float("-inf")))),
    "mask": (("0/1 prefix rows (right padding)", _prefix(None)),),
}


def _masks_rows(x: Any, m: Any) -> bool:
    """``m`` holds one value per row of ``x`` (its last dimension the labels): a padding mask over ``x``'s rows."""
    return _last(x) and m.numel() >= 2 and m.numel() * x.shape[-1] == x.numel()


def _pads_keys(x: Any, m: Any) -> bool:
    """``x`` a square mask over T x T (3 or more keys) and ``m`` rows of T that are not square (a key-padding mask
    beside it: ``(B, T)``, ``(B, 1, 1, T)``)."""
    return (_square(x) and x.shape[-1] >= 3 and m.dim() >= 1 and m.shape[-1] == x.shape[-1] and m.numel() >= 2
            and (m.dim() == 1 or m.shape[-2] != m.shape[-1]))


def _joint(inputs: tuple, seed: int, i: int, j: int, a: str, b: str, first: tuple, second: tuple,
           n: int) -> tuple[str, tuple | None, str]:
    """One joint probe: input ``i`` made as ``first`` (name, make), input ``j`` as ``second``, the others as
    drawn; ``a`` and ``b`` name the two inputs."""
    return _joint_many(inputs, seed, [(i, a, first), (j, b, second)], n)


def _joint_many(inputs: tuple, seed: int, parts: list[tuple[int, str, tuple]],
                n: int) -> tuple[str, tuple | None, str]:
    """One joint probe over several inputs: each ``(index, its name, (structure name, make))`` of ``parts`` made
    so, the others as drawn."""
    import torch

    label = PROBE + " and ".join(f"{a} {what[0]}" for _, a, what in parts) + ", the others as drawn"
    mix = 97 * parts[0][0] + 13 * parts[1][0] + sum(7 * i for i, _, _ in parts[2:])
    gen = torch.Generator().manual_seed((seed * 2003 + mix + n) % (1 << 62))
    made = list(inputs)
    try:
        for i, _, (_, make) in parts:
            x = inputs[i].detach().clone(memory_format=torch.contiguous_format)
            with torch.no_grad():
                make(x, gen)
            made[i] = x.requires_grad_(inputs[i].requires_grad) if x.is_floating_point() else x
    except Exception as e:  # noqa: BLE001 -- ours, as in probes()
        return label, None, f"could not be made ({type(e).__name__}: {str(e)[:200]})"
    return label, tuple(made), ""


#: the two square masks of an attention module that keeps them apart (BLOOM, MPT: an ALiBi bias (H, T, T) and a
#: causal mask (T, T)), for :func:`joint_probes`' three-mask form beside a key-padding mask
JOINT_APART: tuple[tuple[str, Callable[[Any, Any], None]], ...] = (
    ("an ALiBi bias with no mask", _alibi_rows("i-j")),
    ("an additive causal mask (-inf above the diagonal)", _triangle(float("-inf"))),
)


def joint_probes(inputs: tuple, seed: int) -> Iterator[tuple[str, tuple | None, str]]:
    """Structure on two or three inputs at once, as :func:`probes` yields, the others as drawn: (1) for each
    floating input and each mask input (floating, bool or 0/1 integer) that holds one value per row of it
    (:func:`_masks_rows`), label rows (:data:`JOINT_LABELS`) in the first and a padding mask over those rows
    (:data:`JOINT_PADDING`) in the second; (2) for each square mask (floating, bool or 0/1 integer) and each other
    mask input of rows of its width that is not square (:func:`_pads_keys`), each of :data:`JOINT_SQUARE` in the
    first with each of :data:`JOINT_KEYS` in the second, by their kinds; (3) for two floating square masks besides
    the largest square input (the scores) and a key-padding mask of rows of their width, :data:`JOINT_APART` in the
    two (each way round) and right padding in the third; (4) for each floating input holding one value per row of
    another (:func:`_thresholds_rows`), that value the k-th largest of its row (:func:`_top_k`)."""
    floating, masks = _floating(inputs), _zero_one(inputs)
    kind = {**{i: "float" for i in floating}, **{i: "mask" for i in masks}}
    name = {i: f"input {i + 1}" for i in range(len(inputs))}
    n = 0
    for i in floating:
        for j in (*floating, *masks):
            if i != j and _masks_rows(inputs[i], inputs[j]):
                shape = inputs[i].shape[:-1]
                for lab in JOINT_LABELS:
                    for pad_name, pad in JOINT_PADDING:
                        n += 1
                        yield _joint(inputs, seed, i, j, name[i], f"{name[j]} (over its rows)", lab,
                                     (pad_name, lambda m, g, pad=pad, shape=shape: pad(m.view(shape), g)), n)
    for i in kind:
        for j in kind:
            if i != j and _pads_keys(inputs[i], inputs[j]):
                for square in JOINT_SQUARE[kind[i]]:
                    for keys in JOINT_KEYS[kind[j]]:
                        n += 1
                        yield _joint(inputs, seed, i, j, name[i], f"{name[j]} (key padding)", square, keys, n)
    # (3) the masks kept apart: two floating square masks other than the largest square input (the scores), one an
    # ALiBi bias and the other a causal mask, each way round, beside each key-padding mask of rows of their width
    squares = sorted((i for i in floating if _square(inputs[i]) and inputs[i].shape[-1] >= 3),
                     key=lambda i: -inputs[i].numel())
    for i, i2 in itertools.permutations(squares[1:], 2):
        for j in kind:
            if j not in (i, i2) and _pads_keys(inputs[i], inputs[j]) and _pads_keys(inputs[i2], inputs[j]):
                n += 1  # right padding: the first of the key-padding structures
                yield _joint_many(inputs, seed, [(i, name[i], JOINT_APART[0]), (i2, name[i2], JOINT_APART[1]),
                                                 (j, f"{name[j]} (key padding)", JOINT_KEYS[kind[j]][0])], n)
    for i in floating:
        for j in floating:
            if i != j and _thresholds_rows(inputs[i], inputs[j]):
                for top in (True, False):  # the threshold the row's largest value, and one with a larger beside it
                    n += 1
                    yield _top_k(inputs, seed, i, j, name[i], name[j], n, top)


def _thresholds_rows(x: Any, t: Any) -> bool:
    """``t`` holds one value per row of ``x``, kept as a column (``x.shape[:-1] + (1,)``, rows of 2 or more, as
    ``topk(...).values[..., -1:]`` gives it): a threshold for each row."""
    return _last(x) and tuple(t.shape) == tuple(x.shape[:-1]) + (1,)


def _top_k(inputs: tuple, seed: int, i: int, j: int, a: str, b: str, n: int,
           top: bool) -> tuple[str, tuple | None, str]:
    """Input ``j`` made the k-th largest value of each row of input ``i`` as drawn (a top-k filter's threshold, HF's
    ``TopKLogitsWarper``: the threshold equals one element of its row): ``top``, k = 1 (the row's largest value,
    greedy decoding), else k drawn in 2..width (a larger value beside the threshold)."""
    import torch

    label = (f"{PROBE}{b} the k-th largest value of each row of {a} (a top-k threshold, "
             + ("k = 1" if top else "k drawn in 2..width") + "), the others as drawn")
    gen = torch.Generator().manual_seed((seed * 2003 + 97 * i + 13 * j + n) % (1 << 62))
    try:
        x, t = inputs[i].detach(), inputs[j]
        k = 1 if top else int(torch.randint(2, x.shape[-1] + 1, (), generator=gen))
        kth = x.topk(k, dim=-1).values[..., -1:].to(t.dtype)
        made = list(inputs)
        made[j] = kth.reshape(t.shape).contiguous().requires_grad_(t.requires_grad)
    except Exception as e:  # noqa: BLE001 -- ours, as in probes()
        return label, None, f"could not be made ({type(e).__name__}: {str(e)[:200]})"
    return label, tuple(made), ""


def probe_calls(session: GateSession, swap: Any, fn: Any, seed: int, rec: Any) -> None:
    """Each probe of the plain seed's inputs (:func:`probes`): the candidate's call and the baseline's from the
    state as found, appended to ``rec.carried``.  A probe the module itself cannot run (the baseline raises on it,
    whatever the candidate did) or that cannot be made is not judged, and ``rec.carried_note`` says which: the
    candidate is charged only with its own errors."""
    if not ENABLED:
        return
    plan = session.plan
    plain = next((sd for sd in plan.seeds if plan.plain(sd)), seed)
    not_run: list[str] = []
    drawn = session.inputs(plain)
    compared = compared_values(k.source for g in session.captured.graphs for k in g.kernels.values())
    bound = index_bound(session.captured.graphs)
    for label, inputs, why in itertools.chain(probes(drawn, plain), mask_probes(drawn, plain),
                                              integer_probes(drawn, plain, compared, bound),
                                              joint_probes(drawn, plain)):
        short = label[len(PROBE):].replace(", the others as drawn", "")
        if inputs is None:
            not_run.append(f"{short} {why}")
            continue
        session.state.start(target_for(session, plain))
        before = copies(session.state.items)
        sample = calls.pair_sample(rec)
        try:
            cand = calls.run_call(session, fn, plain, carry=True, inputs=inputs, sample=sample)
        except Exception as e:
            if calls.device_fault(e):
                raise
            failed = calls.baseline_raises(session, swap, fn, plain, inputs, before)
            if failed:  # the module cannot run this probe: not the candidate's doing
                not_run.append(f"{short}: the baseline raised {failed} too")
                continue
            raise
        try:
            calls.beside_baseline(session, swap, fn, plain, inputs, before, cand, rec,
                                  label + " against the baseline's call on the same inputs", sample)
        except Exception as e:
            if calls.device_fault(e):
                raise
            not_run.append(f"{short}: the baseline raised {type(e).__name__}")
        del before, cand
    if not_run:
        rec.carried_note = "; ".join(filter(None, [
            rec.carried_note, f"{len(not_run)} structure probe(s) could not run, so were not judged: "
            + "; ".join(not_run[:6]) + (f"; and {len(not_run) - 6} more" if len(not_run) > 6 else "")]))
