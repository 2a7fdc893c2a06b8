"""Game records (analyzer.records): a round written as it is played replays exactly through the
table, full-rules moves included, and a record tampered with in any way is refused naming the
first bad event."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from analyzer import Recorder, RecordError, Table, game_record, preset, read_record, replay
from analyzer.records import card_of, dumps_record
from tests.analyzer.test_table import RandomMoves

Record = dict[str, Any]


def random_moves_record(name: str, round_number: int, seed: int, players: int = 3) -> Record:
    """A round of ``RandomMoves`` players (lay-offs at either end on any meld, jokers taken back,
    buys), recorded and written out as JSON text and read back."""
    rules = preset(name)
    policy = RandomMoves(rules, round_number, players, random.Random(f"records/{name}/{round_number}/{seed}"))
    table = Table.deal(rules, round_number, players, seed, [policy] * players)
    policy.table = table
    table.max_turns = 40 * players
    recorder = Recorder(table, seed=seed)
    table.play()
    record: Record = json.loads(dumps_record(game_record(rules, ["ann", "bob", "cy"][:players],
                                                         [recorder.round_record()])))
    replayed = replay(record).rounds[0]
    assert replayed.outcome == table.outcome()
    assert replayed.table.hands == table.hands and replayed.table.melds == table.melds
    return record


@pytest.fixture(scope="module")
def shanghai() -> Record:
    """A shanghai round 2 with jokers taken back, lay-offs on others' melds, buys and a reshuffle."""
    # Seed 6: since every seat sees every meld (generator puzzles-8), seeds 0-5 end before the
    # stock runs out.
    record = random_moves_record("shanghai", 2, 6)
    kinds = {event["event"] for event in record["rounds"][0]["events"]}
    assert {"substitute", "lay_off", "buy", "take", "reshuffle", "lay_down"} <= kinds, kinds
    return record


@pytest.mark.parametrize(("name", "round_number", "seed"), [("progressive", 3, 1), ("pagat", 6, 2),
                                                             ("eveleigh", 3, 1), ("shanghai-powe", 8, 0)])
def test_rounds_with_the_full_rules_moves_replay_exactly(name: str, round_number: int, seed: int) -> None:
    random_moves_record(name, round_number, seed)


def events(record: Record) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = record["rounds"][0]["events"]
    return found


def first(record: Record, test: Callable[[dict[str, Any]], bool]) -> int:
    return next(index for index, event in enumerate(events(record)) if test(event))


def refused_at(record: Record, index: int, *words: str) -> str:
    with pytest.raises(RecordError) as error:
        replay(record)
    message = str(error.value)
    assert message.startswith(f"rounds[0].events[{index}]"), message
    for word in words:
        assert word in message, message
    return message


def test_a_card_the_player_does_not_hold(shanghai: Record) -> None:
    record = copy.deepcopy(shanghai)
    index = first(record, lambda e: e["event"] == "discard" and e["seat"] == 0)
    # A card dealt to player 3, which player 1 never sees before its first discard.
    held = card_of(events(record)[index]["card"])
    other = next(i for i in events(record)[0]["hands"][2] if card_of(i) != held)
    events(record)[index]["card"] = other
    refused_at(record, index, "player 1 discards", "does not hold")


def test_the_other_copy_of_a_card_is_another_card(shanghai: Record) -> None:
    record = copy.deepcopy(shanghai)
    index = first(record, lambda e: e["event"] == "discard" and e["card"].endswith("#1"))
    events(record)[index]["card"] = events(record)[index]["card"].replace("#1", "#2")
    refused_at(record, index, "does not hold", events(record)[index]["card"])


def test_an_illegal_lay_down_names_the_rule(shanghai: Record) -> None:
    record = copy.deepcopy(shanghai)
    index = first(record, lambda e: e["event"] == "lay_down")
    meld = events(record)[index]["melds"][0]
    natural = next(n for n, ident in enumerate(meld["cards"]) if not ident.startswith("JK"))
    meld["as"][natural] = "KD" if meld["as"][natural] != "KD" else "QD"
    refused_at(record, index, "lays down", "is not wild, so it cannot stand for")


def test_a_lay_off_that_does_not_fit(shanghai: Record) -> None:
    record = copy.deepcopy(shanghai)
    index = first(record, lambda e: e["event"] == "lay_off" and e.get("end") is not None)
    event = events(record)[index]
    event["end"] = "low" if event["end"] == "high" else "high"
    message = refused_at(record, index, "lays off")
    assert "does not extend" in message or "the replay makes it" in message, message


