"""The ``rummy-arena`` command's entry point: Ctrl-C is taken care of before CP-SAT loads (as
``analyze`` and ``puzzles`` do, see ``analyzer/command.py`` for why)."""

from __future__ import annotations

from collections.abc import Sequence

from analyzer import end_on_interrupt  # light: ``analyzer`` loads its modules when first used


def main(argv: Sequence[str] | None = None) -> int:
    end_on_interrupt("rummy-arena")
    from arena.cli import run  # after the mask: this import loads CP-SAT

    return run(argv)
