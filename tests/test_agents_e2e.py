"""The agents end to end: a real OpenAI-compatible server on loopback, the openai client, the real gates.

The model is scripted (no LLM service is reachable here); everything else is the production path: the
answers are parsed into candidates, the candidates go through the cascade on a captured compiled module,
and failed gates are fed back to the repairer.  On CPU the best possible verdict is ``verified``
(performance not measured), which the agents treat as the end of the search.
"""

from __future__ import annotations


import pytest

torch = pytest.importorskip("torch")

from kernel_sources import (FUSED_REVERSE_CUMSUM, FUSED_REVERSE_CUMSUM_CHUNKED,  # noqa: E402
                            reverse_cumsum_launch)
from llm_server import llm_server, reply, tool_call  # noqa: E402,F401

from pytest_kernelopt.agents import AgentOptimizer, OpenAIChatModel  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.optimize import LocalEvaluator, Optimizer  # noqa: E402
from pytest_kernelopt.workflow.proposer import agent_factory_for, choose_proposer  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x * 0.5, dim=-1)


@pytest.fixture(scope="module")
def session(backend):
    x = torch.randn(8, 32, device=backend.device)
    s = EvaluationSession(problem_from_objects(Softmax(), (x,), "softmax"), Settings(seeds=2), backend)
    yield s


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """Overrides the suite's per-test Dynamo reset: the module-scoped session must stay live."""
    yield


def _kernel(session):
    g = session.captured.graphs[0]
    (name,) = g.kernels
    return g, name, g.kernels[name].source


def _equivalent(src: str) -> str:
    new = src.replace("tl_math.exp(", "libdevice.exp2(1.4426950408889634 * ").replace(
        "libdevice.exp(", "libdevice.exp2(1.4426950408889634 * ")
    assert new != src
    return new


def _model() -> OpenAIChatModel:
    return OpenAIChatModel("test-model")


def submit(source: str, **extra):
    return tool_call("submit_kernel", {"source": source, **extra})


def _judged(out):
    """The last candidate the gates judged (on a GPU an equivalent kernel is judged and turned down for speed,
    so the outcome itself holds no result)."""
    return next(a.result for a in reversed(out.attempts) if a.result is not None)


def _passes_all_but_speed(res, backend):
    """Gates 1-3 passed; the performance gate measured on a GPU (and decided), said 'not measured' on CPU."""
    assert [x.gate for x in res.gates] == ["static", "correctness", "fp64", "performance"], res.reason
    assert all(x.passed for x in res.gates[:3]), res.reason
    perf = res.gates[3]
    if backend.name == "cpu":
        assert perf.status == "not_measured" and res.decision == "verified" and not res.accepted
    else:
        assert perf.numbers["measured"] and perf.numbers["samples"] >= 5
        assert res.decision == ("accepted" if perf.passed else "rejected")


def test_a_good_candidate_passes_every_gate_that_can_run(session, llm_server, tmp_path, backend):
    g, name, src = _kernel(session)
    llm_server.push(reply("Memory-bound row softmax."), reply("Use exp2 with a folded log2(e)."),
                    submit(_equivalent(src), description="exp2 rewrite"))
    opt = AgentOptimizer(_model(), lambda c: session.evaluate(c), session.settings, tmp_path)
    out = opt.optimize_kernel(g, name, {"note": "no timings on CPU"}, {"device": backend.device})
    res = _judged(out)
    _passes_all_but_speed(res, backend)
    if backend.name == "cpu":
        assert out.decision == "verified"
    assert res.origin.startswith("agent")
    # a candidate turned down for speed goes back to the repairer once more (the script has no answer left)
    assert len(llm_server.requests) == (3 if res.decision in ("verified", "accepted") else 4)


def test_a_bad_candidate_is_rejected_by_the_right_gate_and_repaired(session, llm_server, tmp_path, backend):
    g, name, src = _kernel(session)
    cheat = "import os\n" + src  # static gate: imports beyond triton/math
    line = next(ln for ln in src.splitlines() if "tl.store(" in ln)
    value = line.split(",")[1].strip()
    wrong = src.replace(line, line.replace(f", {value},", f", {value} * 1.5,"))  # correctness / fp64
    llm_server.push(reply("analysis"), reply("plan"), submit(cheat), submit(wrong), submit(_equivalent(src)))
    opt = AgentOptimizer(_model(), lambda c: session.evaluate(c), session.settings, tmp_path)
    out = opt.optimize_kernel(g, name, {}, {})
    decisions = [a.result.decision for a in out.attempts if a.result is not None]
    failed = [a.result.failed_gate.gate for a in out.attempts if a.result is not None and a.result.failed_gate]
    assert decisions[:2] == ["rejected", "rejected"] and len(decisions) == 3
    _passes_all_but_speed(_judged(out), backend)
    assert failed[0] == "static" and failed[1] in ("correctness", "fp64")
    first_repair, second_repair = llm_server.requests[3], llm_server.requests[4]
    assert "Failed gate: static" in first_repair.text and "os" in first_repair.text
    assert f"Failed gate: {failed[1]}" in second_repair.text


