"""One entry of the versioned kernel cache: its files on disk, read back checked, and the record it holds.

An entry is a directory of plain files (``entry.json``, ``kernel.py``, ``baseline_<i>.py``; the layout is in
:mod:`pytest_kernelopt.cache`).  Nothing read from disk is trusted: :func:`read_entry` recomputes the key from the
recorded key fields, re-hashes every ``.py`` file against the hash recorded for it, checks the schema version, and
reads plain files of bounded size only (:func:`read_text`); anything off raises :class:`BadEntry`, which the cache
turns into a :class:`CacheWarning` and a miss (or a :class:`CacheError` in strict mode).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping, Sequence

from .cache_keys import SCHEMA_VERSION, CacheKey, Environment
from .candidate import Candidate
from .errors import KernelOptError
from .gates.results import CascadeResult
from .graph import source_hash
from .jsonio import dumps
from .printable import escape

#: what a kept-baseline entry without a ``searched`` record was searched under (every such entry was written by
#: the offline tuner at the default ``min_speedup``)
LEGACY_SEARCHED = {"proposer": "tuner", "model": None, "min_speedup": 1.02, "search_space": 1}
VERSION_DIR = f"v{SCHEMA_VERSION}"
ENTRY_JSON = "entry.json"
KERNEL_FILE = "kernel.py"
HEADER_END = "# --- end of kernelopt header ---\n"
CONFIGS_LINE = "# Launch configs: "  # kernel.py's header line of the configs as stored (store_accepted writes it)
DECISIONS = ("accepted", "baseline_kept")
DIGEST = re.compile(r"[0-9a-f]{64}")


class CacheWarning(UserWarning):
    """A cache entry was ignored (corrupt, tampered with, or from an unknown schema)."""


class CacheError(KernelOptError):
    """A cache entry is unusable and strict mode is on, or the cache cannot be written.

    Fix: run ``kernelopt cache verify`` to see what is wrong and ``kernelopt
    cache prune`` to remove broken entries (they are re-optimized next run).
    """


class BadEntry(Exception):
    """Internal: why an entry directory cannot be trusted."""


# --------------------------------------------------------------------------- files


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def entry_json(meta: Mapping[str, Any]) -> str:
    return dumps(meta, sort_keys=True, default=None)


#: the largest file of an entry read (entry.json and kernel sources are kilobytes; 8 MiB is far beyond them)
MAX_FILE_BYTES = 8 << 20


class UnsafeFile(OSError):
    """An entry's file that is not a plain file of bounded size (a symbolic link, a device, a FIFO)."""


def read_text(path: Path) -> str:
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


