"""``kernelopt cache list | show | verify | prune | retire | export``: the cache from a shell or a CI job.

Exit codes are the contract with CI: 0 all good, 1 problems found (corrupt,
stale or retired entries for ``verify``; a corrupt entry for ``show``), 2 a
usage error (bad arguments, unknown key).  The lead's ``kernelopt`` entry
point wires :func:`add_cache_parser` into its own sub-commands;
:func:`main` runs the cache commands alone.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable

from .cache import CacheEntry, Environment, KernelCache, ScanResult, current_environment

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
                            help="check every entry's integrity and staleness (exit 1 on problems)")
    verify.add_argument("--any-device", action="store_true",
                        help="also judge entries recorded for another device kind (default: skip them)")

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


def run_cache(args: argparse.Namespace, reverify: Reverify | None = None,
              environment: Environment | None = None, rejudge: Reverify | None = None) -> int:
    """Run a parsed ``cache`` command; returns the exit code.

    ``reverify(entry)`` re-runs a stale entry through the gates and returns a
    CascadeResult-like object (``.decision``, ``.accepted``) or None (could not
    re-verify here).  ``rejudge(entry)`` judges a current entry again (gates 1-3,
    in isolation; None: cannot here).  ``environment`` defaults to :func:`current_environment`
    (which imports torch); only ``verify`` and ``prune --stale`` need it.
    """
    cache = KernelCache(getattr(args, "cache_dir", DEFAULT_CACHE_DIR))
    command = getattr(args, "cache_command", None)
    if command is None:
        parser = getattr(args, "cache_parser", None)
        if parser is not None:
            parser.print_help(sys.stderr)
        print("kernelopt cache: choose a command: list, show, verify, prune, retire, export", file=sys.stderr)
        return 2
    if not cache.root.is_dir():  # a mistyped --cache-dir must not pass a CI job as "0 entries"
        print(f"kernelopt cache {command}: {not_a_cache_dir(cache.root)}", file=sys.stderr)
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
        return _verify(cache, env, reverify, args.any_device, rejudge)
    if command == "prune":
        return _prune(cache, env, args.stale, args.dry_run)
    print(f"kernelopt cache: unknown command {command!r}", file=sys.stderr)
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
        return (s.digest[:12], "CORRUPT", str(s.problem))
    e = s.entry
    speed = f"{e.speedup:.3f}x" if e.speedup is not None else "-"
    return (e.digest[:12], e.decision, speed, e.key.device, ", ".join(e.kernel_names), e.problem_id, e.created)


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
        print(f"no entries in {cache.root}")
        return 0
    rows = [_cells(s) for s in scanned]
    widths = _widths(rows)
    print(_format(tuple(name for name, _ in COLUMNS), widths))
    for row in rows:
        print(_format(row, widths))
    bad = sum(s.problem is not None for s in scanned)
    note = f", {bad} corrupt (run `kernelopt cache verify`)" if bad else ""
    print(f"{len(scanned)} entries in {cache.root}{note}")
    return 0


def _entry_or_none(cache: KernelCache, key: str, command: str) -> ScanResult | None:
    """The one entry ``key`` names; None (after saying why on stderr) when none or several match."""
    try:
        return cache.get(key)
    except KeyError as e:
        print(f"kernelopt cache {command}: {e.args[0]} (see `kernelopt cache list`)", file=sys.stderr)
        return None


def _retire(cache: KernelCache, key: str, reason: str) -> int:
    s = _entry_or_none(cache, key, "retire")
    if s is None:
        return 2
    dest = cache.retire(s.path, reason)
    print(f"retired {s.path.name[:12]} -> {dest}: {reason}")
    return 0


def _show(cache: KernelCache, key: str, with_source: bool) -> int:
    s = _entry_or_none(cache, key, "show")
    if s is None:
        return 2
    print(f"path: {s.path}")
    if s.entry is None:
        print(f"CORRUPT: {s.problem}")
        return 1
    e = s.entry
    print(e.summary())
    if e.is_accepted and not e.measured_device:
        print("note: the speedup in this entry's record was not measured by pytest-kernelopt (it writes no entry on "
              "the CPU); it is never shown as a measurement")
    print(json.dumps(e.meta, indent=2, sort_keys=True))
    if with_source:
        for name, text in sorted(e.files.items()):
            if name.endswith(".py"):
                print(f"\n===== {name} =====\n{text}")
    return 0


def _verify(cache: KernelCache, env: Environment | None, reverify: Reverify | None, any_device: bool,
            rejudge: Reverify | None = None) -> int:
    scanned = cache.scan()
    counts = {"ok": 0, "stale": 0, "corrupt": 0, "refused": 0, "skipped": 0, "reaccepted": 0, "retired": 0,
              "compiles": 0, "broken": 0}
    for link in cache.links():
        counts["corrupt"] += 1
        print(f"CORRUPT     {link}: a symbolic link to {os.readlink(link)!r}; not followed (a cache holds plain "
              "files and directories; `kernelopt cache prune` removes the link)")
    for s in scanned:
        if s.entry is None:
            counts["corrupt"] += 1
            print(f"CORRUPT     {s.digest[:12]}  {s.path}: {s.problem}")
            continue
        e = s.entry
        refusal = _allowlist_refusal(e)
        if refusal:
            counts["refused"] += 1
            print(f"REFUSED     {e.summary()}: {refusal}")
            continue
        if env is None or (e.key.device != env.device and not any_device):
            if e.is_accepted and _compile_checked(e, counts):
                continue
            counts["skipped"] += 1
            print(f"skipped     {e.digest[:12]}  recorded for {e.key.device}, this machine is "
                  f"{env.device if env else 'unknown'}")
            continue
        reasons = e.stale_reasons(env)
        if not reasons:
            refusal = _rejudged(e, rejudge)
            if refusal:
                counts["refused"] += 1
                print(f"REFUSED     {e.summary()}: {refusal}")
                continue
            counts["ok"] += 1
            print(f"ok          {e.summary()}")
            continue
        outcome = _reverify_one(cache, e, env, reverify)
        counts[outcome] += 1
        print(f"{outcome.upper() if outcome != 'reaccepted' else 're-accepted':<11} {e.summary()}: "
              f"{'; '.join(reasons)}")
    print(f"verify: {len(scanned)} entries: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    problems = counts["stale"] + counts["corrupt"] + counts["retired"] + counts["broken"] + counts["refused"]
    if problems:
        print("verify: problems found; `kernelopt cache prune` removes corrupt and retired entries", file=sys.stderr)
    return 1 if problems else 0


def _allowlist_refusal(e: CacheEntry) -> str:
    """Why an accepted entry's kernel is refused by the allowlist ('' when it is not): checked on the source
    alone, before anything of it is loaded, for every entry whatever its device or age."""
    if not e.is_accepted:
        return ""
    from .entry_checks import allowlist_check_entry

    try:
        result = allowlist_check_entry(e)
    except Exception as exc:  # noqa: BLE001 -- an entry that cannot even be checked is refused, never passed
        return f"the allowlist check could not run: {type(exc).__name__}: {exc}"
    return "" if result.passed else result.reason


def _rejudged(e: CacheEntry, rejudge: Reverify | None) -> str:
    """Why a current entry failed being judged again ('' when it passed or could not be judged here)."""
    if rejudge is None or not e.is_accepted:
        return ""
    try:
        result = rejudge(e)
    except Exception as exc:  # noqa: BLE001 -- a judgement that cannot run is said, never passed silently
        print(f"            {e.digest[:12]}: could not be judged again here: {type(exc).__name__}: {exc}")
        return ""
    if result is None or getattr(result, "decision", "") in ("verified", "accepted"):
        return ""
    return f"judged again in isolation: {getattr(result, 'reason', '') or result.decision}"


def _compile_checked(e: CacheEntry, counts: dict[str, int]) -> bool:
    """For an entry of another GPU: run the static gate and compile it for that GPU's architecture here."""
    from .entry_checks import compile_check_entry

    try:
        result = compile_check_entry(e)
    except Exception as exc:  # a check that cannot run says so; it never passes silently
        print(f"skipped     {e.digest[:12]}  compile check could not run: {type(exc).__name__}: {exc}")
        return False
    if result is None:
        return False
    n = result.numbers
    if result.passed:
        counts["compiles"] += 1
        print(f"compiles    {e.summary()}: static gate passed, {n.get('configs_compiled')}/{n.get('configs')} "
              f"config(s) compiled for {n.get('compile_target')} here (not run: no such GPU)")
    else:
        counts["broken"] += 1
        print(f"BROKEN      {e.summary()}: {result.reason}")
    return True


