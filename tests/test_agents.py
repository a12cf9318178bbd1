"""The agents: answer parsing, prompts, and the optimisation loop against a real local LLM server.

The gates are replaced by a fake ``evaluate`` callback (the only coupling): it
fails 'correctness' for a source containing ``BUG`` and accepts anything else.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from llm_server import (backoff, delayed, llm_server, malformed_tool_call, reply, status,  # noqa: F401
                        tool_call, truncated)

from pytest_kernelopt.agents import (ROLES, AgentOptimizer, ChatReply, OpenAIChatModel,
                                     ScriptedChatModel, ToolCall, parse_reply, render)
from pytest_kernelopt.agents.roles import contract, fusion_context, kernel_context
from pytest_kernelopt.candidate import Candidate, LaunchSpec
from pytest_kernelopt.config import Settings
from pytest_kernelopt.gates.results import CascadeResult, GateResult
from pytest_kernelopt.graph import ExternCall, KernelGraph, TritonLaunch
from pytest_kernelopt.parse import parse_kernel_source

# --------------------------------------------------------------------------- a small captured graph

HEADER = '''import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics

'''


def inductor_source(name: str, body: str, ptrs: list[str]) -> str:
    sig = {p: "*fp32" for p in ptrs} | {"xnumel": "i32", "XBLOCK": "constexpr"}
    return (HEADER + f"@triton_heuristics.pointwise(size_hints={{'x': 1024}}, filename=__file__, "
            f"triton_meta={{'signature': {sig!r}, 'constants': {{}}}}, min_elem_per_thread=0)\n"
            f"@triton.jit\ndef {name}({', '.join(ptrs)}, xnumel, XBLOCK : tl.constexpr):\n"
            "    xoffset = tl.program_id(0) * XBLOCK\n"
            "    xindex = xoffset + tl.arange(0, XBLOCK)[:]\n"
            "    xmask = xindex < xnumel\n" + body)


ADD, RELU, SCALE = "triton_poi_fused_add_0", "triton_poi_fused_relu_1", "triton_poi_fused_mul_2"
SOURCES = {
    ADD: inductor_source(ADD, "    a = tl.load(in_ptr0 + xindex, xmask)\n    b = tl.load(in_ptr1 + xindex, xmask)\n"
                              "    tl.store(out_ptr0 + xindex, a + b, xmask)\n", ["in_ptr0", "in_ptr1", "out_ptr0"]),
    RELU: inductor_source(RELU, "    a = tl.load(in_ptr0 + xindex, xmask)\n"
                                "    tl.store(out_ptr0 + xindex, tl.maximum(a, 0.0), xmask)\n",
                          ["in_ptr0", "out_ptr0"]),
    SCALE: inductor_source(SCALE, "    a = tl.load(in_ptr0 + xindex, xmask)\n"
                                  "    tl.store(out_ptr0 + xindex, a * 2.0, xmask)\n", ["in_ptr0", "out_ptr0"]),
}


@pytest.fixture
def graph() -> KernelGraph:
    kernels = {n: parse_kernel_source(n, s, "cuda") for n, s in SOURCES.items()}
    launches = (
        TritonLaunch(0, ADD, ("arg0_1", "arg1_1", "buf0", "1024"), f"{ADD}.run(arg0_1, arg1_1, buf0, 1024)"),
        TritonLaunch(1, RELU, ("buf0", "buf1", "1024"), f"{RELU}.run(buf0, buf1, 1024)"),
        ExternCall(2, "extern_kernels.mm", "extern_kernels.mm(buf1, arg2_1, out=buf2)"),
        TritonLaunch(3, SCALE, ("buf2", "buf3", "1024"), f"{SCALE}.run(buf2, buf3, 1024)"),
    )
    return KernelGraph(index=0, role="forward", source="", torch_version="2.13", device="cuda",
                       kernels=kernels, launches=launches)


def add_kernel(tag: str = "") -> str:
    """A drop-in candidate for ADD; ``tag`` makes each source distinct (e.g. 'BUG')."""
    op = "a - b" if "BUG" in tag else "a + b"
    return ("@triton.jit\n"
            f"def {ADD}(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):\n"
            f"    # {tag or 'vectorised'}\n"
            "    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)\n"
            "    xmask = xindex < xnumel\n"
            "    a = tl.load(in_ptr0 + xindex, xmask)\n"
            "    b = tl.load(in_ptr1 + xindex, xmask)\n"
            f"    tl.store(out_ptr0 + xindex, {op}, xmask)\n")


FUSED = ("import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
         "def fused_add_relu(x_ptr, y_ptr, sum_ptr, out_ptr, xnumel, XBLOCK: tl.constexpr):\n"
         "    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)\n"
         "    xmask = xindex < xnumel\n"
         "    s = tl.load(x_ptr + xindex, xmask) + tl.load(y_ptr + xindex, xmask)\n"
         "    tl.store(sum_ptr + xindex, s, xmask)\n"
         "    tl.store(out_ptr + xindex, tl.maximum(s, 0.0), xmask)\n")
FUSED_LAUNCH = {"kernel": "fused_add_relu",
                "args": [f"{ADD}.in_ptr0", f"{ADD}.in_ptr1", f"{ADD}.out_ptr0", f"{RELU}.out_ptr0", f"{ADD}.xnumel"],
                "grid": "(cdiv(xnumel, XBLOCK),)", "num_warps": 4, "num_stages": 1, "constexprs": {"XBLOCK": 1024}}

FAIL_REASON = "max abs error 2.0 > atol 1e-4 on seed 3"


class FakeGates:
    """The ``evaluate`` callback: 'BUG' fails correctness, anything else passes every gate."""

    def __init__(self, decision: str = "accepted", on_call=None) -> None:
        self.calls: list[Candidate] = []
        self.decision = decision
        self.on_call = on_call

    def __call__(self, c: Candidate) -> CascadeResult:
        self.calls.append(c)
        if self.on_call:
            self.on_call(c)
        if "BUG" in c.source:
            gates = (GateResult("static", "pass"),
                     GateResult("correctness", "fail", FAIL_REASON, {"max_abs_err": 2.0, "seed": 3}))
            return CascadeResult(c.replaces, c.content_hash, gates, "rejected", c.origin)
        gates = (GateResult("static", "pass"), GateResult("correctness", "pass"), GateResult("fp64", "pass"),
                 GateResult("performance", "pass", numbers={"speedup": 1.31}))
        return CascadeResult(c.replaces, c.content_hash, gates, self.decision, c.origin)


def submit(source: str, **extra) -> object:
    return tool_call("submit_kernel", {"source": source, **extra})


def model(**kw) -> OpenAIChatModel:
    return OpenAIChatModel("test-model", **kw)


def events(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --------------------------------------------------------------------------- parsing


def answer(content=None, *, finish="stop", calls=()) -> ChatReply:
    return ChatReply(content=content, tool_calls=tuple(ToolCall(f"c{i}", n, a) for i, (n, a) in enumerate(calls)),
                     finish_reason=finish)


@pytest.mark.parametrize("content, finish, calls, expected", [
    ("", "stop", (), "empty answer"),
    ("   \n", "stop", (), "empty answer"),
    (f"```python\n{add_kernel()}", "length", (), "truncated: the answer hit the output token limit"),
    (f"Here it is:\n```python\n{add_kernel()}", "stop", (), "truncated: a code fence is not closed"),
    (None, "tool_calls", [("submit_kernel", '{"source": "x", "configs": [{"XBLOCK": 12')], "malformed JSON"),
    (None, "tool_calls", [("submit_kernel", '["not", "an", "object"]')], "must be a JSON object"),
    (None, "tool_calls", [("run_shell", '{"cmd": "ls"}')], "unknown tool"),
    ("I'm sorry, but I can't help with that.", "stop", (), "refusal"),
    ("```cuda\n__global__ void k(float* x) { x[0] = 1; }\n```", "stop", (), "code in another language (cuda)"),
    ("```python\ndef broken(:\n```", "stop", (), "does not parse as Python"),
    ("Just make the block bigger.", "stop", (), "no code block"),
    (f"```python\n{add_kernel().replace(ADD, 'my_fast_add')}```", "stop", (), "wrong kernel name"),
    (f"```python\n{add_kernel().replace('out_ptr0, xnumel', 'out_ptr0, n')}```", "stop", (),
     "wrong parameters for drop-in"),
    (f"```python\n{add_kernel()}```\n```json\n{{\"configs\": [{{\"XBLOCK\": \"big\"}}]}}\n```", "stop", (),
     "must map names to integers"),
])
def test_bad_answers_become_rejection_reasons(graph, content, finish, calls, expected):
    parsed = parse_reply(answer(content, finish=finish, calls=calls), [graph.kernels[ADD]])
    assert parsed.candidate is None
    assert expected in parsed.rejection


def test_prose_and_several_blocks_take_the_block_defining_the_kernel(graph):
    text = ("The kernel is memory-bound, so I widened the block.\n\n"
            "```python\n# how to call it\ny = x + 1\n```\n\n"
            f"```python\n{add_kernel('wide')}```\n\n"
            "```json\n{\"configs\": [{\"XBLOCK\": 2048, \"num_warps\": 8}], \"description\": \"wider blocks\"}\n```\n"
            "```cuda\n// for comparison\n```\nThat should help.")
    parsed = parse_reply(answer(text), [graph.kernels[ADD]], origin="agent:writer")
    c = parsed.candidate
    assert c is not None, parsed.rejection
    assert c.source == add_kernel("wide")
    assert c.replaces == (ADD,) and c.launch is None
    assert c.configs == ({"XBLOCK": 2048, "num_warps": 8},)
    assert c.description == "wider blocks" and c.origin == "agent:writer"


def test_tool_call_and_bare_code_answers(graph):
    args = json.dumps({"source": add_kernel(), "configs": [{"XBLOCK": 512, "num_warps": 4, "num_stages": 1}]})
    c = parse_reply(answer(None, finish="tool_calls", calls=[("submit_kernel", args)]), [graph.kernels[ADD]]).candidate
    assert c is not None and c.configs == ({"XBLOCK": 512, "num_warps": 4, "num_stages": 1},)
    bare = parse_reply(answer(add_kernel()), [graph.kernels[ADD]]).candidate
    assert bare is not None and bare.source == add_kernel()


def test_fusion_answers_are_checked_against_the_run(graph):
    kernels = [graph.kernels[ADD], graph.kernels[RELU]]

    def parse(launch):
        args = json.dumps({"source": FUSED, "launch": launch})
        return parse_reply(answer(None, finish="tool_calls", calls=[("submit_kernel", args)]), kernels)

    good = parse(FUSED_LAUNCH).candidate
    assert good is not None and good.is_fusion and good.replaces == (ADD, RELU)
    assert good.launch == LaunchSpec.from_json(FUSED_LAUNCH)
    for change, expected in [
        ({"args": FUSED_LAUNCH["args"][:-1] + [f"{ADD}.nonexistent"]}, "name no runtime parameter"),
        ({"args": FUSED_LAUNCH["args"][:-1]}, "takes 5"),
        ({"grid": "(__import__('os').system('ls'),)"}, "may call only cdiv, min and max"),
        ({"grid": "(cdiv(numel, XBLOCK),)"}, "uses 'numel'"),
        ({"kernel": "other"}, "wrong kernel name"),
    ]:
        parsed = parse({**FUSED_LAUNCH, **change})
        assert parsed.candidate is None and expected in parsed.rejection, (change, parsed.rejection)
    no_launch = parse_reply(answer(f"```python\n{FUSED}```"), kernels)
    assert "needs a 'launch'" in no_launch.rejection


# --------------------------------------------------------------------------- prompts


def test_reasoning_scratchpad_and_curly_apostrophes(graph):
    think = f"<think>maybe\n```python\ndef {ADD}(x):\n    pass\n```\n</think>\n```python\n{add_kernel()}```"
    assert parse_reply(answer(think), [graph.kernels[ADD]]).candidate.source == add_kernel()
    refusal = parse_reply(answer("Sorry \u2014 I can\u2019t help with that request."), [graph.kernels[ADD]])
    assert refusal.rejection.startswith("refusal")


def test_every_role_renders_a_versioned_prompt(graph):
    base = kernel_context(graph, ADD, {"time_share": 0.4, "bottleneck": "memory"}, {"name": "H200"})
    base |= {"contract": contract(False, base), "analysis": "memory-bound", "plan": "1. XBLOCK=1024",
             "failed_gate": "correctness", "failed_reason": FAIL_REASON, "failed_numbers": "{}",
             "previous_source": add_kernel("BUG"), "previous_configs": "(none)", "previous_launch": "(none)"}
    fbase = fusion_context(graph, (ADD, RELU), None, None)
    fbase["contract"] = contract(True, fbase)
    for role in ROLES.values():
        p = render(role, fbase if role.name == "fusion" else base)
        assert p.version == "v1" and p.template == role.name
        assert p.sha256 == hashlib.sha256((p.system + "\0" + p.user).encode()).hexdigest()
        assert "{{" not in p.system + p.user
        assert role.name.replace("writer", "kernel writer").replace("fusion", "fusion specialist") in p.system
        if role.writes_code:
            assert "No `torch` calls" in p.system and "`math`" in p.system
    writer = render(ROLES["writer"], base)
    assert f"named exactly `{ADD}`" in writer.system
    assert "(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK)" in writer.system
    assert "[1] triton pointwise triton_poi_fused_relu_1(buf0, buf1, 1024)" in writer.user  # a neighbour
    assert "vendor call kept as is: extern_kernels.mm" in writer.user
    assert "time_share: 0.4" in writer.user and "name: H200" in writer.user
    fusion = render(ROLES["fusion"], fbase)
    assert f"{RELU}.in_ptr0: *fp32" in fusion.user and "cdiv" in fusion.system


# --------------------------------------------------------------------------- the loop, through the server


def test_repair_loop_feeds_the_failed_gate_to_the_repairer(graph, llm_server, tmp_path):
    llm_server.push(reply("Bottleneck: memory-bound (no timings on CPU)."),
                    reply("1. XBLOCK=1024, num_warps=4"),
                    submit(add_kernel("BUG"), description="first try"),
                    submit(add_kernel("fixed"), configs=[{"XBLOCK": 1024, "num_warps": 4}]))
    gates = FakeGates()
    opt = AgentOptimizer(model(), gates, Settings(), tmp_path / "transcripts")
    out = opt.optimize_kernel(graph, ADD, {"time_share": "no timings on CPU"}, {"device": "cpu"})

    assert out.decision == "accepted" and not out.baseline_kept
    assert out.candidate.source == add_kernel("fixed") and out.result.speedup == 1.31
    assert [a.role for a in out.attempts] == ["writer", "repairer"]
    assert [c.source for c in gates.calls] == [add_kernel("BUG"), add_kernel("fixed")]
    assert out.attempts[0].result.failed_gate.gate == "correctness"
    analyst, planner, writer, repairer = llm_server.requests
    assert "Bottleneck: memory-bound" in planner.text  # the analysis reaches the planner
    assert "XBLOCK=1024, num_warps=4" in writer.text  # the plan reaches the writer
    assert "repairer" in repairer.body["messages"][0]["content"]
    assert "Failed gate: correctness" in repairer.text
    assert FAIL_REASON in repairer.text and '"max_abs_err": 2.0' in repairer.text
    assert add_kernel("BUG").strip() in repairer.text  # the previous source
    assert out.turns == 4 and out.usage.requests == 4 and out.usage.total_tokens > 0
    assert opt.usage == out.usage

    log = events(out.transcript)
    kinds = [e["event"] for e in log]
    assert kinds == ["start", "request", "reply", "request", "reply", "request", "reply", "candidate", "result",
                     "request", "reply", "candidate", "result", "stop"]
    requests = [e for e in log if e["event"] == "request"]
    assert [r["role"] for r in requests] == ["analyst", "planner", "writer", "repairer"]
    for r, sent in zip(requests, llm_server.requests):
        assert r["messages"] == sent.body["messages"] and r["version"] == "v1"
        text = r["messages"][0]["content"] + "\0" + r["messages"][1]["content"]
        assert r["prompt_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    results = [e for e in log if e["event"] == "result"]
    assert results[0]["result"]["decision"] == "rejected"
    assert results[1]["hash"] == out.candidate.content_hash
    assert log[-1]["decision"] == "accepted" and log[-1]["usage"]["requests"] == 4
    # what the orchestrator (pytest_kernelopt.optimize) reads
    assert out.winner is out.candidate and out.winner_result.accepted
    assert [r.decision for r in out.results] == ["rejected", "accepted"]
    assert "2 candidate(s) judged" in out.note


def test_malformed_answers_are_recorded_attempts_not_crashes(graph, llm_server, tmp_path):
    llm_server.push(reply("analysis"), reply("plan"),
                    malformed_tool_call(),
                    truncated(f"```python\n{add_kernel()[:80]}"),
                    reply("I'm sorry, but I can't help with that."),
                    reply(""),
                    reply(f"Sure! Here is the kernel:\n\n```python\n{add_kernel('plain')}```\nIt masks the tail."))
    gates = FakeGates()
    out = AgentOptimizer(model(), gates, Settings(max_turns=10), tmp_path).optimize_kernel(graph, ADD)
    assert out.decision == "accepted"
    reasons = [a.rejection for a in out.attempts[:-1]]
    assert ["malformed JSON" in reasons[0], "truncated" in reasons[1], "refusal" in reasons[2],
            "empty answer" in reasons[3]] == [True] * 4
    assert len(gates.calls) == 1  # rejected answers never reach the gates
    # each rejection was fed back to the repairer
    assert "Failed gate: parse" in llm_server.requests[3].text
    assert "malformed JSON" in llm_server.requests[3].text
    assert "refusal" in llm_server.requests[5].text
    rejected = [e for e in events(out.transcript) if e["event"] == "rejected"]
    assert len(rejected) == 4


def test_nothing_passes_within_the_candidate_budget(graph, llm_server, tmp_path):
    llm_server.push(reply("analysis"), reply("plan"), submit(add_kernel("BUG 1")), submit(add_kernel("BUG 2")),
                    submit(add_kernel("never requested")))
    gates = FakeGates()
    out = AgentOptimizer(model(), gates, Settings(max_candidates=2, max_turns=10), tmp_path).optimize_kernel(graph, ADD)
    assert out.baseline_kept and out.candidate is None
    assert "candidate budget" in out.stop_reason
    assert len(gates.calls) == 2 and len(llm_server.requests) == 4 and llm_server.remaining == 1
    assert events(out.transcript)[-1]["decision"] == "baseline_kept"


def test_turn_budget(graph, llm_server, tmp_path):
    llm_server.push(reply("analysis"), reply("plan"), submit(add_kernel("BUG")), submit(add_kernel()))
    out = AgentOptimizer(model(), FakeGates(), Settings(max_turns=3), tmp_path).optimize_kernel(graph, ADD)
    assert out.baseline_kept and "turn budget" in out.stop_reason
    assert out.turns == 3 and len(llm_server.requests) == 3


def test_token_budget_is_per_run(graph, llm_server, tmp_path):
    llm_server.push(reply("analysis", usage=(900, 200)))
    opt = AgentOptimizer(model(), FakeGates(), Settings(max_tokens=1000), tmp_path)
    first = opt.optimize_kernel(graph, ADD)
    assert first.baseline_kept and "token budget" in first.stop_reason
    assert first.usage.total_tokens == 1100 and len(llm_server.requests) == 1
    second = opt.optimize_kernel(graph, SCALE)  # the run's budget is spent: no request at all
    assert second.baseline_kept and second.turns == 0 and len(llm_server.requests) == 1


def test_kernel_token_budget(graph, llm_server, tmp_path):
    llm_server.push(reply("analysis", usage=(300, 100)), reply("plan", usage=(300, 100)))
    opt = AgentOptimizer(model(), FakeGates(), Settings(), tmp_path, kernel_max_tokens=700)
    out = opt.optimize_kernel(graph, ADD)
    assert "kernel_max_tokens=700" in out.stop_reason and out.turns == 2


def test_time_budget_with_a_fake_clock(graph, tmp_path):
    now = [0.0]
    gates = FakeGates(on_call=lambda c: now.__setitem__(0, now[0] + 500.0))  # evaluation takes 500 s
    scripted = ScriptedChatModel([ChatReply("analysis"), ChatReply("plan"),
                                  ChatReply(f"```python\n{add_kernel('BUG')}```"), ChatReply("never asked")])
    opt = AgentOptimizer(scripted, gates, Settings(kernel_time_budget=300.0), tmp_path, clock=lambda: now[0])
    out = opt.optimize_kernel(graph, ADD)
    assert out.baseline_kept and "kernel_time_budget=300.0" in out.stop_reason
    assert len(scripted.requests) == 3 and out.seconds == 500.0


def test_retries_exhausted_are_recorded_and_the_session_goes_on(graph, llm_server, backoff, tmp_path):
    llm_server.push(status(500, "upstream overloaded"), status(503, "still overloaded"),
                    reply("analysis"), reply("plan"), submit(add_kernel()))
    opt = AgentOptimizer(model(max_retries=1), FakeGates(), Settings(), tmp_path)
    failed = opt.optimize_kernel(graph, SCALE)
    assert failed.baseline_kept and failed.attempts == []
    assert "model error" in failed.stop_reason and "HTTP 503" in failed.stop_reason
    errors = [e for e in events(failed.transcript) if e["event"] == "model_error"]
    assert len(errors) == 1 and errors[0]["attempts"] == 2
    ok = opt.optimize_kernel(graph, ADD)  # the next kernel of the session still works
    assert ok.decision == "accepted" and ok.transcript != failed.transcript


def test_timeouts_and_rate_limits_inside_the_loop(graph, llm_server, backoff, tmp_path):
    llm_server.push(status(429, retry_after=0), delayed(3.0, reply("too late")), reply("analysis"),
                    reply("plan"), submit(add_kernel()))
    out = AgentOptimizer(model(timeout=0.3), FakeGates(), Settings(), tmp_path).optimize_kernel(graph, ADD)
    assert out.decision == "accepted"
    assert out.turns == 3 and out.usage.requests == 5  # 3 turns, 2 of them retried


def test_duplicate_candidates_are_not_evaluated_twice(graph, llm_server, tmp_path):
    llm_server.push(reply("analysis"), reply("plan"), submit(add_kernel("BUG")), submit(add_kernel("BUG")),
                    submit(add_kernel()))
    gates = FakeGates()
    out = AgentOptimizer(model(), gates, Settings(), tmp_path).optimize_kernel(graph, ADD)
    assert out.decision == "accepted" and len(gates.calls) == 2
    assert "duplicate of attempt 1" in out.attempts[1].rejection
    assert "duplicate of attempt 1" in llm_server.requests[4].text


def test_verified_without_speed_measurement_ends_the_search(graph, llm_server, tmp_path):
    llm_server.push(reply("analysis"), reply("plan"), submit(add_kernel()))
    out = AgentOptimizer(model(), FakeGates(decision="verified"), Settings(), tmp_path).optimize_kernel(graph, ADD)
    assert out.decision == "verified" and out.candidate is not None and not out.baseline_kept


def test_fusion_specialist_produces_a_launch_spec_candidate(graph, llm_server, tmp_path):
    (run,) = graph.contiguous_runs()
    assert run == (ADD, RELU)
    llm_server.push(reply(f"Fusing both:\n```python\n{FUSED}```"),  # no launch: rejected, repaired
                    submit(FUSED, launch=FUSED_LAUNCH, description="add and relu in one pass"))
    gates = FakeGates()
    out = AgentOptimizer(model(), gates, Settings(), tmp_path).optimize_fusion(graph, run, {"launches": 2})
    assert out.decision == "accepted"
    c = out.candidate
    assert c.is_fusion and c.replaces == run and c.launch == LaunchSpec.from_json(FUSED_LAUNCH)
    assert gates.calls == [c]
    first, second = llm_server.requests
    assert "fusion specialist" in first.body["messages"][0]["content"]
    assert f"{RELU}.out_ptr0: *fp32" in first.text and "extern_kernels.mm" in first.text
    assert "needs a 'launch'" in second.text and "repairer" in second.body["messages"][0]["content"]
    assert "fusion-" in out.transcript.name
    assert [e["role"] for e in events(out.transcript) if e["event"] == "request"] == ["fusion", "repairer"]


def test_a_transcript_is_bounded(tmp_path, monkeypatch):
    """Red team 15: a 40 MB answer made one kernel's transcript 234 MB in three turns."""
    import json as _json

    from pytest_kernelopt.agents.loop import Transcript

    monkeypatch.setattr(Transcript, "MAX_LINE", 1000)
    monkeypatch.setattr(Transcript, "MAX_FILE", 5000)
    t = Transcript(tmp_path / "k.jsonl", lambda: 0.0)
    t.log("reply", content="x" * 50_000)
    lines = [_json.loads(line) for line in (tmp_path / "k.jsonl").read_text().splitlines()]
    assert lines[0]["event"] == "reply" and lines[0]["truncated"] > 50_000 and len(lines[0]["head"]) == 1000
    for _ in range(20):
        t.log("reply", content="y" * 800)
    lines = [_json.loads(line) for line in (tmp_path / "k.jsonl").read_text().splitlines()]
    assert lines[-1]["event"] == "transcript_full"
    assert (tmp_path / "k.jsonl").stat().st_size < 5000 + 200