def write_synced(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def with_header(header: Sequence[str], source: str) -> str:
    return "".join(f"# {_one_line(line)}\n" for line in header) + HEADER_END + source


def _strip_header(text: str, what: str) -> str:
    head, sep, source = text.partition(HEADER_END)
    if not sep:
        raise BadEntry(f"{what} has no kernelopt header (the file was edited or replaced)")
    return source


def what_is(path: Path) -> str:
    """What is at ``path``, where a plain directory was expected (a link says where it points)."""
    if path.is_symlink():
        return f"a symbolic link to {escape(os.readlink(path))}"
    return "a file" if path.exists() else "missing"


def baseline_file(i: int) -> str:
    return f"baseline_{i}.py"


# --------------------------------------------------------------------------- entries


def speedup_record(cascade: CascadeResult | None) -> dict[str, Any] | None:
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


def format_speedup(rec: Mapping[str, Any] | None) -> str:
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
        speed = (format_speedup(self.meta.get("speedup")) if self.measured_device
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


def read_entry(path: Path, digest: str) -> CacheEntry:
    """Load and check one entry directory; raises :class:`BadEntry` saying what is wrong."""
    if path.is_symlink():
        raise BadEntry("the entry directory is a symbolic link (a cache entry is a plain directory)")
    try:
        raw = read_text(path / ENTRY_JSON)
        meta = json.loads(raw)
    except FileNotFoundError:
        raise BadEntry(f"{ENTRY_JSON} is missing") from None
    except UnsafeFile as e:
        raise BadEntry(str(e)) from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise BadEntry(f"{ENTRY_JSON} is not valid JSON ({type(e).__name__}: {e})") from None
    except RecursionError:
        raise BadEntry(f"{ENTRY_JSON} nests too deeply to be read as JSON") from None
    if not isinstance(meta, dict):
        raise BadEntry(f"{ENTRY_JSON} is not a JSON object")
    version = meta.get("schema_version")
    if version != SCHEMA_VERSION:
        raise BadEntry(f"unknown schema version {version!r} (this pytest-kernelopt reads {SCHEMA_VERSION})")
    try:
        key = CacheKey.from_json(meta["key"])
        Environment.from_json(meta["environment"])
        baselines = list(meta["baselines"])
        decision = meta["decision"]
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise BadEntry(f"{ENTRY_JSON} lacks or garbles a required field ({type(e).__name__}: {e})") from None
    if key.digest != digest:
        raise BadEntry("the recorded key does not hash to this entry's directory name")
    if decision not in DECISIONS:
        raise BadEntry(f"unknown decision {decision!r}")
    files: dict[str, str] = {ENTRY_JSON: raw}
    try:
        if [b["hash"] for b in baselines] != list(key.baseline_hashes):
            raise BadEntry("the recorded baselines do not match the key")
        for b in baselines:
            files[b["file"]] = text = _read_file(path, b["file"])
            if source_hash(_strip_header(text, b["file"]), b["name"]) != b["hash"]:
                raise BadEntry(f"{b['file']} does not match the recorded baseline hash")
        if decision == "accepted":
            files[KERNEL_FILE] = _read_file(path, KERNEL_FILE)
        elif meta.get("candidate") is not None or meta.get("cascade") is not None:
            raise BadEntry(f"{ENTRY_JSON}'s decision is {decision!r}, but it records an accepted candidate and its "
                       f"cascade: the decision was edited")
        entry = CacheEntry(path, meta, files)
        if decision == "accepted":
            try:
                cand = entry.candidate()
            except CacheError:
                raise BadEntry(_candidate_mismatch(meta, files[KERNEL_FILE])) from None
            if cand.replaces != entry.kernel_names:
                raise BadEntry("the candidate's replaced kernels differ from the recorded baselines")
            # the speedup shown (list, show, verify, the pytest summary) is the performance gate's own figure,
            # and that gate passed: a hand-edited figure, or a cascade that did not accept, is refused, each said
            # as what it is (tests/test_cache_cli.py::test_an_accepted_entry_shows_only_its_performance_gates_speedup)
            cascade = entry.cascade
            problem = _unaccepting_cascade(cascade)
            if problem:
                raise BadEntry(problem)
            if meta.get("speedup") != speedup_record(cascade):
                raise BadEntry("the recorded speedup is not its performance gate's figure")
        # everything the CLI and the plugin read later must parse now, not crash then
        _ = (entry.cascade, entry.attempts, entry.speedup_ci, format_speedup(entry.meta.get("speedup")))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise BadEntry(f"{ENTRY_JSON} garbles a record ({type(e).__name__}: {e})") from None
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


def source_digest(source: str) -> str:
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
    if isinstance(recorded_source, str) and source_digest(source) != recorded_source:
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
        raise BadEntry(f"refusing file name {name!r} outside the entry directory")
    try:
        return read_text(path / name)
    except FileNotFoundError:
        raise BadEntry(f"{name} is missing") from None
    except UnsafeFile as e:
        raise BadEntry(str(e)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise BadEntry(f"{name} cannot be read ({type(e).__name__})") from None


def entry_files(path: Path) -> list[tuple[str, str | None, str]]:
    """What an entry directory holds, read as the loader reads it (plain files of bounded size only), for showing a
    corrupt entry: ``(name, text or None, what it is)`` per file, by name."""
    if path.is_symlink() or not path.is_dir():
        return []
    out: list[tuple[str, str | None, str]] = []
    for child in sorted(path.iterdir(), key=lambda p: p.name):
        try:
            text = read_text(child)
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
