"""The offline tuner's search space (issue 14, item 1): Inductor's own configs per kernel kind and more, split
scans, coordinate descent, register caps, looped variants of persistent reductions -- on the CPU interpreter."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt import launch_space, tuner  # noqa: E402
from pytest_kernelopt.capture import capture  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.allowlist import check_configs  # noqa: E402
from pytest_kernelopt.substitute import load_kernel_object  # noqa: E402


class ReverseCumsum(torch.nn.Module):
    def forward(self, x):
        return torch.cumsum(x.flip(1), dim=1).flip(1)


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


# one module per kernel kind; a split scan needs few rows (under 2 x the CPU backend's 2 "SMs") and a long scan
MODULES = {
    "split_scan": (ReverseCumsum(), lambda: (torch.randn(1, 9000),)),
    "pointwise": (lambda a, b: a.t() + b, lambda: (torch.randn(256, 128), torch.randn(128, 256))),
    "reduction": (lambda t: t.sum(-1), lambda: (torch.randn(8, 8192),)),
    "persistent_reduction": (Softmax(), lambda: (torch.randn(64, 128),)),
}


def _inductor_order():
    """Inductor's own configuration order (the CPU backend lists the largest block first, cpu_interpret.py): the
    space is compared with the list Inductor gives a GPU."""
    from pytest_kernelopt.backends import cpu_interpret

    return cpu_interpret.inductor_config_order()


@pytest.fixture(scope="module")
def kernels(backend):
    """kind -> [(graph, kernel name)] for every Triton kernel of the small modules."""
    out: dict[str, list] = {}
    for fn, inputs in MODULES.values():
        with _inductor_order():
            graphs = capture(fn, tuple(t.to(backend.device) for t in inputs()), backend=backend).graphs
        for g in graphs:
            for name, k in g.kernels.items():
                out.setdefault(launch_space.kind_of(k), []).append((g, name))
    return out


def _inductors_own(kernel, max_autotune=True):
    """What Inductor's heuristic decorator itself gives the kernel object (the source loaded as Inductor would),
    with max-autotune switched on in its metadata: independent of the tuner's reading of the decorator."""
    src = kernel.source
    if max_autotune:
        src = re.sub(r"'max_autotune(_pointwise)?': False", r"'max_autotune\1': True", src)
    with _inductor_order():
        obj = load_kernel_object(kernel.name, src)
    return [{**c.kwargs, "num_warps": c.num_warps, "num_stages": c.num_stages} for c in obj.configs]


@pytest.mark.parametrize("kind", ["pointwise", "reduction", "persistent_reduction", "split_scan"])
def test_the_space_holds_inductors_own_configs_and_more(kernels, kind):
    assert kind in kernels, f"no {kind} kernel captured: {sorted(kernels)}"
    for g, name in kernels[kind]:
        k, trace = g.kernels[name], launch_space.trace_of(g, name)
        space = tuner.config_space(k, trace)
        base = launch_space.baseline_config(trace)
        assert space and base not in space
        own = [{key: v for key, v in c.items() if key in k.params or key.startswith("num_")}
               for c in _inductors_own(k)]
        assert own and all(c in space or c == base for c in own), (name, own)
        assert len(_inductors_own(k, max_autotune=False)) <= len(own)
        # Inductor's own list is screened first
        ordered = tuner.ordered_space(k, trace)
        n_own = len([c for c in own if c != base])
        assert all(c in own for c in ordered[:n_own])
        blocks = [key for key in trace.config if key.endswith("BLOCK")]
        # and more: warps Inductor never lists, blocks wider and narrower than its own
        assert {c["num_warps"] for c in space} - {c["num_warps"] for c in own}
        for key in blocks:
            mine, its = {c[key] for c in space}, {c[key] for c in own}
            assert max(mine) > max(its) or max(mine) == launch_space.size_hint(k, key), (name, key)
            if kind != "split_scan":
                assert min(mine) < min(its) or min(its) == 1, (name, key)
        stages = {c["num_stages"] for c in space}
        assert stages == ({1, 2, 3} if kind == "reduction" else {1})
        if kind == "split_scan":
            # XBLOCK is fixed in the body (no_x_dim); R0_BLOCK never below the workspace's min_split_scan_rblock
            assert "XBLOCK" not in k.params and all(set(c) == {"R0_BLOCK", "num_warps", "num_stages"} for c in space)
            assert min(c["R0_BLOCK"] for c in space) == 256 == launch_space.inductor_meta(k)["min_split_scan_rblock"]
            assert max(c["R0_BLOCK"] for c in space) == 16384  # the row (9000) in one program


