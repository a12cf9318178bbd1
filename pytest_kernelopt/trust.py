"""Which cached kernels this machine has already judged in isolation (so verify mode may re-check them in-process).

A cache entry is untrusted input: a pull request can put any ``kernel.py`` in
``kernels_cache/``.  Verify mode therefore judges an entry in an isolated
worker (:class:`pytest_kernelopt.isolate.IsolatedEvaluator`) the first time
this machine sees it, and only then re-checks it in the test process and
applies it (the re-check has the isolated judge's time limit: :mod:`pytest_kernelopt.time_limit`).
The decision is recorded here, in a file named by the sha256 of

* the candidate's content hash (its source, configs and launch, exactly),
* this environment (torch, triton, CUDA, GPU name and architecture), and
* where it was judged: the cache key it is served under (the baseline kernels it replaces, the input shapes and
  dtypes, the device, the compile mode), the problem (the test or problem file), a digest of the module's
  state (parameters, buffers, tensor attributes: :func:`state_digest`), and what the gates held it to (the
  correctness settings, this pytest-kernelopt's version and a digest of the gates' code: :func:`gate_settings`),

written after the isolated judgement passed.  A kernel judged for one entry is not trusted for another: the
same body-only source may sit under two keys and be correct at one input size only; nor for other weights
under the same test (a kernel wrong only where a weight is negative), nor after a judgement under weaker
settings (fewer seeds, wider tolerances) or by other gates.

No commit can forge a record.  The rules (tests/test_trust.py guards them):

* The folder is ``$KERNELOPT_TRUST_DIR``, else ``$XDG_CACHE_HOME/pytest-kernelopt/trusted`` (``~/.cache/...``).
  It must be an absolute path outside the repository (the git work tree around the current directory): a
  relative path, or one inside the repository, where a pull request can write, is refused -- no record is read or
  written there, and every entry is judged in isolation.
* Each record carries an HMAC (sha256) of its name under this machine's secret, a random key kept in
  ``$KERNELOPT_TRUST_SECRET``, else ``$XDG_CACHE_HOME/pytest-kernelopt/trust-secret`` (made on first use,
  readable by its owner only; the same location rules apply).  A record without a valid HMAC -- computed with
  this package's functions elsewhere, copied from another machine, planted -- is not a record.
* Records and the secret are plain files: a symbolic link, or anything larger than a record, is refused.

Deleting the folder makes every entry go through isolation again.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import secrets
import stat
import time
import warnings
from pathlib import Path
from typing import Any

from . import __version__
from .gates.digests import digest
from .gates.module_state import state_items
from .jsonio import write_json

TRUST_DIR_ENV = "KERNELOPT_TRUST_DIR"
SECRET_ENV = "KERNELOPT_TRUST_SECRET"
#: the most bytes a record (or the secret) may have: a record is a few hundred bytes
MAX_RECORD_BYTES = 1 << 16


class TrustLocationError(ValueError):
    """The trust folder or the secret is somewhere a pull request could write (see the module docstring)."""


def _default_base() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")) / "pytest-kernelopt"


def repository_root(start: Path | None = None) -> Path | None:
    """The git work tree around ``start`` (default: the current directory): the nearest folder holding ``.git``;
    ``None`` outside one."""
    here = Path(start or Path.cwd()).resolve()
    for p in (here, *here.parents):
        if (p / ".git").exists():
            return p
    return None


def _checked(path: str, what: str, env: str) -> Path:
    """``path`` where it may hold trust: absolute and outside :func:`repository_root`; else TrustLocationError."""
    p = Path(path)
    if not p.is_absolute():
        raise TrustLocationError(f"{env}={path!r} is a relative path (taken from the current directory, where a "
                                 f"checked-out pull request may be); the {what} must be an absolute path outside "
                                 "the repository")
    repo = repository_root()
    resolved = p.resolve()
    if repo is not None and (resolved == repo or repo in resolved.parents):
        raise TrustLocationError(f"the {what} {p} is inside the repository {repo} (a pull request can write "
                                 f"there); set {env} to an absolute path outside it")
    return p


def trust_dir() -> Path:
    """The folder of trust records (see the module docstring); TrustLocationError where it is refused."""
    env = os.environ.get(TRUST_DIR_ENV)
    return _checked(env, "trust folder", TRUST_DIR_ENV) if env else \
        _checked(str(_default_base() / "trusted"), "trust folder", "XDG_CACHE_HOME")


def secret_path() -> Path:
    env = os.environ.get(SECRET_ENV)
    return _checked(env, "trust secret", SECRET_ENV) if env else \
        _checked(str(_default_base() / "trust-secret"), "trust secret", "XDG_CACHE_HOME")


def _read_plain(path: Path) -> bytes:
    """A plain file's bytes (no symbolic link, no device, at most :data:`MAX_RECORD_BYTES`); OSError otherwise."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_RECORD_BYTES:
            raise OSError(f"{path} is not a plain file of a trust record's size")
        return f.read(MAX_RECORD_BYTES + 1)


