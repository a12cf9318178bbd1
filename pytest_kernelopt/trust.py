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
  dtypes, the device, the compile mode) and the problem (the test or problem file),

written after the isolated judgement passed.  A kernel judged for one entry is not trusted for another: the
same body-only source may sit under two keys, and be correct at one input size only (red team 15: a kernel
judged on 32 x 64 inputs was served for 64 x 128 after a one-seed re-check, and was wrong there).  The folder is
``$KERNELOPT_TRUST_DIR``, else ``$XDG_CACHE_HOME/pytest-kernelopt/trusted``
(``~/.cache/...``).  Deleting it makes every entry go through isolation again.
"""

from __future__ import annotations

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


def trust_context(key: Any, problem_id: str) -> dict[str, str]:
    """Where a kernel is judged: the digest of the cache key it is served under, and the problem's id."""
    return {"cache_key": key.digest if hasattr(key, "digest") else str(key), "problem": str(problem_id)}


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