def test_every_config_and_neighbour_passes_the_allowlist(kernels, monkeypatch):
    # register caps as on a CUDA machine: in the space (launch_space.valid) and in the descent (tuner.neighbours)
    monkeypatch.setattr(launch_space, "uses_maxnreg", lambda kernel: True)
    monkeypatch.setattr(tuner, "uses_maxnreg", lambda kernel: True)
    n = 0
    for pairs in kernels.values():
        for g, name in pairs:
            k, trace = g.kernels[name], launch_space.trace_of(g, name)
            space = tuner.config_space(k, trace)
            for cfg in space + [c for s in space[:20] for c in tuner.neighbours(k, trace, s)]:
                assert check_configs([cfg]) is None, (name, cfg)
                n += 1
            assert any("maxnreg" in c for c in tuner.neighbours(k, trace, space[0]))
    assert n > 500


def test_coordinate_descent_neighbours(kernels, monkeypatch):
    g, name = kernels["reduction"][0]
    k, trace = g.kernels[name], launch_space.trace_of(g, name)
    cfg = {"XBLOCK": 2, "R0_BLOCK": 512, "num_warps": 4, "num_stages": 1}
    # (register caps, where the triton in use takes them, are checked below)
    assert [c for c in tuner.neighbours(k, trace, cfg) if "maxnreg" not in c] == [
        {"XBLOCK": 4, "R0_BLOCK": 512, "num_warps": 4, "num_stages": 1},
        {"XBLOCK": 1, "R0_BLOCK": 512, "num_warps": 4, "num_stages": 1},
        {"XBLOCK": 2, "R0_BLOCK": 1024, "num_warps": 4, "num_stages": 1},
        {"XBLOCK": 2, "R0_BLOCK": 256, "num_warps": 4, "num_stages": 1},
        {"XBLOCK": 2, "R0_BLOCK": 512, "num_warps": 8, "num_stages": 1},
        {"XBLOCK": 2, "R0_BLOCK": 512, "num_warps": 2, "num_stages": 1},
        {"XBLOCK": 2, "R0_BLOCK": 512, "num_warps": 4, "num_stages": 2},  # stages 0 does not exist
    ]
    # at the edges: XBLOCK above the 8 rows and one warp for 32 elements are not neighbours
    edge = tuner.neighbours(k, trace, {"XBLOCK": 8, "R0_BLOCK": 4, "num_warps": 1, "num_stages": 3})
    assert {"XBLOCK": 16, "R0_BLOCK": 4, "num_warps": 1, "num_stages": 3} not in edge
    assert {"XBLOCK": 8, "R0_BLOCK": 4, "num_warps": 1, "num_stages": 2} in edge
    assert all(c["num_stages"] <= 3 for c in edge)
    # a split scan's R0_BLOCK never steps below the workspace's floor; no XBLOCK to step
    g, name = kernels["split_scan"][0]
    k, trace = g.kernels[name], launch_space.trace_of(g, name)
    around = tuner.neighbours(k, trace, {"R0_BLOCK": 256, "num_warps": 4, "num_stages": 1})
    assert {c["R0_BLOCK"] for c in around} == {256, 512} and all("XBLOCK" not in c for c in around)
    # register caps along MAXNREG_STEPS where the triton takes them (none on this CPU kernel otherwise)
    assert any("maxnreg" in c for c in around) == launch_space.uses_maxnreg(k)
    monkeypatch.setattr(launch_space, "uses_maxnreg", lambda kernel: True)
    monkeypatch.setattr(tuner, "uses_maxnreg", lambda kernel: True)
    caps = lambda cfg: sorted((c.get("maxnreg") or 0) for c in tuner.neighbours(k, trace, cfg)  # noqa: E731
                              if {key: v for key, v in c.items() if key != "maxnreg"} == {
                                  key: v for key, v in cfg.items() if key != "maxnreg"})
    assert caps({"R0_BLOCK": 256, "num_warps": 4, "num_stages": 1}) == [128]
    assert caps({"R0_BLOCK": 256, "num_warps": 4, "num_stages": 1, "maxnreg": 128}) == [0, 64]