def _reverify_one(cache: KernelCache, e: CacheEntry, env: Environment, reverify: Reverify | None) -> str:
    """Re-run a stale entry: re-accept it when it still wins (or still has no winner), else retire it."""
    if reverify is None:
        return "stale"
    try:
        result = reverify(e)
    except Exception as exc:  # a crashing re-verification leaves the entry as it is, reported
        print(f"            re-verification of {e.digest[:12]} failed: {type(exc).__name__}: {exc}")
        return "stale"
    if result is None:
        return "stale"
    decision = getattr(result, "decision", "accepted" if getattr(result, "accepted", False) else "rejected")
    if decision == e.decision:
        cache.reaccept(e, result, env)
        return "reaccepted"
    reason = getattr(result, "reason", "") or f"re-verification decided {decision!r}"
    dest = cache.retire(e, f"re-verification under the current environment decided {decision!r}: {reason}", result)
    print(f"            retired to {dest}")
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
        print(f"{verb} {path} ({why})")
    print(f"prune: {verb} {len(doomed)} item(s)")
    return 0


def _export(cache: KernelCache, path: str) -> int:
    try:
        n, bad = cache.export(path)
    except OSError as e:
        print(f"kernelopt cache export: cannot write {path}: {e}", file=sys.stderr)
        return 2
    for s in bad:
        print(f"left out corrupt entry {s.path}: {s.problem}", file=sys.stderr)
    print(f"exported {n} entries to {path}")
    return 0


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
    from .entry_checks import rejudge_entry, reverify_entry

    return run_cache(args, reverify=reverify_entry, rejudge=rejudge_entry)


if __name__ == "__main__":
    sys.exit(main())
