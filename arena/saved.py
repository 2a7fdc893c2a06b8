"""Seeds played, saved as they finish (``rummy-arena --save FILE``): a long run stopped part way
resumes where it stopped, and a figure grows seed by seed over several sittings.

A save file holds one match (rule set, players, challenger, opponents), one JSON line per seed
and round: its tables' seats, points, who went out, turns, buys, and the challenger's decisions
and seconds (the game records are not saved). A seed's tables are a pure function of the match,
the round and the seed (``arena.duplicate``), so a saved seed is the seed played again, as long
as the policies' code has not changed since: a changed policy is a new file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from arena.duplicate import Match, SeedResult, TableResult

Saved = dict[tuple[int, int], SeedResult]  # (round, seed) -> its tables


class SaveError(ValueError):
    """A save file that cannot be read or written, or holds another match: one line, exit 2."""


def _match(match: Match) -> dict[str, Any]:
    return {"rules": match.rules, "players": match.players, "challenger": str(match.challenger),
            "opponents": str(match.opponents)}


def line(match: Match, result: SeedResult) -> str:
    """One seed and round as a line of the save file (its newline included)."""
    tables = [{"seat": t.seat, "points": list(t.points), "winner": t.winner, "turns": t.turns,
               "buys": list(t.buys), "decisions": t.decisions, "seconds": round(t.seconds, 4)}
              for t in result.tables]
    return json.dumps({**_match(match), "round": result.round_number, "seed": result.seed,
                       "tables": tables}, separators=(",", ":")) + "\n"


def seed_result(row: dict[str, Any]) -> SeedResult:
    """A line of a save file, read (``ValueError``, ``KeyError`` or ``TypeError`` if it is none)."""
    tables = tuple(TableResult(int(t["seat"]), tuple(int(p) for p in t["points"]),
                               None if t["winner"] is None else int(t["winner"]), int(t["turns"]),
                               tuple(int(b) for b in t["buys"]), int(t["decisions"]), float(t["seconds"]))
                   for t in row["tables"])
    if not tables or any(len(t.points) != len(tables[0].points) for t in tables):
        raise ValueError("no tables, or tables of different sizes")
    return SeedResult(int(row["round"]), int(row["seed"]), tables)


def load(path: Path, match: Match) -> tuple[Saved, str | None]:
    """The seeds ``path`` holds (none when it does not exist yet), and a note when its last line
    was cut off part way (a run stopped while writing): that line is dropped from the file, its
    seed to be played again."""
    try:
        text = path.read_text() if path.exists() else ""
    except OSError as error:
        raise SaveError(f"cannot read {path}: {error.strerror}") from None
    note = None
    if text and not text.endswith("\n"):
        kept = text[:text.rfind("\n") + 1]
        note = f"{path}: its last line was cut off part way (a stopped run); dropped, that seed is played again"
        _rewrite(path, kept)
        text = kept
    wanted = _match(match)
    saved: Saved = {}
    for number, text_line in enumerate(text.splitlines(), start=1):
        if not text_line.strip():
            continue
        try:
            row = json.loads(text_line)
            here = {key: row[key] for key in wanted}
            result = seed_result(row)
        except (ValueError, KeyError, TypeError):
            raise SaveError(f"{path}, line {number}: not a saved seed of rummy-arena") from None
        if here != wanted:
            raise SaveError(f"{path} holds another match ({here['rules']}, {here['players']} players, "
                            f"{here['challenger']} against {here['opponents']}): save each match to its own file")
        if len(result.tables) != match.players:
            raise SaveError(f"{path}, line {number}: {len(result.tables)} tables, not one a seat of {match.players}")
        saved[result.round_number, result.seed] = result
    return saved, note


def appender(path: Path) -> TextIO:
    """The save file opened to add seeds at its end (made if it is not there)."""
    try:
        return path.open("a")
    except OSError as error:
        raise SaveError(f"cannot write {path}: {error.strerror}") from None


def append(stream: TextIO, match: Match, results: Iterable[SeedResult]) -> None:
    """Each seed as a whole line, flushed at once: a stop loses at most the seed being played."""
    for result in results:
        stream.write(line(match, result))
        stream.flush()


def _rewrite(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError as error:
        raise SaveError(f"cannot write {path}: {error.strerror}") from None
