"""The ``kernelopt`` command: capture, bench (optimize problem files), cache maintenance.

The package's own modules are imported at the top, except :mod:`pytest_kernelopt.workflow` and
:mod:`pytest_kernelopt.bench.command`: they import torch (and Triton), so they stay inside the commands that
need them, after the backend's ``prepare()`` (Triton reads its environment on import), and ``kernelopt
--help`` starts in a fraction of a second.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

from . import __version__
from .backends import prepare, select_backend
from .candidate import Candidate, LaunchSpec
from .capture import capture
from .cli_cache import add_cache_parser, not_a_cache_dir, run_cache_command
from .config import FIELDS, SettingError, Settings, check_extras
from .errors import USER_ERRORS
from .problems import ProblemSpec, build_problem, find_problem_files
from .report import render_outcomes, report_meta, write_json


class UsageError(Exception):
    """A mistake in the command line found after parsing (a missing file, a kernel the problem does not have):
    reported as argparse reports its own, with the subcommand's usage, exit 2.  Exit 1 stays "rejected" (judge)
    or "a problem failed" (bench), so a script can tell a verdict from a typo."""


def usage_error(args: argparse.Namespace, message: str) -> NoReturn:
    """Report ``message`` with the subcommand's usage and exit 2 (SystemExit); ``judge --json`` also prints a JSON
    answer with no decision, as it does when the problem cannot run, so a caller reading stdout gets one."""
    if getattr(args, "json", False) and args.command == "judge":
        import json

        print(json.dumps({"decision": None, "error": message, "problem": str(args.problem)}, indent=2))
    parser: argparse.ArgumentParser = args.parser
    parser.error(message)


def find_problems(paths: list[str]) -> list[Path]:
    """:func:`pytest_kernelopt.problems.find_problem_files`, a path that names no problem file a
    :class:`UsageError`."""
    try:
        return find_problem_files(paths)
    except FileNotFoundError as e:
        raise UsageError(str(e)) from None


def _problem_files(args: argparse.Namespace) -> list[Path]:
    """:func:`find_problems` for a subcommand: a path that names no problem file is a usage error (exit 2)."""
    try:
        return find_problems(args.paths)
    except UsageError as e:
        usage_error(args, str(e))


def _settings(args: argparse.Namespace):
    """The settings a ``kernelopt`` subcommand was given: its flags are made from config.FIELDS (see
    :func:`_add_settings`) and every value is checked there (SettingError naming the flag)."""
    overrides = {name: getattr(args, name) for name in FIELDS if getattr(args, name, None) is not None}
    if args.command == "bench":
        overrides["mode"] = "optimize"
    return Settings().with_overrides(overrides, source="kernelopt option")


#: help texts that differ from config.FIELDS' (written for pytest) where the command behaves otherwise
CLI_HELP = {
    # pytest takes a relative cache_dir from its rootdir (harness.py); the command has none and opens it as given
    "cache_dir": "directory of the versioned kernel cache (a relative path is taken from the current directory)",
}


def _add_settings(p: argparse.ArgumentParser, command: str) -> None:
    """The flags of every setting this subcommand takes (config.FIELDS ``commands``): --<name> VALUE, booleans
    --<name> / --no-<name>; values stay strings here and are parsed and checked by :func:`_settings`."""
    for name, spec in FIELDS.items():
        if command not in spec.commands:
            continue
        flag = name.replace("_", "-")
        names = [f"--{flag}"] + [f"--{a}" for a in spec.aliases]
        text = CLI_HELP.get(name, spec.help)
        if spec.kind is bool:
            p.add_argument(*names, action="store_const", const=True, dest=name, default=None,
                           help=text.replace("%", "%%"))
            p.add_argument(f"--no-{flag}", action="store_const", const=False, dest=name, default=None,
                           help=f"{name} off")
        else:
            p.add_argument(*names, dest=name, default=None, metavar=name.upper(),
                           help=f"{text} ({spec.allowed()}; default {spec.default_text or spec.default})"
                           .replace("%", "%%"))


def _add_common(p: argparse.ArgumentParser, command: str) -> None:
    p.add_argument("paths", nargs="+", help="problem files or directories of them")
    _add_settings(p, command)


def cmd_capture(args: argparse.Namespace) -> int:
    settings = _settings(args)
    prepare(settings.backend)
    backend = select_backend(settings.backend)
    print(f"backend: {backend.description}")
    status = 0
    for path in _problem_files(args):
        try:
            problem = build_problem(ProblemSpec.from_file(path), backend.device)
            cap = capture(problem.module, problem.example_inputs, training=settings.training, backend=backend,
                          mode=settings.torch_compile_mode)
            print(f"\n== {path}\n{cap.summary()}")
            if args.dump:
                out = Path(args.dump) / path.stem
                out.mkdir(parents=True, exist_ok=True)
                for graph in cap.graphs:
                    for name, kernel in graph.kernels.items():
                        (out / f"{name}.py").write_text(kernel.source)
                print(f"kernel sources written to {out}/")
        except BrokenPipeError:
            raise  # the reader went away: not this problem's failure
        except (Exception, SystemExit) as e:  # one bad file does not stop the others
            print(f"\n== {path}\nERROR: {type(e).__name__}: {e}")
            status = 1
    return status


def cmd_bench(args: argparse.Namespace) -> int:
    settings = _settings(args)
    prepare(settings.backend)
    # after prepare(): the workflow imports torch, and Triton reads the backend's environment on import
    from .workflow import choose_proposer, optimize_problem_file, proposer_reason

    backend = select_backend(settings.backend)
    problems = _problem_files(args)
    proposer = choose_proposer(settings)
    print(f"backend: {backend.description}")
    reason = proposer_reason(settings)
    print(f"proposer: {proposer}" + (f"; {reason}" if reason else ""))
    print(f"{len(problems)} problem(s); isolation {'on' if settings.isolate else 'off'}; "
          f"cache {'off' if args.no_cache else settings.cache_dir}")
    if getattr(args, "compare_modes", False):  # ours against eager, default compile and max-autotune
        from .bench.command import run_compare_modes

        try:
            return run_compare_modes(args, settings, backend, problems, proposer)
        except KeyboardInterrupt:  # its JSON is rewritten after each problem: a rerun resumes
            print("kernelopt bench --compare-modes: interrupted; the problems finished are kept in its results "
                  "folder, and a rerun resumes from there", file=sys.stderr)
            return 130
    outcomes: list[Any] = []
    failed: list[dict[str, str]] = []  # problems that did not run to the end, with their error
    interrupted: Path | None = None  # the problem a Ctrl-C stopped

    def report(complete: bool) -> None:
        from dataclasses import asdict

        meta = report_meta("bench", settings.mode, backend.description, complete=complete,
                           interrupted=interrupted is not None, proposer=proposer, problems=len(problems),
                           failed=len(failed))
        write_json(args.report, outcomes, meta, failed=failed, settings=asdict(settings))

    t0 = time.perf_counter()
    try:
        for i, path in enumerate(problems, 1):
            print(f"[{i}/{len(problems)}] {path} ...", flush=True)
            interrupted = path
            try:
                out = optimize_problem_file(path, settings, backend, use_cache=not args.no_cache,
                                            progress=lambda m: print(f"    {m}", flush=True))
                outcomes.append(out)
                kept = sum(k.decision != "accepted" for k in out.kernels)
                speed = f"{out.speedup:.3f}x" if out.measured else "not measured (no GPU)"
                print(f"    done in {out.seconds:.1f}s: {len(out.accepted)} accepted, {kept} kept or verified; "
                      f"module speedup {speed}", flush=True)
            except BrokenPipeError:
                raise  # the reader went away: not this problem's failure
            except (Exception, SystemExit) as e:
                failed.append({"problem": str(path), "error": f"{type(e).__name__}: {e}"})
                print(f"    ERROR: {type(e).__name__}: {e}", flush=True)
            interrupted = None
            if args.report:  # written after every problem, so a run cut off keeps what it measured
                report(False)
    except KeyboardInterrupt:  # Ctrl-C: what finished is shown and kept; the workers ignore it (interrupts.py)
        pass
    print()
    print(render_outcomes(outcomes, backend.description, failed))
    print(f"total {time.perf_counter() - t0:.1f}s")
    if args.report:
        report(not failed and interrupted is None)
        print(f"report written to {args.report}" + (" (incomplete: see \"failed\")" if failed else "")
              + (" (incomplete: interrupted)" if interrupted is not None else ""))
    if interrupted is not None:
        print(f"kernelopt bench: interrupted during {interrupted}; {len(outcomes) + len(failed)} of {len(problems)} "
              "problem(s) finished (shown above" + (", and in the report)" if args.report else ")"), file=sys.stderr)
        return 130  # as a shell reports a run ended by Ctrl-C
    if failed:
        print(f"kernelopt bench: {len(failed)} of {len(problems)} problem(s) failed", file=sys.stderr)
    return 1 if failed else 0


def _read_candidate(args: argparse.Namespace):
    """The candidate a ``kernelopt judge`` call names: a JSON candidate, or a kernel source file."""
    import json

    path = Path(args.candidate)
    if not path.is_file():
        what = " (a directory)" if path.is_dir() else ""
        raise UsageError(f"no such candidate file: {path}{what}; give a kernel source (.py) or a candidate in "
                         "JSON (.json)")
    text = path.read_text(errors="replace")
    if path.suffix == ".json":
        try:
            data = json.loads(text)
            if args.replaces:
                data["replaces"] = args.replaces
            return Candidate.from_json({"origin": "judge", **data})
        except (ValueError, KeyError, TypeError) as e:
            raise UsageError(f"{path} is not a candidate in JSON (an object with replaces, source, configs, "
                             f"launch): {type(e).__name__}: {e}") from None
        except RecursionError:
            raise UsageError(f"{path} nests too deeply to be read as JSON") from None
    if not args.replaces:
        raise UsageError("--replaces KERNEL is required for a kernel source file (`kernelopt capture PROBLEM` "
                         "lists the kernel names)")
    try:
        configs = tuple(json.loads(args.configs)) if args.configs else ()
        launch = LaunchSpec.from_json(json.loads(args.launch)) if args.launch else None
        return Candidate(tuple(args.replaces), text, configs=configs, launch=launch, origin="judge")
    except (ValueError, KeyError, TypeError, RecursionError) as e:
        raise UsageError(f"bad --configs/--launch (JSON: a list of objects, an object): {type(e).__name__}: {e}") \
            from None


def unknown_replaced(names: list[str] | None, graphs: list[Any]) -> str:
    """Why ``--replaces`` ``names`` are not the captured graphs' kernels ('' when every one is), with the names
    that are there: a typo on the command line is the user's, and must not read as a rejected candidate.  A
    name is ``kernel`` or ``g<graph>:kernel``, as the static gate resolves them."""
    known = [(i, n) for i, g in enumerate(graphs) for n in g.kernels]
    valid = {n for _, n in known} | {f"g{i}:{n}" for i, n in known}
    unknown = [n for n in names or () if n not in valid]
    if not unknown:
        return ""
    listed = ", ".join(f"g{i}:{n}" if len(graphs) > 1 else n for i, n in known) or "none"
    return (f"--replaces {' '.join(unknown)}: no such Triton kernel in the captured graph(s) of this problem; "
            f"its kernels are: {listed} (`kernelopt capture PROBLEM` shows them)")


def cmd_judge(args: argparse.Namespace) -> int:
    """Judge one candidate through the four gates on one problem file; exit 0 only if it passed them all."""
    import json
    from dataclasses import replace

    settings = replace(_settings(args), mode="optimize")
    prepare(settings.backend)
    # after prepare(), as in cmd_bench
    from .workflow import make_evaluator

    try:
        candidate = _read_candidate(args)
    except UsageError as e:
        usage_error(args, str(e))
    backend = select_backend(settings.backend)
    print(f"backend: {backend.description}; isolation {'on' if settings.isolate else 'off'}", file=sys.stderr)
    try:
        evaluator = make_evaluator(ProblemSpec.from_file(args.problem), settings, backend)
        try:
            # only names from --replaces: a JSON candidate's own "replaces" is its content, judged (and rejected
            # by the static gate) like the rest of it
            unknown = unknown_replaced(args.replaces, evaluator.graphs)
            result = None if unknown else evaluator.evaluate(candidate)
        finally:
            evaluator.close()
    except USER_ERRORS as e:  # the problem, not the candidate: nothing was judged (exit 2, as for a bad command)
        message = f"{type(e).__name__}: {e}"
        if args.json:
            print(json.dumps({"decision": None, "error": message, "problem": str(args.problem)}, indent=2))
        print(f"kernelopt judge: {args.problem}: the problem could not be run, so nothing was judged: {message}",
              file=sys.stderr)
        return 2
    if result is None:
        usage_error(args, unknown)
    if args.json:
        print(json.dumps(result.to_json(), indent=2, default=str))
    else:
        for g in result.gates:
            # a correctness "pass" beyond tolerance only hands the verdict on: shown as such, not as a pass
            deferred = g.gate == "correctness" and g.status == "pass" and (
                g.numbers.get("within_tolerance") is False or g.numbers.get("special_deferred"))
            print(f"{g.gate:12} {'to fp64' if deferred else g.status:13} {g.reason}")
        print(f"decision: {result.decision}")
    return 0 if result.decision in ("accepted", "verified") else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kernelopt", description=(
        "Make torch.compile'd modules faster without making them wrong: capture Inductor's Triton kernels, "
        "propose replacements (offline tuner or LLM agents), accept only what passes the four gates."), epilog=(
        "exit status: 0 success; 1 a verdict or a finding (judge: rejected; bench, capture: a problem failed; "
        "cache verify: problems found, entries not judged among them; cache show: a corrupt entry); 2 a usage "
        "error (bad arguments or values, a missing file, an unknown kernel or cache key) or, for judge, a problem "
        "that could not run; 130 bench interrupted (Ctrl-C; what finished is kept). `kernelopt COMMAND --help` for "
        "more."))
    parser.add_argument("--version", action="version", version=f"pytest-kernelopt {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("capture", help="compile problem files and print their Triton kernels and vendor calls")
    _add_common(p, "capture")
    p.add_argument("--dump", default=None, metavar="DIR",
                   help="also write each Triton kernel's source to DIR/<problem>/<kernel>.py")
    p.set_defaults(func=cmd_capture, parser=p)

    p = sub.add_parser("bench", help="optimize problem files and print the per-kernel decisions")
    _add_common(p, "bench")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the kernel cache (every kernel is searched afresh, nothing is "
                        "recorded)")
    p.add_argument("--report", default=None, help="write a JSON report to this path")
    p.add_argument("--compare-modes", action="store_true",
                   help="also time eager, compile default, max-autotune-no-cudagraphs and max-autotune + coordinate "
                        "descent against ours, interleaved in this process (GPU; on the CPU: correctness only), "
                        "with compile and search times; JSON, markdown and a PNG chart under --out, resumable")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="--compare-modes: results folder (default benchmarks/results/compare_modes); a rerun "
                        "skips the problems already done there; one GPU a folder (another GPU's run is refused)")
    p.add_argument("--skip-failed", action="store_true",
                   help="--compare-modes: on a rerun, skip the problems recorded as failed too (default: retried)")
    p.add_argument("--stop-after", type=float, default=None, metavar="SECONDS",
                   help="--compare-modes: start no further problem after this many seconds (a rerun resumes)")
    p.add_argument("--redo", action="append", default=None, metavar="NAME[,NAME...]",
                   help="--compare-modes: measure these problems (file stems) again even where they are done in "
                        "--out (their records are replaced); repeatable")
    p.set_defaults(func=cmd_bench, parser=p)

    p = sub.add_parser("judge", help="judge one candidate kernel through the four gates on a problem file "
                                     "(exit 0: verified or accepted, 1: rejected, 2: a usage error or a problem "
                                     "that could not run)",
                       epilog="exit status: 0 verified or accepted; 1 rejected; 2 nothing was judged: a usage error "
                              "(a missing or malformed candidate file, --replaces missing or naming no kernel of "
                              "the problem) or a problem file that could not run")
    p.add_argument("problem", help="a problem file (Model / get_inputs / get_init_inputs)")
    p.add_argument("candidate", help="a kernel source file (.py), or a candidate as JSON "
                                     "({replaces, source, configs, launch})")
    p.add_argument("--replaces", nargs="+", default=None, metavar="KERNEL",
                   help="the Inductor kernel(s) the candidate replaces (see `kernelopt capture`)")
    p.add_argument("--configs", default=None, help="launch configurations as JSON, e.g. '[{\"XBLOCK\": 64, "
                                                   "\"num_warps\": 4}]'")
    p.add_argument("--launch", default=None, help="a LaunchSpec as JSON (kernel, args, grid, num_warps, ...)")
    _add_settings(p, "judge")
    p.add_argument("--json", action="store_true", help="print the whole result (every gate's numbers) as JSON")
    p.set_defaults(func=cmd_judge, parser=p)

    add_cache_parser(sub)
    return parser


def _check_cache_dir(args: argparse.Namespace, cache_dir: str) -> None:
    """A --cache-dir that exists but is no directory is a usage error: the cache would read as empty (every
    lookup a miss) and every write would fail, problem after problem.  One that does not exist yet is fine: the
    first recorded kernel makes it."""
    path = Path(cache_dir)
    if path.exists() and not path.is_dir():
        usage_error(args, not_a_cache_dir(path))


def main(argv: list[str] | None = None) -> int:
    """The ``kernelopt`` command.  Output piped into a reader that stops early (``kernelopt cache list | head``)
    ends the command quietly, as other command-line tools do: exit 141 (128 + SIGPIPE, as a shell reports it), no
    traceback (tests/test_cache_cli.py::test_output_into_a_pipe_closed_early_ends_quietly)."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, not at the interpreter's exit, where a closed pipe is an unhandled error
        return code
    except BrokenPipeError:
        # the interpreter flushes stdout once more at exit: point it at /dev/null first
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in ("capture", "bench", "judge"):
        try:
            settings = _settings(args)
            check_extras(settings)  # every value checked before anything runs: a usage error, exit 2
        except SettingError as e:
            args.parser.error(str(e))  # with the subcommand's usage, not the top level's
        if args.command == "bench" and not args.no_cache:
            _check_cache_dir(args, settings.cache_dir)
    if args.command == "cache":
        return run_cache_command(args)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
