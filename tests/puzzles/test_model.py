"""The Puzzle value: a fuzzed to_dict/from_dict round trip (through JSON text), an id that
follows the position and nothing else, and bad puzzle data refused with a message."""

from __future__ import annotations

import dataclasses
import gzip
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analyzer import PRESETS, Card, MeldKind, Moment, PlacedMeld, parse_cards, preset
from puzzles.bank import BANK_DIR, read_puzzles, write_puzzles
from puzzles.model import KINDS, SOURCES, BuyAnalysis, BuyMargin, Kind, LayDownAnswer, Puzzle, PuzzleError
from tests.strategies import hands

cards = st.lists(st.sampled_from(parse_cards("AS 2C 7H 10D JC QS KH JK")), max_size=6).map(tuple)
melds = st.builds(
    lambda kind, picked: PlacedMeld(kind, picked, tuple(reversed(picked))),
    st.sampled_from(list(MeldKind)),
    cards.filter(bool),
)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False, width=32),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
answers = st.just(LayDownAnswer(cannot=True)) | st.builds(
    LayDownAnswer,
    st.lists(melds, max_size=3).map(tuple),
    st.none() | st.sampled_from(parse_cards("KD 5C JK")),
)


@st.composite
def puzzles(draw: st.DrawFn) -> Puzzle:
    name = draw(st.sampled_from(sorted(PRESETS)))
    rules = preset(name)
    return Puzzle(
        kind=draw(st.sampled_from(KINDS)),
        rules=name,
        round=draw(st.integers(1, len(rules.rounds))),
        players=draw(st.integers(2, 6)),
        moment=draw(st.sampled_from(list(Moment))),
        hand=tuple(sorted(draw(hands(rules, 1, 14, focus=draw(st.booleans()))), key=Card.sort_key)),
        discard_pile=draw(cards),
        table=tuple(draw(st.lists(st.lists(melds, max_size=3).map(tuple), max_size=4))),
        seat=draw(st.integers(0, 4)),
        offered=draw(st.none() | st.sampled_from(parse_cards("9H JK"))),
        turn=draw(st.integers(1, 40)),
        buys_used=draw(st.integers(0, 5)),
        bought_last=draw(st.booleans()),
        answers=tuple(
            draw(st.lists(st.sampled_from(["buy", "pass", "cannot", "lay-down", "KD", "10H"]), max_size=3))
        ),
        best_points=draw(st.none() | st.integers(0, 300)),
        solution=draw(st.none() | answers),
        # margin and analysis: typed per kind, their round trip is the shipped bank's (below)
        themes=tuple(draw(st.lists(st.text(max_size=10), max_size=3))),
        rating=draw(st.integers(800, 2200)),
        source=draw(st.sampled_from(SOURCES)),
        seed=draw(st.integers(0, 10**9)),
        generator=draw(st.text(max_size=10)),
    )


def _normal(value: Any) -> Any:
    """What JSON keeps of a value: floats written and read back."""
    return json.loads(json.dumps(value))


@given(puzzles())
def test_to_dict_and_from_dict_round_trip_through_json(puzzle: Puzzle) -> None:
    text = json.dumps(puzzle.to_dict())
    again = Puzzle.from_dict(json.loads(text))
    assert again == puzzle
    assert again.id == puzzle.id and json.dumps(again.to_dict()) == text


@given(puzzles(), st.sampled_from(["hand", "turn", "offered", "kind", "round", "discard_pile"]))
def test_the_id_follows_the_position(puzzle: Puzzle, field: str) -> None:
    changed = {
        "hand": puzzle.hand + parse_cards("QH"),
        "turn": puzzle.turn + 1,
        "offered": None if puzzle.offered else parse_cards("2D")[0],
        "kind": KINDS[(KINDS.index(puzzle.kind) + 1) % 3],
        "round": puzzle.round + 1,
        "discard_pile": puzzle.discard_pile + parse_cards("3C"),
    }[field]
    assert dataclasses.replace(puzzle, **{field: changed}).id != puzzle.id
    # ...and not what was derived from it.
    derived = dataclasses.replace(puzzle, answers=("other",), rating=puzzle.rating + 1, themes=("x",))
    assert derived.id == puzzle.id


GOOD = Puzzle(
    kind="discard",
    rules="progressive",
    round=1,
    players=4,
    moment="after-draw",
    hand=parse_cards("5C 5D 9H 9S KD 2C 3H"),
    answers=("KD",),
).to_dict()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": "chess"}, "kind must be one of"),
        ({"hand": ["5C", "ZZ"]}, "hand: unknown card .ZZ."),
        ({"hand": "5C 5D"}, "hand must be a list"),
        ({"round": "1"}, "round must be a whole number"),
        ({"id": "000000000000"}, "does not match its position"),
        ({"table": [[{"kind": "run", "cards": ["5C"], "as": ["5C"]}], {}]}, "table must be a list"),
        ({"solution": {"melds": [{"kind": "blob", "cards": []}]}}, "meld kind must be one of"),
        ({"bought_last": 1}, "bought_last must be true or false"),
    ],
)
def test_bad_puzzle_data_is_refused_with_a_message(change: dict[str, Any], message: str) -> None:
    with pytest.raises(PuzzleError, match=message):
        Puzzle.from_dict({**GOOD, **change})


SHIPPED_BUY = read_puzzles(BANK_DIR / "progressive-buy.jsonl.gz")[0].to_dict()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"margin": {**SHIPPED_BUY["margin"], "luck": 1}}, "margin has no field 'luck'"),
        ({"margin": {"verdict": "buy"}}, "margin needs the field 'difference'"),
        ({"analysis": []}, "analysis must be an object"),
    ],
)
def test_a_bad_margin_or_analysis_is_refused_with_a_message(change: dict[str, Any], message: str) -> None:
    with pytest.raises(PuzzleError, match=message):
        Puzzle.from_dict({**SHIPPED_BUY, **change})


def test_each_kind_keeps_its_own_margin_and_analysis_types() -> None:
    puzzle = Puzzle.from_dict(SHIPPED_BUY)
    assert isinstance(puzzle.margin, BuyMargin) and isinstance(puzzle.analysis, BuyAnalysis)
    assert puzzle.margin.to_dict() == SHIPPED_BUY["margin"] and puzzle.analysis.reason == SHIPPED_BUY["analysis"]["reason"]
    with pytest.raises(PuzzleError, match="lay-down puzzle's margin is a LayDownMargin, not a BuyMargin"):
        dataclasses.replace(puzzle, kind=Kind.LAY_DOWN)
    assert dataclasses.replace(puzzle, margin=None, analysis=None).to_dict()["margin"] == {}


def test_an_answer_is_a_play_or_cannot_not_both() -> None:
    with pytest.raises(PuzzleError):
        LayDownAnswer(discard=parse_cards("KD")[0], cannot=True)


def test_a_missing_field_is_named() -> None:
    data = dict(GOOD)
    del data["hand"]
    with pytest.raises(PuzzleError, match="'hand'"):
        Puzzle.from_dict(data)


@pytest.mark.parametrize("path", sorted(BANK_DIR.glob("*.jsonl.gz")), ids=lambda path: path.name)
def test_every_shipped_puzzle_reads_and_writes_back_byte_for_byte(path, tmp_path) -> None:
    again = tmp_path / path.name
    write_puzzles(again, read_puzzles(path))
    assert gzip.decompress(again.read_bytes()) == gzip.decompress(path.read_bytes())
