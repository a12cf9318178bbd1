"""The versioned kernel cache: accepted kernels a team commits and reviews like code.

Layout (documented for users in ``kernels_cache/README.md``)::

    <root>/v1/<digest[:2]>/<digest>/entry.json     metadata (sorted keys, indent 2)
                                   /kernel.py      the accepted candidate (absent when the baseline is kept)
                                   /baseline_0.py  the replaced Inductor kernel(s), for review
    <root>/retired/<digest>-<stamp>/               entries that failed re-verification
    <root>/.locks/                                 lock files (git-ignored)

Why it is built this way:

* Entries are directories that appear only complete: every file is written
  and fsynced in a temporary sibling directory, which is then renamed into
  place under a per-key file lock.  A reader sees the old entry, no entry, or
  the new entry, never a mix; a crashed writer leaves only a ``.tmp-*``
  directory that lookups ignore and ``prune`` removes.
* Nothing read from disk is trusted: the key is recomputed from the recorded
  key fields, every ``.py`` file is re-hashed against the hash recorded for
  it, and the schema version is checked.  Anything off is a
  :class:`CacheWarning` and a miss (or a :class:`CacheError` in strict mode),
  so a damaged cache costs speed, never correctness.
* Importing this module and constructing :class:`KernelCache` never imports
  torch; only :func:`current_environment` does.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import hashlib
import json
import os
import re
import shutil
import tarfile
import tempfile
import time
import uuid
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from .cache_keys import SCHEMA_VERSION, CacheKey, Environment, current_environment
from .candidate import Candidate
from .errors import KernelOptError
from .gates.results import CascadeResult
from .graph import source_hash
from .jsonio import atomic_write, dumps, fsync_dir, write_json
from .printable import escape

#: what a kept-baseline entry without a ``searched`` record was searched under (every such entry was written by
#: the offline tuner at the default ``min_speedup``)
LEGACY_SEARCHED = {"proposer": "tuner", "model": None, "min_speedup": 1.02, "search_space": 1}
VERSION_DIR = f"v{SCHEMA_VERSION}"
ENTRY_JSON = "entry.json"
KERNEL_FILE = "kernel.py"
RETIRED_DIR = "retired"
LOCKS_DIR = ".locks"
HEADER_END = "# --- end of kernelopt header ---\n"
CONFIGS_LINE = "# Launch configs: "  # kernel.py's header line of the configs as stored (store_accepted writes it)
GITIGNORE = ("# written by pytest-kernelopt: lock files and unfinished writes are never committed\n"
             f"{LOCKS_DIR}/\n.tmp-*\n.old-*\n")
DECISIONS = ("accepted", "baseline_kept")
_DIGEST = re.compile(r"[0-9a-f]{64}")


class CacheWarning(UserWarning):
    """A cache entry was ignored (corrupt, tampered with, or from an unknown schema)."""


class CacheError(KernelOptError):
    """A cache entry is unusable and strict mode is on, or the cache cannot be written.

    Fix: run ``kernelopt cache verify`` to see what is wrong and ``kernelopt
    cache prune`` to remove broken entries (they are re-optimized next run).
    """


class _Bad(Exception):
    """Internal: why an entry directory cannot be trusted."""


# --------------------------------------------------------------------------- files


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _dumps(meta: Mapping[str, Any]) -> str:
    return dumps(meta, sort_keys=True, default=None)


#: the largest file of an entry read (entry.json and kernel sources are kilobytes; 8 MiB is far beyond them)
MAX_FILE_BYTES = 8 << 20


class UnsafeFile(OSError):
    """An entry's file that is not a plain file of bounded size (a symbolic link, a device, a FIFO)."""


def _read_text(path: Path) -> str:
    """A cache file's text: a regular file, not a symbolic link, at most :data:`MAX_FILE_BYTES` (a pull request
    can carry a link to ``/dev/zero``, which an unbounded read turns into a MemoryError, or into a machine out of
    memory; tests/test_cache.py::test_bad_entry_is_a_warning_and_a_miss_or_an_error_when_strict)."""
    import stat

    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    if path.is_symlink():
        raise UnsafeFile(f"{path.name} is a symbolic link (a cache entry holds plain files only)")
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if path.is_symlink():
            raise UnsafeFile(f"{path.name} is a symbolic link (a cache entry holds plain files only)") from None
        raise e
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(f"{path.name} is not a regular file (a cache entry holds plain files only)")
        if st.st_size > MAX_FILE_BYTES:
            raise UnsafeFile(f"{path.name} is {st.st_size} bytes, more than a cache file may be ({MAX_FILE_BYTES})")
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise UnsafeFile(f"{path.name} is more than a cache file may be ({MAX_FILE_BYTES} bytes)")
    return data.decode("utf-8")


