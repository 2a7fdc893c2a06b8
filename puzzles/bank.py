"""The puzzle bank: JSON lines (gzip-compressed, ``.jsonl.gz``), one shard per preset and kind,
shipped in the package (``puzzles/bank/``), and the fixed plan that builds it.

The plan is reproducible: shard ``<preset>-<kind>`` holds the first accepted puzzles of attempts
0, 1, 2, ... where attempt ``i`` asks ``generate(kind, preset, rounds[i % len(rounds)], i)``
(``source="planted"`` for lay-down's planted part, a fifth of its target). A shard that stops
short is resumed from its last attempt, so building the bank in several sittings gives the same
bank as one.

Retired puzzles: a deliberate change of the generator can leave a shipped puzzle no longer clear
(``puzzles.rederive``). It leaves the shard for ``retired/<shard>`` beside it: no longer served or
dealt as a daily puzzle, still read by the trainer for the attempts players made on it. A shard
resumes after the last seed of both files, so a retired seed is never dealt again.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from analyzer import PRESETS, preset
from puzzles.model import KINDS, Kind, Puzzle, PuzzleError

BANK_DIR = Path(__file__).with_name("bank")
RETIRED = "retired"  # the bank folder's subfolder of retired puzzles, a file per shard
FULL_TARGETS = {"progressive": 300}  # per kind; every other preset FULL_OTHER of each kind
# At least 40 of each kind; lay-downs, the cheapest kind by far, make the bank's 2,000.
FULL_OTHER = {Kind.LAY_DOWN: 100, Kind.DISCARD: 40, Kind.BUY: 40}
PLANTED_SHARE = 5  # lay-down shards: one puzzle in this many is planted (at most a quarter)
MAX_LINE = 1 << 20


class BankError(ValueError):
    """A bank file that cannot be read: not found, not JSON lines, a bad puzzle (with its line)."""


def read_puzzles(path: str | os.PathLike[str]) -> list[Puzzle]:
    """The puzzles of one JSON-lines file (gzip-compressed when it ends in ``.gz``; ``-`` is
    standard input is not supported here: name a file)."""
    name = str(path)
    try:
        raw = Path(name).read_bytes()
    except FileNotFoundError:
        raise BankError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise BankError(f"{name}: a directory, not a puzzle file") from None
    except OSError as error:
        raise BankError(f"{name}: {error.strerror or error}") from None
    if name.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as error:
            raise BankError(f"{name}: not a gzip file ({error})") from None
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        raise BankError(f"{name}: not UTF-8 text") from None
    puzzles = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            puzzles.append(Puzzle.from_dict(json.loads(line)))
        except json.JSONDecodeError as error:
            raise BankError(f"{name}: line {number}: not JSON ({error.msg})") from None
        except PuzzleError as error:
            raise BankError(f"{name}: line {number}: {error}") from None
        except (RecursionError, ValueError, TypeError) as error:
            raise BankError(f"{name}: line {number}: {error}") from None
    return puzzles


def write_puzzles(path: str | os.PathLike[str], puzzles: Iterable[Puzzle]) -> None:
    """Write JSON lines, gzip-compressed (reproducibly: no name or time in the header) when the
    name ends in ``.gz``."""
    text = "".join(json.dumps(puzzle.to_dict(), separators=(",", ":")) + "\n" for puzzle in puzzles)
    data = text.encode()
    if str(path).endswith(".gz"):
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as packed:
            packed.write(data)
        data = buffer.getvalue()
    temporary = Path(f"{path}.tmp")
    temporary.write_bytes(data)
    temporary.replace(path)


def bank_files(directory: str | os.PathLike[str] = BANK_DIR) -> list[Path]:
    folder = Path(directory)
    return sorted([*folder.glob("*.jsonl"), *folder.glob("*.jsonl.gz")])


def load_bank(directory: str | os.PathLike[str] = BANK_DIR) -> list[Puzzle]:
    """Every puzzle of the bank, shard by shard in name order (not the retired ones)."""
    return [puzzle for path in bank_files(directory) for puzzle in read_puzzles(path)]


def load_retired(directory: str | os.PathLike[str] = BANK_DIR) -> list[Puzzle]:
    """The bank's retired puzzles (none when it has no ``retired`` folder)."""
    return load_bank(Path(directory) / RETIRED)


