"""Judge-CLI test cases run in batches: one subprocess per chunk of cases, each chunk once per test session.

A test module whose cases each run ``python -m pytest_kernelopt.cli ARGV`` asks :class:`ChunkedBatches` for a
case's result instead of starting that process itself.

Rules:

* A group's case keys (the cases of the group the session selected, sorted) are split into chunks of ``size``
  keys.  Every xdist worker selects the same cases, so every worker computes the same chunks.
* A chunk's results live in one file in a directory every process of the test run shares (:func:`shared_dir`).
  The first process that needs a result of the chunk takes the chunk's file lock, checks again, runs the whole
  chunk as ONE batch subprocess, writes the file atomically and releases the lock; any other process waits for
  the lock and reads the file.  Each chunk is computed once per test session, whichever worker asks first.
* The batch subprocess (``python tests/cli_batches.py BATCH_DIR HOOKS_FILE FUNCTION KEY...``) calls
  ``HOOKS_FILE.FUNCTION(child, key)`` for each key in order; that function prepares its case and runs the CLI
  through :meth:`BatchChild.run_cli`, which runs ``pytest_kernelopt.cli`` as ``python -m pytest_kernelopt.cli
  ARGV`` would (runpy, ``__main__``, same argv, working directory and ``sys.path[0]``), captures what the case's
  processes write to file descriptors 1 and 2 (the judge's workers and their children included), and restores
  the environment (but :data:`PROCESS_ENV`), the working directory and the signal handlers afterwards.  Before
  the first case the batch process makes a kernel folder for the CLI's processes (``KERNELOPT_KERNEL_DIR``, see
  :mod:`pytest_kernelopt.kernel_loader`), so every case starts under the same environment and the judge's workers
  fork from one server (:mod:`pytest_kernelopt.worker_start` spawns them when the environment changed); the
  cases of a batch share one working directory, the server's.
* A case's output ends when every process that holds the batch's output files open has ended (the batch process
  and its own children aside: the judge's worker server, multiprocessing's resource tracker), as a subprocess's
  output ends when no process holds its pipes.
* The parent gives each case its own time limit from the moment the batch says it started it; past the limit it
  kills the batch's process group.  A case the batch did not report on (it hung, crashed the batch or came after
  such a case) has no result here (:meth:`ChunkedBatches.result` returns None), and its test runs it alone in a
  subprocess of its own, as it always did: one bad case never fails its chunk-mates, and a hang is still
  reported for the case that hangs.
* A case whose CLI run raised an exception other than SystemExit is reported with exit code 1 and its traceback
  on stderr (what ``python -m`` would show), and the batch stops: the cases after it run alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import queue
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = "KERNELOPT_CLI_BATCH "
#: seconds the batch process may take to start before its first case, and between two cases
STARTUP_S = 120.0
BETWEEN_S = 60.0
#: variables a library sets once in a process, the same in every process, and never again (torch's Inductor sets
#: its cache folder on first use): kept from one case to the next, as each case's own process would have set them
PROCESS_ENV = ("TORCHINDUCTOR_CACHE_DIR",)


def shared_dir(tmp_path_factory: Any) -> Path:
    """A directory every process of this test run shares: under xdist the parent of the worker's basetemp (the
    run's own basetemp, pytest-xdist's pattern for work done once per session), else the basetemp itself."""
    base = Path(tmp_path_factory.getbasetemp())
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    d = root / "kernelopt-cli-batches"
    d.mkdir(parents=True, exist_ok=True)
    return d


def selected_params(session: Any, test_file: str, function: str, param: str) -> list[Any]:
    """The values of ``param`` of the items of ``function`` in ``test_file`` that this session selected."""
    path = Path(test_file).resolve()
    return [item.callspec.params[param] for item in session.items
            if getattr(item, "originalname", None) == function and Path(str(item.path)).resolve() == path
            and param in getattr(getattr(item, "callspec", None), "params", {})]


# --------------------------------------------------------------------------- the test process's side

class ChunkedBatches:
    """Results of one group of cases, computed a chunk at a time (see the module docstring).

    ``hooks``/``function``: the file and function the batch process calls per case; ``timeouts``: each key's time
    limit in seconds; ``env``: the batch process's environment; ``cwd``: its working directory."""

    def __init__(self, directory: Path, name: str, keys: list[str], size: int, *, hooks: Path, function: str,
                 timeouts: dict[str, float], env: dict[str, str] | None = None, cwd: Path = ROOT) -> None:
        keys = sorted(set(keys))
        self.directory = directory
        self.name = name
        self.chunks = [keys[i:i + size] for i in range(0, len(keys), size)]
        self.chunk_of = {k: i for i, chunk in enumerate(self.chunks) for k in chunk}
        self.hooks, self.function, self.timeouts, self.env, self.cwd = hooks, function, timeouts, env, cwd
        self._loaded: dict[int, dict[str, Any]] = {}

    def _file(self, i: int) -> Path:
        digest = hashlib.sha1("\0".join(self.chunks[i]).encode()).hexdigest()[:12]
        return self.directory / f"{self.name}-{i:03d}-{digest}.json"

    def result(self, key: str) -> Any:
        """``key``'s result from its chunk's batch, or None when the batch did not report on it (or the key is in
        no chunk: a test this session did not select when the chunks were made)."""
        from filelock import FileLock

        if key not in self.chunk_of:
            return None
        i = self.chunk_of[key]
        if i not in self._loaded:
            path = self._file(i)
            if not path.exists():
                with FileLock(str(path) + ".lock"):
                    if not path.exists():
                        results = run_batch(self.hooks, self.function, self.chunks[i],
                                            {k: self.timeouts[k] for k in self.chunks[i]}, env=self.env,
                                            cwd=self.cwd, log=path.with_suffix(".log"), workdir=self.directory)
                        tmp = path.with_suffix(f".tmp{os.getpid()}")
                        tmp.write_text(json.dumps(results))
                        os.replace(tmp, path)
            self._loaded[i] = json.loads(path.read_text())
        return self._loaded[i].get(key)


