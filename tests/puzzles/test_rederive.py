"""Carrying the bank over a change of the generator (``puzzles.rederive``): a puzzle whose
answers come out as stored is kept with the new derivation's figures, one that does not is
retired to ``retired/<shard>``, and a shard refilled afterwards never deals a retired seed again."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path

from puzzles.bank import RETIRED, Shard, build_shard, load_bank, load_retired, read_puzzles, write_puzzles
from puzzles.generate import GENERATOR, generate
from puzzles.model import Puzzle
from puzzles.rederive import derive_again, main, rederive, settle
from puzzles.verify import verify


def _puzzles(kind: str, count: int) -> list[Puzzle]:
    found = []
    for seed in range(200):
        puzzle = generate(kind, "progressive", 1 + seed % 7, seed)
        if puzzle is not None:
            found.append(puzzle)
            if len(found) == count:
                return found
    raise AssertionError(f"fewer than {count} {kind} puzzles in 200 seeds")


def test_a_puzzle_that_derives_again_is_kept_with_the_new_figures() -> None:
    (puzzle,) = _puzzles("lay-down", 1)
    # As an older generator stored it: another rating, an older version name.
    older = dataclasses.replace(puzzle, rating=puzzle.rating + 300, generator="puzzles-0")
    outcome = rederive(older)
    assert outcome.kept is not None and not outcome.reasons
    assert outcome.kept.to_dict() == {**puzzle.to_dict(), "generator": GENERATOR}
    assert outcome.kept.id == older.id and verify(outcome.kept) == []


def test_a_kept_lay_down_explains_the_play_it_shows() -> None:
    puzzle = next(p for p in _puzzles("lay-down", 6) if p.solution is not None and not p.solution.cannot)
    # Stored with an analysis of its own: another play of equal merit, and its sentence.
    stored = dataclasses.replace(puzzle, analysis=dataclasses.replace(puzzle.analysis, best={"melds": "stored"}, reason="Stored."))
    kept = rederive(stored).kept
    assert kept is not None and kept.solution == puzzle.solution
    assert kept.analysis == dataclasses.replace(puzzle.analysis, best={"melds": "stored"}, reason="Stored.")


def test_a_puzzle_whose_answers_changed_or_that_is_no_longer_clear_is_retired() -> None:
    (puzzle,) = _puzzles("discard", 1)
    wrong = next(card for card in puzzle.hand if card not in puzzle.answers)
    stored = dataclasses.replace(puzzle, answers=(wrong,))
    outcome = settle(stored, derive_again(stored))
    assert outcome.kept is None and any(reason.startswith("answers:") for reason in outcome.reasons)
    unclear = settle(puzzle, None)
    assert unclear.kept is None and "no longer accepted" in unclear.reasons[0]
    assert settle(puzzle, puzzle).kept is not None


def test_a_bank_is_carried_over_file_by_file_and_refilled_after_its_retired_seeds(tmp_path: Path, capsys) -> None:
    first, second, third = _puzzles("lay-down", 3)
    # The last seed's puzzle is retired: the refill must still start after it.
    tampered = dataclasses.replace(third, best_points=(third.best_points or 0) + 7)
    shard = Shard("progressive", "lay-down", 5)
    path = tmp_path / shard.name
    write_puzzles(path, [first, tampered, second])

    assert main([str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert f"{tampered.id} retired: best_points" in printed and "2 kept, 1 retired" in printed
    assert [p.id for p in read_puzzles(path)] == [first.id, second.id]
    assert [p.to_dict() for p in load_retired(tmp_path)] == [tampered.to_dict()]
    assert [p.id for p in load_bank(tmp_path)] == [first.id, second.id]  # the retired are not served

    asked: list[tuple[str, int, int]] = []

    def generate_many(kind: str, rules: str, rounds: Sequence[int], source: str, start: int,
                      count: int) -> Iterator[Puzzle]:
        asked.append((source, start, count))
        return iter(())

    build_shard(shard, tmp_path, generate_many)
    assert third.seed > max(first.seed, second.seed)
    assert asked[0] == ("play", third.seed + 1, 4 - 2)
    # Carried over again: nothing to retire, and the retired file keeps its one puzzle.
    assert main([str(path)]) == 0
    assert len(read_puzzles(tmp_path / RETIRED / shard.name)) == 1


def test_a_bad_bank_is_refused_with_status_2(tmp_path: Path, capsys) -> None:
    (tmp_path / "broken.jsonl").write_text("not json\n")
    assert main([str(tmp_path / "broken.jsonl")]) == 2
    assert "line 1: not JSON" in capsys.readouterr().err
    assert main(["--workers", "0"]) == 2
