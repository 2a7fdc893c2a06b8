"""``analyzer.Question``: one question read from JSON with every bad field named at once, and
``analyzer.answer``, the JSON ``analyze --json`` prints for it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from analyzer import PRESETS, Card, Limits, Moment, Question, QuestionError, answer
from analyzer.cli import run

LAY_DOWN = "7H 8H 9H 10H 5C 5D 5S"  # progressive round 2, before the draw: every card melds
ONE_AWAY = "7H 8H 10H 5C 5D 5S KC 2D"  # progressive round 2, after the draw: the 9H (or a joker) short
BUYER = "7H 8H 10H 5C 5D 5S KC"  # the same before the draw, when a discard is offered
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J")
THIRTY = " ".join(f"{rank}{suit}" for suit in "CDH" for rank in RANKS)  # more than any turn gives

QUESTIONS = [
    {"hand": LAY_DOWN, "round": 2},
    {"hand": ONE_AWAY, "round": 2, "rules": "progressive", "players": 4, "moment": "after-draw",
     "seen": "9H 7S", "discards": True, "time_limit": 5},
    {"hand": BUYER, "round": 2, "players": 4, "buy": "9H", "turn": 3, "horizon": 4, "rollouts": 20, "seed": 7,
     "buys_used": 1, "bought_last": True},
    {"hand": "5H 6H 7H JK 9C 10C JC QC KS 2D 3D", "round": 3, "rules": "shanghai", "players": 4, "outs": True},
    {"hand": "4C 4D 9S 9H 9D KC KH AS 7D 2C 3H QS", "round": 4, "rules": "pagat", "moment": "before-draw"},
]


@pytest.mark.parametrize("job", QUESTIONS, ids=lambda job: f"{job.get('rules', 'progressive')}-{job['round']}")
def test_a_question_reads_back_from_its_json(job: dict[str, Any]) -> None:
    question = Question.from_json(job)
    again = Question.from_json(json.loads(json.dumps(question.to_json())))
    assert again == question and hash(again) == hash(question)
    assert question.to_json() == {**job, "hand": question.to_json()["hand"], "rules": question.rules.name}
    assert sorted(question.to_json()["hand"].split()) == sorted(Card.parse(t).token for t in job["hand"].split())


def test_equal_questions_are_equal_values() -> None:
    """The cache key of the web: the same cards in another order or spelling, an alias of a
    preset, a null field, all ask the same question."""
    first = Question.from_json({"hand": "7h 8h 9h 10h 5c 5d 5s", "round": 4, "rules": "Liverpool", "seen": "9S 2C"})
    second = Question.from_json({"hand": "5S,5D,5C,10H,9H,8H,7H", "round": 4, "rules": "pagat", "seen": "2C 9S",
                                 "buy": None, "players": None})
    assert first == second and hash(first) == hash(second)
    assert first.rules is PRESETS["pagat"] and first.moment is None and first.buy is None
    assert first != dataclasses.replace(first, round=5)


def test_defaults_fill_what_a_line_leaves_out() -> None:
    defaults = {"round": 2, "rules": "shanghai", "time_limit": 3, "discards": True}
    question = Question.from_json({"hand": LAY_DOWN, "discards": None}, defaults=defaults)
    assert (question.round, question.rules.name, question.time_limit, question.discards) == (2, "shanghai", 3.0, True)
    assert Question.from_json({"hand": LAY_DOWN, "round": 1, "rules": "may-i"}, defaults=defaults).round == 1
    assert Question.from_json({"hand": LAY_DOWN, "round": 2}).time_limit == 60.0  # the command's default


def test_every_bad_field_is_named_at_once() -> None:
    job = {"hand": "7H 8X", "round": "2", "players": True, "moment": "later", "time_limit": 0, "seen": "9H 9Q",
           "discards": "yes", "seed": 4, "horizon": 2}
    with pytest.raises(QuestionError) as caught:
        Question.from_json(job)
    error = caught.value
    assert isinstance(error, ValueError)
    assert list(error.fields) == ["hand", "round", "players", "moment", "time_limit", "seen", "discards",
                                  "horizon", "seed"]
    for name, words in {"hand": "'8X'", "round": "expected a whole number, not '2'",
                        "players": "expected a whole number, not True", "moment": "not 'later'",
                        "time_limit": "at most 3600, not 0", "seen": "'9Q'",
                        "discards": "expected true or false, not 'yes'", "seed": '"seed" goes with "buy"',
                        "horizon": '"horizon" goes with "buy"'}.items():
        assert words in error.fields[name], name
        assert f"{name}: {error.fields[name]}" in str(error)


def test_problems_that_need_the_rule_set_are_named_under_their_own_fields() -> None:
    cases = [
        ({"hand": BUYER, "round": 1, "rules": "eveleigh", "buy": "9H"}, "buy", "allows no buying in round 1"),
        ({"hand": BUYER, "round": 2, "rules": "shanghai", "buy": "9H", "buys_used": 2}, "buys_used", "used 2"),
        ({"hand": BUYER, "round": 2, "rules": "pagat", "buy": "9H", "bought_last": True}, "bought_last",
         "twice in succession"),
        ({"hand": BUYER, "round": 2, "buy": "9H", "horizon": 99}, "horizon", "1 to 60"),
        ({"hand": BUYER, "round": 2, "buy": "9H", "turn": 0}, "turn", "1 to 60"),
        ({"hand": BUYER, "round": 2, "buy": "9H", "rollouts": 0}, "rollouts", "not 0"),
        ({"hand": BUYER, "round": 2, "buy": "9H 10H"}, "buy", "one card"),
        ({"hand": BUYER, "round": 2, "buy": "7H", "seen": "7H 7H", "players": 4}, "seen", "3 copies of 7H"),
        ({"hand": BUYER, "round": 2, "buy": "7H", "seen": "7H", "players": 4}, "buy", "the offered 7H"),
        ({"hand": ONE_AWAY, "round": 2, "buy": "9H"}, "buy", "before your draw"),
        ({"hand": LAY_DOWN, "round": 9}, "round", "round 9"),
        ({"hand": LAY_DOWN, "round": 2, "players": 40}, "players", "40"),
        ({"hand": THIRTY, "round": 1}, "hand", "30 cards"),
        ({"hand": "", "round": 1}, "hand", "empty"),
        ({"round": 1}, "hand", 'missing "hand"'),
        ({"hand": LAY_DOWN}, "round", 'missing "round"'),
    ]
    for job, field, words in cases:
        with pytest.raises(QuestionError) as caught:
            Question.from_json(job)
        assert list(caught.value.fields) == [field], job
        assert words in caught.value.fields[field], (job, caught.value.fields)


def test_a_bad_rule_set_still_names_the_bad_cards() -> None:
    with pytest.raises(QuestionError) as caught:
        Question.from_json({"hand": "7H 8X", "round": 2, "rules": "no-such-rules"})
    assert list(caught.value.fields) == ["hand", "rules"]
    assert "'no-such-rules'" in caught.value.fields["rules"] and "'8X'" in caught.value.fields["hand"]


def test_every_unknown_field_is_named() -> None:
    with pytest.raises(QuestionError) as caught:
        Question.from_json({"hand": LAY_DOWN, "round": "2", "player": 4, "colour": "red"})
    assert list(caught.value.fields) == ["player", "colour"]
    assert str(caught.value).count("unknown field") == 2


def test_what_is_no_field_is_refused_before_the_fields() -> None:
    for job, name, words in ([LAY_DOWN, 2], "request", "expected a JSON object"), \
                            ({"hand": LAY_DOWN, "round": 2, "player": 4}, "player", "unknown field 'player'"):
        with pytest.raises(QuestionError) as caught:
            Question.from_json(job)
        assert list(caught.value.fields) == [name]
        assert words in str(caught.value) and not str(caught.value).startswith(f"{name}:")


def test_limits_are_applied(tmp_path: Path) -> None:
    rules_file = tmp_path / "house.toml"
    rules_file.write_text('base = "shanghai"\nname = "house"\n')
    server = Limits(time_limit=2.0, rollouts=200, digits=6, text=100, rule_files=False, where=" on this server")
    job = {"hand": BUYER, "round": 2, "buy": "9H", "time_limit": 3, "rollouts": 500, "seed": 10**7,
           "seen": "9C" + " " * 120, "rules": str(rules_file)}
    with pytest.raises(QuestionError) as caught:
        Question.from_json(job, limits=server)
    fields = caught.value.fields
    assert list(fields) == ["rules", "time_limit", "seen", "rollouts", "seed"]
    assert "unknown rule set" in fields["rules"]  # a preset's name only: the file is never read
    assert "at most 2 on this server, not 3" in fields["time_limit"]
    assert "at most 100" in fields["seen"]
    assert fields["rollouts"] == "1 to 200 simulated rounds on this server, not 500"
    assert "at most 6 digits" in fields["seed"]
    # The same question within the command's bounds, where a rules file is read.
    question = Question.from_json(job)
    assert question.rules.name == "house" and question.time_limit == 3.0 and question.rollouts == 500
    assert Question.from_json({"hand": LAY_DOWN, "round": 2}, limits=server).time_limit == 2.0


# ---- the answer is the command's --json ----------------------------------------------------------

ANSWERED = [
    ({"hand": LAY_DOWN, "round": 2}, ["-r", "2"]),
    ({"hand": LAY_DOWN + " KD", "round": 2, "moment": "before-draw"}, ["-r", "2", "--before-draw"]),
    ({"hand": ONE_AWAY, "round": 2, "seen": "9H", "discards": True, "players": 4},
     ["-r", "2", "--seen", "9H", "--discards", "--players", "4"]),
    ({"hand": "5H 6H 7H JK 9C 10C JC QC KS 2D 3D", "round": 3, "rules": "shanghai", "outs": True},
     ["-r", "3", "--rules", "shanghai", "--outs"]),
    ({"hand": "4C 4D 9S 9H 9D KC KH AS 7D 2C 3H QS", "round": 4, "rules": "liverpool", "players": 4,
      "moment": "after-draw"}, ["-r", "4", "--rules", "liverpool", "--players", "4", "--after-draw"]),
    ({"hand": "3S 4S 5S 6S 7S 8S 10D JD QD KD AD 5C", "round": 3, "rules": "may-i", "players": 5},
     ["-r", "3", "--rules", "may-i", "--players", "5"]),
    ({"hand": BUYER, "round": 2, "players": 4, "buy": "9H", "rollouts": 20, "seed": 1},
     ["-r", "2", "--players", "4", "--buy", "9H", "--rollouts", "20", "--seed", "1"]),
]


@pytest.mark.parametrize(("job", "args"), ANSWERED, ids=lambda case: str(case)[:50])
def test_the_answer_is_what_analyze_json_prints(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                job: dict[str, Any], args: list[str]) -> None:
    hand_file = tmp_path / "hand.txt"
    hand_file.write_text(job["hand"])
    assert run([str(hand_file), "--json", *args]) == 0
    printed = json.loads(capsys.readouterr().out)
    question = Question.from_json(job)
    assert answer(question) == printed
    assert printed["moment"] == (question.moment.value if question.moment else printed["moment"])
    assert ("outs" in printed) == question.asks_advice


def test_both_moments_are_asked() -> None:
    moments = {Question.from_json(job).moment for job, _ in ANSWERED}
    assert {Moment.BEFORE_DRAW, Moment.AFTER_DRAW} <= moments
