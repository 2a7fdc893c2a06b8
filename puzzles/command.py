"""The ``puzzles`` command's entry point: Ctrl-C is taken care of before CP-SAT loads.

As ``analyze`` does (see ``analyzer/command.py`` for why a KeyboardInterrupt is not enough while
CP-SAT searches): SIGINT is blocked in every thread, and one watcher thread waits for it, writes
``puzzles: interrupted`` and ends the process with status 130 at once. Shards the ``bank``
command writes are replaced whole (a temporary file renamed), so an interrupted run loses at most
the puzzle being made and resumes where it stopped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Sequence

PROG = "puzzles"
INTERRUPTED = 130  # 128 + SIGINT


def main(argv: Sequence[str] | None = None) -> int:
    _end_on_interrupt()
    from puzzles.cli import run  # after the mask: this import loads CP-SAT

    return run(argv)


def _end_on_interrupt() -> None:
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    threading.Thread(target=_watch, name="interrupt-watcher", daemon=True).start()


def _watch() -> None:
    signal.sigwait({signal.SIGINT})
    with contextlib.suppress(OSError):
        os.write(2, f"{PROG}: interrupted\n".encode())
    os._exit(INTERRUPTED)
