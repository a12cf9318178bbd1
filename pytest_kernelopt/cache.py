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
  it, and the schema version is checked (:mod:`.cache_entry`).  Anything off is a
  :class:`CacheWarning` and a miss (or a :class:`CacheError` in strict mode),
  so a damaged cache costs speed, never correctness.
* Importing this module and constructing :class:`KernelCache` never imports
  torch; only :func:`.cache_keys.current_environment` does.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import tarfile
import tempfile
import time
import uuid
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from .cache_entry import (
    DIGEST,
    ENTRY_JSON,
    KERNEL_FILE,
    VERSION_DIR,
    BadEntry,
    CacheEntry,
    CacheError,
    CacheWarning,
    ScanResult,
    baseline_file,
    entry_json,
    format_speedup,
    read_entry,
    read_text,
    source_digest,
    speedup_record,
    utc_now,
    what_is,
    with_header,
    write_synced,
)
from .cache_keys import SCHEMA_VERSION, CacheKey, Environment, current_environment
from .candidate import Candidate
from .gates.results import CascadeResult
from .graph import source_hash
from .jsonio import atomic_write, fsync_dir, write_json

RETIRED_DIR = "retired"
LOCKS_DIR = ".locks"
GITIGNORE = ("# written by pytest-kernelopt: lock files and unfinished writes are never committed\n"
             f"{LOCKS_DIR}/\n.tmp-*\n.old-*\n")


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
        self.ignored: list[str] = []  # the unusable entries this object warned about and ignored, with why

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
            raise CacheError(f"refusing to lock through {locks}: it is {what_is(locks)}, not a plain directory of "
                             "lock files (`kernelopt cache prune` removes a link; it is git-ignored and made anew)")
        locks.mkdir(parents=True, exist_ok=True)
        lock_file = locks / f"{digest}.lock"
        if lock_file.is_symlink():
            raise CacheError(f"refusing to lock {lock_file}: it is {what_is(lock_file)}, not a plain lock file; "
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
        fix = "Run `kernelopt cache verify` to inspect it and `kernelopt cache prune` to remove it."
        if self.strict:
            raise CacheError(f"kernelopt cache: entry {path} is unusable: {reason} (a strict cache makes an "
                             f"unusable entry an error). {fix}")
        self.ignored.append(f"{path}: {reason}")
        warnings.warn(f"kernelopt cache: ignoring entry {path}: {reason}; its kernel runs as if it had no entry "
                      f"(a run that searches searches it again). {fix}", CacheWarning, stacklevel=3)

    def _try_load(self, path: Path, digest: str) -> tuple[CacheEntry | None, str | None]:
        try:
            return read_entry(path, digest), None
        except BadEntry as first:
            problem = str(first)
        # A writer may have been swapping this directory while we read it: read again holding its lock.
        try:
            with self._locked(digest, reading=True):
                if not path.exists():
                    return None, None
                return read_entry(path, digest), None
        except BadEntry as e:
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
                if d.is_dir() and DIGEST.fullmatch(d.name):
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
                    write_synced(tmp / name, text)
            write_synced(tmp / ENTRY_JSON, files[ENTRY_JSON])
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
            name = baseline_file(i)
            records.append({"name": b.name, "hash": h, "file": name})
            files[name] = with_header(
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
        spd = speedup_record(cascade)
        found_by = {"origin": origin or candidate.origin, "model": model, "prompt_hash": prompt_hash}
        cand_json = candidate.to_json()
        del cand_json["source"]
        now = utc_now()
        meta = {"schema_version": SCHEMA_VERSION, "key": key.to_json(), "digest": key.digest, "decision": "accepted",
                "problem_id": problem_id, "baselines": records,
                "candidate": {**cand_json, "hash": candidate.content_hash, "file": KERNEL_FILE,
                              "source_hash": source_digest(candidate.source)},
                "cascade": cascade.to_json(), "speedup": spd, "found_by": found_by, "environment": env.to_json(),
                "created": now, "updated": now, "history": []}
        gpu = f"{env.gpu_name} ({env.device})" if env.gpu_name else env.device
        replaced = ", ".join(f"{r['name']} (baseline sha256 {r['hash'][:16]})" for r in records)
        header = [f"kernelopt cache entry {key.digest}",
                  f"Replaces: {replaced}",
                  f"Speedup: {format_speedup(spd)} on {gpu}",
                  f"Found by: {found_by['origin']}" + (f", model {model}" if model else "")
                  + (f", prompt sha256 {prompt_hash[:16]}" if prompt_hash else ""),
                  f"Problem: {problem_id}",
                  *([f"Launch configs: {json.dumps([dict(c) for c in candidate.configs], sort_keys=True)}"]
                    if candidate.configs else []),
                  "Everything below the marker is the accepted candidate verbatim; its sha256 is in entry.json."]
        files[KERNEL_FILE] = with_header(header, candidate.source)
        files[ENTRY_JSON] = entry_json(meta)
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
        now = utc_now()
        meta = {"schema_version": SCHEMA_VERSION, "key": key.to_json(), "digest": key.digest,
                "decision": "baseline_kept", "problem_id": problem_id, "baselines": records, "candidate": None,
                "cascade": None, "speedup": None, "reason": reason, "attempts": [a.to_json() for a in attempts],
                "environment": env.to_json(), "created": now, "updated": now, "history": []}
        if searched is not None:
            meta["searched"] = dict(searched)
        files[ENTRY_JSON] = entry_json(meta)
        path = self._write_entry(key.digest, files)
        return CacheEntry(path, meta, files)

    def reaccept(self, entry: CacheEntry, result: Any, environment: Environment) -> CacheEntry:
        """Re-verification passed under ``environment``: refresh the entry, keeping the old record in history."""
        meta = copy.deepcopy(entry.meta)
        now = utc_now()
        meta["history"] = list(meta.get("history", [])) + [
            {"event": "reverified", "at": now, "previous_environment": meta["environment"],
             "previous_cascade": meta.get("cascade"), "previous_speedup": meta.get("speedup")}]
        meta["environment"] = environment.to_json()
        meta["updated"] = now
        if isinstance(result, CascadeResult):
            if entry.is_accepted:
                meta["cascade"] = result.to_json()
                meta["speedup"] = speedup_record(result)
            else:
                meta["attempts"] = [result.to_json()]
        files = dict(entry.files)
        files[ENTRY_JSON] = entry_json(meta)
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
        note = {"at": utc_now(), "reason": reason,
                "cascade": result.to_json() if isinstance(result, CascadeResult) else None}
        try:
            meta = json.loads(read_text(dest / ENTRY_JSON))
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
        if DIGEST.fullmatch(path.name) and path.parent.parent == self.root / VERSION_DIR:
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
            bundle = {"schema_version": SCHEMA_VERSION, "exported": utc_now(),
                      "entries": [{"digest": e.digest, "path": str(e.path.relative_to(self.root)),
                                   "metadata": e.meta, "files": {n: t for n, t in e.files.items() if n != ENTRY_JSON}}
                                  for e in good]}
            write_json(dest, bundle, sort_keys=True, default=None)
        return len(good), bad
