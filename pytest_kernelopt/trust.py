"""Which cached kernels this machine has already judged in isolation (so verify mode may re-check them in-process).

A cache entry is untrusted input: a pull request can put any ``kernel.py`` in
``kernels_cache/``.  Verify mode therefore judges an entry in an isolated
worker (:class:`pytest_kernelopt.isolate.IsolatedEvaluator`) the first time
this machine sees it, and only then re-checks it in the test process and
applies it.  The decision is recorded here, outside the repository, so no
commit can forge it: a file named by the sha256 of

* the candidate's content hash (its source, configs and launch, exactly),
* this environment (torch, triton, CUDA, GPU name and architecture), and
* where it was judged: the cache key it is served under (the baseline kernels it replaces, the input shapes and
  dtypes, the device, the compile mode), the problem (the test or problem file), a digest of the module's
  state (parameters, buffers, tensor attributes: :func:`state_digest`), and what the gates held it to (the
  correctness settings, this pytest-kernelopt's version and a digest of the gates' code: :func:`gate_settings`),

written after the isolated judgement passed.  A kernel judged for one entry is not trusted for another: the
same body-only source may sit under two keys, and be correct at one input size only (a kernel judged on
32 x 64 inputs, served for 64 x 128 after a one-seed re-check, can be wrong there); nor for other weights under
the same test, nor after a judgement under weaker settings (a kernel wrong only where a weight is negative, judged
with weights >= 0.5, served for weights in [-1.5, 1.5]; one judged with ``seeds=1`` served to a 5-seed run).
Guarded by tests/test_cache_served.py::test_trust_is_per_cache_key_and_problem.  The folder is
``$KERNELOPT_TRUST_DIR``, else ``$XDG_CACHE_HOME/pytest-kernelopt/trusted``
(``~/.cache/...``).  Deleting it makes every entry go through isolation again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any


def trust_dir() -> Path:
    env = os.environ.get("KERNELOPT_TRUST_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-kernelopt" / "trusted"


#: the settings a correctness verdict depends on (the performance gate's are not: a cached kernel is re-timed)
GATE_FIELDS = ("seeds", "rtol", "atol", "tiny_output_factor", "tiny_rel_tol", "fp64_factor", "fp64_max_gib",
               "training", "compile_mode")


def gate_settings(settings: Any) -> str:
    """The correctness settings, this package's version and the gates' own code (:func:`gates_digest`), as one
    string (part of a trust record's name)."""
    from . import __version__

    return json.dumps({"version": __version__, "gates": gates_digest(),
                       **{f: getattr(settings, f, None) for f in GATE_FIELDS}}, sort_keys=True, default=str)


@functools.cache
def gates_digest() -> str:
    """A digest of the source of the modules that judge (``gates/``, the seeds' and the tuner's rules): a verdict
    of older gates is no verdict of these.  The version number alone can stay the same while the gates change: a
    kernel that older gates verified and today's refuse would still have its record honoured."""
    root = Path(__file__).parent
    files = sorted((root / "gates").glob("*.py")) + [root / "tuner.py", root / "kernel_loader.py"]
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def state_digest(state: Any) -> str:
    """A digest of a module's state: ``{name: tensor}`` (a session's pristine copy), or the module itself (every
    tensor :func:`~pytest_kernelopt.gates.module_state.state_items` finds); names, dtypes, shapes and bits."""
    from .gates.module_state import state_items
    from .gates.trials import digest

    items = state.items() if isinstance(state, dict) else state_items(state)
    parts = sorted((name, str(digest(t, 0, exact=True))) for name, t in items)
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def trust_context(key: Any, problem_id: str, state: str = "", settings: str = "") -> dict[str, str]:
    """Where a kernel is judged: the digest of the cache key it is served under, the problem's id, the module's
    :func:`state_digest` and the :func:`gate_settings`."""
    return {"cache_key": key.digest if hasattr(key, "digest") else str(key), "problem": str(problem_id),
            "state": state, "settings": settings}


def trust_key(candidate: Any, environment: Any, context: dict[str, str]) -> str:
    env = environment.to_json() if hasattr(environment, "to_json") else repr(environment)
    payload = json.dumps({"candidate": candidate.content_hash, "environment": env, "context": context},
                         sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def is_trusted(candidate: Any, environment: Any, context: dict[str, str]) -> bool:
    return (trust_dir() / trust_key(candidate, environment, context)).is_file()


def mark_trusted(candidate: Any, environment: Any, context: dict[str, str], note: str) -> None:
    """Record that ``candidate`` passed an isolated judgement in ``environment`` for ``context`` (best effort: a
    read-only home only means the next run isolates again)."""
    from .jsonio import write_json

    try:
        write_json(trust_dir() / trust_key(candidate, environment, context),
                   {"candidate": candidate.content_hash, "replaces": list(candidate.replaces), **context,
                    "when": time.strftime("%Y-%m-%dT%H:%M:%S"), "note": note}, indent=None, sort_keys=True)
    except OSError:
        pass
