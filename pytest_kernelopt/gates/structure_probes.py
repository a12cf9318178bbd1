"""Structure probes: each label and mask structure real inputs carry, given to each floating input in turn.

The correctness seeds give some inputs whole-tensor structures (one-hot targets after the first input on the
integer seed, multi-hot rows on the ReLU seed, a one-hot first input on the float16 seed), tied to an argument's
position and rank.  A kernel that reads a whole input to test it for a structure is wrong only there, so the
probes give each structure to every input it fits, whatever its position:

* floating inputs (:data:`STRUCTURES`): one-hot rows along the last dimension and along dim 1, multi-hot rows,
  smoothed one-hot rows (0.1 and a factor drawn from :data:`.structure_values.DRAWN_SMOOTHING`), 0/1 prefix and
  suffix rows (right and left padding), padding along dim 0 (time-major masks), additive padding at -inf,
  finfo.min, -1e9 and -10000, all ones and all zeros (an unpadded batch), arithmetic-progression rows, and on
  square last dimensions causal masks (0/-inf, 0/finfo.min with padding merged in, 0/1 lower-triangular, over more
  keys than queries), a sliding-window band, packed documents' block-diagonal mask and ALiBi biases; and on inputs
  of three dims or more, zero rows at the end of each sequence (right-padded embeddings);
* bool and 0/1 integer masks (:func:`mask_probes`: a tokenizer's int64 ``attention_mask``, a bool key mask,
  ``token_type_ids``);
* other integer inputs (:func:`integer_probes`): positions, permutations, sorted lengths, the constants the
  module's own kernels compare with (ignore indices, pad ids) on padding or scattered, values tied to another
  input's shape, consecutive values each from its own start;
* structure on two or three inputs at once (:func:`joint_probes`): label rows in one input and a padding mask
  over its rows in another; a causal, sliding-window or ALiBi square mask beside a key-padding mask; an ALiBi
  bias and a causal mask kept apart beside key padding.

How each structure is written into an input is :mod:`.structure_values`; this module says which structures apply to
which inputs, and runs them.  Other conjunctions of structures are not probed.  Guarded by
tests/test_structured_seeds.py (each probe family, and the repros in benchmarks/redteam/ that a probe refuses).

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
import time
from typing import Any, Callable, Iterator

from . import calls
from . import structure_values as sv
from .gate_session import GateSession, target_for
from .module_state import copies
from .trial_records import PROBE

#: every probe on (single, mask, ignore-index and joint); a test of another gate turns them off
ENABLED = True
#: the slowest probes a candidate's record names with their seconds (:attr:`.trial_records.CandidateRecord.
#: probe_seconds`, the correctness gate's ``structure_probe_seconds``)
PROBES_SHOWN = 5
def _last(y: Any) -> bool:
    return y.dim() >= 2 and y.shape[-1] >= 2


def _square(y: Any) -> bool:
    return y.dim() >= 2 and y.shape[-1] == y.shape[-2] >= 2


#: (name, applies to the input, makes it in place from a generator)
STRUCTURES: tuple[tuple[str, Callable[[Any], bool], Callable[[Any, Any], None]], ...] = (
    ("one-hot along its last dimension", _last, sv.hot(-1)),
    ("one-hot along dim 1", lambda y: y.dim() >= 3 and y.shape[1] >= 2, sv.hot(1)),
    ("multi-hot rows (0 and 1)", _last, sv.hot("multi")),
    (f"smoothed one-hot rows (label smoothing {sv.SMOOTHING:g})", _last, sv.smoothed(sv.SMOOTHING)),
    (f"smoothed one-hot rows (label smoothing drawn in [{sv.DRAWN_SMOOTHING[0]:g}, {sv.DRAWN_SMOOTHING[1]:g}])", _last,
     sv.smoothed(None)),
    *((f"0/1 prefix rows (right padding){said}", _last, sv.prefix(None, kind))
      for kind, (said, _) in sv.PADDING.items()),
    ("0/1 suffix rows (left padding)", _last, sv.suffix()),
    ("0/1 suffix rows (left padding) with a row of one token", _last, sv.suffix("short")),
    ("0/1 prefix columns along dim 0 (time-major padding)", lambda y: y.dim() >= 2 and y.shape[0] >= 2, sv.time_major),
    *((f"additive padding rows (0, then {v if isinstance(v, str) else f'{v:g}'} on padding)", _last, sv.prefix(v))
      for v in sv.ADDITIVE_MASKED),
    ("an additive causal mask (0 on and below the diagonal, -inf above)", _square, sv.triangle(float("-inf"))),
    ("an additive causal mask at finfo.min with left padding merged in", _square, sv.triangle("finfo.min", "left")),
    ("an additive causal mask at finfo.min with right padding merged in", _square, sv.triangle("finfo.min", "right")),
    ("an additive causal mask at finfo.min over more keys than queries (a KV cache: query i sees keys up to "
     "S - T + i)", lambda y: y.dim() >= 2 and y.shape[-1] > y.shape[-2] >= 2, sv.offset_causal("finfo.min")),
    ("zero rows at the end of each sequence along dim -2 (a right-padded (B, T, D) batch of embeddings)",
     lambda y: y.dim() >= 3 and y.shape[-2] >= 2, sv.zero_suffix_rows),
    ("a 0/1 lower-triangular mask", _square, sv.triangle(0.0)),
    ("a sliding-window causal mask at finfo.min (a drawn window)", lambda y: _square(y) and y.shape[-1] >= 3,
     sv.band("finfo.min")),
    ("a block-diagonal causal mask at -inf (packed documents)", lambda y: _square(y) and y.shape[-1] >= 4,
     sv.documents(float("-inf"))),
    ("an ALiBi bias with a causal -inf mask", _square, sv.alibi),
    ("arithmetic-progression rows (an ALiBi bias with no mask, slope_h * j)", _last, sv.alibi_rows("j")),
    ("an ALiBi bias with no mask (-slope_h * (i - j) everywhere)", _square, sv.alibi_rows("i-j")),
    ("all ones (a keep mask with no padding)", lambda y: y.numel() >= 2, sv.constant(1.0)),
    ("all zeros (an additive mask with no padding)", lambda y: y.numel() >= 2, sv.constant(0.0)),
)


#: (name, applies, makes it in place) for a mask that is not floating: a bool input, or an integer one whose drawn
#: values are all 0 or 1 (a tokenizer's int64 ``attention_mask``, SDPA's bool mask): only 0 and 1 are
#: written, values the input already holds, so no index the module takes from it leaves its range
MASK_STRUCTURES: tuple[tuple[str, Callable[[Any], bool], Callable[[Any, Any], None]], ...] = (
    *((f"0/1 prefix rows (right padding){said}", _last, sv.prefix(None, kind))
      for kind, (said, _) in sv.PADDING.items()),
    ("0/1 suffix rows (left padding)", _last, sv.suffix()),
    ("0/1 suffix rows (left padding) with a row of one token", _last, sv.suffix("short")),
    ("0/1 prefix columns along dim 0 (time-major padding)", lambda y: y.dim() >= 2 and y.shape[0] >= 2, sv.time_major),
    ("a lower-triangular (causal) mask", _square, sv.triangle(0.0)),
    ("all ones (no padding)", lambda y: y.numel() >= 2, sv.constant(1)),
    ("0...0 1...1 0...0 rows (a sentence pair, then padding: token type ids)", _last, sv.segments),
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
                y = None  # (let go before the next probe makes its copy)
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
    each from its own start (:func:`.structure_values.offset_positions`), up to the drawn maximum or the bound."""
    import torch

    others = [o for o in inputs if isinstance(o, torch.Tensor) and o is not x and o.dim() >= 1]
    made: list[tuple[str, Callable[[Any], bool], Callable[[Any, Any], None]]] = []
    top = int(x.max())

    def fits(v: int) -> bool:
        return v <= top or v < bound

    if x.dim() >= 1 and x.shape[-1] >= 2 and any(x.shape[-1] in o.shape for o in others) \
            and top < x.shape[-1] and fits(x.shape[-1] - 1):
        made.append((f"rows each a permutation of 0..{x.shape[-1] - 1} (indices into another input's dim of "
                     f"{x.shape[-1]})", lambda y: True, sv.permutations_from_zero))
    hi = top if bound == math.inf else max(top, int(bound) - 1)  # the largest value that may be written
    if x.dim() >= 2 and x.shape[-1] >= 2 and hi - x.shape[-1] + 1 >= 2:
        made.append((f"rows of consecutive values each from its own start in 1..{hi - x.shape[-1] + 1} (positions "
                     "of a left-padded batch with a cache)", lambda y: True, sv.offset_positions(hi)))
    if x.dim() == 1 or (x.dim() == 2 and x.shape[-1] == 1):
        widths = sorted({int(o.shape[1]) for o in others if o.dim() >= 2 and o.shape[0] == x.shape[0]
                         and o.shape[1] >= 2 and fits(int(o.shape[1]))})[:2]
        for t in widths:
            made += [(f"lengths of another input's rows of {t}, sorted descending from {t} (pack_padded_sequence)",
                      lambda y: True, sv.lengths_of(t, True)),
                     (f"lengths of another input's rows of {t}, one whole, in drawn order", lambda y: True,
                      sv.lengths_of(t, False))]
    return made


