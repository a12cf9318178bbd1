"""``kernelopt cache list | show | verify | prune | retire | export``: the cache from a shell or a CI job.

Exit codes are the contract with CI: 0 all good, 1 problems found (corrupt, stale, retired or refused entries,
entries not judged, errors, for ``verify``; a corrupt entry for ``show``), 2 a usage error (bad arguments, an
unknown key).  The lead's ``kernelopt`` entry point wires :func:`add_cache_parser` into its own sub-commands;
:func:`main` runs the cache commands alone.

Rules of what these commands print (tests/test_cache_cli.py and tests/test_cache_reverify.py guard them):

* Every line is one line: text read from an entry (its problem id, kernel names, environment, messages about
  it) is escaped (:func:`pytest_kernelopt.printable.escape`), so no entry can move the cursor, erase a line or
  print a line of its own; ``show --source`` keeps a kernel's newlines and escapes the rest.
* ``verify`` calls an entry ``ok`` only when it was judged here and passed (an accepted entry), or has nothing to
  run (a kept baseline); an entry it could not judge is ``NOT JUDGED``, and fails the run unless
  ``--allow-unjudged`` is given.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

from .cache import KernelCache
from .cache_entry import CacheEntry, CacheError, ScanResult, entry_files
from .cache_keys import Environment, current_environment
from .entry_checks import DEFAULT_TIMEOUT, EntryJudge, NotJudged, allowlist_check_entry, compile_check_entry
from .printable import escape
from .problem_match import configured_problems
from .problems import find_problem_files

Reverify = Callable[[CacheEntry], Any]
DEFAULT_CACHE_DIR = "kernels_cache"


def add_cache_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``cache`` and its sub-commands to an argparse sub-parser set; returns the ``cache`` parser."""
    p = subparsers.add_parser("cache", help="inspect, verify, prune and export the kernel cache",
                              description="Inspect, verify, prune and export the versioned kernel cache.")
    p.add_argument("--cache-dir", default=DEFAULT_CACHE_DIR,
                   help=f"cache directory (default: {DEFAULT_CACHE_DIR}; a relative path is taken from the "
                        "current directory)")
    # repeated on every sub-command so it can follow it; SUPPRESS keeps the value given before it
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--cache-dir", default=argparse.SUPPRESS,
                        help=f"cache directory (default: {DEFAULT_CACHE_DIR}; a relative path is taken from the "
                             "current directory)")
    sub = p.add_subparsers(dest="cache_command", metavar="COMMAND", help="what to do with the cache")

    ls = sub.add_parser("list", parents=[common], help="one line per entry")
    ls.add_argument("--json", action="store_true", help="print the entries' metadata as JSON instead")

    show = sub.add_parser("show", parents=[common], help="one entry's metadata")
    show.add_argument("key", metavar="KEY", help="the entry's digest or a unique prefix of it")
    show.add_argument("--source", action="store_true", help="also print the kernel and baseline sources")

    verify = sub.add_parser("verify", parents=[common],
                            help="check every entry's integrity and staleness, and judge the entries of this "
                                 "machine again on the problems given (exit 1 on problems)",
                            description="Check every entry's integrity and staleness; judge each accepted entry "
                                        "of this machine's device kind again, in a worker process, on the problem "
                                        "file that reproduces its key. An entry's problem_id is shown, never run: "
                                        "its problem is found among the --problems given.")
    verify.add_argument("--any-device", action="store_true",
                        help="also judge entries recorded for another device kind (default: skip them)")
    verify.add_argument("--problems", nargs="+", action="extend", default=None, metavar="PATH",
                        help="problem files, or folders of them, to judge entries on: each entry on the one whose "
                             "captured kernels reproduce its cache key (default: $KERNELOPT_VERIFY_PROBLEMS, paths "
                             "separated by ':'); repeatable")
    verify.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS",
                        help="seconds each problem's import and capture, each judgement and each compile check may "
                             "take; past it, that problem's or that entry's error (default: "
                             f"{DEFAULT_TIMEOUT:g})")
    verify.add_argument("--allow-unjudged", action="store_true",
                        help="exit 0 even when entries could not be judged here (no problem given reproduces "
                             "their key); they are still listed as NOT JUDGED, never as ok")

    prune = sub.add_parser("prune", parents=[common],
                           help="remove corrupt and retired entries and leftovers of interrupted writes")
    prune.add_argument("--stale", action="store_true",
                       help="also remove entries recorded under another environment on this device kind")
    prune.add_argument("--dry-run", action="store_true", help="print what would be removed, remove nothing")

    retire = sub.add_parser("retire", parents=[common],
                            help="move one entry to retired/ with a reason (a win that did not reproduce, say); "
                                 "the next search decides that kernel afresh")
    retire.add_argument("key", metavar="KEY", help="the entry's digest or a unique prefix of it")
    retire.add_argument("--reason", required=True, help="why it is retired (kept in its entry.json)")

    export = sub.add_parser("export", parents=[common], help="write all valid entries to one bundle")
    export.add_argument("path", metavar="PATH", help="output file: .tar.gz/.tgz for an archive, else JSON")
    p.set_defaults(cache_parser=p)
    return p


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _line(text: Any = "", file: Any = None) -> None:
    """Print ``text`` as one line, every control character in it escaped (the module docstring's rule)."""
    print(escape(text), file=file)


