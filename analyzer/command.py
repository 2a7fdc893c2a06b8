"""The ``analyze`` command's entry point: Ctrl-C is taken care of before anything heavy loads.

SIGINT is blocked in every thread and one watcher thread waits for it, then writes
``analyze: interrupted`` and ends the process with status 130 at once. The mask is set here,
before CP-SAT and numpy are imported, because threads inherit it and numpy's BLAS starts
threads on import. Why not a KeyboardInterrupt: CP-SAT installs its own SIGINT handler during
each search (a thread-local callback) and resets SIGINT to the default after; a Ctrl-C that
lands on a thread without that callback aborts the process (``std::bad_function_call``), and
one between searches kills it without a word.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Sequence

PROG = "analyze"
INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def main(argv: Sequence[str] | None = None) -> int:
    end_on_interrupt(PROG)
    from analyzer.cli import run  # after the mask: this import loads CP-SAT and numpy

    return run(argv)


def end_on_interrupt(prog: str) -> None:
    """Block SIGINT in this thread (and so in every thread started later) and hand it to a
    watcher thread that writes ``<prog>: interrupted`` and ends the process with status 130.
    Only from the main thread, where there is one. Also the ``puzzles`` command's."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    threading.Thread(target=_watch, args=(prog,), name="interrupt-watcher", daemon=True).start()


def _watch(prog: str) -> None:
    signal.sigwait({signal.SIGINT})
    with contextlib.suppress(OSError):
        os.write(2, f"{prog}: interrupted\n".encode())
    os._exit(INTERRUPTED)  # at once: running CP-SAT searches are not waited for
