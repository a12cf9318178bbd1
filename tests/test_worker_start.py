"""Judge workers fork from a server that imported torch once, under the parent's environment and with SIGINT
ignored; a changed import environment, or KERNELOPT_WORKER_START=spawn, spawns them as fresh interpreters."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent('''
    import json, os, signal, sys
    from pytest_kernelopt.worker_start import run_in_env, worker_context

    def probe(conn):
        conn.send({"torch_preloaded": "torch" in sys.modules, "foo": os.environ.get("KOPT_TEST_FOO"),
                   "sigint_ignored": signal.getsignal(signal.SIGINT) == signal.SIG_IGN})

    def start():
        ctx = worker_context("cpu")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=run_in_env, args=(dict(os.environ), probe, child), daemon=True)
        proc.start()
        got = dict(parent.recv(), method=ctx.get_start_method())
        proc.join(60)
        return got

    if __name__ == "__main__":
        out = [start()]
        os.environ["KOPT_TEST_FOO"] = "set after the server started"
        out.append(start())
        os.environ["TORCHINDUCTOR_KOPT_TEST"] = "1"  # read at import time: the server's imports no longer match
        out.append(start())
        print(json.dumps(out))
''')


def _run(tmp_path, **env):
    script = tmp_path / "probe.py"
    script.write_text(SCRIPT)
    base = {k: v for k, v in __import__("os").environ.items() if k != "KERNELOPT_WORKER_START"}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                          env=dict(base, **env))
    assert proc.returncode == 0, proc.stderr[-3000:]
    import json

    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(sys.platform == "win32", reason="no forkserver on Windows: workers are always spawned")
def test_workers_fork_from_a_preloaded_server_under_the_parents_environment(tmp_path):
    first, later, changed = _run(tmp_path)
    assert first == {"torch_preloaded": True, "foo": None, "sigint_ignored": True, "method": "forkserver"}
    # the environment at the worker's start, not the server's
    assert later == {"torch_preloaded": True, "foo": "set after the server started", "sigint_ignored": True,
                     "method": "forkserver"}
    # an import-time variable changed: a fresh interpreter, which imports under it
    assert changed == {"torch_preloaded": False, "foo": "set after the server started", "sigint_ignored": True,
                       "method": "spawn"}


def test_a_server_that_cannot_start_spawns_every_worker(tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)  # past the 108 bytes of a Unix socket's path
    deep.mkdir(parents=True)
    results = _run(tmp_path, TMPDIR=str(deep))
    assert [r["method"] for r in results] == ["spawn"] * 3 and all(r["sigint_ignored"] for r in results)


def test_spawn_is_chosen_by_the_environment_variable(tmp_path):
    results = _run(tmp_path, KERNELOPT_WORKER_START="spawn")
    assert [r["method"] for r in results] == ["spawn"] * 3
    assert not any(r["torch_preloaded"] for r in results) and all(r["sigint_ignored"] for r in results)


GPU_SCRIPT = textwrap.dedent('''
    import os
    from pytest_kernelopt.worker_start import run_in_env, worker_context

    def probe(conn):
        import torch
        conn.send((float((torch.ones(4, device="cuda") * 2).sum()), torch.cuda.is_initialized()))

    if __name__ == "__main__":
        ctx = worker_context("cuda")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=run_in_env, args=(dict(os.environ), probe, child), daemon=True)
        proc.start()
        print(ctx.get_start_method(), *parent.recv())
        proc.join(60)
''')


def test_a_gpu_worker_forked_from_the_server_runs_cuda(tmp_path):
    """The server's imports for GPU workers leave CUDA uninitialised: a forked child starts its own context."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    script = tmp_path / "gpu_probe.py"
    script.write_text(GPU_SCRIPT)
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("KERNELOPT_WORKER_START", "TRITON_INTERPRET")}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split()[-3:] == ["forkserver", "8.0", "True"], proc.stdout + proc.stderr[-3000:]