def run_cache(args: argparse.Namespace, reverify: Reverify | None = None,
              environment: Environment | None = None, rejudge: Reverify | None = None, judge: Any = None) -> int:
    """Run a parsed ``cache`` command; returns the exit code.

    ``reverify(entry)`` re-runs a stale entry through the gates and returns a
    CascadeResult-like object (``.decision``, ``.accepted``) or None (could not
    re-verify here).  ``rejudge(entry)`` judges a current accepted entry again (gates 1-3, in isolation) and
    returns such an object; it raises :class:`~pytest_kernelopt.entry_checks.NotJudged` where it cannot (and
    None means the same).  ``judge``: an :class:`~pytest_kernelopt.entry_checks.EntryJudge` whose methods stand
    in for the callbacks not given, and whose problem failures count as errors.  Without a ``rejudge``, no
    accepted entry of this machine is judged: each is NOT JUDGED.  ``environment`` defaults to
    :func:`current_environment` (which imports torch); only ``verify`` and ``prune --stale`` need it.
    """
    cache = KernelCache(getattr(args, "cache_dir", DEFAULT_CACHE_DIR))
    command = getattr(args, "cache_command", None)
    if command is None:
        parser = getattr(args, "cache_parser", None)
        if parser is not None:
            parser.print_help(sys.stderr)
        _line("kernelopt cache: choose a command: list, show, verify, prune, retire, export", file=sys.stderr)
        return 2
    if not cache.root.is_dir():  # a mistyped --cache-dir must not pass a CI job as "0 entries"
        _line(f"kernelopt cache {command}: {not_a_cache_dir(cache.root)}", file=sys.stderr)
        return 2
    if command == "list":
        return _list(cache, args.json)
    if command == "show":
        return _show(cache, args.key, args.source)
    if command == "export":
        return _export(cache, args.path)
    if command == "retire":
        return _retire(cache, args.key, args.reason)
    env = environment if environment is not None else _environment_if_needed(cache, command, args)
    if command == "verify":
        if judge is not None:
            reverify = reverify or judge.reverify
            rejudge = rejudge or judge.rejudge
        return _verify(cache, env, reverify, args.any_device, rejudge, judge, args.allow_unjudged)
    if command == "prune":
        return _prune(cache, env, args.stale, args.dry_run)
    _line(f"kernelopt cache: unknown command {command!r}", file=sys.stderr)
    return 2


