"""How the judge's worker processes start: forked from a server that imported torch and triton once.

Every worker needs torch, Inductor and triton before it can capture a module: about 5 s of CPU per worker,
paid again by each candidate's worker and by each spare.  A multiprocessing *forkserver* imports them once
(:data:`PRELOAD`) and forks each worker from that state.  The server is a clean process of its own: it never
runs a candidate, never initialises CUDA (a forked child may start its own CUDA context), and holds no state of
the parent's beyond what it was started with; each worker is still a process of its own, judged from outside.

Rules:

- What an import reads from the environment (``TRITON_INTERPRET``, ``TORCHINDUCTOR_*``, ...) is read once, in
  the server.  A worker is forked from the server only while those variables (:data:`IMPORT_ENV`) are what they
  were when it started; otherwise it is spawned as a fresh interpreter, as it always was.
- A worker runs under the parent's environment at the time it is started (:func:`run_in_env`), not the server's.
- A worker ignores SIGINT from its first instruction: a Ctrl-C is the parent's to handle (:mod:`.interrupts`).
  The server is started with SIGINT ignored, which its forked children keep.
- A server that cannot start (its Unix socket's path under ``TMPDIR`` too long, say) spawns every worker.
- ``KERNELOPT_WORKER_START=spawn`` spawns every worker (the forkserver needs a POSIX system; elsewhere workers
  are always spawned).

Guarded by ``tests/test_worker_start.py``.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
from multiprocessing import forkserver
from typing import Any, Callable, Iterator

from .backends import prepare
from .interrupts import workers_ignore_interrupts

#: what the server imports before it forks workers (the worker's own :func:`.isolate._preimport` is then cheap),
#: by whether the workers interpret Triton on the CPU.  For a GPU worker only imports that leave CUDA
#: uninitialised: Inductor's import queries the device, and a child forked after that cannot use CUDA
#: (``tests/test_worker_start.py::test_a_gpu_worker_forked_from_the_server_runs_cuda``)
PRELOAD = {True: ["torch", "torch._inductor.compile_fx", "triton"], False: ["torch", "triton"]}
#: environment variables whose values an import may read: a worker forks from the server only while these match
IMPORT_ENV = ("TRITON_", "TORCH", "PYTORCH_", "CUDA_", "KERNELOPT_", "OMP_", "MKL_", "LD_", "PYTHON")

_server_env: dict[str, str] | None = None


def _import_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith(IMPORT_ENV)}


@contextlib.contextmanager
def _environ_as_worker(backend: str) -> Iterator[None]:
    """``os.environ`` as a worker of ``backend`` has it after :func:`.backends.prepare`, restored afterwards."""
    saved = dict(os.environ)
    try:
        prepare(backend)
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def worker_context(backend: str) -> Any:
    """The multiprocessing context to start a worker of ``backend`` with (see the module docstring)."""
    global _server_env
    if (os.environ.get("KERNELOPT_WORKER_START", "").strip() == "spawn"
            or "forkserver" not in mp.get_all_start_methods()):
        return mp.get_context("spawn")
    with _environ_as_worker(backend):
        env = _import_env()
        if _server_env is None:
            if getattr(forkserver._forkserver, "_forkserver_pid", None) is not None:
                return mp.get_context("spawn")  # a server this module did not start: its imports are unknown
            ctx = mp.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD[env.get("TRITON_INTERPRET") == "1"])
            try:
                with workers_ignore_interrupts():  # its children then start with SIGINT ignored, before any code runs
                    forkserver.ensure_running()  # started now, under this environment
            except OSError:  # e.g. a temporary folder too deep for a Unix socket's path: every worker is spawned
                _server_env = {"": "no server"}
                return mp.get_context("spawn")
            _server_env = env
    return mp.get_context("forkserver") if env == _server_env else mp.get_context("spawn")


def run_in_env(env: dict[str, str], target: Callable[..., Any], *args: Any) -> Any:
    """A worker's entry point: SIGINT ignored, the parent's environment in place, then ``target(*args)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if os.environ != env:
        os.environ.clear()
        os.environ.update(env)
    return target(*args)