def test_the_optimizer_runs_the_agents_and_says_so(session, llm_server, tmp_path, monkeypatch):
    g, name, src = _kernel(session)
    monkeypatch.setenv("KERNELOPT_MODEL", "test-model")
    llm_server.push(reply("analysis"), reply("plan"), submit(_equivalent(src)))
    settings = Settings(seeds=2, proposer="auto")
    ev = LocalEvaluator(session)
    out = Optimizer(ev, settings, proposer=choose_proposer(settings), name="softmax",
                    agent_factory=agent_factory_for(ev, settings, str(tmp_path))).run()
    assert out.proposer == "agents"
    (k,) = out.kernels
    assert k.proposer == "agents" and k.tried
    _passes_all_but_speed(k.tried[-1], session.backend)
    if session.backend.name == "cpu":
        assert k.decision == "baseline_kept", "nothing is accepted for speed without a GPU"
    else:
        assert k.decision == ("accepted" if k.tried[-1].accepted else "baseline_kept")
    assert list(tmp_path.rglob("*.jsonl")), "a transcript is kept for audit"


FUSED = FUSED_REVERSE_CUMSUM



class ReverseCumsum(torch.nn.Module):
    def forward(self, x):
        return torch.cumsum(x.flip(1), dim=1).flip(1)


def test_the_fusion_specialist_replaces_a_run_with_one_kernel(backend, llm_server, tmp_path):
    x = torch.randn(4, 64, device=backend.device)
    session = EvaluationSession(problem_from_objects(ReverseCumsum(), (x,), "rcs"), Settings(seeds=2), backend)
    g = session.captured.graphs[0]
    (run,) = g.contiguous_runs()
    first, last = run
    launch = reverse_cumsum_launch(g, run, "fused_reverse_cumsum", rows=4, rblock=64)
    llm_server.push(submit(FUSED, launch=launch, description="one pass: reversed scan"))
    opt = AgentOptimizer(_model(), lambda c: session.evaluate(c), session.settings, tmp_path)
    out = opt.optimize_fusion(g, run, {}, {})
    res = _judged(out)
    assert res.kernels == (first, last), res
    _passes_all_but_speed(res, backend)
    cand = out.attempts[-1].candidate
    assert cand.is_fusion and cand.launch.kernel == "fused_reverse_cumsum"


def test_a_bad_fused_kernel_is_repaired_into_a_chunked_one(backend, llm_server, tmp_path):
    """The fusion specialist's first answer imports os (static gate); the repairer, told so, answers a kernel
    that scans each row in chunks from its end (4 chunks of 16 here), which passes the gates that run."""
    x = torch.randn(4, 64, device=backend.device)
    session = EvaluationSession(problem_from_objects(ReverseCumsum(), (x,), "rcs"), Settings(seeds=2), backend)
    g = session.captured.graphs[0]
    (run,) = g.contiguous_runs()
    launch = reverse_cumsum_launch(g, run, "fused_reverse_cumsum_chunked", rows=4, rblock=16)
    bad = FUSED_REVERSE_CUMSUM_CHUNKED.replace("import triton\n", "import os\nimport triton\n", 1)
    llm_server.push(submit(bad, launch=launch), submit(FUSED_REVERSE_CUMSUM_CHUNKED, launch=launch))
    out = AgentOptimizer(_model(), lambda c: session.evaluate(c), session.settings, tmp_path).optimize_fusion(
        g, run, {}, {})
    first, second = out.attempts
    assert first.result is not None and first.result.failed_gate.gate == "static"
    assert "os" in first.result.reason
    assert second.role == "repairer" and "Failed gate: static" in llm_server.requests[1].text
    res = _judged(out)
    assert res.kernels == tuple(run)
    _passes_all_but_speed(res, backend)