def not_a_cache_dir(root: Any) -> str:
    """Why ``root`` (not a directory) cannot be the cache, and what to do; also ``kernelopt bench``'s message for a
    --cache-dir that is a file (where a file stood, every entry would be a silent miss and no write could land)."""
    if os.path.exists(root):
        return (f"the cache directory {root} exists but is not a directory; give a directory with --cache-dir "
                "(or move what is there out of the way)")
    return (f"the cache directory {root} does not exist; give the right --cache-dir (a cache is made by the first "
            "run that records a kernel: pytest --kernelopt or kernelopt bench on a GPU)")


def _environment_if_needed(cache: KernelCache, command: str, args: argparse.Namespace) -> Environment | None:
    if command == "prune" and not args.stale:
        return None
    if not (cache.root / "v1").is_dir():
        return None
    return current_environment()


#: ``cache list``'s columns: header, alignment ("<" left, ">" right); the last one is not padded
COLUMNS = (("key", "<"), ("decision", "<"), ("speedup", ">"), ("device", "<"), ("kernels", "<"), ("problem", "<"),
           ("created", "<"))


def _cells(s: ScanResult) -> tuple[str, ...]:
    """One entry's values for :data:`COLUMNS`; a corrupt entry has its key, CORRUPT and what is wrong."""
    if s.entry is None:
        return (s.digest[:12], "CORRUPT", escape(s.problem))
    e = s.entry
    speed = f"{e.speedup:.3f}x" if e.speedup is not None else "-"
    return tuple(escape(c) for c in (e.digest[:12], e.decision, speed, e.key.device, ", ".join(e.kernel_names),
                                     e.problem_id, e.created))


def _widths(rows: list[tuple[str, ...]]) -> list[int]:
    """Each column as wide as its header and its widest value, so the values line up under the headers (kernel
    names and problem ids vary in length by tens of characters).  A corrupt row's message, which runs on past its
    decision column, does not widen the columns it spans."""
    widths = [len(name) for name, _ in COLUMNS]
    for row in rows:
        if len(row) == len(COLUMNS):
            widths = [max(w, len(cell)) for w, cell in zip(widths, row)]
    return widths


def _format(cells: tuple[str, ...], widths: list[int]) -> str:
    """``cells`` padded to ``widths``; a shorter row (a corrupt entry) ends with its last cell unpadded."""
    last = len(cells) - 1
    return "  ".join(cell if i == last else f"{cell:{COLUMNS[i][1]}{widths[i]}}"
                     for i, cell in enumerate(cells)).rstrip()



def _list(cache: KernelCache, as_json: bool) -> int:
    scanned = cache.scan()
    if as_json:
        print(json.dumps([s.entry.meta if s.entry else {"digest": s.digest, "path": str(s.path), "problem": s.problem}
                          for s in scanned], indent=2, sort_keys=True))
        return 0
    if not scanned:
        _line(f"no entries in {cache.root}")
        return 0
    rows = [_cells(s) for s in scanned]
    widths = _widths(rows)
    _line(_format(tuple(name for name, _ in COLUMNS), widths))
    for row in rows:
        _line(_format(row, widths))
    bad = sum(s.problem is not None for s in scanned)
    note = f", {bad} corrupt (run `kernelopt cache verify`)" if bad else ""
    _line(f"{len(scanned)} entries in {cache.root}{note}")
    return 0


def _entry_or_none(cache: KernelCache, key: str, command: str) -> ScanResult | None:
    """The one entry ``key`` names; None (after saying why on stderr) when none or several match."""
    try:
        return cache.get(key)
    except KeyError as e:
        _line(f"kernelopt cache {command}: {e.args[0]} (see `kernelopt cache list`)", file=sys.stderr)
        return None