def _write_synced(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def _with_header(header: Sequence[str], source: str) -> str:
    return "".join(f"# {_one_line(line)}\n" for line in header) + HEADER_END + source


def _strip_header(text: str, what: str) -> str:
    head, sep, source = text.partition(HEADER_END)
    if not sep:
        raise _Bad(f"{what} has no kernelopt header (the file was edited or replaced)")
    return source


def _what(path: Path) -> str:
    """What is at ``path``, where a plain directory was expected (a link says where it points)."""
    if path.is_symlink():
        return f"a symbolic link to {escape(os.readlink(path))}"
    return "a file" if path.exists() else "missing"


def _baseline_file(i: int) -> str:
    return f"baseline_{i}.py"


# --------------------------------------------------------------------------- entries


def _speedup_record(cascade: CascadeResult | None) -> dict[str, Any] | None:
    """The speedup an accepted entry records: its performance gate's figure, interval and confidence."""
    gate = cascade.gate("performance") if cascade is not None else None
    numbers: Mapping[str, Any] = gate.numbers if gate is not None else {}
    value = numbers.get("speedup")
    if value is None:
        return None
    ci = (numbers["ci_low"], numbers["ci_high"]) if numbers.get("ci_low") is not None and \
        numbers.get("ci_high") is not None else None
    return {"value": float(value), "ci": [float(ci[0]), float(ci[1])] if ci else None,
            "confidence": numbers.get("confidence")}


def _format_speedup(rec: Mapping[str, Any] | None) -> str:
    if not rec or rec.get("value") is None:
        return "not measured"
    text = f"{rec['value']:.3f}x"
    if rec.get("ci"):
        conf = rec.get("confidence")
        label = f"{conf * 100:g}% CI" if isinstance(conf, (int, float)) else "CI"
        text += f" ({label} {rec['ci'][0]:.3f}x-{rec['ci'][1]:.3f}x)"
    return text


class CacheEntry:
    """One verified cache entry, read from disk and checked; holds its file contents in memory.

    Holding the contents (instead of re-reading on demand) means the candidate
    handed out is exactly the one whose hash was checked, even if a writer
    replaces the directory a moment later.
    """

    def __init__(self, path: Path, meta: dict[str, Any], files: dict[str, str]) -> None:
        self.path = path
        self.meta = meta
        self.files = files
        self.key = CacheKey.from_json(meta["key"])

    def __repr__(self) -> str:
        return f"CacheEntry({self.digest[:12]}, {self.decision}, {', '.join(self.kernel_names)})"

    @property
    def digest(self) -> str:
        return self.key.digest

    @property
    def decision(self) -> str:
        return self.meta["decision"]

    @property
    def is_baseline_kept(self) -> bool:
        return self.decision == "baseline_kept"

    @property
    def is_accepted(self) -> bool:
        return self.decision == "accepted"

    @property
    def kernel_names(self) -> tuple[str, ...]:
        return tuple(b["name"] for b in self.meta["baselines"])

    @property
    def problem_id(self) -> str:
        """The test or problem file the entry was recorded from, as the entry says: text to show (escaped, see
        :mod:`pytest_kernelopt.printable`), never a path that is opened (``cache verify`` finds an entry's problem
        by its key among the problem files it is given)."""
        value = self.meta.get("problem_id", "")
        return value if isinstance(value, str) else json.dumps(value)

    @property
    def created(self) -> str:
        return self.meta.get("created", "")

    @property
    def environment(self) -> Environment:
        return Environment.from_json(self.meta["environment"])

    @property
    def cascade(self) -> CascadeResult | None:
        c = self.meta.get("cascade")
        return CascadeResult.from_json(c) if c else None

    @property
    def searched(self) -> dict[str, Any]:
        """For a kept baseline: the conditions its search ran under -- ``proposer`` ("tuner", "agents"),
        ``model`` (the agents' LLM, else None), ``min_speedup`` (the performance gate's bar) and ``search_space``
        (the tuner's :data:`~pytest_kernelopt.tuner.SEARCH_SPACE`; 1 where not recorded).  Entries written
        before these were recorded (and any whose record is malformed) were all searched by the tuner at the
        default bar: :data:`LEGACY_SEARCHED`."""
        rec = self.meta.get("searched")
        if not (isinstance(rec, dict) and isinstance(rec.get("proposer"), str)
                and isinstance(rec.get("min_speedup"), (int, float)) and not isinstance(rec["min_speedup"], bool)
                and rec["min_speedup"] > 0 and isinstance(rec.get("model"), (str, type(None)))):
            return dict(LEGACY_SEARCHED)
        space = rec.get("search_space")
        space = space if isinstance(space, int) and not isinstance(space, bool) and space > 0 else 1
        return {"proposer": rec["proposer"], "model": rec.get("model"), "min_speedup": float(rec["min_speedup"]),
                "search_space": space}

    @property
    def attempts(self) -> list[CascadeResult]:
        """For a kept baseline: the cascade results of the candidates that lost."""
        return [CascadeResult.from_json(a) for a in self.meta.get("attempts", [])]

    @property
    def speedup(self) -> float | None:
        """The recorded speedup (None for an entry keyed to the CPU, where nothing is timed: such a figure was
        not measured by pytest-kernelopt, which writes no CPU entries, and is never shown;
        tests/test_cache.py::test_a_speedup_recorded_under_a_cpu_key_is_never_shown)."""
        rec = self.meta.get("speedup") if self.measured_device else None
        return rec.get("value") if rec else None

    @property
    def speedup_ci(self) -> tuple[float, float] | None:
        rec = self.meta.get("speedup") if self.measured_device else None
        return tuple(rec["ci"]) if rec and rec.get("ci") else None

    @property
    def measured_device(self) -> bool:
        """Whether the entry's device is one where the performance gate measures (a GPU)."""
        return not str(self.key.device).startswith("cpu")

    @property
    def candidate_hash(self) -> str | None:
        cand = self.meta.get("candidate")
        return cand.get("hash") if cand else None

    @property
    def baseline_sources(self) -> dict[str, str]:
        return {b["name"]: _strip_header(self.files[b["file"]], b["file"]) for b in self.meta["baselines"]}

    def below_bar(self, min_speedup: float) -> str | None:
        """Why this accepted entry, measured on a GPU, does not show it clears a run's ``min_speedup``: the lower
        bound of its recorded speedup is below it (an entry accepted by a run with a lower bar), or it records
        none.  None: it does (or it was recorded where nothing is timed)."""
        if not self.is_accepted or not self.measured_device:
            return None
        rec = self.meta.get("speedup")
        ci = rec.get("ci") if isinstance(rec, dict) else None
        low = ci[0] if isinstance(ci, (list, tuple)) and ci and isinstance(ci[0], (int, float)) else None
        if low is None:
            return f"it records no speedup interval, this run's min_speedup is {min_speedup:g}"
        if low >= min_speedup:
            return None
        cascade = self.cascade
        gate = cascade.gate("performance") if cascade is not None else None
        bar = gate.numbers.get("min_speedup") if gate is not None else None
        at = f"accepted at min_speedup {bar:g}, " if isinstance(bar, (int, float)) else ""
        return f"{at}its speedup's lower bound {low:.3f} is below this run's min_speedup {min_speedup:g}"

    def stale_reasons(self, current_env: Environment) -> list[str]:
        """What differs between the recorded environment and ``current_env`` (empty: not stale)."""
        return self.environment.differences(current_env)

    def candidate(self, replaces: Sequence[str] | None = None) -> Candidate:
        """The accepted candidate, checked against its recorded hash.

        Inductor numbers kernels per compile, so the same baseline may be
        called ``..._0`` here and ``..._3`` in another graph; ``replaces``
        renames the candidate to the current names (launch order).
        """
        if not self.is_accepted:
            raise CacheError(f"cache entry {self.digest[:12]} keeps the baseline; it has no candidate kernel")
        source = _strip_header(self.files[KERNEL_FILE], KERNEL_FILE)
        cand = Candidate.from_json({**self.meta["candidate"], "source": source})
        if cand.content_hash != self.candidate_hash:
            raise CacheError(f"cache entry {self.digest[:12]}: kernel does not match its recorded hash")
        if replaces is not None and tuple(replaces) != cand.replaces:
            cand = _renamed(cand, tuple(replaces))
        return cand

    def summary(self) -> str:
        """One line about the entry; its text fields (kernel names, problem id, device) escaped for a terminal."""
        kernels = escape(", ".join(self.kernel_names))
        problem = escape(self.problem_id)
        if self.is_baseline_kept:
            return f"{self.digest[:12]}  baseline kept for {kernels} ({problem})"
        speed = (_format_speedup(self.meta.get("speedup")) if self.measured_device
                 else "no measured speedup (keyed to the CPU, where nothing is timed)")
        return f"{self.digest[:12]}  {kernels}: {speed} on {escape(self.key.device)} ({problem})"


def _renamed(cand: Candidate, names: tuple[str, ...]) -> Candidate:
    if len(names) != len(cand.replaces):
        raise ValueError(f"the entry replaces {len(cand.replaces)} kernel(s), got {len(names)} name(s)")
    mapping = dict(zip(cand.replaces, names))
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(mapping, key=len, reverse=True)) + r")\b")
    source = pattern.sub(lambda m: mapping[m.group(1)], cand.source)
    launch = cand.launch
    if launch is not None:
        args = tuple(mapping[a.split(".", 1)[0]] + "." + a.split(".", 1)[1]
                     if "." in a and a.split(".", 1)[0] in mapping else a for a in launch.args)
        launch = dataclasses.replace(launch, kernel=mapping.get(launch.kernel, launch.kernel), args=args)
    return dataclasses.replace(cand, replaces=names, source=source, launch=launch)