def machine_secret(create: bool = False) -> bytes | None:
    """This machine's secret (None: there is none, and ``create`` is off or it cannot be made)."""
    path = secret_path()
    try:
        data = _read_plain(path).strip()
    except FileNotFoundError:
        if not create:
            return None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileExistsError:  # another process made it meanwhile
            return machine_secret(create=False)
        except OSError:
            return None
        data = secrets.token_hex(32).encode()
        with os.fdopen(fd, "wb") as f:
            f.write(data + b"\n")
        return data
    except OSError:
        return None
    if len(data) != 64 or any(c not in b"0123456789abcdef" for c in data):
        return None
    return data


def _mac(secret: bytes, name: str) -> str:
    return hmac.new(secret, name.encode(), hashlib.sha256).hexdigest()


_warned: set[str] = set()


def _refused(e: TrustLocationError) -> None:
    """Say once per process why no trust record is read or written."""
    msg = f"pytest-kernelopt: no trust record is read or written: {e}; every cache entry is judged in isolation"
    if msg not in _warned:
        _warned.add(msg)
        warnings.warn(msg, UserWarning, stacklevel=3)


#: the settings a correctness verdict depends on (the performance gate's are not: a cached kernel is re-timed)
GATE_FIELDS = ("seeds", "rtol", "atol", "tiny_output_factor", "tiny_rel_tol", "fp64_factor", "fp64_max_gib",
               "training", "compile_mode")


def gate_settings(settings: Any) -> str:
    """The correctness settings, this package's version and the gates' own code (:func:`gates_digest`), as one
    string (part of a trust record's name)."""
    return json.dumps({"version": __version__, "gates": gates_digest(),
                       **{f: getattr(settings, f, None) for f in GATE_FIELDS}}, sort_keys=True, default=str)


#: the modules outside ``gates/`` whose rules a verdict depends on (part of :func:`gates_digest`)
JUDGING_MODULES = ("tuner.py", "kernel_loader.py", "allowlist.py", "launch_space.py", "tensor_layout.py")


@functools.cache
def gates_digest() -> str:
    """A digest of the source of the modules that judge (``gates/``, the seeds' and the tuner's rules, and the
    shared rules the gates apply: the allowlist, the launch-config space, the inputs' layouts): a verdict of older
    gates is no verdict of these (the version number alone does not change with every fix of a gate)."""
    root = Path(__file__).parent
    files = sorted((root / "gates").glob("*.py")) + [root / name for name in JUDGING_MODULES]
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def state_digest(state: Any) -> str:
    """A digest of a module's state: ``{name: tensor}`` (a session's pristine copy), or the module itself (every
    tensor :func:`~pytest_kernelopt.gates.module_state.state_items` finds); names, dtypes, shapes and bits."""
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
    """Whether this machine recorded ``candidate`` as judged in isolation for ``context``: a plain record file
    under :func:`trust_dir` with a valid HMAC under :func:`machine_secret` (see the module docstring)."""
    try:
        folder, secret = trust_dir(), machine_secret()
    except TrustLocationError as e:
        _refused(e)
        return False
    if secret is None:
        return False
    name = trust_key(candidate, environment, context)
    try:
        record = json.loads(_read_plain(folder / name))
    except (OSError, ValueError, RecursionError):
        return False
    mac = record.get("mac") if isinstance(record, dict) else None
    return isinstance(mac, str) and hmac.compare_digest(mac, _mac(secret, name))


def mark_trusted(candidate: Any, environment: Any, context: dict[str, str], note: str) -> None:
    """Record that ``candidate`` passed an isolated judgement in ``environment`` for ``context`` (best effort: a
    read-only home, or a refused location, only means the next run isolates again)."""
    try:
        folder, secret = trust_dir(), machine_secret(create=True)
    except TrustLocationError as e:
        _refused(e)
        return
    if secret is None:
        return
    name = trust_key(candidate, environment, context)
    try:
        write_json(folder / name,
                   {"candidate": candidate.content_hash, "replaces": list(candidate.replaces), **context,
                    "when": time.strftime("%Y-%m-%dT%H:%M:%S"), "note": note, "mac": _mac(secret, name)},
                   indent=None, sort_keys=True)
    except OSError:
        pass
