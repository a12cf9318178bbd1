"""The agents' path on a GPU, end to end, with a scripted model (no LLM service is reachable here).

A chat-completions server on 127.0.0.1 (tests/llm_server.py) serves the fusion specialist two answers for
examples/problems/reverse_cumsum.py at its GPU size: first a kernel that imports os (the static gate must
reject it), then, to the repairer that was shown that failure, one kernel that scans each row in chunks
from its end (tests/kernel_sources.py), replacing Inductor's launches.  The answers go through the openai
client, the parser and all four gates, the performance gate included.

What this measures is the harness on the GPU (client, parsing, launch spec, repair feedback, the cascade,
the timing), not a model's skill: the kernel was written by hand.

    python benchmarks/agents_gpu.py OUT.json [RBLOCK ...]
"""

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from kernel_sources import FUSED_REVERSE_CUMSUM_CHUNKED, reverse_cumsum_launch  # noqa: E402
from llm_server import ScriptedLLMServer, tool_call  # noqa: E402

from pytest_kernelopt.backends import prepare, select_backend  # noqa: E402

prepare("auto")
backend = select_backend("auto")
from pytest_kernelopt.agents import AgentOptimizer, OpenAIChatModel  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem  # noqa: E402

out_path = sys.argv[1]
rblocks = [int(b) for b in sys.argv[2:]] or [2048]
problem = build_problem(ProblemSpec.from_file("examples/problems/reverse_cumsum.py"), backend.device)
rows = problem.example_inputs[0].shape[0]
session = EvaluationSession(problem, Settings(), backend)
(graph,) = session.captured.graphs
runs = graph.contiguous_runs()
print(f"backend {backend.description}; input {tuple(problem.example_inputs[0].shape)}; kernels "
      f"{list(graph.kernels)}; contiguous runs {runs}", flush=True)
results = []
for rblock in rblocks:
    run = runs[0]
    launch = reverse_cumsum_launch(graph, run, "fused_reverse_cumsum_chunked", rows=rows, rblock=rblock,
                                   num_warps=8 if rblock >= 2048 else 4)
    bad = FUSED_REVERSE_CUMSUM_CHUNKED.replace("import triton\n", "import os\nimport triton\n", 1)
    script = [tool_call("submit_kernel", {"source": bad, "launch": launch}),
              tool_call("submit_kernel", {"source": FUSED_REVERSE_CUMSUM_CHUNKED, "launch": launch,
                                          "description": f"one pass per row, chunks of {rblock} from the end"})]
    with ScriptedLLMServer(script) as server, tempfile.TemporaryDirectory() as tdir:
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = server.base_url, "scripted"
        os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
        model = OpenAIChatModel("scripted-model")
        t0 = time.perf_counter()
        out = AgentOptimizer(model, lambda c: session.evaluate(c), session.settings, tdir).optimize_fusion(
            graph, run, {}, {})
        seconds = time.perf_counter() - t0
        transcript_lines = sum(1 for p in Path(tdir).rglob("*.jsonl") for _ in p.open())
    rec = {"rblock": rblock, "run": list(run), "decision": out.decision, "stop_reason": out.stop_reason,
           "seconds": round(seconds, 1), "requests": len(server.requests), "transcript_lines": transcript_lines,
           "attempts": [{"role": a.role, "rejection": a.rejection,
                         "gates": [(g.gate, g.status, g.reason[:160]) for g in a.result.gates] if a.result else None}
                        for a in out.attempts]}
    perf = out.result.gate("performance") if out.result is not None else None
    if perf is not None:
        rec["performance"] = perf.numbers
    results.append(rec)
    print(json.dumps(rec, default=str), flush=True)
Path(out_path).write_text(json.dumps(results, indent=2, default=str))
print("\nrblock  decision      speedup [CI]              attempts (role: failed gate)")
for r in results:
    p = r.get("performance") or {}
    spd = (f"{p['speedup']:.3f}x [{p['ci_low']:.3f}, {p['ci_high']:.3f}]" if p.get("measured") else "not measured")
    tried = "; ".join(f"{a['role']}: " + next((g[0] for g in a["gates"] or [] if g[1] == "fail"), "-")
                      for a in r["attempts"])
    print(f"{r['rblock']:<7} {r['decision']:<13} {spd:<25} {tried}")
