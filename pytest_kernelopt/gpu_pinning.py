"""One pytest-xdist worker per GPU: each worker picks its GPU before anything touches CUDA.

Under ``pytest -n N`` every xdist worker (``PYTEST_XDIST_WORKER=gwI``) sets
``CUDA_VISIBLE_DEVICES`` to one GPU of the visible list, so torch, Triton and
the isolated candidate workers it spawns (which inherit the environment) see
that GPU alone, as ``cuda:0``.  The plugin calls :func:`pin_this_worker` from
``pytest_load_initial_conftests`` (before any conftest can import torch) and
again, harmlessly, from ``pytest_configure``.

The visible GPUs, in this order (nothing here initializes CUDA, so
``torch.cuda.device_count()`` is never called):

1. ``CUDA_VISIBLE_DEVICES`` when set (indices, ``GPU-``/``MIG-`` UUIDs): respected as given;
2. ``KERNELOPT_GPUS``: a count (``4`` means ``0,1,2,3``) or a comma list;
3. ``nvidia-smi -L`` (one line per GPU; MIG devices by UUID);
4. none: nothing is pinned (the CPU backend needs no GPU).

Worker ``gwI`` of ``N`` takes GPU ``I mod G``.  Policy when ``N > G``: a GPU
given to two workers is *shared*, and no worker on a shared GPU measures
performance (its backend reports ``measures_time=False``: candidates are
checked for correctness, nothing is accepted for speed, nothing is written to
the cache, and the summary says so), because one worker's kernels would
distort the other's timings.  So nothing ever times on a GPU another worker
uses; ``-n auto`` is set to the GPU count for runs that time (``--kernelopt``,
``--kernelopt-perf``, ``--kernelopt-problems``).  An xdist worker that could
not be pinned (no GPU list found, or ``KERNELOPT_PIN_GPUS=0``) does no timing
either when there are several workers: they may all be on ``cuda:0``.

``KERNELOPT_PIN_GPUS=0`` turns pinning off (tests that need several GPUs
each); mode ``off`` and ``--kernelopt-backend=cpu`` never pin.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, MutableMapping

PIN_ENV = "KERNELOPT_GPU_PIN"  # JSON record of this worker's pin (inherited by its subprocesses)
NO_TIMING_ENV = "KERNELOPT_NO_TIMING"  # set (to the reason) where performance must not be measured
GPUS_ENV = "KERNELOPT_GPUS"
SWITCH_ENV = "KERNELOPT_PIN_GPUS"
_WORKER = re.compile(r"gw(\d+)")
_OFF = ("0", "false", "no", "off")


@dataclass(frozen=True)
class Pin:
    """What one xdist worker was given."""

    worker: str  # gwI
    workers: int  # N
    gpu: str | None  # the CUDA_VISIBLE_DEVICES entry it uses (None: not pinned)
    source: str  # where the GPU list came from (CUDA_VISIBLE_DEVICES, KERNELOPT_GPUS, nvidia-smi -L, none)
    gpus: tuple[str, ...] = ()  # the whole visible list
    names: tuple[str, ...] = ()  # GPU names, when nvidia-smi said them
    shared_with: tuple[str, ...] = field(default=())  # other workers on the same GPU
    run: str = ""  # PYTEST_XDIST_TESTRUNUID: a nested xdist run plans afresh

    @property
    def timing(self) -> bool:
        """Whether this worker may measure performance: it alone uses its GPU."""
        if self.workers <= 1:
            return True
        return self.gpu is not None and not self.shared_with

    def describe(self) -> str:
        if self.gpu is None:
            what = "not pinned" + (f" ({self.source})" if self.source else "")
        else:
            i = self.gpus.index(self.gpu) if self.gpu in self.gpus else -1
            name = f" {self.names[i]}" if 0 <= i < len(self.names) and self.names[i] else ""
            what = f"GPU {self.gpu}{name} (CUDA_VISIBLE_DEVICES={self.gpu}, list from {self.source})"
        if self.shared_with:
            what += f", shared with {', '.join(self.shared_with)}"
        return f"{self.worker}: {what}; " + ("timing on" if self.timing else "no performance timing")

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Pin":
        d = json.loads(text)
        return cls(**{**d, **{k: tuple(d.get(k) or ()) for k in ("gpus", "names", "shared_with")}})


# --------------------------------------------------------------------------- the visible GPUs


Runner = Callable[[list[str]], str]


def _nvidia_smi(argv: list[str]) -> str:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout if proc.returncode == 0 else ""


def parse_nvidia_smi(text: str) -> tuple[list[str], list[str]]:
    """``nvidia-smi -L`` output -> (CUDA_VISIBLE_DEVICES entries, names): GPU indices, or the MIG UUIDs of a
    GPU split into MIG devices (CUDA sees those, not the GPU)."""
    ids: list[str] = []
    names: list[str] = []
    gpu: tuple[str, str] | None = None
    migs: list[str] = []

    def flush() -> None:
        if gpu is not None:
            for m in migs or [gpu[0]]:
                ids.append(m)
                names.append(gpu[1])

    for line in text.splitlines():
        g = re.match(r"\s*GPU (\d+): (.*?)(?: \(UUID: [^)]*\))?\s*$", line)
        m = re.match(r"\s+MIG .*\(UUID: (MIG-[^)]+)\)", line)
        if g:
            flush()
            gpu, migs = (g.group(1), g.group(2)), []
        elif m and gpu is not None:
            migs.append(m.group(1))
    flush()
    return ids, names


def visible_gpus(environ: MutableMapping[str, str] | None = None,
                 run: Runner = _nvidia_smi) -> tuple[list[str], list[str], str]:
    """(GPU list, names where known, where the list came from); never initializes CUDA."""
    env = os.environ if environ is None else environ
    cvd = env.get("CUDA_VISIBLE_DEVICES")
    if cvd is not None:
        ids = [x.strip() for x in cvd.split(",") if x.strip()]
        if ids and ids[0] == "-1":
            ids = []
        return ids, [], "CUDA_VISIBLE_DEVICES"
    given = env.get(GPUS_ENV, "").strip()
    if given:
        if given.isdigit():
            return [str(i) for i in range(int(given))], [], GPUS_ENV
        return [x.strip() for x in given.split(",") if x.strip()], [], GPUS_ENV
    ids, names = parse_nvidia_smi(run(["nvidia-smi", "-L"]))
    return ids, names, ("nvidia-smi -L" if ids else "no GPU found")


# --------------------------------------------------------------------------- the plan


def worker_index(worker: str) -> int | None:
    m = _WORKER.fullmatch(worker or "")
    return int(m.group(1)) if m else None


def plan(worker: str, workers: int, gpus: list[str], source: str, names: list[str] | None = None,
         run: str = "") -> Pin:
    """Worker ``gwI`` of ``workers`` gets ``gpus[I % len(gpus)]``; shared GPUs are named."""
    i = worker_index(worker)
    if i is None or not gpus:
        return Pin(worker, workers, None, source, tuple(gpus), tuple(names or ()), run=run)
    workers = max(workers, i + 1)
    g = len(gpus)
    shared = tuple(f"gw{j}" for j in range(workers) if j != i and j % g == i % g)
    return Pin(worker, workers, gpus[i % g], source, tuple(gpus), tuple(names or ()), shared, run)


def pin_environment(environ: MutableMapping[str, str] | None = None, run: Runner = _nvidia_smi,
                    enabled: bool = True) -> Pin | None:
    """Pin this process if it is an xdist worker; idempotent (a second call returns the first pin).

    Writes ``CUDA_VISIBLE_DEVICES`` (when a GPU was chosen), :data:`PIN_ENV`
    and, where timing is not allowed, :data:`NO_TIMING_ENV`.
    """
    env = os.environ if environ is None else environ
    worker = env.get("PYTEST_XDIST_WORKER", "")
    if worker_index(worker) is None:
        return None
    run_id = env.get("PYTEST_XDIST_TESTRUNUID", "")
    recorded = env.get(PIN_ENV)
    if recorded:
        try:
            pin = Pin.from_json(recorded)
        except (ValueError, TypeError):
            pin = None
        if pin is not None and pin.worker == worker and pin.run == run_id:
            return pin  # this process (or the worker that spawned it) is already pinned
    try:
        workers = int(env.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    except ValueError:
        workers = 1
    if enabled and env.get(SWITCH_ENV, "").strip().lower() not in _OFF:
        gpus, names, source = visible_gpus(env, run)
        pin = plan(worker, workers, gpus, source, names, run_id)
    else:
        pin = Pin(worker, workers, None, f"{SWITCH_ENV}=0" if enabled else "pinning off", run=run_id)
    if pin.gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = pin.gpu
    if pin.timing:
        env.pop(NO_TIMING_ENV, None)
    else:
        env[NO_TIMING_ENV] = (f"xdist worker {worker} shares its GPU with {', '.join(pin.shared_with)}"
                              if pin.shared_with else f"xdist worker {worker} of {pin.workers} is not pinned "
                              "to a GPU of its own")
    env[PIN_ENV] = pin.to_json()
    return pin


def current_pin(environ: MutableMapping[str, str] | None = None) -> Pin | None:
    env = os.environ if environ is None else environ
    try:
        return Pin.from_json(env[PIN_ENV]) if env.get(PIN_ENV) else None
    except (ValueError, TypeError):
        return None


def current_pin_json(environ: MutableMapping[str, str] | None = None) -> str:
    """This worker's pin as recorded in the environment ('' when not an xdist worker)."""
    env = os.environ if environ is None else environ
    return env.get(PIN_ENV, "") if env.get("PYTEST_XDIST_WORKER") else ""