def _retire(cache: KernelCache, key: str, reason: str) -> int:
    s = _entry_or_none(cache, key, "retire")
    if s is None:
        return 2
    try:
        dest = cache.retire(s.path, reason)
    except CacheError as e:
        _line(f"kernelopt cache retire: {e}", file=sys.stderr)
        return 1
    _line(f"retired {s.path.name[:12]} -> {dest}: {reason}")
    return 0


def _show(cache: KernelCache, key: str, with_source: bool) -> int:
    s = _entry_or_none(cache, key, "show")
    if s is None:
        return 2
    _line(f"path: {s.path}")
    if s.entry is None:
        _line(f"CORRUPT: {s.problem}")
        _show_corrupt(s.path, with_source)
        return 1
    e = s.entry
    _line(e.summary())
    if e.is_accepted and not e.measured_device:
        _line("note: the speedup in this entry's record was not measured by pytest-kernelopt (it writes no entry on "
              "the CPU); it is never shown as a measurement")
    print(escape(json.dumps(e.meta, indent=2, sort_keys=True), lines=True))  # JSON escapes controls; the rest too
    if with_source:
        for name, text in sorted(e.files.items()):
            if name.endswith(".py"):
                _line()
                _line(f"===== {name} =====")
                print(escape(text, lines=True))
    return 0


def _show_corrupt(path: Path, with_source: bool) -> None:
    """A corrupt entry as it is on disk: its files, entry.json's text, and with ``--source`` its kernel files (what
    the loader would read, escaped as every line here is)."""
    files = entry_files(path)
    _line("files: " + (", ".join(f"{name} ({what})" for name, _, what in files) or "none"))
    for name, text, _ in files:
        if text is not None and (name == "entry.json" or (with_source and name.endswith(".py"))):
            _line()
            _line(f"===== {name} (as on disk) =====")
            print(escape(text, lines=True))


#: ``verify``'s statuses, in the order its last line counts them
STATUSES = ("ok", "stale", "corrupt", "refused", "skipped", "reaccepted", "retired", "compiles", "broken",
            "not judged", "errors")


def _verify(cache: KernelCache, env: Environment | None, reverify: Reverify | None, any_device: bool,
            rejudge: Reverify | None = None, judge: Any = None, allow_unjudged: bool = False) -> int:
    scanned = cache.scan()
    counts = dict.fromkeys(STATUSES, 0)
    for link in cache.links():
        counts["corrupt"] += 1
        _line(f"CORRUPT     {link}: a symbolic link to {os.readlink(link)!r}; not followed (a cache holds plain "
              "files and directories; `kernelopt cache prune` removes the link)")
    for s in scanned:
        if s.entry is None:
            counts["corrupt"] += 1
            _line(f"CORRUPT     {s.digest[:12]}  {s.path}: {s.problem}")
            continue
        e = s.entry
        refusal = _allowlist_refusal(e)
        if refusal:
            counts["refused"] += 1
            _line(f"REFUSED     {e.summary()}: {refusal}")
            continue
        if env is None or (e.key.device != env.device and not any_device):
            if e.is_accepted and _compile_checked(e, counts, judge):
                continue
            counts["skipped"] += 1
            _line(f"skipped     {e.digest[:12]}  recorded for {e.key.device}, this machine is "
                  f"{env.device if env else 'unknown'}")
            continue
        reasons = e.stale_reasons(env)
        if not reasons:
            status, why = _rejudged(e, rejudge)
            counts[status] += 1
            label = {"ok": "ok", "refused": "REFUSED", "not judged": "NOT JUDGED", "errors": "ERROR"}[status]
            _line(f"{label:<11} {e.summary()}" + (f": {why}" if why else ""))
            continue
        outcome = _reverify_one(cache, e, env, reverify)
        counts[outcome] += 1
        _line(f"{outcome.upper() if outcome != 'reaccepted' else 're-accepted':<11} {e.summary()}: "
              f"{'; '.join(reasons)}")
    failed_problems = len(getattr(judge, "failures", None) or ())
    counts["errors"] += failed_problems
    _line(f"verify: {len(scanned)} entries: " + ", ".join(f"{v} {k}" for k, v in counts.items())
          + (f" ({failed_problems} of the errors: problems that could not be captured)" if failed_problems else ""))
    problems = sum(counts[k] for k in ("stale", "corrupt", "retired", "broken", "refused", "errors"))
    unjudged = counts["not judged"]
    if problems or (unjudged and not allow_unjudged):
        _line("verify: problems found" + (f"; {unjudged} entries not judged (give the problems that reproduce "
                                          "them with --problems, or pass --allow-unjudged)" if unjudged else "")
              + "; `kernelopt cache prune` removes corrupt and retired entries", file=sys.stderr)
        return 1
    if unjudged:
        _line(f"verify: {unjudged} entries not judged, allowed by --allow-unjudged", file=sys.stderr)
    return 0