#: structures for integer inputs that are not 0/1 masks and hold no negative value as drawn (ids, labels,
#: positions, lengths), written with the input's own drawn values only: position ids and sorted lengths
INTEGER_STRUCTURES: tuple[tuple[str, Callable[[Any], bool], Callable[[Any, Any], None]], ...] = (
    ("rows 0, 1, ..., T-1, from 0 where the values are non-negative (position ids)", sv.arange_fits, sv.arange_rows),
    ("rows each a permutation of T values from its least (a shuffle's indices)", sv.arange_fits, sv.permuted_rows),
    ("sorted descending along its last dimension (lengths, sorted)", lambda y: y.shape[-1] >= 2 if y.dim() else False,
     sv.sorted_desc),
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
                  sv.with_value(v, "suffix")),
                 (f"{v} at each row's first position (a value the module's kernels compare with)", _last,
                  sv.with_value(v, "first")),
                 (f"{v} at a drawn half of its positions (a value the module's kernels compare with)",
                  lambda y: y.numel() >= 2, sv.with_value(v, "scattered"))]
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
    ("one-hot rows", sv.hot(-1)),
    (f"smoothed one-hot rows (label smoothing {sv.SMOOTHING:g})", sv.smoothed(sv.SMOOTHING)),
)
#: (name, makes it in place) for the padding mask of a joint probe (in the mask's own dtype)
JOINT_PADDING: tuple[tuple[str, Callable[[Any, Any], None]], ...] = (
    ("0/1 prefix rows (right padding)", sv.prefix(None)),
    ("0/1 suffix rows (left padding)", sv.suffix()),
)
#: (name, makes it in place) for the square mask of a two-mask joint probe, by its kind ("float", or "mask": bool or
#: 0/1 integer), beside a key-padding mask (``nn.MultiheadAttention``'s attn_mask and key_padding_mask)
JOINT_SQUARE: dict[str, tuple[tuple[str, Callable[[Any, Any], None]], ...]] = {
    "float": (("an additive causal mask (-inf above the diagonal)", sv.triangle(float("-inf"))),
              ("an additive causal mask at finfo.min", sv.triangle("finfo.min")),
              ("a sliding-window causal mask at finfo.min", sv.band("finfo.min")),
              ("an ALiBi bias with a causal -inf mask", sv.alibi),
              ("an ALiBi bias with no mask", sv.alibi_rows("i-j"))),
    "mask": (("a lower-triangular (causal) mask", sv.triangle(0.0)),),
}
#: (name, makes it in place) for the key-padding mask beside it, by its kind
JOINT_KEYS: dict[str, tuple[tuple[str, Callable[[Any, Any], None]], ...]] = {
    "float": (("0/1 prefix rows (right padding)", sv.prefix(None)),
              ("additive padding rows at finfo.min", sv.prefix("finfo.min")),
              ("additive padding rows at -inf", sv.prefix(float("-inf")))),
    "mask": (("0/1 prefix rows (right padding)", sv.prefix(None)),),
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
    ("an ALiBi bias with no mask", sv.alibi_rows("i-j")),
    ("an additive causal mask (-inf above the diagonal)", sv.triangle(float("-inf"))),
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
        # (k = 1: the row's largest value without top-k's k values and indices a row)
        kth = (x.amax(-1, keepdim=True) if k == 1 else x.topk(k, dim=-1).values[..., -1:]).to(t.dtype)
        made = list(inputs)
        made[j] = kth.reshape(t.shape).contiguous().requires_grad_(t.requires_grad)
    except Exception as e:  # noqa: BLE001 -- ours, as in probes()
        return label, None, f"could not be made ({type(e).__name__}: {str(e)[:200]})"
    return label, tuple(made), ""


def _device_clock(inputs: tuple) -> Callable[[], float]:
    """A clock for the probes' parts: where an input is on a GPU, it waits for the work queued there first (two
    waits a probe), so a maker's kernels are not counted as the candidate's call."""
    import torch

    if not any(isinstance(x, torch.Tensor) and x.is_cuda for x in inputs):
        return time.perf_counter

    def clock() -> float:
        torch.cuda.synchronize()
        return time.perf_counter()
    return clock


def _judge_probe(session: GateSession, swap: Any, fn: Any, plain: int, rec: Any, label: str, inputs: tuple,
                 clock: Callable[[], float]) -> tuple[str, float | None]:
    """One probe: the candidate's call, then the baseline's beside it, appended to ``rec.carried``.  (Why it was
    not judged, or "": the baseline raised too; when the candidate's call returned, or None where it raised.)"""
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
            return f"the baseline raised {failed} too", None
        raise
    called = clock()
    try:
        calls.beside_baseline(session, swap, fn, plain, inputs, before, cand, rec,
                              label + " against the baseline's call on the same inputs", sample)
    except Exception as e:
        if calls.device_fault(e):
            raise
        return f"the baseline raised {type(e).__name__}", called
    return "", called


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
    clock = _device_clock(drawn)
    spent = {"making": 0.0, "candidate_calls": 0.0, "baseline_calls_and_comparisons": 0.0}
    each: dict[str, float] = {}
    made_from = clock()
    for label, inputs, why in itertools.chain(probes(drawn, plain), mask_probes(drawn, plain),
                                              integer_probes(drawn, plain, compared, bound),
                                              joint_probes(drawn, plain)):
        t0 = clock()
        spent["making"] += t0 - made_from
        short = label[len(PROBE):].replace(", the others as drawn", "")
        called = None
        if inputs is None:
            not_run.append(f"{short} {why}")
        else:
            why, called = _judge_probe(session, swap, fn, plain, rec, label, inputs, clock)
            if why:
                not_run.append(f"{short}: {why}")
        # this probe's inputs let go before the next probe is made: two full-size copies of an input are never
        # alive at once
        del inputs
        made_from = clock()
        if called is not None:
            spent["candidate_calls"] += called - t0
            spent["baseline_calls_and_comparisons"] += made_from - called
            each[short] = round(each.get(short, 0.0) + made_from - t0, 4)
    rec.probe_seconds = {**{k: round(v, 4) for k, v in spent.items()},
                         "slowest": dict(sorted(each.items(), key=lambda kv: -kv[1])[:PROBES_SHOWN])}
    if not_run:
        rec.carried_note = "; ".join(filter(None, [
            rec.carried_note, f"{len(not_run)} structure probe(s) could not run, so were not judged: "
            + "; ".join(not_run[:6]) + (f"; and {len(not_run) - 6} more" if len(not_run) > 6 else "")]))