def _read_entry(path: Path, digest: str) -> CacheEntry:
    """Load and check one entry directory; raises :class:`_Bad` saying what is wrong."""
    if path.is_symlink():
        raise _Bad("the entry directory is a symbolic link (a cache entry is a plain directory)")
    try:
        raw = _read_text(path / ENTRY_JSON)
        meta = json.loads(raw)
    except FileNotFoundError:
        raise _Bad(f"{ENTRY_JSON} is missing") from None
    except UnsafeFile as e:
        raise _Bad(str(e)) from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise _Bad(f"{ENTRY_JSON} is not valid JSON ({type(e).__name__}: {e})") from None
    except RecursionError:
        raise _Bad(f"{ENTRY_JSON} nests too deeply to be read as JSON") from None
    if not isinstance(meta, dict):
        raise _Bad(f"{ENTRY_JSON} is not a JSON object")
    version = meta.get("schema_version")
    if version != SCHEMA_VERSION:
        raise _Bad(f"unknown schema version {version!r} (this pytest-kernelopt reads {SCHEMA_VERSION})")
    try:
        key = CacheKey.from_json(meta["key"])
        Environment.from_json(meta["environment"])
        baselines = list(meta["baselines"])
        decision = meta["decision"]
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise _Bad(f"{ENTRY_JSON} lacks or garbles a required field ({type(e).__name__}: {e})") from None
    if key.digest != digest:
        raise _Bad("the recorded key does not hash to this entry's directory name")
    if decision not in DECISIONS:
        raise _Bad(f"unknown decision {decision!r}")
    files: dict[str, str] = {ENTRY_JSON: raw}
    try:
        if [b["hash"] for b in baselines] != list(key.baseline_hashes):
            raise _Bad("the recorded baselines do not match the key")
        for b in baselines:
            files[b["file"]] = text = _read_file(path, b["file"])
            if source_hash(_strip_header(text, b["file"]), b["name"]) != b["hash"]:
                raise _Bad(f"{b['file']} does not match the recorded baseline hash")
        if decision == "accepted":
            files[KERNEL_FILE] = _read_file(path, KERNEL_FILE)
        elif meta.get("candidate") is not None or meta.get("cascade") is not None:
            raise _Bad(f"{ENTRY_JSON}'s decision is {decision!r}, but it records an accepted candidate and its "
                       f"cascade: the decision was edited")
        entry = CacheEntry(path, meta, files)
        if decision == "accepted":
            try:
                cand = entry.candidate()
            except CacheError:
                raise _Bad(_candidate_mismatch(meta, files[KERNEL_FILE])) from None
            if cand.replaces != entry.kernel_names:
                raise _Bad("the candidate's replaced kernels differ from the recorded baselines")
            # the speedup shown (list, show, verify, the pytest summary) is the performance gate's own figure,
            # and that gate passed: a hand-edited figure, or a cascade that did not accept, is refused, each said
            # as what it is (tests/test_cache_cli.py::test_an_accepted_entry_shows_only_its_performance_gates_speedup)
            cascade = entry.cascade
            problem = _unaccepting_cascade(cascade)
            if problem:
                raise _Bad(problem)
            if meta.get("speedup") != _speedup_record(cascade):
                raise _Bad("the recorded speedup is not its performance gate's figure")
        # everything the CLI and the plugin read later must parse now, not crash then
        _ = (entry.cascade, entry.attempts, entry.speedup_ci, _format_speedup(entry.meta.get("speedup")))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise _Bad(f"{ENTRY_JSON} garbles a record ({type(e).__name__}: {e})") from None
    return entry


