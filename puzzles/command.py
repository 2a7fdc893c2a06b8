"""The ``puzzles`` command's entry point: Ctrl-C is taken care of before CP-SAT loads.

As ``analyze`` does (see ``analyzer/command.py`` for why a KeyboardInterrupt is not enough while
CP-SAT searches): SIGINT is blocked in every thread, and one watcher thread waits for it, writes
``puzzles: interrupted`` and ends the process with status 130 at once. Shards the ``bank``
command writes are replaced whole (a temporary file renamed), so an interrupted run loses at most
the puzzle being made and resumes where it stopped.
"""

from __future__ import annotations

from collections.abc import Sequence

from analyzer import end_on_interrupt  # light: ``analyzer`` loads its modules when first used


def main(argv: Sequence[str] | None = None) -> int:
    end_on_interrupt("puzzles")
    from puzzles.cli import run  # after the mask: this import loads CP-SAT

    return run(argv)