def test_search_descends_from_the_best_screened_point(kernels):
    """A synthetic cost with its minimum outside round 1: the descent walks there one notch at a time, each round
    screening only unseen neighbours of the best point so far, and stops where no neighbour is faster."""
    g, name = kernels["reduction"][0]
    k, trace = g.kernels[name], launch_space.trace_of(g, name)
    target = {"XBLOCK": 1, "R0_BLOCK": 256, "num_warps": 1, "num_stages": 3}

    def cost(cfg):
        import math

        return 1.0 + sum(abs(math.log2(cfg[key]) - math.log2(v)) for key, v in target.items() if key != "num_stages") \
            * 0.1 + abs(cfg["num_stages"] - 3) * 0.05

    rounds = []

    def rank(cands):
        rounds.append([c.configs[0] for c in cands])
        return cost(launch_space.baseline_config(trace)), [cost(c.configs[0]) for c in cands]

    found = tuner.search(g, name, rank, limit=6, deadline=float("inf"), descent_rounds=20)
    assert found.descent_rounds >= 2 and found.rounds == len(rounds)
    seen = [c for r in rounds for c in r]
    assert len(seen) == len({tuple(sorted(c.items())) for c in seen}), "no config is screened twice"
    best = min(seen, key=cost)
    assert best == target, best
    assert all(r < 1 for r, _ in found.faster_than(1.0))
    # every descent round is made of the neighbours of a point screened before it
    for i, r in enumerate(rounds[1:], 1):
        before = [launch_space.baseline_config(trace)] + [c for rr in rounds[:i] for c in rr]
        assert any(all(c in tuner.neighbours(k, trace, p) for c in r) for p in before)
    # no time left: round 1 only
    rounds.clear()
    found = tuner.search(g, name, rank, limit=6, deadline=0.0)
    assert found.rounds == 1 and found.descent_rounds == 0 and len(rounds[0]) == 6


def test_register_caps_reach_the_compiler():
    """A config's maxnreg is a compile option: the kernel object passes it to triton.compile (Inductor's own
    CachingAutotuner drops it) and the ahead-of-time compile for sm90 caps the registers with it."""
    from pytest_kernelopt.backends.aot import aot_compile

    assert launch_space.maxnreg_supported()  # triton 3.7: triton.Config(maxnreg=) and CUDAOptions.maxnreg
    src = '''
import triton
import triton.language as tl


@triton.jit
def heavy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, tl.exp(x) * tl.sin(x) + tl.cos(x * x) / (1 + tl.abs(x)), mask=m)
'''
    sig = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    free, capped = (aot_compile(src, "heavy", signature=sig, configs=[{"BLOCK": 4096, "num_warps": 1, **extra}])
                    for extra in ({}, {"maxnreg": 64}))
    assert free.ok and capped.ok, (free.first_error, capped.first_error)
    assert capped.configs[0].n_regs <= 64 < free.configs[0].n_regs


def test_the_kernel_object_forwards_maxnreg(kernels):
    g, name = kernels["split_scan"][0]
    k = g.kernels[name]
    obj = load_kernel_object(name, k.source, [{"R0_BLOCK": 512, "num_warps": 4, "num_stages": 1, "maxnreg": 64}])
    (cfg,) = obj.configs
    assert cfg.maxnreg == 64 and "maxnreg" not in cfg.kwargs
    meta = {"num_warps": 4, "num_stages": 1, "debug": False, "device_type": "cuda"}
    assert obj._create_compile_options(cfg, meta)["maxnreg"] == 64


def test_a_split_scan_config_is_verified_by_the_cascade(backend):
    """Split scans were 'no launch configuration to search'; now a reversed cumsum's scan gets candidates
    (Inductor's smallest R0_BLOCK, which fills the workspace, first) and the cascade verifies one on the CPU."""
    from pytest_kernelopt.gates.cascade import EvaluationSession
    from pytest_kernelopt.problems import problem_from_objects

    x = torch.randn(1, 9000, device=backend.device)
    session = EvaluationSession(problem_from_objects(ReverseCumsum(), (x,), "rcs"), Settings(seeds=1), backend)
    g = session.captured.graphs[0]
    (name,) = [n for n in g.kernels if n.startswith("triton_spl_")]
    assert tuner.can_search(g, name)
    cands = tuner.propose_configs(g, name, limit=2)
    assert [c.configs[0]["R0_BLOCK"] for c in cands][0] == 256
    res = session.evaluate(cands[0], perf=False)
    assert res.decision == "verified", res.reason