def _unaccepting_cascade(cascade: CascadeResult | None) -> str:
    """Why an accepted entry's recorded cascade does not show it accepted ('' when it does), naming the record that
    says otherwise: a recorded decision edited away from "accepted" is not a performance gate that failed."""
    if cascade is None:
        return "an accepted entry that records no cascade"
    perf = cascade.gate("performance")
    if perf is None:
        return "an accepted entry whose recorded cascade has no performance gate"
    if not perf.passed:
        return f"an accepted entry whose recorded performance gate did not pass (its status is {perf.status!r})"
    if not cascade.accepted:
        return (f"an accepted entry whose recorded cascade decision is {cascade.decision!r}, not 'accepted' (its "
                f"gates passed: the decision in {ENTRY_JSON} was edited)")
    return ""


def _source_hash(source: str) -> str:
    """The sha256 of a candidate's source as its content hash takes it (stripped), recorded beside that hash so that
    an edit of kernel.py can be told from an edit of entry.json."""
    return hashlib.sha256(source.strip().encode()).hexdigest()


def _candidate_mismatch(meta: Mapping[str, Any], kernel_text: str) -> str:
    """What to say when the candidate's hash fails.  The hash covers kernel.py's source *and* entry.json's configs
    and launch; the entry also records the source's own hash (``candidate.source_hash``) and kernel.py's header the
    configs as written, so the part that changed can be named: kernel.py's source, entry.json's configs, or (the
    source as recorded) entry.json's configs, launch or hash.  Only where neither record tells is the message
    general.  (tests/test_cache_cli.py::test_show_says_which_part_of_an_entry_does_not_match_its_candidate_hash)"""
    general = (f"the candidate ({KERNEL_FILE}'s source with the configs and launch in {ENTRY_JSON}) does not match "
               f"the recorded candidate hash: {KERNEL_FILE}'s source, the configs or launch, or the hash was edited")
    head, _, source = kernel_text.partition(HEADER_END)
    record = meta.get("candidate") or {}
    recorded_source = record.get("source_hash") if isinstance(record, dict) else None
    if isinstance(recorded_source, str) and _source_hash(source) != recorded_source:
        return (f"{KERNEL_FILE} was edited: its source (below the header) no longer matches the source hash "
                f"{ENTRY_JSON} records, so the candidate does not match its recorded hash")
    line = next((ln for ln in head.splitlines() if ln.startswith(CONFIGS_LINE)), None)
    try:
        written = json.loads(line[len(CONFIGS_LINE):]) if line else []
        stored = [dict(c) for c in record.get("configs") or []]
        as_written = Candidate.from_json({**record, "source": source, "configs": written}).content_hash
    except (ValueError, TypeError, AttributeError, KeyError):  # a header or record too garbled to tell: say both
        return general
    if written != stored and as_written == record.get("hash"):
        return (f"the configs in {ENTRY_JSON} were edited (they differ from those {KERNEL_FILE}'s header recorded "
                f"when the entry was written, with which the candidate matches its recorded hash)")
    if isinstance(recorded_source, str):
        return (f"{ENTRY_JSON} was edited: {KERNEL_FILE}'s source is as recorded, but with the configs and launch "
                f"in {ENTRY_JSON} the candidate does not match the recorded candidate hash (the configs, the launch "
                "or the hash was changed)")
    return general


