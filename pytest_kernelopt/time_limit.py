"""The isolated judge's time limit for code run in this process.

Rule: every evaluation of a candidate has the ``timeout`` setting as its limit, wherever it runs.  In a worker
(:mod:`pytest_kernelopt.isolate`) the parent kills the worker; in this process (verify mode's re-check of a
cached kernel, ``isolate=false``, ``kernelopt judge --no-isolate``) :func:`time_limit` raises
:class:`TimeLimitExceeded` when the limit passes, and the evaluator rejects the candidate in the gate it was in.

The limit is a POSIX interval timer (SIGALRM) in the main thread: it interrupts Python code (a kernel looping
under the Triton interpreter, a loop of launches) at its next bytecode.  A single GPU launch that never returns
holds the thread inside the driver until it returns; the limit acts then.  Off the main thread, or without
SIGALRM, there is no limit (said by :func:`time_limit`'s result).  An interval timer already running (pytest-timeout's
signal method, say) is kept: ours waits no longer than it would, and it is re-armed for the time it had left.
tests/test_trust.py::test_the_in_process_check_has_the_isolated_time_limit guards the rule.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from typing import Iterator


class TimeLimitExceeded(BaseException):
    """The limit of :func:`time_limit` passed.  A BaseException, as KeyboardInterrupt is: an ``except Exception``
    of the code it interrupts (a gate's, a launcher's) does not swallow it."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"timed out after {seconds:g}s")
        self.seconds = seconds


def available() -> bool:
    """Whether :func:`time_limit` can limit here (the main thread of a POSIX process)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[bool]:
    """Raise :class:`TimeLimitExceeded` in the block once ``seconds`` have passed; yields whether a limit is set
    (see the module docstring).  ``None`` or ``<= 0``: no limit."""
    if not seconds or seconds <= 0 or not available():
        yield False
        return
    start = time.monotonic()
    outer_handler = signal.getsignal(signal.SIGALRM)
    outer_delay, outer_interval = signal.getitimer(signal.ITIMER_REAL)
    outer_due = [bool(outer_delay)]  # the outer timer has yet to fire

    def on_alarm(signum, frame):  # noqa: ANN001 -- a signal handler's signature
        elapsed = time.monotonic() - start
        if elapsed < seconds - 1e-3:  # the outer timer's time, before ours: its handler runs as it would have
            outer_due[0] = False
            if callable(outer_handler):
                outer_handler(signum, frame)
            signal.setitimer(signal.ITIMER_REAL, seconds - elapsed)
            return
        raise TimeLimitExceeded(seconds)

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer_delay) if outer_delay else seconds)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, outer_handler)
        if outer_due[0]:
            left = outer_delay - (time.monotonic() - start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), outer_interval)
        elif outer_interval:
            signal.setitimer(signal.ITIMER_REAL, outer_interval, outer_interval)