def test_a_looped_variant_of_a_persistent_reduction_is_verified(backend):
    """Inductor's looped reduction for a persistent one takes the same runtime arguments: from a compile with
    persistent reductions off (made before the session's own: a second compile resets Dynamo), it is a LaunchSpec
    candidate for the persistent kernel (it has an R0_BLOCK the persistent one lacks, which a config candidate's
    same-signature rule refuses), and the cascade verifies it."""
    from pytest_kernelopt.gates.cascade import EvaluationSession
    from pytest_kernelopt.problems import problem_from_objects

    x = torch.randn(16, 128, device=backend.device)
    looped = capture(Softmax(), (x,), backend=backend, options=dict(tuner.LOOPED_OPTIONS)).graphs
    session = EvaluationSession(problem_from_objects(Softmax(), (x,), "softmax"), Settings(seeds=1), backend)
    g = session.captured.graphs[0]
    (name,) = [n for n in g.kernels if n.startswith("triton_per_")]
    (variant,) = tuner.looped_variants(g, name, looped)
    assert variant.kernel.kind == "reduction" and variant.kernel.name == name.replace("_per_", "_red_")
    assert "R0_BLOCK" in variant.trace.config and "triton_heuristics.reduction" not in variant.source
    rounds = []

    def rank(cands):
        rounds.append(cands)
        return 1.0, [1.0] * len(cands)

    found = tuner.search(g, name, rank, limit=4, deadline=0.0, variants=[variant])
    looped_cands = [c for c in rounds[0] if c.source == variant.source]
    assert looped_cands and len(found.screened) == len(rounds[0])
    assert all("looped reduction variant" in c.description and c.launch is not None for c in looped_cands)
    assert looped_cands[0].launch.args == g.kernels[name].runtime_params
    assert set(looped_cands[0].launch.constexprs) == {"XBLOCK", "R0_BLOCK"}
    res = session.evaluate(looped_cands[0], perf=False)
    assert res.decision == "verified", res.reason


def test_a_looped_reduction_gets_its_loop_pipelined_and_the_cascade_verifies_it(backend):
    """Triton pipelines a reduction's loads only in a loop that asks (``tl.range(..., num_stages=S)``); the launch
    config's num_stages leaves them alone.  The variant keeps the signature and the launch (a config candidate), its
    one change is the loop, and it goes through the gates as any candidate: on the H100 one such rewrite came out
    wrong at another config and the fp64 gate refused it."""
    from pytest_kernelopt.gates.cascade import EvaluationSession
    from pytest_kernelopt.problems import problem_from_objects

    class RowSum(torch.nn.Module):
        def forward(self, t):
            return t.sum(-1)

    x = torch.randn(8, 8192, device=backend.device)
    session = EvaluationSession(problem_from_objects(RowSum(), (x,), "rowsum"), Settings(seeds=2), backend)
    g = session.captured.graphs[0]
    (name,) = [n for n in g.kernels if n.startswith("triton_red_")]
    variants = tuner.pipelined_variants(g, name)
    assert [v.label for v in variants] == [f"reduction loop pipelined ({k} stages), " for k in tuner.LOOP_STAGES]
    own = g.kernels[name].source
    for v, k in zip(variants, tuner.LOOP_STAGES):
        changed = [(a, b) for a, b in zip(own.splitlines(), v.source.splitlines()) if a != b]
        assert len(changed) == 1 and len(own.splitlines()) == len(v.source.splitlines()), changed
        assert re.fullmatch(rf"\s+for r0_offset in tl\.range\(.*, num_stages={k}\):", changed[0][1]), changed
    rounds = []

    def rank(cands):
        rounds.append(cands)
        return 1.0, [1.0] * len(cands)

    tuner.search(g, name, rank, limit=2, deadline=0.0, variants=variants)
    piped = [c for c in rounds[0] if "reduction loop pipelined" in c.description]
    assert piped and all(c.launch is None and c.configs for c in piped)
    res = session.evaluate(piped[0], perf=False)
    assert res.decision == "verified", res.reason
    # a persistent reduction has no loop to pipeline; its looped variant has
    sm = EvaluationSession(problem_from_objects(Softmax(), (torch.randn(16, 128, device=backend.device),), "sm"),
                           Settings(seeds=1), backend)
    (per,) = [n for n in sm.captured.graphs[0].kernels if n.startswith("triton_per_")]
    assert tuner.pipelined_variants(sm.captured.graphs[0], per) == []