def _allowlist_refusal(e: CacheEntry) -> str:
    """Why an accepted entry's kernel is refused by the allowlist ('' when it is not): checked on the source
    alone, before anything of it is loaded, for every entry whatever its device or age."""
    if not e.is_accepted:
        return ""
    try:
        result = allowlist_check_entry(e)
    except Exception as exc:  # noqa: BLE001 -- an entry that cannot even be checked is refused, never passed
        return f"the allowlist check could not run: {type(exc).__name__}: {exc}"
    return "" if result.passed else result.reason


def _rejudged(e: CacheEntry, rejudge: Reverify | None) -> tuple[str, str]:
    """A current entry judged again: its status (ok, refused, not judged, errors) and why.  ``ok`` only for an
    accepted entry that was judged here and passed, or a kept baseline (nothing to run); never for one that
    could not be judged."""
    if not e.is_accepted:
        return "ok", ""
    if rejudge is None:
        return "not judged", "no judge of entries was given"
    try:
        result = rejudge(e)
    except NotJudged as exc:
        return "not judged", str(exc)
    except Exception as exc:  # noqa: BLE001 -- a judgement that cannot run is the entry's error, never a pass
        return "errors", f"could not be judged: {type(exc).__name__}: {exc}"
    if result is None:
        return "not judged", "could not be judged here"
    if getattr(result, "decision", "") in ("verified", "accepted"):
        return "ok", "judged again in isolation"
    return "refused", f"judged again in isolation: {getattr(result, 'reason', '') or result.decision}"


def _compile_checked(e: CacheEntry, counts: dict[str, int], judge: Any = None) -> bool:
    """For an entry of another GPU: run the static gate and compile it for that GPU's architecture here."""
    try:
        result = judge.compile_check(e) if judge is not None else compile_check_entry(e)
    except Exception as exc:  # a check that cannot run says so; it never passes silently
        _line(f"skipped     {e.digest[:12]}  compile check could not run: {type(exc).__name__}: {exc}")
        return False
    if result is None:
        return False
    n = result.numbers
    if result.passed:
        counts["compiles"] += 1
        _line(f"compiles    {e.summary()}: static gate passed, {n.get('configs_compiled')}/{n.get('configs')} "
              f"config(s) compiled for {n.get('compile_target')} here (not run: no such GPU)")
    else:
        counts["broken"] += 1
        _line(f"BROKEN      {e.summary()}: {result.reason}")
    return True


def _reverify_one(cache: KernelCache, e: CacheEntry, env: Environment, reverify: Reverify | None) -> str:
    """Re-run a stale entry: re-accept it when it still wins (or still has no winner), else retire it."""
    if reverify is None:
        return "stale"
    try:
        result = reverify(e)
    except Exception as exc:  # a crashing re-verification leaves the entry as it is, reported
        _line(f"            re-verification of {e.digest[:12]} failed: {type(exc).__name__}: {exc}")
        return "stale"
    if result is None:
        return "stale"
    decision = getattr(result, "decision", "accepted" if getattr(result, "accepted", False) else "rejected")
    if decision == e.decision:
        cache.reaccept(e, result, env)
        return "reaccepted"
    reason = getattr(result, "reason", "") or f"re-verification decided {decision!r}"
    dest = cache.retire(e, f"re-verification under the current environment decided {decision!r}: {reason}", result)
    _line(f"            retired to {dest}")
    return "retired"