def timing_refused(environ: MutableMapping[str, str] | None = None) -> str | None:
    """Why this process must not measure performance (the backend reads it), or None."""
    env = os.environ if environ is None else environ
    return env.get(NO_TIMING_ENV) or None


# --------------------------------------------------------------------------- pytest glue


def _known(config: Any, option: str) -> Any:
    """An option's value early (pytest's known args, before conftests load), else the parsed option."""
    ns = getattr(config, "known_args_namespace", None) or getattr(config, "option", None)
    return getattr(ns, option, None)


def _ini(config: Any, name: str) -> Any:
    try:
        return config.getini(name) or None
    except (ValueError, KeyError):
        return None


def kernelopt_mode(config: Any) -> tuple[str, str, bool]:
    """(mode, backend, times): what this run will do, read early enough to pin (same precedence as the
    settings: ini < --kernelopt < --kernelopt-mode)."""
    mode = (_known(config, "kernelopt_mode") or ("optimize" if _known(config, "kernelopt") else None)
            or _ini(config, "kernelopt_mode") or "verify")
    backend = _known(config, "kernelopt_backend") or _ini(config, "kernelopt_backend") or "auto"
    perf = bool(_known(config, "kernelopt_perf")) or str(_ini(config, "kernelopt_perf") or "").lower() in (
        "1", "true", "yes", "on")
    problems = bool(_known(config, "kernelopt_problems"))
    return str(mode), str(backend), mode == "optimize" or perf or problems