def test_the_looped_compile_runs_in_a_process_of_its_own(backend):
    """The optimizer's second compile (persistent reductions off) comes back as graph data from a child process;
    a module without a spec gets none, and says why."""
    from pytest_kernelopt.problems import ProblemSpec

    spec = ProblemSpec.from_objects(torch.nn.Softmax(dim=-1), (torch.randn(16, 128),), "softmax")
    graphs, why = tuner.capture_variant_graphs(spec, backend=backend.name, timeout=300)
    assert why == "" and graphs
    kinds = {k.kind for g in graphs for k in g.kernels.values()}
    assert "reduction" in kinds and "persistent_reduction" not in kinds
    assert tuner.capture_variant_graphs(None) == ([], "the module has no spec a second process could rebuild it from")


def test_max_autotunes_pick_is_screened_first(kernels):
    """The config Inductor's own autotuner picked comes first in round 1 (labelled), unless it is the baseline's
    own config or outside the tuner's space; it is screened once."""
    g, name = kernels["reduction"][0]
    k, trace = g.kernels[name], launch_space.trace_of(g, name)
    base = launch_space.baseline_config(trace)
    pick = next(c for c in tuner.ordered_space(k, trace)[10:] if launch_space.valid(k, trace, c))
    rounds = []

    def rank(cands):
        rounds.append(list(cands))
        return 1.0, [1.0] * len(cands)

    tuner.search(g, name, rank, limit=6, deadline=0.0, picks=[pick, dict(base), {**pick, "XBLOCK": 3}])
    first = rounds[0]
    assert first[0].configs[0] == pick and first[0].description.startswith("max-autotune's pick")
    assert sum(c.configs[0] == pick for c in first) == 1
    assert not any(c.configs[0] == base for c in first)
    assert len(first) == 7 and not any(c.description.startswith("max-autotune") for c in first[1:])


def test_autotune_picks_match_the_kernel_by_graph_name_and_code(kernels):
    import dataclasses

    g, name = kernels["reduction"][0]
    trace = launch_space.trace_of(g, name)
    assert tuner.autotune_picks(g, name, [g]) == [launch_space.baseline_config(trace)]
    k = g.kernels[name]
    other_code = dataclasses.replace(k, source=k.source.replace("def " + name, "def " + name + "_x", 1)
                                     .replace(name + "_x", name).replace("tl.store(", "tl.store(\n  ", 1))
    changed = dataclasses.replace(g, kernels={**g.kernels, name: other_code})
    assert tuner.autotune_picks(g, name, [changed]) == []
    assert tuner.autotune_picks(g, name, [dataclasses.replace(g, index=g.index + 1)]) == []
    # the decorator's metadata (which differ under max-autotune) do not count
    meta = dataclasses.replace(k, source=k.source.replace("inductor_meta={", "inductor_meta={'coordinate_descent_tuning': True, ", 1))
    assert meta.source != k.source
    assert tuner.autotune_picks(g, name, [dataclasses.replace(g, kernels={**g.kernels, name: meta})])


def test_a_split_scan_reorder_is_not_run_twice_and_as_free_form_code_its_drift_is_a_race(backend, monkeypatch):
    """On the H200 Inductor's own split scan under R0_BLOCK=256 rounded differently on a second run (its look-back
    adds block prefixes in arrival order) and was refused as a race.  Certified as Inductor's own scan under a
    launch config, it is not run twice (the rerun defends against code only a proposer writes: gates/provenance.py)
    and passes; the same source judged as free-form code is run twice, and a drift between its runs is a race.
    The CPU interpreter runs a scan's programs in order, so the second run's drift is put in here."""
    import dataclasses

    from pytest_kernelopt.gates import cascade
    from pytest_kernelopt.gates.cascade import EvaluationSession
    from pytest_kernelopt.problems import problem_from_objects

    x = torch.randn(1, 9000, device=backend.device)
    session = EvaluationSession(problem_from_objects(ReverseCumsum(), (x,), "rcs"), Settings(seeds=1), backend)
    g = session.captured.graphs[0]
    (name,) = [n for n in g.kernels if n.startswith("triton_spl_")]
    cand = tuner.propose_configs(g, name, limit=1)[0]
    real = cascade.collect_candidate
    reruns = []

    def drifting(*a, **k):
        rec = real(*a, **k)
        reruns.append(rec.again is not None)
        if rec.again is not None:
            out = rec.again.outputs
            assert isinstance(out, torch.Tensor)
            rec.again = dataclasses.replace(rec.again, outputs=out * (1 + 1e-7))
        return rec

    monkeypatch.setattr(cascade, "collect_candidate", drifting)
    res = session.evaluate(cand, perf=False)
    assert res.decision == "verified" and reruns == [False], res.reason
    assert "rerun" in res.gate("correctness").numbers["checks_skipped"]
    # uncertified, the same source is free-form code: run twice, and the drift is a race
    from pytest_kernelopt.gates import reorder

    monkeypatch.setattr(reorder, "inductor_reorder", lambda *a, **k: None)
    res = session.evaluate(cand, perf=False)
    assert reruns == [False, True]
    assert res.decision == "rejected" and "different results on identical inputs" in res.reason, res.reason