def run_batch(hooks: Path, function: str, keys: list[str], timeouts: dict[str, float], *,
              env: dict[str, str] | None = None, cwd: Path = ROOT, log: Path | None = None,
              workdir: Path | None = None) -> dict[str, Any]:
    """Run ``keys`` in one batch subprocess; ``{key: result}`` for the keys it reported on.  The batch keeps its
    files (its output, the kernel folder) in a new directory under ``workdir`` (default: the temporary one),
    removed afterwards."""
    batch_dir = tempfile.mkdtemp(prefix="batch-", dir=workdir)
    cmd = [sys.executable, str(Path(__file__).resolve()), batch_dir, str(hooks), function, *keys]
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    lines: queue.Queue[bytes | None] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    results: dict[str, Any] = {}
    other: list[str] = []  # what the batch process printed outside its cases (its own errors)
    deadline = time.monotonic() + STARTUP_S
    running = ""  # the case the batch said it started and has not reported on
    while True:
        try:
            raw = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            other.append(f"[killed: {running or 'the batch'} past its time limit]\n")
            break
        if raw is None:  # the batch is done (or died): what it reported is all there is
            _wait_unreaped(proc.pid, BETWEEN_S)
            break
        line = raw.decode(errors="replace")
        if line.startswith(PROTOCOL):
            kind, _, payload = line[len(PROTOCOL):].partition(" ")
            if kind == "start":
                running = json.loads(payload)
                deadline = time.monotonic() + timeouts[running]
            elif kind == "result":
                key, result = json.loads(payload)
                results[key] = result
                running = ""
                deadline = time.monotonic() + BETWEEN_S
        else:
            other.append(line)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # the batch and whatever of it is left (its pid not reaped yet)
    proc.wait()
    shutil.rmtree(batch_dir, ignore_errors=True)
    if log is not None:
        log.write_text(f"{' '.join(cmd)}\nexit {proc.returncode}; reported {len(results)} of {len(keys)}\n"
                       + "".join(other)[-20000:])
    return results


