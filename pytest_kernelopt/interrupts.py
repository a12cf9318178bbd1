"""Ctrl-C reaches the parent alone: worker processes are started ignoring SIGINT.

A Ctrl-C at the terminal sends SIGINT to the whole foreground process group, the workers (isolate.py, the
tuner's variant compile, ``cache verify``'s compile check) included.  A worker interrupted while it imported
torch printed a raw traceback of its own ("partially initialized module 'torch'") beside the parent's.  The rule:
a worker is started inside :func:`workers_ignore_interrupts`, so it inherits SIGINT ignored (a disposition
survives exec, and Python then installs no KeyboardInterrupt handler) and never sees the Ctrl-C; the parent stops,
says it was interrupted, keeps what finished and ends its workers itself
(tests/test_new_user.py::test_a_worker_never_sees_the_terminals_ctrl_c,
test_an_interrupted_bench_says_so_and_keeps_what_finished).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator


@contextlib.contextmanager
def workers_ignore_interrupts() -> Iterator[None]:
    """SIGINT ignored while child processes are started in the block, which keep it ignored.  The parent's own
    SIGINT is blocked meanwhile, so a Ctrl-C in that moment is delivered to it when the block ends, not lost.
    Only the main thread may change a signal's handler: elsewhere children start as they would."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
