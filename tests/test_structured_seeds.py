"""Triggers no seed produced (the seeds-are-tests class): red team 26 flipped the sign of a row bitwise equal to the
row before it (padding, repeated tokens), red team 27 was wrong where a feature column is zero in every row (a dead
ReLU unit) and where a block's values are all 8-bit levels (pixels scaled to [0, 1]).  Each was verified, exact on
every seed; red team 29 ignored an attention mask only on rows ending in two or more masked scores, and gave an
entropy in bits only on rows that are probability distributions; red team 30 was wrong only on a batch item equal
to the one before it (one prompt sampled several times), on image channels with saturated pixels, and applied
label smoothing only when the whole target batch was one-hot (hard labels).  The varied-state seed's rows now come in thirds
(8-bit levels, probability rows, repeated rows), the ReLU seed has a dead column, the sorted seed has rows
ending in masked scores; the floating inputs after the first are one-hot along their last dimension on the
integer seed and along dim 1 (channels) on the ReLU seed (red teams 30 and 33) (:mod:`pytest_kernelopt.gates.seed_values`).  The repros are the red teams' own,
kept once in benchmarks/redteam/ (its README table says what each does)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem  # noqa: E402

REPROS = Path(__file__).resolve().parent.parent / "benchmarks" / "redteam"
CASES = {  # name: (problem, candidate)
    "duplicate rows": ("rt26/p2/ln_tokens.py", "rt26/p2/cand_duprow.py"),
    "8-bit pixels": ("rt27/p7/prob.py", "rt27/p7/cand_pixels.py"),
    "dead column": ("rt27/p2/prob.py", "rt27/p2/cand_deadcol.json"),
    "masked scores": ("rt29/p2/prob.py", "rt29/p2/cand_mask.py"),
    "probability rows": ("rt29/p4/prob.py", "rt29/p4/cand_simplex.py"),
    "repeated batch items": ("rt30/p2/prob.py", "rt30/p2/cand_dupbatch.py"),
    "saturated pixels": ("rt30/p4/prob.py", "rt30/p4/cand_saturated.py"),
    "one-hot targets": ("rt30/p3/prob.py", "rt30/p3/cand_onehot.py"),
    "one-hot channels": ("rt33/p3/prob.py", "rt33/p3/cand_onehot_c.py"),
    "one-hot targets before a mask": ("rt33/p5/prob.py", "rt33/p5/cand_onehot_mid.py"),
    "symmetric matrices": ("rt33/p4/prob.py", "rt33/p4/cand_sym.py"),
    "multi-hot targets": ("rt34/p3/prob.py", "rt34/p3/cand_multihot.py"),
    "one-hot targets passed first": ("rt34/p1/prob.py", "rt34/p1/cand_onehot_first.py"),
    # red team 35: structures no seed gives where they were; the structure probes give each to every input
    "one-hot first, channels-last": ("rt35/p1/prob.py", "rt35/p1/cand_onehot_nhwc.py"),
    "smoothed one-hot rows": ("rt35/p2/prob.py", "rt35/p2/cand_smoothed.py"),
    "a causal mask": ("rt35/p3/prob.py", "rt35/p3/cand_causal_leak.py"),
    "right-padding masks": ("rt35/p4/prob.py", "rt35/p4/cand_padmean.py"),
    "multi-hot targets passed first": ("rt35/p5/prob.py", "rt35/p5/cand_multihot_first.py"),
    "a sole floating input one-hot": ("rt35/p6/prob.py", "rt35/p6/cand_onehot_single.py"),
    "one-hot first along dim 1 of three": ("rt35/p7/prob.py", "rt35/p7/cand_onehot_dim1_3d.py"),
    "an all-ones keep mask": ("rt36/p1/prob.py", "rt36/p1/cand_allones.py"),
    "a 0/-10000 BERT mask": ("rt36/p2/prob.py", "rt36/p2/cand_bert10000.py"),
    "an all-zeros additive mask": ("rt36/p2/prob.py", "rt36/p2/cand_zeromask.py"),
    "label smoothing 0.2": ("rt36/p3/prob.py", "rt36/p3/cand_smooth02.py"),
    "a finfo.min causal mask with padding merged in": ("rt36/p4/prob.py", "rt36/p4/cand_hf_finfo_leak.py"),
    "a sliding-window mask": ("rt37/p1/prob.py", "rt37/p1/cand_window_leak.py"),
    "an ALiBi bias": ("rt37/p3/prob.py", "rt37/p3/cand_alibi_half.py"),
    "packed documents": ("rt37/p4/prob.py", "rt37/p4/cand_doc_leak.py"),
    "one-hot targets beside a mask (rt37's control)": ("rt37/p2/prob.py", "rt37/p2/cand_ctrl_hot_only.py"),
    "one-hot targets and a right-padding mask at once": ("rt37/p2/prob.py", "rt37/p2/cand_hot_and_prefix.py"),
    # red team 38: masks that are not floating, left padding with one-hot targets, a causal and a padding mask
    "an int64 right-padding attention_mask": ("rt38/p1/prob.py", "rt38/p1/cand_prefix_int.py"),
    "a bool key-padding mask": ("rt38/p2/prob.py", "rt38/p2/cand_boolpad_leak.py"),
    "one-hot targets and a left-padding mask at once": ("rt38/p4/prob.py", "rt38/p4/cand_hot_and_leftpad.py"),
    "a causal mask and a key-padding mask at once": ("rt38/p5/prob.py", "rt38/p5/cand_causal_and_pad.py"),
    "labels padded with ignore_index -100": ("rt38/p3/prob.py", "rt38/p3/cand_ignore_smooth.py"),
    # red team 39: integer inputs that are not masks, ALiBi with no mask, token types, two masks of other kinds
    "-100 labels scattered in a row (masked LM)": ("rt39/p1/prob.py", "rt39/p1/cand_mid_ignore.py"),
    "arange position ids": ("rt39/p2/prob.py", "rt39/p2/cand_arange_shift.py"),
    "a sliding-window mask and a key-padding mask at once": ("rt39/p5/prob.py", "rt39/p5/cand_window_and_pad.py"),
    "token ids right-padded with pad id 0": ("rt39/p6/prob.py", "rt39/p6/cand_padid_rightpad.py"),
    "an ALiBi bias with no mask": ("rt39/p7/prob.py", "rt39/p7/cand_ctrl_alibi_only.py"),
    "an ALiBi bias and a key-padding mask at once": ("rt39/p7/prob.py", "rt39/p7/cand_alibi_and_pad.py"),
    "a bool causal mask and an additive padding mask at once": ("rt39/p8/prob.py",
                                                               "rt39/p8/cand_boolcausal_addpad.py"),
    "token type ids of a sentence pair": ("rt39/p9/prob.py", "rt39/p9/cand_pair_types.py"),
    # red team 40: time-major padding, causal with right padding merged
    "a time-major (T, B) bool padding mask": ("rt40/p1/prob.py", "rt40/p1/cand_timemajor_pad.py"),
    "a causal mask with right padding merged in": ("rt40/p2/prob.py", "rt40/p2/cand_causal_rightpad.py"),
    "void 255 pixels on boundaries": ("rt39/p10/prob.py", "rt39/p10/cand_void_boundary.py"),
    # values tied to another input's shape or values (session 26): lengths of x's rows, an index into x's rows, a
    # threshold equal to one of its row's scores
    "lengths sorted descending from T": ("rt39/p4/prob.py", "rt39/p4/cand_sorted_lengths.py"),
    "a permutation index": ("rt40/p3/prob.py", "rt40/p3/cand_perm_skip.py"),
    "a top-k threshold equal to a score": ("rt40/p4/prob.py", "rt40/p4/cand_le_topk.py"),
    "an ALiBi bias, a causal mask and key padding kept apart, at once": ("rt40/p6/prob.py", "rt40/p6/cand_three.py"),
    # red team 41: a causal mask over more keys than queries (a KV cache), positions of a left-padded cached batch,
    # zero rows at the end of each sequence of a (B, T, D) batch
    "a causal mask with a cache offset": ("rt41/p1/prob.py", "rt41/p1/cand_offset_causal_leak.py"),
    "positions each row from its own start": ("rt41/p2/prob.py", "rt41/p2/cand_leftpad_cache_pos.py"),
    "zero embedding rows on right padding": ("rt41/p3/prob.py", "rt41/p3/cand_zero_suffix.py"),
}


def _candidate(path: Path, kernels: dict) -> Candidate:
    if path.suffix == ".json":
        return Candidate.from_json({"origin": "red-team", **json.loads(path.read_text())})
    (name,) = [n for n in kernels if f"def {n}(" in path.read_text()]
    return Candidate((name,), path.read_text(), origin="red-team")


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_kernel_wrong_only_on_a_structure_real_inputs_have_is_refused(case, backend, cpu_interpreter):
    prob, cand = CASES[case]
    problem = build_problem(ProblemSpec.from_file(REPROS / prob), backend.device, 0)
    session = EvaluationSession(problem, Settings(mode="optimize"), backend)
    kernels = {n: k for g in session.captured.graphs for n, k in g.kernels.items()}
    candidate = _candidate(REPROS / cand, kernels)
    for name in candidate.replaces:  # Inductor's own kernels pass on the structured seeds
        own = session.evaluate(Candidate((name,), kernels[name].source, origin="control"), perf=False)
        assert own.failed_gate is None, (name, own.reason)
    res = session.evaluate(candidate, perf=False)
    assert res.decision == "rejected" and res.failed_gate.gate in ("correctness", "fp64"), res.reason
    assert ("beyond tolerance" in res.reason or "farther from the float64 truth" in res.reason
            or "structure probe: " in res.reason or "Inf positions or signs differ" in res.reason), res.reason
    if "at once" in case:  # refused by a joint probe: no probe of one input sees it
        assert "(over its rows)" in res.reason or "(key padding)" in res.reason, res.reason


def test_seeds_make_the_floating_inputs_after_the_first_one_hot_along_the_last_dimension_and_along_channels():
    from pytest_kernelopt.gates.seed_values import seed_inputs
    from pytest_kernelopt.gates.seed_plan import INTEGER_SEED_INDEX, NONNEGATIVE_SEED_INDEX, SeedPlan

    plan = SeedPlan.make(6, base_seed=7)
    seed = plan.seeds[INTEGER_SEED_INDEX]
    logits, target, ids = torch.randn(64, 16), torch.randn(64, 16).softmax(-1), torch.arange(64)
    mask = torch.rand(64, 16)
    out = seed_inputs((logits, target, ids, mask), plan, seed)
    for hot in (out[1], out[3]):  # every floating input after the first (red team 33 p5: targets before a mask)
        assert set(hot.unique().tolist()) == {0.0, 1.0} and bool((hot.sum(-1) == 1).all())
        assert hot.argmax(-1).unique().numel() > 1, "the hot column is drawn, not fixed"
    assert bool((out[0] == out[0].round()).all()) and not bool((out[0].sum(-1) == 1).all()), "whole numbers"
    assert out[2] is ids
    again = seed_inputs((logits, target, ids, mask), plan, seed)
    assert torch.equal(again[1], out[1]), "the same seed draws the same labels"
    (alone,) = seed_inputs((target,), plan, seed)  # the first floating input: whole numbers on an offset
    assert not bool((alone.sum(-1) == 1).all())
    # the ReLU seed: an N, C, H, W target one-hot along its channels (red team 33 p3: a segmentation mask)
    relu = plan.seeds[NONNEGATIVE_SEED_INDEX]
    image, seg = torch.randn(2, 3, 5, 7), torch.randn(2, 3, 5, 7)
    x, hot = seed_inputs((image, seg), plan, relu)
    assert set(hot.unique().tolist()) == {0.0, 1.0} and bool((hot.sum(1) == 1).all())
    assert bool((x >= 0).all()) and not bool((x.sum(1) == 1).all()), "the first input keeps the ReLU values"
    # ... and 2-D targets multi-hot rows: 0 and 1, at least one 1 a row, several in many (red team 34 p3)
    _, multi = seed_inputs((logits, target), plan, relu)
    assert set(multi.unique().tolist()) == {0.0, 1.0} and bool((multi.sum(-1) >= 1).all())
    assert int((multi.sum(-1) >= 2).sum()) >= 8
    for other in plan.seeds:
        if other not in (seed, relu):
            assert not bool((seed_inputs((logits, target), plan, other)[1] == 1).sum(-1).eq(1).all()), other


def test_the_float16_seed_makes_the_first_of_two_floating_inputs_one_hot_and_keeps_the_others_values():
    """Red team 34 p1: a target passed first (Keras's ``loss(y_true, y_pred)``); every other seed leaves it
    unstructured, so a kernel that reads the whole target could tell hard labels apart."""
    from pytest_kernelopt.gates.seed_values import seed_inputs
    from pytest_kernelopt.gates.seed_plan import HALF_SEED_INDEX, SeedPlan

    plan = SeedPlan.make(6, base_seed=11)
    half = plan.seeds[HALF_SEED_INDEX]
    target, logits, ids = torch.randn(64, 16).softmax(-1), torch.randn(64, 16), torch.arange(64)
    hot, x, same_ids = seed_inputs((target, logits, ids), plan, half)
    assert set(hot.unique().tolist()) == {0.0, 1.0} and bool((hot.sum(-1) == 1).all())
    assert hot.argmax(-1).unique().numel() > 1, "the hot column is drawn, not fixed"
    assert same_ids is ids
    assert torch.equal(x, seed_inputs((logits,), plan, half)[0]), "the second keeps the seed's float16 values"
    seg, image = seed_inputs((torch.randn(2, 3, 5, 7), torch.randn(2, 3, 5, 7)), plan, half)
    assert set(seg.unique().tolist()) == {0.0, 1.0} and bool((seg.sum(1) == 1).all()), "N, C, H, W: along C"
    (alone,) = seed_inputs((target,), plan, half)  # a single floating input is data, not a target
    assert alone.unique().numel() > 100
    for other in plan.seeds:
        if other != half:
            first = seed_inputs((target, logits), plan, other)[0]
            assert not (set(first.unique().tolist()) <= {0.0, 1.0}), other


def test_the_integer_seed_makes_square_matrices_symmetric_a_block_of_rows_at_a_time(monkeypatch):
    from pytest_kernelopt.gates import chunked
    from pytest_kernelopt.gates.seed_values import symmetric_

    for chunk in (1 << 24, 10):  # one block, and blocks of one row (chunk < n)
        monkeypatch.setattr(chunked, "CHUNK", chunk)
        y = torch.randn(3, 17, 17)
        want = torch.triu(y) + torch.triu(y, 1).transpose(-1, -2)
        symmetric_(y)
        assert torch.equal(y, want), chunk
    z = torch.randn(4, 5)
    before = z.clone()
    symmetric_(z)  # not square: left alone
    assert torch.equal(z, before)


def test_the_structure_probes_give_each_structure_to_each_floating_input_in_turn():
    """Red team 35: the seeds' label structures are tied to an argument's position and rank; the probes are not."""
    from pytest_kernelopt.gates.structure_probes import PROBE, STRUCTURES, probes

    seq, img, ids, mask = torch.randn(6, 5), torch.randn(2, 3, 4, 4), torch.arange(6), torch.randn(7, 7)
    got = [(lab, inputs) for lab, inputs, why in probes((seq, img, ids, mask), seed=5) if not why]
    labels = [lab for lab, _ in got]
    assert len(got) == sum(1 for _ in probes((seq, img, ids, mask), seed=5)), "every probe could be made"
    assert all(lab.startswith(PROBE) for lab in labels)
    by_input = {k: [lab for lab in labels if f"floating input {k} of 3 " in lab] for k in (1, 2, 3)}
    # 2-D, not square: one-hot, multi-hot, two smoothings, 0/1 prefix rows of the five padding kinds, 0/1 suffix
    # rows (twice: a row of one token), four additive paddings, ones, zeros
    assert len(by_input[1]) == 19  # (and arithmetic-progression rows, time-major padding)
    assert len(by_input[2]) == 29  # 4-D with square last dims: all but the cache's causal mask (more keys)
    assert len(by_input[3]) == 27  # 2-D square: all but dim 1
    for lab, inputs in got:
        assert inputs[2] is ids, "integer inputs stay as drawn"
        changed = [i for i in (0, 1, 3) if inputs[i] is not (seq, img, ids, mask)[i]]
        assert len(changed) == 1, lab  # one input at a time, the others the same objects
        y = inputs[changed[0]]
        t = y.shape[-1]
        d = torch.arange(t).unsqueeze(1) - torch.arange(t).unsqueeze(0)  # i - j
        if "one-hot along its last" in lab:
            assert set(y.unique().tolist()) == {0.0, 1.0} and bool((y.sum(-1) == 1).all())
        elif "one-hot along dim 1" in lab:
            assert set(y.unique().tolist()) == {0.0, 1.0} and bool((y.sum(1) == 1).all())
        elif "multi-hot" in lab:
            assert set(y.unique().tolist()) <= {0.0, 1.0} and bool((y.sum(-1) >= 1).all())
        elif "smoothed" in lab:
            assert bool((y > 0).all()) and torch.allclose(y.sum(-1), torch.ones(())) and y.unique().numel() == 2
            off = float(y.min()) * t  # the smoothing factor
            assert abs(off - 0.1) < 1e-5 if "0.1)" in lab else 0.15 - 1e-5 <= off <= 0.35 + 1e-5, (lab, off)
        elif "zero rows at the end" in lab:
            steps = (y == 0).all(-1).reshape(-1, y.shape[-2])  # (sequences, T): a step all zero
            assert bool((steps[:, 1:].int() >= steps[:, :-1].int()).all()), "zero steps only at the end"
            # the shortest sequence drawn in 1 .. half the steps: at least half of it padding
            assert bool((steps.sum(-1) >= y.shape[-2] // 2).any()) and bool((steps.sum(-1) == 0).any())
            assert torch.equal(y[~(y == 0).all(-1)], img[~(y == 0).all(-1)]), "the real steps as drawn"
        elif "time-major" in lab:
            cols = y.movedim(0, -1).reshape(-1, y.shape[0])
            assert bool((cols[:, 0] == 1).all()) and bool((cols[:, 1:] <= cols[:, :-1]).all()), lab
        elif "0/1 prefix" in lab or "0/1 suffix" in lab:
            r = y.reshape(-1, t)
            r = r if "prefix" in lab else r.flip(-1)
            assert bool((r[:, 0] == 1).all()) and bool((r[:, 1:] <= r[:, :-1]).all()), "1...1 0...0 rows"
            lengths = r.sum(-1)
            assert bool((lengths < t).any()), "one row padded"
            assert bool((lengths == t).any()) != ("fixed length" in lab), ("one row whole, but for a fixed length", lab)
            if "sorted" in lab:
                assert bool((lengths[:-1] >= lengths[1:]).all()), (lab, lengths)
            if "one token" in lab:
                assert bool((lengths == 1).any()), lab
            elif "below half" in lab:  # padded to a fixed length, or sorted longest first (red team s34)
                assert 1 <= int(lengths.min()) < (t + 1) // 2, (lab, lengths)
            else:  # as a real batch: every row at least half the width (red team 38 p4: every row two tokens or more)
                assert bool((lengths >= (t + 1) // 2).all()), (lab, lengths)
        elif "additive padding" in lab:
            r = y.reshape(-1, t)
            masked = r != 0
            assert not bool(masked[:, 0].any()) and bool((masked[:, 1:].int() >= masked[:, :-1].int()).all())
            want = {"-inf": float("-inf"), "finfo.min": torch.finfo(y.dtype).min, "-1e+09": -1e9,
                    "-10000": -1e4}[lab.split("then ")[1].split(" on")[0]]
            assert bool(masked.any()) and set(r[masked].tolist()) == {want}, lab
        elif "sliding-window" in lab:
            allowed = (y == 0).reshape(-1, t, t)[0]
            w = int(allowed[-1].sum())
            assert 2 <= w < t and torch.equal(allowed, (d >= 0) & (d < w))
            assert set(y[y != 0].unique().tolist()) == {torch.finfo(y.dtype).min}
        elif "block-diagonal" in lab:
            for m in y.reshape(-1, t, t):
                allowed = m == 0
                assert bool(torch.isinf(m[~allowed]).all()) and not bool(allowed[d < 0].any())
                assert bool(allowed.diagonal().all()) and bool((~allowed[d > 0]).any()), "two documents or more"
                starts = [i for i in range(t) if not bool(allowed[i, i - 1])] if t > 1 else []
                assert all(b - a >= 2 for a, b in zip([0, *starts], [*starts, t]) if b > a), starts
        elif "arithmetic-progression" in lab:
            steps = y.reshape(-1, t).diff(dim=-1)
            assert torch.allclose(steps, steps[:, :1].expand_as(steps)) and bool((steps > 0).all())
        elif "ALiBi bias with no mask" in lab:
            for m in y.reshape(-1, t, t):
                assert bool((m.diagonal() == 0).all()) and bool(torch.isfinite(m).all())
                assert torch.allclose(m + m.T, torch.zeros_like(m))
        elif "ALiBi" in lab:
            for m in y.reshape(-1, t, t):
                assert bool(torch.isinf(m[d < 0]).all()) and bool((m.diagonal() == 0).all())
                step = m[1:, 0] - m[:-1, 0]  # -slope down the first column
                assert bool((step < 0).all()) and torch.allclose(step, step[0].expand_as(step))
        elif "finfo.min" in lab:  # the causal mask with left padding merged in
            lo = torch.finfo(y.dtype).min
            assert set(y.unique().tolist()) <= {0.0, lo} and bool((y.reshape(-1, t, t)[:, d < 0] == lo).all())
        elif "causal" in lab:
            below = torch.tril(torch.ones(t, t)).bool().expand_as(y)
            assert bool(torch.isinf(y[~below]).all()) and bool((y[below] == 0).all())
        elif "all ones" in lab or "all zeros" in lab:
            assert bool((y == (1.0 if "ones" in lab else 0.0)).all())
        else:
            assert "lower-triangular" in lab and torch.equal(y, torch.tril(torch.ones_like(y)))
    assert len(STRUCTURES) == 30
    # more keys than queries (red team 41 p1): query i sees keys 0 .. S - T + i, finfo.min beyond
    cache = [inp for lab, inp, _ in probes((torch.randn(2, 1, 3, 5),), seed=1) if "KV cache" in lab]
    assert len(cache) == 1
    (m,) = cache[0]
    seen = (m == 0)[0, 0]
    assert torch.equal(seen, torch.arange(5).unsqueeze(0) <= 2 + torch.arange(3).unsqueeze(1)), seen
    assert set(m[m != 0].unique().tolist()) == {torch.finfo(m.dtype).min}
    again = [inputs for _, inputs, _ in probes((seq, img, ids, mask), seed=5)]
    assert torch.equal(again[0][0], got[0][1][0]), "a run's seed draws the same probes"


@pytest.mark.parametrize("mask_dtype", [torch.float32, torch.int64])
def test_every_two_properties_of_a_batchs_lengths_are_shown_in_all_four_combinations_by_the_padding_probes(
        mask_dtype):
    """Red team s34: kernels wrong only where no row of the mask is whole (``padding="max_length"``), where the
    shortest row holds 2 .. half the width, or where the rows are sorted longest first passed, since every padding
    probe drew one whole row, every row at least half the width (or one row of one token) and its rows in drawn
    order.  Of these properties of the lengths, every two are shown in all four combinations by the 0/1
    right-padding probes, whatever the seed, and the shortest row below half the width holds two tokens or more in
    one of them (benchmarks/redteam/s34)."""
    import itertools

    from pytest_kernelopt.gates.structure_probes import mask_probes, probes

    t = 16
    for seed in range(5):
        emb, mask = torch.randn(8, t, 4), (torch.rand(8, t) > 0.3).to(mask_dtype)
        made = probes((emb, mask), seed) if mask.is_floating_point() else mask_probes((emb, mask), seed)
        lengths = [inputs[1].sum(-1) for lab, inputs, why in made
                   if not why and "0/1 prefix rows (right padding)" in lab and inputs[1] is not mask]
        shown = [(bool((n == t).any()), bool((n[:-1] >= n[1:]).all()) and int(n.max()) > int(n.min()),
                  int(n.min()) < t // 2) for n in lengths]
        for i, j in itertools.combinations(range(3), 2):
            assert {(p[i], p[j]) for p in shown} == {(a, b) for a in (True, False) for b in (True, False)}, \
                (seed, i, j, lengths)
        assert any(2 <= int(n.min()) < t // 2 for n in lengths), (seed, lengths)


def _small_on_host(draw):
    def checked(*args, **kwargs):
        out = draw(*args, **kwargs)
        assert out.device.type != "cpu" or out.numel() <= 1 << 20, f"{out.numel()} values drawn on the host"
        return out
    return checked


def test_every_structure_probe_is_made_where_its_input_is(monkeypatch):
    """A probe of a multi-GiB input builds its masks, grids and draws on the input's device, never a grid of its
    size on the host (at 1.6G positions a host grid took seconds a probe).  On the meta device, inputs of 2^36
    positions: a host tensor of their size cannot be allocated here, so every probe is made only if none is built."""
    from pytest_kernelopt.gates import seed_values, structure_probes, structure_values

    # (a meta tensor has no generator of its own: the probe's host generator draws shape-only tensors there)
    cpu_gen = lambda gen, device: torch.Generator().manual_seed(int(torch.randint(0, 1 << 62, (1,), generator=gen)))  # noqa: E731
    monkeypatch.setattr(structure_values, "device_generator", cpu_gen)
    monkeypatch.setattr(seed_values, "device_generator", cpu_gen)
    for name in ("rand", "randn", "randint", "randperm"):  # a draw on the host of more than a value a row fails
        monkeypatch.setattr(torch, name, _small_on_host(getattr(torch, name)))
    square, wide, seqs, small = (torch.empty(s, device="meta") for s in (
        (1 << 18, 1 << 18), (1 << 12, 1 << 24), (4, 1 << 16, 1 << 18), (1 << 23, 4, 4)))
    made = 0
    t0 = time.perf_counter()
    for label, inputs, why in structure_probes.probes((square, wide, seqs, small), seed=5):
        assert inputs is not None, f"{label}: {why}"
        made += 1
    assert made >= 80  # every structure that applies to a square, a wide, a (B, T, D) and a batch of 4 x 4 input
    # many small matrices (2^23 of 4 x 4) are no loop of a draw or a fill a matrix: a loop of 2^23 steps on the
    # host takes minutes, this whole test seconds
    assert time.perf_counter() - t0 < 60


def test_an_honest_kernel_of_a_float16_module_is_verified_through_every_probe(backend, cpu_interpreter):
    """Session 24's review: the additive padding probe at -1e9 raised on a float16 input ("value cannot be
    converted to type c10::Half without overflow"), and a raise during the candidate's calls is a refusal, so
    every proposer's kernel of a module with a float16 input of two or more dims was refused.  A value below
    the dtype's range is written as its most negative value (no float16 mask holds -1e9)."""
    from pytest_kernelopt.gates.structure_probes import probes
    from pytest_kernelopt.problems import problem_from_objects

    for dtype in (torch.float16, torch.bfloat16):
        got = {lab: inputs for lab, inputs, _ in probes((torch.randn(4, 8, dtype=dtype),), seed=3)}
        (y,) = got["structure probe: floating input 1 of 1 additive padding rows (0, then -1e+09 on padding), "
                   "the others as drawn"]
        lo = torch.finfo(dtype).min
        held = torch.tensor(-1e9, dtype=dtype).item() if dtype == torch.bfloat16 else lo  # -1e9 fits bfloat16
        assert set(y.unique().tolist()) == {0.0, held}, dtype
    x = torch.randn(4, 16, device=backend.device, dtype=torch.float16)
    session = EvaluationSession(problem_from_objects(torch.nn.Softmax(-1), (x,), "sm16"), Settings(mode="optimize"),
                                backend)
    ((name, kernel),) = [(n, k) for g in session.captured.graphs for n, k in g.kernels.items()]
    edited = Candidate((name,), kernel.source + "\n# a proposer's copy of the kernel: the probes run\n")
    res = session.evaluate(edited, perf=False)
    assert res.decision == "verified", res.reason
    assert res.gate("correctness").numbers["structure_probes_compared"] >= 10


def test_no_two_probes_copies_of_an_input_are_alive_at_once(backend, monkeypatch):
    """A probe's full-size copy of an input is let go before the next probe makes its own: at a 6 GiB input two
    alive at once are 6 GiB more than the probes need.  Each made copy is tracked here, and when a probe is made no
    earlier probe's copy may still be alive."""
    import gc
    import weakref

    from pytest_kernelopt.gates import structure_probes
    from pytest_kernelopt.problems import problem_from_objects

    made: list = []
    alive_at_make: list = []

    def tracked(y, gen):
        gc.collect()
        alive_at_make.append(sum(r() is not None for r in made))
        made.append(weakref.ref(y))
        y.mul_(0.5)

    monkeypatch.setattr(structure_probes, "STRUCTURES", tuple(
        (f"a tracked copy {i}", lambda y: True, tracked) for i in range(3)))
    x = torch.randn(4, 16, device=backend.device)
    session = EvaluationSession(problem_from_objects(torch.nn.Softmax(-1), (x,), "sm"),
                                Settings(mode="optimize", seeds=2), backend)
    ((name, kernel),) = [(n, k) for g in session.captured.graphs for n, k in g.kernels.items()]
    res = session.evaluate(Candidate((name,), kernel.source + "\n# a proposer's copy of the kernel\n"), perf=False)
    assert res.decision == "verified", res.reason
    assert alive_at_make == [0, 0, 0], alive_at_make


def test_a_probe_that_cannot_be_made_or_that_the_module_itself_refuses_is_said_and_not_charged(
        backend, cpu_interpreter, monkeypatch):
    """A probe is ours: one that cannot be made in an input, or that the module itself raises on (a mask it
    validates), was charged to the candidate as its error, and an honest kernel was refused.  Now it is not judged,
    and the correctness gate's loop_note says which probes could not run.  (The module's refusal is made here by
    the call itself raising on an all-zeros input, for the candidate and the baseline alike.)"""
    from pytest_kernelopt.gates import calls, structure_probes
    from pytest_kernelopt.problems import problem_from_objects

    def broken(y, gen):
        raise RuntimeError("no such structure here")

    monkeypatch.setattr(structure_probes, "STRUCTURES", (
        *structure_probes.STRUCTURES, ("a structure our code cannot make", lambda y: True, broken)))
    plain_run = calls.run_call

    def refuses_all_zeros(session, fn, seed, *args, inputs=None, **kw):
        if inputs is not None and bool((inputs[0] == 0).all()):
            raise ValueError("an all-zeros input")
        return plain_run(session, fn, seed, *args, inputs=inputs, **kw)

    monkeypatch.setattr(calls, "run_call", refuses_all_zeros)
    x = torch.randn(4, 16, device=backend.device)
    session = EvaluationSession(problem_from_objects(torch.nn.Softmax(-1), (x,), "sm"), Settings(mode="optimize"),
                                backend)
    ((name, kernel),) = [(n, k) for g in session.captured.graphs for n, k in g.kernels.items()]
    res = session.evaluate(Candidate((name,), kernel.source + "\n# a proposer's copy of the kernel\n"), perf=False)
    assert res.decision == "verified", res.reason
    numbers = res.gate("correctness").numbers
    note = numbers["loop_note"]
    assert "2 structure probe(s) could not run" in note, note
    assert "a structure our code cannot make could not be made (RuntimeError: no such structure here)" in note, note
    assert "all zeros (an additive mask with no padding): the baseline raised ValueError too" in note, note
    # 2-D, not square: 19 structures apply (see the probes' own test), the cache's causal mask (16 keys over 4
    # rows), and ours; two of the twenty-one could not run
    assert numbers["structure_probes_compared"] == 19, numbers
    # a candidate that raises where the baseline does not is charged with it (here: the first call on the
    # all-zeros input, the candidate's, raises; the baseline's call after it does not)
    zero_calls = []

    def candidate_refuses_all_zeros(session, fn, seed, *args, inputs=None, **kw):
        if inputs is not None and bool((inputs[0] == 0).all()):
            zero_calls.append(seed)
            if len(zero_calls) == 1:
                raise ValueError("the candidate's own error")
        return plain_run(session, fn, seed, *args, inputs=inputs, **kw)

    monkeypatch.setattr(calls, "run_call", candidate_refuses_all_zeros)
    res = session.evaluate(Candidate((name,), kernel.source + "\n# a proposer's copy of the kernel\n"), perf=False)
    assert res.decision == "rejected" and "the candidate's own error" in res.reason, res.reason
    assert len(zero_calls) == 2, "the baseline was asked"


def test_joint_probes_give_label_rows_to_one_input_and_a_padding_mask_over_its_rows_to_another():
    """Red team 37 p2 and 38 p4: label smoothing applied only when the targets are one-hot and the mask is right
    (or left) padding; each probe structured one input.  A joint probe structures a label input and the mask over
    its rows at once; the mask may be floating, bool or 0/1 integer."""
    from pytest_kernelopt.gates.structure_probes import JOINT_LABELS, JOINT_PADDING, joint_probes

    for mask in (torch.rand(3, 5), torch.rand(3, 5) < 0.8, (torch.rand(3, 5) < 0.8).long()):
        logits, target, ids = torch.randn(3, 5, 7), torch.randn(3, 5, 7), torch.arange(4)
        got = list(joint_probes((logits, target, ids, mask), seed=2))
        # logits and target each take label rows with the mask over their rows
        assert len(got) == 2 * len(JOINT_LABELS) * len(JOINT_PADDING) == 8 and all(not why for _, _, why in got)
        for lab, inputs, _ in got:
            assert inputs[2] is ids
            first = 0 if lab.startswith("structure probe: input 1 ") else 1
            assert inputs[1 - first] is (logits, target)[1 - first], "the others as drawn"
            y, m = inputs[first], inputs[3]
            assert bool((y.sum(-1) - 1).abs().max() < 1e-5) and y.unique().numel() == 2, lab
            assert ("smoothed" not in lab) == bool((y.max(-1).values == 1).all()), lab
            assert m.dtype == mask.dtype and set(m.long().unique().tolist()) <= {0, 1}
            rows = m.long()
            if "left padding" in lab:
                rows = rows.flip(-1)
            assert bool((rows[:, 0] == 1).all()) and bool((rows[:, 1:] <= rows[:, :-1]).all()), lab
    # no pair where no input holds one value per row of another
    assert list(joint_probes((torch.randn(4, 6), torch.randn(5)), seed=2)) == []
    assert len(list(joint_probes((torch.randn(4, 6), torch.randn(4)), seed=2))) == 4


def test_joint_probes_give_a_square_mask_causal_structure_and_a_key_padding_mask_right_padding_at_once():
    """Red team 38 p5 and 39 p5, p8: attention that leaks when attn_mask is causal (or a sliding window, or a bool
    causal mask) and the key-padding mask is right padding (``nn.MultiheadAttention``'s two masks)."""
    from pytest_kernelopt.gates.structure_probes import JOINT_KEYS, JOINT_SQUARE, joint_probes

    scores, attn, pad = torch.randn(2, 2, 6, 6), torch.randn(6, 6), (torch.rand(2, 6) < 0.8).float()
    every = list(joint_probes((scores, attn, pad), seed=1))
    # scores and attn are both square over 6: each pairs with the padding mask (not with each other: square)
    assert len(every) == 2 * len(JOINT_SQUARE["float"]) * len(JOINT_KEYS["float"])
    assert all("input 3 (key padding)" in lab and not why for lab, _, why in every)
    d = torch.arange(6).unsqueeze(1) - torch.arange(6).unsqueeze(0)
    for lab, inputs, _ in every:
        which = 0 if lab.startswith("structure probe: input 1 ") else 1
        c, m = inputs[which], inputs[2]
        assert inputs[1 - which] is (scores, attn)[1 - which]
        if "an additive causal mask" in lab:
            lo = float("-inf") if "-inf above" in lab else torch.finfo(torch.float32).min
            assert bool((c[..., d < 0] == lo).all()) and bool((c[..., d >= 0] == 0).all()), lab
        keep = m == 0 if "additive" in lab.split("(key padding)")[1] else m == 1
        assert bool(keep[:, 0].all()) and bool((keep[:, 1:].int() <= keep[:, :-1].int()).all()), lab
    # a bool causal mask beside an additive (B, 1, 1, T) padding mask (red team 39 p8)
    bool_causal, add_pad = torch.rand(6, 6) < 0.5, torch.randn(2, 1, 1, 6)
    got = list(joint_probes((scores, bool_causal, add_pad), seed=1))
    pairs = [lab for lab, _, _ in got if lab.startswith("structure probe: input 2 ")]
    assert len(pairs) == len(JOINT_SQUARE["mask"]) * len(JOINT_KEYS["float"])
    for lab, inputs, _ in got:
        if lab.startswith("structure probe: input 2 "):
            assert torch.equal(inputs[1], torch.tril(torch.ones(6, 6)).bool())


def test_bool_and_zero_one_integer_masks_are_probed_and_other_integers_are_not():
    """Red team 38 p1 and p2: an int64 attention_mask and a bool key-padding mask had no structure probe."""
    from pytest_kernelopt.gates.structure_probes import MASK_STRUCTURES, mask_probes

    x, imask, bmask, ids = torch.randn(3, 5), (torch.rand(3, 5) < 0.8).long(), torch.rand(4, 4) < 0.5, torch.arange(9)
    got = list(mask_probes((x, imask, bmask, ids), seed=4))
    labels = [lab for lab, _, _ in got]
    assert sum("0/1 integer mask input 1 of 2" in lab for lab in labels) == len(MASK_STRUCTURES) - 1  # not square
    assert sum("bool mask input 2 of 2" in lab for lab in labels) == len(MASK_STRUCTURES)
    for lab, inputs, why in got:
        assert not why and inputs[0] is x and inputs[3] is ids
        y = inputs[1] if "integer" in lab else inputs[2]
        assert y.dtype == (imask if "integer" in lab else bmask).dtype
        assert set(y.long().unique().tolist()) <= {0, 1}, "only values the mask holds"


def test_integer_inputs_get_the_values_the_modules_own_kernels_compare_with_and_positions_and_sorted_lengths():
    """Red team 38 p3 and 39 p1, p10: cross-entropy smoothed its labels whenever one was the ignore index (-100,
    or a segmentation's void 255), on right padding or scattered in a row; 39 p6: mean pooling by ``input_ids !=
    0`` wrong on pad id 0 right padding; 39 p2: position ids ``arange(T)``; 39 p4: lengths sorted descending.
    The compared values are read from the baseline's kernels (Inductor's own ``tl.full([1, 1], -100, tl.int64)``
    and a comparison with it)."""
    from pytest_kernelopt.gates.structure_probes import compared_values, integer_probes

    src = (REPROS / "rt38" / "p3" / "dump" / "prob" / "triton_per_fused__log_softmax_nll_loss_forward_view_0.py")
    assert compared_values([src.read_text()]) == [-100]
    assert compared_values(["tmp1 = tl.full([1, 1], 0, tl.int64)\n    tmp3 = tl.where(tmp2, tmp0, tmp1)"]) == [], \
        "a constant no comparison reads"
    assert compared_values(["tmp1 = tl.full([1], 255, tl.int64)\n    tmp2 = tmp0 != tmp1",
                            "tmp5 = tmp4 == 7"]) == [255, 7]
    logits, labels, mask = torch.randn(3, 6, 5), torch.randint(0, 9, (3, 6)), (torch.rand(3, 6) < 0.5).long()
    mask[0, :2] = torch.tensor([0, 1])
    got = list(integer_probes((logits, labels, mask), seed=3, values=[-100]))
    assert all(not why for _, _, why in got)
    names = [lab for lab, _, _ in got]
    fits = int(labels.min()) + 5 <= int(labels.max())  # a shuffle of the drawn range
    start = 0 if int(labels.min()) >= 0 else int(labels.min())  # position ids start at 0 where every value is >= 0
    positions = start + 5 <= int(labels.max())
    offsets = int(labels.max()) - 6 + 1 >= 2  # rows from their own starts, up to the drawn maximum (no bound)
    # positions, a shuffle, sorted, positions from each row's own start, the compared value three ways
    assert len(names) == positions + fits + 1 + offsets + 3, names
    assert not any("position ids" in lab for lab, _, _ in integer_probes((torch.tensor([[0, 2, 1, 0]]),), 1, []))
    for lab, inputs, why in got:
        if why:
            continue
        assert inputs[0] is logits and inputs[2] is mask
        y = inputs[1]
        if "sorted" in lab:
            assert torch.equal(y, labels.sort(-1, descending=True).values)
            continue
        if "position ids" in lab:
            assert torch.equal(y, (torch.arange(6) + start).expand(3, 6))
            continue
        if "a shuffle" in lab:
            assert torch.equal(y.sort(-1).values, (torch.arange(6) + labels.min()).expand(3, 6))
            continue
        if "own start" in lab:
            starts = y[:, :1]
            assert torch.equal(y, starts + torch.arange(6)) and starts.unique().numel() >= 2
            assert int(starts.min()) == 1 and int(y.max()) == int(labels.max()), "up to the drawn maximum"
            continue
        ignored = y == -100
        assert bool((y[~ignored] == labels[~ignored]).all()) and bool(ignored.any())
        if "first position" in lab:
            assert bool(ignored[:, 0].all()) and not bool(ignored[:, 1:].any())
        elif "right-padded" in lab:
            assert bool((ignored[:, 1:].int() >= ignored[:, :-1].int()).all()) and not bool(ignored[:, 0].any())
        else:
            assert "drawn half" in lab
    assert len(list(integer_probes((logits, labels, mask), seed=3, values=[]))) == 2 * fits + 1 + offsets, \
        "no compared value"


def test_integer_inputs_get_values_tied_to_another_inputs_shape_within_the_baselines_index_bounds():
    """Red team 39 p4: lengths (B,) sorted descending whose first is T, the width of x (B, T, D); red team 40 p3:
    ``x[idx]`` with idx a permutation of 0..N-1, N the rows of x.  Neither probe could be made from the drawn values
    alone.  A value past the drawn maximum is written only below every index bound the baseline's kernels assert
    (a cross-entropy target given lengths up to C would make the baseline raise; on a GPU, end the worker)."""
    from types import SimpleNamespace as NS

    from pytest_kernelopt.gates.structure_probes import index_bound, integer_probes

    x, lengths = torch.randn(4, 32, 8), torch.tensor([3, 9, 1, 20])
    got = {lab: inputs for lab, inputs, why in integer_probes((x, lengths), seed=2, values=[]) if not why}
    desc = [v for k, v in got.items() if "lengths of another input's rows of 32, sorted descending" in k]
    drawn = [v for k, v in got.items() if "lengths of another input's rows of 32, one whole, in drawn order" in k]
    assert len(desc) == 1 and len(drawn) == 1, list(got)
    (_, ld), (_, lo) = desc[0], drawn[0]
    assert int(ld[0]) == 32 and bool((ld[:-1] >= ld[1:]).all()) and bool((ld >= 16).all()) and int(ld.min()) < 32
    assert int(lo.max()) == 32 and int(lo.min()) < 32 and bool((lo >= 16).all())
    assert desc[0][0] is x, "the other input as drawn"
    # an index bound below T: no length past the drawn maximum (20) is written
    assert not any("lengths of another" in lab for lab, _, _ in integer_probes((x, lengths), 2, [], bound=32))
    assert any("lengths of another" in lab for lab, _, _ in integer_probes((x, lengths), 2, [], bound=33))

    rows, idx, y = torch.randn(16, 32), torch.tensor([3, 1, 0, 7, 7, 2, 9, 11, 4, 4, 5, 6, 8, 12, 10, 13]), \
        torch.randn(16, 32)
    perm = [inp for lab, inp, _ in integer_probes((rows, idx, y), 5, [], bound=16) if "permutation of 0..15" in lab]
    assert len(perm) == 1 and torch.equal(perm[0][1].sort().values, torch.arange(16)), perm
    assert not any("permutation of 0..15" in lab for lab, _, _ in integer_probes((rows, idx, y), 5, [], bound=15))

    def graph(sources, externs=(), others=()):
        return NS(kernels={f"k{i}": NS(source=s) for i, s in enumerate(sources)},
                  extern_calls=[NS(target=t) for t in externs], other_kernels=tuple(others))

    assertion = 'tl.device_assert(((0 <= tmp4) & (tmp4 < {})) | ~(xmask), "index out of bounds: 0 <= tmp4 < {}")'
    assert index_bound([graph(["tmp0 = tl.load(in_ptr0 + x0)"])]) == float("inf"), "nothing indexes"
    assert index_bound([graph([assertion.format(16, 16), assertion.format(1000, 1000)])]) == 16
    assert index_bound([graph([assertion.format("ks0", "ks0")])]) == 0, "a bound that is not a number"
    assert index_bound([graph([], externs=["extern_kernels.mm", "extern_kernels.bmm"])]) == float("inf")
    assert index_bound([graph([], externs=["aten.embedding_dense_backward"])]) == 0, "an ATen call may index"
    assert index_bound([graph([], others=["cpp_fused_0"])]) == 0


def test_a_threshold_input_is_given_the_k_th_largest_value_of_each_row_of_another():
    """Red team 40 p4: ``scores.masked_fill(scores < kth, -inf)`` with kth = topk(scores, k).values[..., -1:], so
    the threshold equals one element of its row; a kernel using ``<=`` drops the k-th token.  Drawn apart, no
    threshold ever equals a score."""
    from pytest_kernelopt.gates.structure_probes import joint_probes

    scores, kth = torch.randn(4, 64), torch.randn(4, 1)
    got = [(lab, inp) for lab, inp, why in joint_probes((scores, kth), seed=9) if "top-k" in lab]
    assert len(got) == 2, [lab for lab, _, _ in joint_probes((scores, kth), seed=9)]
    ks = []
    for lab, (s, t) in got:
        assert s is scores and t.shape == kth.shape and "input 2 the k-th largest value of each row of input 1" in lab
        assert bool(((scores == t).sum(-1) == 1).all()), "each threshold one of its row's values"
        k = int((scores >= t).sum(-1)[0])
        assert bool(((scores >= t).sum(-1) == k).all()) and 1 <= k <= 64, "the same k in every row"
        ks.append(k)
    # both ways, whatever the seed: the row's largest value (a kernel wrong only where a larger value stands beside
    # the threshold passed the draws of k = 1, one run in 64), and a value with a larger one beside it
    assert ks[0] == 1 and ks[1] >= 2, ks
    flat = [lab for lab, _, _ in joint_probes((scores, torch.randn(4)), seed=9) if "top-k" in lab]
    assert not flat, "a (B,) input is a mask over rows (the labels-and-mask form), not a threshold column"
    assert not [lab for lab, _, _ in joint_probes((scores, torch.randn(4, 2)), seed=9) if "top-k" in lab]


def test_an_alibi_bias_a_causal_mask_and_key_padding_kept_apart_are_probed_at_once():
    """Red team 40 p6: BLOOM/MPT keep an ALiBi bias (H, T, T), a causal mask (T, T) and the key-padding mask (B, T)
    apart; a kernel wrong only when all three are as real models build them passed every two-input probe."""
    from pytest_kernelopt.gates.structure_probes import joint_probes

    scores, alibi, causal, pad = torch.randn(2, 2, 6, 6), torch.randn(2, 6, 6), torch.randn(6, 6), torch.rand(2, 6)
    got = [(lab, inp) for lab, inp, why in joint_probes((scores, alibi, causal, pad), seed=4)
           if lab.count(" and ") == 2]
    assert len(got) == 2, [lab for lab, _ in got]  # each way round; the scores (the largest) as drawn
    d = torch.arange(6).unsqueeze(1) - torch.arange(6).unsqueeze(0)
    for lab, (s, a, c, p) in got:
        assert s is scores and "input 4 (key padding) 0/1 prefix rows" in lab
        bias, mask = (a, c) if lab.startswith("structure probe: input 2 an ALiBi") else (c, a)
        mats = mask.reshape(-1, 6, 6)
        assert bool(torch.isinf(mats[:, d < 0]).all()) and bool((mats[:, d >= 0] == 0).all())
        steps = bias.reshape(-1, 6).diff(dim=-1)
        assert torch.allclose(steps, steps[:, :1].expand_as(steps)) and bool((steps != 0).all()), "AP rows"
        lengths = p.sum(-1)
        assert bool((lengths == 6).any()) and bool((lengths < 6).any())
    assert not [lab for lab, _, _ in joint_probes((scores, alibi, pad), seed=4) if lab.count(" and ") == 2], \
        "one mask beside the scores: the two-input forms"