def _wait_unreaped(pid: int, timeout: float) -> None:
    """Wait up to ``timeout`` seconds for child ``pid`` to exit, leaving it unreaped (its number, and so its
    process group's, cannot be taken by another process meanwhile)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return
        time.sleep(0.05)


# --------------------------------------------------------------------------- the batch process's side

def _ppid(pid: str) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _case_holders(paths: set[str]) -> list[int]:
    """Processes that hold one of ``paths`` open, other than this process and its own children: what the CLI
    keeps here across cases (the judge's worker server, multiprocessing's resource tracker, a compile pool) are
    children of this process, while the judge's workers, and whatever a candidate starts, are not."""
    me = os.getpid()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            for fd in os.scandir(f"/proc/{entry.name}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(fd.path) in paths:
                        if _ppid(entry.name) != me:
                            found.append(int(entry.name))
                        break
        except OSError:  # gone, or not ours to look at
            continue
    return found


class BatchChild:
    """Inside the batch subprocess: file descriptors 1 and 2 go to files of the batch (every process started
    from here inherits them), the protocol to the parent goes to the original stdout."""

    def __init__(self, batch_dir: str) -> None:
        self.protocol = os.fdopen(os.dup(1), "w", buffering=1)
        self.tmp = Path(batch_dir)
        self.kernel_dir = self.tmp / "kernels"
        self.kernel_dir.mkdir()
        os.environ["KERNELOPT_KERNEL_DIR"] = str(self.kernel_dir)  # see the module docstring
        self.files = {}
        for fd, name in ((1, "stdout"), (2, "stderr")):
            path = self.tmp / name
            f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.dup2(f, fd)
            os.close(f)
            self.files[fd] = str(path)
        self.stopped = False  # a case raised inside the CLI: no further case runs here
        self.cwd: str | None = None

    def send(self, kind: str, payload: Any) -> None:
        self.protocol.write(PROTOCOL + kind + " " + json.dumps(payload, ensure_ascii=True) + "\n")
        self.protocol.flush()

    def _flush(self) -> None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()

    def _read(self, fd: int, start: int) -> str:
        with open(self.files[fd], "rb") as f:
            f.seek(start)
            data = f.read()
        # as a text-mode pipe reads it (errors replaced, universal newlines)
        return data.decode(errors="replace").replace("\r\n", "\n").replace("\r", "\n")

    def run_cli(self, argv: list[str], cwd: Path, module: str = "pytest_kernelopt.cli") -> dict[str, Any]:
        """``python -m MODULE *argv`` in this process: exit code, stdout, stderr, seconds."""
        self._flush()
        start = {fd: os.fstat(fd).st_size for fd in self.files}
        if self.cwd is None:
            self.cwd = str(cwd)
        # the judge's worker server keeps the directory it started in, and its workers inherit it
        assert str(cwd) == self.cwd, f"every case of a batch runs in one directory ({self.cwd}), not {cwd}"
        saved_env, saved_cwd, saved_argv, saved_path0 = dict(os.environ), os.getcwd(), sys.argv, sys.path[0]
        saved_signals = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        t0 = time.monotonic()
        rc: int
        try:
            os.chdir(cwd)
            sys.argv = ["kernelopt", *argv]
            sys.path[0] = str(cwd)  # as `python -m` has it (this script's own directory otherwise)
            runpy.run_module(module, run_name="__main__", alter_sys=True)
            rc = 0
        except SystemExit as e:
            if e.code is None or isinstance(e.code, int):
                rc = e.code or 0
            else:  # as the interpreter does: the message on stderr, exit status 1
                print(e.code, file=sys.stderr)
                rc = 1
        except BaseException:
            traceback.print_exc()
            rc = 1
            self.stopped = True
        finally:
            sys.argv = saved_argv
            sys.path[0] = saved_path0
            os.chdir(saved_cwd)
            kept = {k: os.environ[k] for k in PROCESS_ENV if k in os.environ and k not in saved_env}
            os.environ.clear()
            os.environ.update(saved_env)
            os.environ.update(kept)
            for s, handler in saved_signals.items():
                if handler is not None:
                    signal.signal(s, handler)
        self._flush()
        paths = set(self.files.values())
        while _case_holders(paths):  # the case's processes may still write (the parent's time limit ends this)
            time.sleep(0.05)
        out, err = self._read(1, start[1]), self._read(2, start[2])
        return {"rc": rc, "stdout": out, "stderr": err, "seconds": time.monotonic() - t0}


def _load_hooks(path: str) -> Any:
    spec = importlib.util.spec_from_file_location("kernelopt_cli_batch_hooks", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> None:
    batch_dir, hooks, function, *keys = argv
    run_case: Callable[[BatchChild, str], Any] = getattr(_load_hooks(hooks), function)
    child = BatchChild(batch_dir)
    for key in keys:
        child.send("start", key)
        result = run_case(child, key)
        child.send("result", [key, result])
        if child.stopped:
            break


if __name__ == "__main__":
    main(sys.argv[1:])