def _read_file(path: Path, name: str) -> str:
    if "/" in name or "\\" in name or name.startswith("."):
        raise _Bad(f"refusing file name {name!r} outside the entry directory")
    try:
        return _read_text(path / name)
    except FileNotFoundError:
        raise _Bad(f"{name} is missing") from None
    except UnsafeFile as e:
        raise _Bad(str(e)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise _Bad(f"{name} cannot be read ({type(e).__name__})") from None


def entry_files(path: Path) -> list[tuple[str, str | None, str]]:
    """What an entry directory holds, read as the loader reads it (plain files of bounded size only), for showing a
    corrupt entry: ``(name, text or None, what it is)`` per file, by name."""
    if path.is_symlink() or not path.is_dir():
        return []
    out: list[tuple[str, str | None, str]] = []
    for child in sorted(path.iterdir(), key=lambda p: p.name):
        try:
            text = _read_text(child)
        except UnsafeFile as e:
            out.append((child.name, None, str(e)))
        except (OSError, UnicodeDecodeError) as e:
            out.append((child.name, None, f"cannot be read ({type(e).__name__})"))
        else:
            out.append((child.name, text, f"{len(text.encode())} bytes"))
    return out


@dataclass(frozen=True)
class ScanResult:
    """One entry directory as :meth:`KernelCache.scan` found it: an entry, or a problem."""

    path: Path
    digest: str
    entry: CacheEntry | None
    problem: str | None


# --------------------------------------------------------------------------- the cache


class KernelCache:
    """A cache directory.  Cheap to construct (no torch, no I/O until used).

    ``strict``: a bad entry raises :class:`CacheError` instead of a
    :class:`CacheWarning` and a miss.
    """

    def __init__(self, root: str | os.PathLike, strict: bool = False, lock_timeout: float = 60.0) -> None:
        self.root = Path(root)
        self.strict = strict
        self.lock_timeout = lock_timeout

    def __repr__(self) -> str:
        return f"KernelCache({str(self.root)!r}, strict={self.strict})"

    # ---- paths and locks

    def entry_dir(self, key: CacheKey | str) -> Path:
        digest = key if isinstance(key, str) else key.digest
        return self.root / VERSION_DIR / digest[:2] / digest

    def _lock(self, digest: str):
        """The key's lock file under ``.locks/``.  Like an entry's files, ``.locks`` and the lock files are plain:
        a symbolic link there (a pull request can commit one) is refused with a :class:`CacheError`, never
        followed (lock files would be created, or truncated, wherever it points)."""
        from filelock import FileLock

        locks = self.root / LOCKS_DIR
        if locks.is_symlink() or (locks.exists() and not locks.is_dir()):
            raise CacheError(f"refusing to lock through {locks}: it is {_what(locks)}, not a plain directory of "
                             "lock files (`kernelopt cache prune` removes a link; it is git-ignored and made anew)")
        locks.mkdir(parents=True, exist_ok=True)
        lock_file = locks / f"{digest}.lock"
        if lock_file.is_symlink():
            raise CacheError(f"refusing to lock {lock_file}: it is {_what(lock_file)}, not a plain lock file; "
                             "delete it")
        return FileLock(str(lock_file), timeout=self.lock_timeout)

    def _locked(self, digest: str, *, reading: bool = False):
        """The key's lock, with a timeout turned into a :class:`CacheError` that says what to do.

        ``reading``: a reader waiting out a writer.  Writers make ``.locks/`` before they write; where it does
        not exist (or is a symbolic link, which no writer locks through) no writer has run, so there is nothing
        to wait for and nothing is created (``list`` and ``verify`` leave a cache they only read as it was).
        """
        from filelock import Timeout

        locks = self.root / LOCKS_DIR
        if reading and (locks.is_symlink() or not locks.is_dir()):
            return contextlib.nullcontext()
        lock = self._lock(digest)
        try:
            return lock.acquire()  # filelock's own context manager: released when the with block ends
        except Timeout:
            raise CacheError(f"timed out after {self.lock_timeout:g}s waiting for {lock.lock_file}; "
                             "another process holds it (delete the file if that process is gone)") from None

    # ---- reading

    def _bad(self, path: Path, reason: str) -> None:
        msg = (f"kernelopt cache: ignoring entry {path}: {reason}. Run `kernelopt cache verify` to inspect "
               "and `kernelopt cache prune` to remove it; the kernel is re-optimized as if uncached.")
        if self.strict:
            raise CacheError(msg)
        warnings.warn(msg, CacheWarning, stacklevel=3)

    def _try_load(self, path: Path, digest: str) -> tuple[CacheEntry | None, str | None]:
        try:
            return _read_entry(path, digest), None
        except _Bad as first:
            problem = str(first)
        # A writer may have been swapping this directory while we read it: read again holding its lock.
        try:
            with self._locked(digest, reading=True):
                if not path.exists():
                    return None, None
                return _read_entry(path, digest), None
        except _Bad as e:
            return None, str(e)
        except (CacheError, OSError):
            return None, problem

    def _present(self, path: Path, digest: str) -> bool:
        """Whether the entry exists, waiting out a writer that is swapping it (moved aside as ``.old-*``)."""
        if path.is_dir():
            return True
        if not path.parent.is_dir():
            return False
        if not any(path.parent.glob(f".old-{digest[:16]}-*")):
            return path.is_dir()
        try:
            with self._locked(digest, reading=True):
                return path.is_dir()
        except (CacheError, OSError):
            return path.is_dir()

    def lookup(self, key: CacheKey) -> CacheEntry | None:
        """The entry for ``key``, or None (absent, or unusable: warned about, or raised in strict mode).

        The entry may be stale (recorded under other versions or another GPU
        of the same kind): check :meth:`CacheEntry.stale_reasons` before
        trusting its speedup.
        """
        path = self.entry_dir(key)
        if not self._present(path, key.digest):
            return None
        entry, problem = self._try_load(path, key.digest)
        if problem is not None:
            self._bad(path, problem)
            return None
        if entry is not None and entry.key != key:
            self._bad(path, "the recorded key differs from the requested one")
            return None
        return entry

    def get(self, digest_prefix: str) -> ScanResult:
        """The entry whose digest starts with ``digest_prefix`` (the CLI's ``show``); KeyError if not one."""
        hits = [s for s in self.scan() if s.digest.startswith(digest_prefix.lower())]
        if len(hits) != 1:
            raise KeyError(f"{len(hits)} cache entries match {digest_prefix!r}")
        return hits[0]

    def _through_link(self, path: Path) -> Path | None:
        """The first symbolic link on the way from the cache's root (itself may be one) down to ``path``."""
        try:
            rel = Path(path).relative_to(self.root)
        except ValueError:
            return Path(path)  # not under the root at all: treated as a link (never followed, never deleted)
        p = self.root
        for part in rel.parts:
            p = p / part
            if p.is_symlink():
                return p
        return None

    def links(self) -> list[Path]:
        """Symbolic links where the cache keeps directories (its top level, ``v1/`` and its prefixes,
        ``retired/``): never followed, neither to read nor to delete (``retired -> ../src`` would have
        ``cache prune`` delete the folders of ``src``:
        tests/test_cache.py::test_prune_never_deletes_through_a_symbolic_link)."""
        out = [self.root / d for d in (VERSION_DIR, RETIRED_DIR, LOCKS_DIR) if (self.root / d).is_symlink()]
        for base in (self.root / VERSION_DIR, self.root / RETIRED_DIR):
            if base.is_dir() and not base.is_symlink():
                out += [p for p in base.iterdir() if p.is_symlink()]
        return sorted(set(out))

    def _entry_dirs(self) -> list[tuple[Path, str]]:
        base = self.root / VERSION_DIR
        if not base.is_dir() or base.is_symlink():
            return []
        out = []
        for prefix in sorted(base.iterdir()):
            if not prefix.is_dir() or prefix.is_symlink() or prefix.name.startswith("."):
                continue
            for d in sorted(prefix.iterdir()):
                if d.is_dir() and _DIGEST.fullmatch(d.name):
                    out.append((d, d.name))
        return out

    def scan(self) -> list[ScanResult]:
        """Every entry directory, usable or not, without warnings (for ``verify``, ``list`` and ``prune``)."""
        out = []
        for path, digest in self._entry_dirs():
            if path.parent.name != digest[:2]:
                out.append(ScanResult(path, digest, None, "entry is in the wrong directory"))
                continue
            entry, problem = self._try_load(path, digest)
            if entry is not None or problem is not None:
                out.append(ScanResult(path, digest, entry, problem))
        return out

    def entries(self) -> Iterator[CacheEntry]:
        """Every usable entry (bad ones are warned about and skipped, or raise in strict mode)."""
        for s in self.scan():
            if s.problem is not None:
                self._bad(s.path, s.problem)
            elif s.entry is not None:
                yield s.entry

    def retired(self) -> list[Path]:
        base = self.root / RETIRED_DIR
        if not base.is_dir() or base.is_symlink():
            return []
        return sorted(p for p in base.iterdir() if p.is_dir() and not p.is_symlink())

    def leftovers(self, min_age: float = 3600.0) -> list[Path]:
        """Temporary directories of writers that died (older than ``min_age`` seconds: live ones are kept)."""
        base = self.root / VERSION_DIR
        if not base.is_dir() or base.is_symlink():
            return []
        cutoff = time.time() - min_age
        out = []
        for p in base.glob("*/.*"):
            if p.name.startswith((".tmp-", ".old-")) and not p.parent.is_symlink():
                with contextlib.suppress(OSError):
                    if p.stat().st_mtime < cutoff:
                        out.append(p)
        return sorted(out)

    # ---- writing

    def _ensure_gitignore(self) -> None:
        path = self.root / ".gitignore"
        if not path.exists():
            atomic_write(path, GITIGNORE)

    def _write_entry(self, digest: str, files: Mapping[str, str]) -> Path:
        """Make the entry directory appear complete, replacing any previous one with the same key."""
        final = self.entry_dir(digest)
        final.parent.mkdir(parents=True, exist_ok=True)
        self._ensure_gitignore()
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{digest[:16]}-", dir=final.parent))
        old: Path | None = None
        try:
            for name, text in files.items():
                if name != ENTRY_JSON:
                    _write_synced(tmp / name, text)
            _write_synced(tmp / ENTRY_JSON, files[ENTRY_JSON])
            os.chmod(tmp, 0o755)
            fsync_dir(tmp)
            with self._locked(digest):
                if final.exists():
                    old = final.parent / f".old-{digest[:16]}-{uuid.uuid4().hex[:8]}"
                    os.rename(final, old)
                try:
                    os.rename(tmp, final)
                except OSError:
                    if old is not None:
                        os.rename(old, final)
                        old = None
                    raise
                fsync_dir(final.parent)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return final

    def _baseline_files(self, key: CacheKey, baselines: Sequence[Any]) -> tuple[list[dict], dict[str, str]]:
        if len(baselines) != len(key.baseline_hashes):
            raise ValueError(f"the key names {len(key.baseline_hashes)} baseline(s), got {len(baselines)}")
        records, files = [], {}
        for i, (b, h) in enumerate(zip(baselines, key.baseline_hashes)):
            if source_hash(b.source, b.name) != h:
                raise ValueError(f"baseline {b.name} does not hash to the key's hash #{i}")
            name = _baseline_file(i)
            records.append({"name": b.name, "hash": h, "file": name})
            files[name] = _with_header(
                [f"Baseline kernel {b.name} as Inductor generated it, kept for review.",
                 f"Normalized sha256 {h} (graph.source_hash); it is part of the cache key."], b.source)
        return records, files

    def store_accepted(self, key: CacheKey, candidate: Candidate, baselines: Sequence[Any], cascade: CascadeResult,
                       *, problem_id: str, environment: Environment | None = None, origin: str | None = None,
                       model: str | None = None, prompt_hash: str | None = None) -> CacheEntry:
        """Record a candidate the cascade accepted in place of ``baselines`` (TritonKernels, launch order).

        The speedup and its interval are the performance gate's numbers (the loader refuses any other).
        Refuses (ValueError) anything that would make the entry inconsistent:
        an unaccepted cascade, a cascade about another candidate, baselines
        that do not match the key or the candidate.
        """
        if not cascade.accepted:
            raise ValueError(f"only accepted candidates are cached (decision {cascade.decision!r})")
        if cascade.candidate_hash != candidate.content_hash:
            raise ValueError("the cascade result is about another candidate (hash differs)")
        if tuple(candidate.replaces) != tuple(b.name for b in baselines):
            raise ValueError(f"candidate replaces {list(candidate.replaces)}, baselines are "
                             f"{[b.name for b in baselines]}")
        records, files = self._baseline_files(key, baselines)
        env = environment or current_environment()
        spd = _speedup_record(cascade)
        found_by = {"origin": origin or candidate.origin, "model": model, "prompt_hash": prompt_hash}
        cand_json = candidate.to_json()
        del cand_json["source"]
        now = _now()
        meta = {"schema_version": SCHEMA_VERSION, "key": key.to_json(), "digest": key.digest, "decision": "accepted",
                "problem_id": problem_id, "baselines": records,
                "candidate": {**cand_json, "hash": candidate.content_hash, "file": KERNEL_FILE,
                              "source_hash": _source_hash(candidate.source)},
                "cascade": cascade.to_json(), "speedup": spd, "found_by": found_by, "environment": env.to_json(),
                "created": now, "updated": now, "history": []}
        gpu = f"{env.gpu_name} ({env.device})" if env.gpu_name else env.device
        replaced = ", ".join(f"{r['name']} (baseline sha256 {r['hash'][:16]})" for r in records)
        header = [f"kernelopt cache entry {key.digest}",
                  f"Replaces: {replaced}",
                  f"Speedup: {_format_speedup(spd)} on {gpu}",
                  f"Found by: {found_by['origin']}" + (f", model {model}" if model else "")
                  + (f", prompt sha256 {prompt_hash[:16]}" if prompt_hash else ""),
                  f"Problem: {problem_id}",
                  *([f"Launch configs: {json.dumps([dict(c) for c in candidate.configs], sort_keys=True)}"]
                    if candidate.configs else []),
                  "Everything below the marker is the accepted candidate verbatim; its sha256 is in entry.json."]
        files[KERNEL_FILE] = _with_header(header, candidate.source)
        files[ENTRY_JSON] = _dumps(meta)
        path = self._write_entry(key.digest, files)
        return CacheEntry(path, meta, files)

    def store_baseline_kept(self, key: CacheKey, baselines: Sequence[Any], *, problem_id: str,
                            attempts: Sequence[CascadeResult] = (), reason: str = "",
                            environment: Environment | None = None,
                            searched: dict[str, Any] | None = None) -> CacheEntry:
        """Record that no candidate beat ``baselines``, so later runs do not search again (unless they would
        search differently: ``searched`` says how this search ran, see :attr:`CacheEntry.searched`)."""
        records, files = self._baseline_files(key, baselines)
        env = environment or current_environment()
        now = _now()
        meta = {"schema_version": SCHEMA_VERSION, "key": key.to_json(), "digest": key.digest,
                "decision": "baseline_kept", "problem_id": problem_id, "baselines": records, "candidate": None,
                "cascade": None, "speedup": None, "reason": reason, "attempts": [a.to_json() for a in attempts],
                "environment": env.to_json(), "created": now, "updated": now, "history": []}
        if searched is not None:
            meta["searched"] = dict(searched)
        files[ENTRY_JSON] = _dumps(meta)
        path = self._write_entry(key.digest, files)
        return CacheEntry(path, meta, files)

    def reaccept(self, entry: CacheEntry, result: Any, environment: Environment) -> CacheEntry:
        """Re-verification passed under ``environment``: refresh the entry, keeping the old record in history."""
        meta = copy.deepcopy(entry.meta)
        now = _now()
        meta["history"] = list(meta.get("history", [])) + [
            {"event": "reverified", "at": now, "previous_environment": meta["environment"],
             "previous_cascade": meta.get("cascade"), "previous_speedup": meta.get("speedup")}]
        meta["environment"] = environment.to_json()
        meta["updated"] = now
        if isinstance(result, CascadeResult):
            if entry.is_accepted:
                meta["cascade"] = result.to_json()
                meta["speedup"] = _speedup_record(result)
            else:
                meta["attempts"] = [result.to_json()]
        files = dict(entry.files)
        files[ENTRY_JSON] = _dumps(meta)
        path = self._write_entry(entry.digest, files)
        return CacheEntry(path, meta, files)

    def retire(self, entry_or_path: CacheEntry | Path, reason: str, result: Any = None) -> Path:
        """Move an entry out of the lookup path into ``retired/`` with a note saying why."""
        path = entry_or_path.path if isinstance(entry_or_path, CacheEntry) else Path(entry_or_path)
        digest = path.name
        dest = self.root / RETIRED_DIR / f"{digest}-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%S')}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        with self._locked(digest):
            os.rename(path, dest)
        note = {"at": _now(), "reason": reason,
                "cascade": result.to_json() if isinstance(result, CascadeResult) else None}
        try:
            meta = json.loads(_read_text(dest / ENTRY_JSON))
        except (OSError, ValueError):
            meta = None
        if isinstance(meta, dict):
            meta["retired"] = note
            write_json(dest / ENTRY_JSON, meta, sort_keys=True, default=None)
        else:
            write_json(dest / "retired.json", note, sort_keys=True, default=None)
        return dest

    def remove(self, path: Path) -> None:
        """Delete an entry (or retired / leftover) directory; entries under their key's lock.  A symbolic link is
        removed itself, never what it points to; nothing is deleted through one (CacheError)."""
        link = self._through_link(path)
        if link is not None and link != Path(path):
            raise CacheError(f"refusing to delete {path}: it lies behind the symbolic link {link}")
        if path.is_symlink():
            path.unlink()
            return
        if _DIGEST.fullmatch(path.name) and path.parent.parent == self.root / VERSION_DIR:
            with self._locked(path.name):
                shutil.rmtree(path, ignore_errors=True)
        else:
            shutil.rmtree(path, ignore_errors=True)

    # ---- export

    def export(self, dest: str | os.PathLike) -> tuple[int, list[ScanResult]]:
        """Write every usable entry to one bundle (``.tar.gz``/``.tgz``: an archive, else JSON).

        Returns (entries exported, the bad entries left out).
        """
        dest = Path(dest)
        scanned = self.scan()
        good = [s.entry for s in scanned if s.entry is not None]
        bad = [s for s in scanned if s.problem is not None]
        if dest.name.endswith((".tar.gz", ".tgz")):
            import io

            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w:gz") as tar:
                for e in good:
                    for name, text in sorted(e.files.items()):
                        data = text.encode("utf-8")
                        info = tarfile.TarInfo(str(e.path.relative_to(self.root) / name))
                        info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
                        tar.addfile(info, io.BytesIO(data))
            atomic_write(dest, buf.getvalue())
        else:
            bundle = {"schema_version": SCHEMA_VERSION, "exported": _now(),
                      "entries": [{"digest": e.digest, "path": str(e.path.relative_to(self.root)),
                                   "metadata": e.meta, "files": {n: t for n, t in e.files.items() if n != ENTRY_JSON}}
                                  for e in good]}
            write_json(dest, bundle, sort_keys=True, default=None)
        return len(good), bad
