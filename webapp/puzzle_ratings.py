"""The puzzles' current ratings as /practice reads them to choose the next puzzle: kept per app
(per process) instead of read from the whole ``puzzle_ratings`` table on every visit.

Exact where it matters, loose where it is harmless:

- An answer recorded by this process puts its puzzle's new rating here as soon as it commits
  (``rated``): this process's own players never choose from a rating older than their answers.
- Answers recorded by other processes (gunicorn workers, other machines) are seen when the copy
  is read again, at most ``TRAINER_RATINGS_MAX_AGE`` seconds (5 by default) after it was read.
  Harmless: the rating only steers which of the ``NEAREST`` puzzles around the player's level
  are offered (one answer moves a puzzle's rating by a few points); the rating an answer is
  scored against is always the locked row's (``record.record_attempt``).

Which puzzles are hidden is NOT kept here: a reported puzzle must stop being served (to its
reporter, or to everyone once enough agree) the moment the report commits, in every process, so
``train.hidden_ids`` asks the database each time.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session

from webapp.db import PuzzleRating


class PuzzleRatings:
    """One app's copy of the puzzle ratings: puzzle id to rating, as the table was when last
    read, with this process's answers since laid over it."""

    def __init__(self, max_age: float) -> None:
        self.max_age = max_age
        self._ratings: dict[str, float] = {}
        self._read_at = -math.inf  # time.monotonic() when the table was last read
        self._since_read: dict[str, float] = {}  # this process's answers since that read began
        self._reading = threading.Lock()  # one thread reads the table; the others use the copy
        self._changing = threading.Lock()  # guards _ratings and _since_read being swapped

    def current(self, db: Session) -> Mapping[str, float]:
        """The ratings, read again from ``db`` when the copy is older than ``max_age`` (the
        first call waits for the read; later ones use the copy while another thread reads)."""
        first = self._read_at < 0
        if time.monotonic() - self._read_at >= self.max_age and self._reading.acquire(blocking=first):
            try:
                # Not read meanwhile by the thread this one waited for:
                if time.monotonic() - self._read_at >= self.max_age:
                    started = time.monotonic()
                    fresh = dict(db.execute(select(PuzzleRating.puzzle_id, PuzzleRating.rating)).all())
                    with self._changing:
                        # This process's answers since the last read, which the read's snapshot may predate.
                        fresh.update(self._since_read)
                        self._ratings, self._since_read, self._read_at = fresh, {}, started
            finally:
                self._reading.release()
        return self._ratings

    def rated(self, puzzle_id: str, rating: float) -> None:
        """A rated answer this process has committed moved ``puzzle_id`` to ``rating``."""
        with self._changing:
            self._ratings[puzzle_id] = rating
            self._since_read[puzzle_id] = rating


def puzzle_ratings() -> PuzzleRatings:
    """This app's copy (made on first use)."""
    ratings = current_app.extensions.get("puzzle_ratings")
    if ratings is None:
        max_age = float(current_app.config["TRAINER_RATINGS_MAX_AGE"])
        ratings = current_app.extensions.setdefault("puzzle_ratings", PuzzleRatings(max_age))
    assert isinstance(ratings, PuzzleRatings)
    return ratings