# ---- the plan --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shard:
    """One file of the bank: puzzles of one kind and preset, from play and (lay-down) planted."""

    rules: str
    kind: Kind
    target: int

    @property
    def name(self) -> str:
        return f"{self.rules}-{self.kind}.jsonl.gz"

    def rounds(self) -> tuple[int, ...]:
        rules = preset(self.rules)
        numbers = range(1, len(rules.rounds) + 1)
        if self.kind == Kind.BUY:
            return tuple(n for n in numbers if rules.buys_in(n) != 0)
        return tuple(numbers)

    def parts(self, size: int | None = None) -> tuple[tuple[str, int], ...]:
        """(source, count) to reach ``size`` (the target when None): a fifth of a lay-down
        shard's target is planted, and a shard grown past its target for balance grows from
        play."""
        size = self.target if size is None else size
        if self.kind != Kind.LAY_DOWN:
            return (("play", size),)
        planted = self.target // PLANTED_SHARE
        return (("play", size - planted), ("planted", planted))


def plan(
    scale: float = 1.0, presets: Sequence[str] | None = None, kinds: Sequence[str] = KINDS
) -> list[Shard]:
    """The bank's shards: ``progressive`` 300 of each kind, every other preset 100 lay-downs, 40
    discards and 40 buys (times ``scale``)."""
    names = list(presets) if presets else sorted(PRESETS, key=lambda name: (name != "progressive", name))
    shards = []
    for name in names:
        for kind in map(Kind, kinds):
            target = max(1, round(FULL_TARGETS.get(name, FULL_OTHER[kind]) * scale))
            shard = Shard(name, kind, target)
            if shard.rounds():
                shards.append(shard)
    return shards


Generate = Callable[[str, str, Sequence[int], str, int, int], Iterator[Puzzle]]


SKIPS_PER_PUZZLE = 100  # a part gives up after this many puzzles in a row without room, per puzzle short


def build_shard(
    shard: Shard, directory: Path, generate_many: Generate, report: Callable[[str], None] = lambda text: None
) -> list[Puzzle]:
    """Bring one shard up to its size, resuming where its file stops; returns its puzzles. The
    size is the target, or more where the stored puzzles exceed a share of the balance rule
    (``puzzles.balance``); a puzzle whose class is at its share is passed over (its seed is
    dealt: a resumed build skips it the same way)."""
    from puzzles.balance import balanced_size, capped_class, class_counts, has_room

    path = directory / shard.name
    have = read_puzzles(path) if path.exists() else []
    retired_path = directory / RETIRED / shard.name
    retired = read_puzzles(retired_path) if retired_path.exists() else []
    result = list(have)
    counts = class_counts(have)
    size = balanced_size(counts, shard.target)
    for source, count in shard.parts(size):
        mine = [puzzle for puzzle in have if puzzle.source == source]
        dealt = [puzzle.seed for puzzle in [*mine, *retired] if puzzle.source == source]
        start = max(dealt, default=-1) + 1
        skipped = 0
        while len(mine) < count and skipped < SKIPS_PER_PUZZLE * (count - len(mine)):
            found = False
            for puzzle in generate_many(shard.kind, shard.rules, shard.rounds(), source, start, count - len(mine)):
                found, start = True, puzzle.seed + 1
                name = capped_class(puzzle)
                if not has_room(name, counts, size):
                    skipped += 1
                    continue
                skipped = 0
                result.append(puzzle)
                mine.append(puzzle)
                counts.update([name] if name else [])
                write_puzzles(path, result)
                report(f"{shard.name}: {len(mine)}/{count} {source}")
            if not found:
                break
        if len(mine) < count:
            report(f"{shard.name}: {len(mine)}/{count} {source}, short: no room for the puzzles found")
    if not path.exists():
        write_puzzles(path, result)
    return result