def pin_this_worker(config: Any) -> Pin | None:
    """The plugin's call: pin an xdist worker unless the run is off or on the CPU backend."""
    mode, backend, _ = kernelopt_mode(config)
    return pin_environment(enabled=mode != "off" and backend != "cpu")


def auto_workers(config: Any, environ: MutableMapping[str, str] | None = None,
                 run: Runner = _nvidia_smi) -> int | None:
    """``-n auto`` for a run that times: one worker per GPU; None leaves xdist's own choice."""
    env = os.environ if environ is None else environ
    if env.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or env.get(SWITCH_ENV, "").strip().lower() in _OFF:
        return None
    mode, backend, times = kernelopt_mode(config)
    if mode == "off" or backend == "cpu" or not times:
        return None
    gpus, _, _ = visible_gpus(env, run)
    return len(gpus) or None


def summary_lines(pins: list[Pin]) -> list[str]:
    """The terminal summary's lines: which GPU each worker used, and the sharing policy where it applied."""
    if not pins or not any(p.gpus for p in pins):
        return []  # no GPU on this machine: the run's own lines say performance was not measured
    pins = sorted(pins, key=lambda p: worker_index(p.worker) or 0)
    lines = ["GPU per xdist worker: " + ", ".join(
        f"{p.worker} -> " + (f"GPU {p.gpu}" if p.gpu is not None else "not pinned") + ("" if p.timing else
                                                                                      " (no timing)")
        for p in pins)]
    lines += [f"  {p.describe()}" for p in pins]
    untimed = [p.worker for p in pins if not p.timing]
    if untimed:
        gpus = len(pins[0].gpus)
        lines.append(f"{len(untimed)} worker(s) measured no performance: a GPU shared by two workers is never "
                     f"timed on (use -n {gpus} for {gpus} GPU(s))" if gpus else
                     f"{len(untimed)} worker(s) measured no performance: no GPU of their own was found (set "
                     f"CUDA_VISIBLE_DEVICES or {GPUS_ENV})")
    return lines