def test_a_joker_taken_back_by_a_wrong_card(shanghai: Record) -> None:
    record = copy.deepcopy(shanghai)
    index = first(record, lambda e: e["event"] == "substitute")
    events(record)[index]["meld"]["index"] += 5
    refused_at(record, index, "takes a joker back", "meld(s)")


def test_wrong_scores_and_hands(shanghai: Record) -> None:
    record = copy.deepcopy(shanghai)
    last = len(events(record)) - 1
    events(record)[last]["points"][1] += 5
    refused_at(record, last, "the scores", "player 2 scores")
    record = copy.deepcopy(shanghai)
    record["totals"][0] += 1
    with pytest.raises(RecordError, match="^totals: the rounds add up to"):
        replay(record)


def test_a_draw_that_is_not_the_top_card(shanghai: Record) -> None:
    record = copy.deepcopy(shanghai)
    index = first(record, lambda e: e["event"] == "draw")
    del record["rounds"][0]["seed"]  # the deal is then the record's alone
    stock = events(record)[0]["stock"]
    stock[0], stock[1] = stock[1], stock[0]
    refused_at(record, index, "draws", "the stock's top card is")


def test_a_deal_the_seed_does_not_deal(shanghai: Record) -> None:
    record = copy.deepcopy(shanghai)
    deal = events(record)[0]
    deal["hands"][0][0], deal["stock"][5] = deal["stock"][5], deal["hands"][0][0]
    refused_at(record, 0, "not the cards seed 6 deals")


def test_a_buy_out_of_turn(shanghai: Record) -> None:
    record = copy.deepcopy(shanghai)
    index = first(record, lambda e: e["event"] == "buy")
    turn = next(i for i in range(index + 1, len(events(record))) if events(record)[i]["event"] in ("draw", "take"))
    events(record)[index]["seat"] = events(record)[turn]["seat"]  # the player in turn never buys
    refused_at(record, index, "may not buy now")


def test_a_record_cut_short_or_run_on(shanghai: Record) -> None:
    record = copy.deepcopy(shanghai)
    del events(record)[40:]
    refused_at(record, 40, "the record ends")
    record = copy.deepcopy(shanghai)
    events(record).append({"event": "draw", "seat": 0, "card": "2C#1"})
    refused_at(record, len(events(record)) - 1, "nothing comes after them")


def test_a_reshuffle_that_is_not_the_pile(shanghai: Record) -> None:
    record = copy.deepcopy(shanghai)
    index = first(record, lambda e: e["event"] == "reshuffle")
    events(record)[index]["stock"][0] = events(record)[0]["hands"][0][0]
    refused_at(record, index, "the reshuffle", "the new stock is the discard pile less its top card")


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r.update(version=2), "^version: this analyser reads version 1 records, not 2"),
    (lambda r: r.pop("format"), "^format: a game record says"),
    (lambda r: r.update(rules="nope"), "^rules: unknown rule set 'nope'"),
    (lambda r: r.update(players=[{"seat": 0, "name": "x"}]), "^players: 'shanghai' is for 3 to 5 players, not 1"),
    (lambda r: r["players"].append({"seat": 3, "name": "x"}), r"^rounds\[0\].events\[0\]: 3 hands dealt to 4 players"),
    (lambda r: r["rounds"][0].update(round=99), r"^rounds\[0\].round: shanghai has rounds 1 to 7, not 99"),
    (lambda r: r["rounds"][0]["events"][0]["hands"][0].append("QQ#1"), r"^rounds\[0\].events\[0\]: "),
    (lambda r: r["rounds"][0]["events"][0]["stock"].append("7H#1"), r"7H#1 is dealt twice"),
])
def test_malformed_records(shanghai: Record, change: Callable[[Record], Any], message: str) -> None:
    record = copy.deepcopy(shanghai)
    change(record)
    with pytest.raises(RecordError, match=message):
        replay(record)


def test_full_rules_round_trip_when_not_a_preset() -> None:
    import dataclasses

    rules = dataclasses.replace(preset("progressive"), name="house", lay_off_same_turn=True)
    table = Table.deal(rules, 1, 3, seed=4)
    recorder = Recorder(table, seed=4)
    table.play()
    record = game_record(rules, ["a", "b", "c"], [recorder.round_record()])
    assert isinstance(record["rules"], dict)
    assert replay(json.loads(json.dumps(record))).rules == rules


def test_files_that_are_not_records(tmp_path: Any) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RecordError, match="is not JSON"):
        read_record(str(bad))
    bad.write_text("[1, 2]")
    with pytest.raises(RecordError, match="not an object"):
        read_record(str(bad))
    with pytest.raises(RecordError, match="not found"):
        read_record(str(tmp_path / "missing.json"))