def test_a_drop_in_naming_no_config_launches_with_the_baselines_own(graph, llm_server, tmp_path):
    """Without configs a candidate would launch with its decorator's first config, which for a kernel Inductor
    autotunes among several need not be the baseline's (17x slower on avgpool3d on the H200): it is given the
    config the baseline's launch used, as data in the candidate the gates judge; one naming its own keeps it."""
    import dataclasses

    from pytest_kernelopt.graph import LaunchTrace

    traced = dataclasses.replace(graph, traces=(
        LaunchTrace(ADD, (8,), {"XBLOCK": 128}, 8, 1, ((1024,), (1024,), (1024,)), ("float32",) * 3),))
    llm_server.push(reply("analysis"), reply("plan"), submit(add_kernel("BUG")),
                    submit(add_kernel("own"), configs=[{"XBLOCK": 512, "num_warps": 4, "num_stages": 1}]))
    gates = FakeGates()
    out = AgentOptimizer(model(), gates, Settings(), tmp_path).optimize_kernel(traced, ADD)
    assert out.decision == "accepted"
    assert [c.configs for c in gates.calls] == [({"XBLOCK": 128, "num_warps": 8, "num_stages": 1},),
                                                 ({"XBLOCK": 512, "num_warps": 4, "num_stages": 1},)]
    # no trace of the kernel (nothing known of its launch): the candidate is judged as given
    llm_server.push(reply("analysis"), reply("plan"), submit(add_kernel("untraced")))
    gates = FakeGates()
    AgentOptimizer(model(), gates, Settings(), tmp_path).optimize_kernel(graph, ADD)
    assert [c.configs for c in gates.calls] == [()]
