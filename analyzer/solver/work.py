"""A bound on each solve by CP-SAT's deterministic time (its own unit of work) rather than, or
as well as, by seconds: a solve cut short by work stops at the same point on every machine,
however loaded, so answers given under it are pure functions of their inputs. Simulated play and
the puzzles set it; the analyser's user-facing answers are bounded by seconds alone.

Light on purpose (no OR-Tools): ``analyzer.round_solver`` imports it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from analyzer.cards import Card
    from analyzer.result import LayDown

_WORK_LIMIT: ContextVar[float | None] = ContextVar("work_limit", default=None)


@contextlib.contextmanager
def deterministic_work(units: float | None) -> Iterator[None]:
    """Within: every solve started in this thread (or context) is bounded by ``units`` of CP-SAT's
    deterministic time as well as by its seconds (None: by its seconds only)."""
    token = _WORK_LIMIT.set(units)
    try:
        yield
    finally:
        _WORK_LIMIT.reset(token)


def work_limit() -> float | None:
    """The deterministic work each solve started here may take (None: no such bound)."""
    return _WORK_LIMIT.get()


class OutsCutShort(Exception):
    """The search for a hand's outs (``analyzer.solver.find_outs``) stopped before it proved it
    had them all: at its time limit, or on a solve that stopped at its time or work limit
    before it could prove its answer. ``found``: the hand's lay-down and the outs found so far
    (each one a proven out; there may be more)."""

    def __init__(self, found: tuple[LayDown, frozenset[Card]]) -> None:
        super().__init__("the search for outs stopped before it proved it had them all")
        self.found = found