def _prune(cache: KernelCache, env: Environment | None, stale: bool, dry_run: bool) -> int:
    doomed: list[tuple[Any, str]] = []
    for s in cache.scan():
        if s.entry is None:
            doomed.append((s.path, f"corrupt: {s.problem}"))
        elif stale and env is not None and s.entry.key.device == env.device and s.entry.stale_reasons(env):
            doomed.append((s.path, "stale: " + "; ".join(s.entry.stale_reasons(env))))
    doomed += [(p, "retired") for p in cache.retired()]
    doomed += [(p, "left by an interrupted write") for p in cache.leftovers()]
    doomed += [(p, "a symbolic link: the link is removed, not what it points to") for p in cache.links()]
    verb = "would remove" if dry_run else "removed"
    for path, why in doomed:
        if not dry_run:
            cache.remove(path)
        _line(f"{verb} {path} ({why})")
    _line(f"prune: {verb} {len(doomed)} item(s)")
    return 0


def _export(cache: KernelCache, path: str) -> int:
    try:
        n, bad = cache.export(path)
    except OSError as e:
        _line(f"kernelopt cache export: cannot write {path}: {e}", file=sys.stderr)
        return 2
    for s in bad:
        _line(f"left out corrupt entry {s.path}: {s.problem}", file=sys.stderr)
    _line(f"exported {n} entries to {path}")
    return 0


def verify_judge(args: argparse.Namespace) -> Any:
    """The :class:`~pytest_kernelopt.entry_checks.EntryJudge` of a parsed ``cache verify`` (None for the other
    commands): the problems it was given (or configured), its time limit.  A problem path that does not exist is a
    usage error (SystemExit 2)."""
    if getattr(args, "cache_command", None) != "verify":
        return None
    try:
        problems = find_problem_files(configured_problems(args.problems))
    except FileNotFoundError as e:
        args.cache_parser.exit(2, f"kernelopt cache verify: --problems: {escape(e)}\n")
    # an entry's files are never problems, whatever folder was given (`--problems .` holds the cache)
    root = Path(getattr(args, "cache_dir", DEFAULT_CACHE_DIR)).resolve()
    outside = [p for p in problems if root not in p.resolve().parents]
    if problems and not outside:
        args.cache_parser.exit(2, "kernelopt cache verify: --problems: no problem files there but the cache's own "
                                  "(the files of the cache are never problems)\n")
    problems = outside
    return EntryJudge(problems, args.timeout or DEFAULT_TIMEOUT, say=_line)


def run_cache_command(args: argparse.Namespace) -> int:
    """A parsed ``cache`` command as the ``kernelopt`` command runs it (``verify`` with its :func:`verify_judge`)."""
    judge = verify_judge(args)
    try:
        return run_cache(args, judge=judge)
    finally:
        if judge is not None:
            judge.close()


def main(argv: list[str] | None = None) -> int:
    """Run ``cache`` commands without the lead's ``kernelopt`` CLI.

    ``python -m pytest_kernelopt.cli_cache cache list`` works before (and
    regardless of) the wiring into ``pytest_kernelopt.cli``.
    """
    parser = argparse.ArgumentParser(prog="kernelopt")
    add_cache_parser(parser.add_subparsers(dest="command", metavar="COMMAND", help="command to run"))
    args = parser.parse_args(argv)
    if args.command != "cache":
        parser.print_help(sys.stderr)
        return 2
    return run_cache_command(args)


if __name__ == "__main__":
    sys.exit(main())
