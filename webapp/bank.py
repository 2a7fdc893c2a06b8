"""The puzzle bank as the web app serves it: loaded once per app from ``puzzles``' shipped bank
(or ``PUZZLE_BANK``, a folder of shards, in tests), indexed by id, and the daily puzzle by date.
The bank's retired puzzles (``puzzles.rederive``) are never served, but the dashboard still reads
them for the attempts players made on them."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from flask import current_app

from puzzles.bank import BANK_DIR, load_bank, load_retired
from puzzles.daily import DailyError, daily
from puzzles.model import Puzzle

_lock = threading.Lock()
_loaded: dict[str, Bank] = {}  # by folder: apps (and tests) in one process share a bank


@dataclass(frozen=True)
class Bank:
    puzzles: tuple[Puzzle, ...]
    by_id: Mapping[str, Puzzle]
    themes: tuple[str, ...]
    # The puzzles of each rule set, in bank order: the practice page chooses among its player's
    # rule set's few hundred, not the whole bank, on every request.
    by_rules: Mapping[str, tuple[Puzzle, ...]] = field(default_factory=dict, compare=False, repr=False)
    retired: Mapping[str, Puzzle] = field(default_factory=dict, compare=False, repr=False)
    _daily: dict[date, Puzzle] = field(default_factory=dict, compare=False, repr=False)

    def daily(self, day: date) -> Puzzle | None:
        """The daily puzzle of ``day`` (None before the daily puzzles' epoch)."""
        if day not in self._daily:
            try:
                self._daily[day] = daily(self.puzzles, day)
            except DailyError:
                return None
        return self._daily[day]

    def known(self, puzzle_id: str) -> Puzzle | None:
        """The puzzle with this id, served or retired: what a player's past attempt was on."""
        return self.by_id.get(puzzle_id) or self.retired.get(puzzle_id)


def make_bank(puzzles: Sequence[Puzzle], retired: Sequence[Puzzle] = ()) -> Bank:
    unique = {puzzle.id: puzzle for puzzle in puzzles}
    themes = sorted({theme for puzzle in unique.values() for theme in puzzle.themes})
    by_rules: dict[str, list[Puzzle]] = {}
    for puzzle in unique.values():
        by_rules.setdefault(puzzle.rules, []).append(puzzle)
    return Bank(tuple(unique.values()), unique, tuple(themes),
                {rules: tuple(puzzles) for rules, puzzles in by_rules.items()},
                {puzzle.id: puzzle for puzzle in retired if puzzle.id not in unique})


def bank() -> Bank:
    """This app's bank, loaded on first use."""
    loaded = current_app.extensions.get("puzzle_bank")
    if loaded is None:
        with _lock:
            loaded = current_app.extensions.get("puzzle_bank")
            if loaded is None:
                folder = str(current_app.config.get("PUZZLE_BANK") or BANK_DIR)
                if folder not in _loaded:
                    _loaded[folder] = make_bank(load_bank(folder), load_retired(folder))
                loaded = current_app.extensions["puzzle_bank"] = _loaded[folder]
    assert isinstance(loaded, Bank)
    return loaded


def today() -> date:
    """The trainer's date (UTC), which decides the daily puzzle; ``TRAINER_TODAY`` (ISO) fixes it for tests."""
    fixed = current_app.config.get("TRAINER_TODAY")
    if fixed:
        return fixed if isinstance(fixed, date) else date.fromisoformat(str(fixed))
    return datetime.now(UTC).date()