def test_inductors_own_kernel_is_judged_with_the_config_its_baseline_launched(kernels):
    """The A/A candidate and the screening's reference are Inductor's source launched with the baseline's traced
    config: without one, the decorator's first would be used (avgpool3d on the H200: 17x slower than the
    autotuned pick, so every screened config looked 17x faster than the baseline)."""
    import dataclasses

    g, name = kernels["persistent_reduction"][0]
    trace = next(t for t in g.traces if t.kernel == name)
    own = launch_space.own_candidate(g, name)
    assert own.origin == "a/a" and own.source == g.kernels[name].source and own.launch is None
    assert own.configs == ({**trace.config, "num_warps": trace.num_warps or 4, "num_stages": trace.num_stages or 1},)
    obj = load_kernel_object(name, own.source, own.configs)
    assert [{**c.kwargs, "num_warps": c.num_warps, "num_stages": c.num_stages} for c in obj.configs] == list(own.configs)
    # a baseline that ran another config of the list: that one, not the first
    other = {**trace.config, **{k: v * 2 for k, v in trace.config.items()}}
    moved = dataclasses.replace(g, traces=tuple(dataclasses.replace(t, config=other) if t.kernel == name else t
                                                for t in g.traces))
    assert launch_space.own_candidate(moved, name).configs[0] == {**other, "num_warps": trace.num_warps or 4,
                                                           "num_stages": trace.num_stages or 1}
    # a drop-in without configs gets the traced one; with its own, or a fusion, it is left as it is
    bare = dataclasses.replace(own, configs=(), origin="agent:writer")
    assert tuner.with_baseline_config(moved, bare).configs == launch_space.own_candidate(moved, name).configs
    assert tuner.with_baseline_config(moved, own) is own
    untraced = dataclasses.replace(g, traces=())
    assert tuner.with_baseline_config(untraced, bare) is bare and launch_space.own_candidate(untraced, name).configs == ()


@pytest.mark.parametrize("rows, fits", [(96, False), (128, True)])
def test_a_block_past_an_unmasked_dimension_is_never_proposed_nor_certified(backend, rows, fits):
    """Red team 22: Inductor drops the x mask of 12288 elements (a multiple of its largest XBLOCK, 4096); XBLOCK
    8192 then reads and writes 4096 elements past the tensors, which only the CPU interpreter's bounds check
    caught, and the judge had certified it as Inductor's own kernel under another config.  A block along an
    unmasked dimension must divide its size: 8192 divides 16384 elements, not 12288."""
    from pytest_kernelopt.candidate import Candidate
    from pytest_kernelopt.gates.reorder import inductor_reorder

    (g,) = capture(lambda x: torch.sin(x) * 2.0 + 1.0, (torch.randn(rows, 128, device=backend.device),),
                   backend=backend).graphs
    ((name, kernel),) = g.kernels.items()
    trace = next(t for t in g.traces if t.kernel == name)
    assert re.search(r"xmask = tl\.full\(", kernel.source) and f"xnumel = {rows * 128}" in kernel.source, \
        kernel.source
    big = {"XBLOCK": 8192, "num_warps": 8, "num_stages": 1}
    assert launch_space.valid(kernel, trace, big) is fits
    assert launch_space.valid(kernel, trace, {**big, "XBLOCK": 4096})
    assert any(c["XBLOCK"] == 8192 for c in tuner.config_space(kernel, trace)) is fits
    certified = inductor_reorder(Candidate((name,), kernel.source, configs=(big,)), g, name)
    assert (certified is not None) is fits, certified
