"""The ``analyze`` command as a user runs it: a subprocess, its stdout, stderr and exit status.

Answers are compared with the public API (``analyzer.analyze``), so these tests check what the
command adds (reading, wording, JSON lines, errors), not the solver again.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from analyzer import advise, analyze, load_rules
from analyzer.cards import Card, faces
from analyzer.render import render
from analyzer.result import PlacedMeld
from analyzer.rules import ALIASES, MeldKind
from analyzer.validate import validate_lay_down
from tests.analyzer.test_presets_golden import GOLDEN

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "analyzer" / "examples"
EXAMPLE_HAND = (EXAMPLES / "round3.txt").read_text(encoding="utf-8")  # progressive round 3, after the draw
GOES_OUT = (EXAMPLES / "round6.txt").read_text(encoding="utf-8")  # progressive round 6, after the draw
LAY_DOWN = "7H 8H 9H 10H 5C 5D 5S"  # progressive round 2: a set of 3 and a run of 4, nothing left
THREE_AWAY = "7C 7D 4H 5H 6H 9S 10S JS KD"  # progressive round 6: needs a 7, a heart and a spade


def run(*args: str, stdin: str | bytes | None = None, encoding: str = "utf-8") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    completed = subprocess.run(
        [sys.executable, "-m", "analyzer", *args], input=stdin.encode() if isinstance(stdin, str) else stdin,
        capture_output=True, cwd=ROOT, env=env, timeout=120, check=False,
    )
    return subprocess.CompletedProcess(completed.args, completed.returncode,
                                       completed.stdout.decode(encoding), completed.stderr.decode(encoding))


def succeeded(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def assert_refused(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit status 2 and one line ``analyze: ...`` on stderr that names the problem."""
    assert "Traceback" not in result.stderr
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("analyze: ")
    for word in words:
        assert word in lines[0]
    return lines[0]


def check_answer_dict(answer: dict[str, Any], players: int | None) -> None:
    """A JSON answer re-validated card by card by the independent validator: its melds and
    leftover (or its missing cards and the lay-down they allow) against its own hand."""
    rules = load_rules(answer["rules"])
    hand = tuple(Card.parse(token) for token in answer["hand"])

    def melds(key: str) -> tuple[PlacedMeld, ...]:
        return tuple(PlacedMeld(MeldKind(m["kind"]), tuple(Card.parse(t) for t in m["cards"]),
                                tuple(Card.parse(t) for t in m["as"])) for m in answer[key])

    leftover = tuple(Card.parse(token) for token in answer["leftover"])
    if answer["can_lay_down"]:
        assert answer["melds"] and answer["cards_away"] == 0
        assert validate_lay_down(hand, rules, answer["round"], melds("melds"), leftover) == []
    elif answer["cards_away"] is not None and not answer["go_out"]:
        missing = tuple(Card.parse(token) for token in answer["missing"])
        assert len(missing) == answer["cards_away"] >= 1
        used = Counter(card for meld in melds("with_missing") for card in meld.cards)
        kept = Counter(hand) + Counter(missing) - used
        assert validate_lay_down(hand, rules, answer["round"], melds("with_missing"), tuple(kept.elements()),
                                 extra=missing, deck=rules.deck_for(players)) == []


def hand_file(tmp_path: Path, text: str | bytes, name: str = "hand.txt") -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


# ---- one hand, for people ---------------------------------------------------------------------


def test_example_shows_the_turns_best_play_which_is_not_the_obvious_one() -> None:
    out = succeeded(run("--example"))
    expected = analyze(EXAMPLE_HAND, "progressive", 3)
    assert expected.moment == "after-draw" and expected.can_lay_down and expected.discard is not None
    assert "round 3" in out and "2 runs of 4" in out and "11 cards, after your draw" in out
    assert "You can lay down:" in out
    for meld in expected.melds:
        assert meld.describe() in out
    kept = Counter(expected.leftover) - Counter([expected.discard])
    assert (f"and discard {expected.discard.face}: you keep {faces(kept.elements())} "
            f"({expected.points_after_discard} points).") in out
    # The obvious play: the lay-down that leaves the fewest points, then its costliest card
    # discarded. The turn's best play keeps fewer points when the turn ends.
    obvious = analyze(EXAMPLE_HAND, "progressive", 3, moment="before-draw")
    obvious_kept = obvious.leftover_points - max(load_rules("progressive").points_of(c) for c in obvious.leftover)
    assert expected.points_after_discard is not None and expected.points_after_discard < obvious_kept
    assert expected.leftover_points > obvious.leftover_points
    assert "lay off" in out and "not proven" not in out


def test_a_turn_that_goes_out_says_so(tmp_path: Path) -> None:
    out = succeeded(run(hand_file(tmp_path, GOES_OUT), "-r", "6"))
    expected = analyze(GOES_OUT, "progressive", 6)
    assert expected.goes_out and expected.points_after_discard == 0
    assert expected.discard is not None and not expected.discard.is_joker
    assert f"and discard {expected.discard.face}: you go out." in out and "Joker=" in out


def test_cards_away_names_the_missing_cards_and_the_lay_down_they_allow(tmp_path: Path) -> None:
    out = succeeded(run(hand_file(tmp_path, THREE_AWAY), "--round", "6"))
    expected = analyze(THREE_AWAY, "progressive", 6)
    assert expected.cards_away == 3
    assert "you are 3 cards away" in out
    assert f"These cards would do it: {expected.describe_missing()}" in out
    for meld in expected.with_missing:
        assert meld.describe() in out
    assert "You would keep: K♦ (10 points)" in out


def test_one_card_away_is_said_in_the_singular(tmp_path: Path) -> None:
    out = succeeded(run(hand_file(tmp_path, "7H 8H 9H 5C 5D 5S"), "--round", "2"))
    assert "you are 1 card away" in out and "This card would do it:" in out


def test_a_wild_two_is_shown_as_what_it_stands_for(tmp_path: Path) -> None:
    out = succeeded(run(hand_file(tmp_path, "5S 6S 2C 8S KC KD KH"), "-r", "2", "--rules", "eveleigh"))
    assert "2♣=7♠" in out and "the wild 2♣ stands for the 7♠" in out


def test_not_proven_optimal_is_flagged() -> None:
    result = analyze(EXAMPLE_HAND, "progressive", 3)
    rules = load_rules("progressive")
    flag = "best found within the time limit, not proven optimal"
    assert flag not in render(result, rules)
    assert flag in render(dataclasses.replace(result, proven_optimal=False), rules)
    away = analyze(THREE_AWAY, "progressive", 6)
    assert flag in render(dataclasses.replace(away, proven_optimal=False), rules)


def test_no_lay_down_at_all_is_told_apart_from_running_out_of_time() -> None:
    rules = load_rules("shanghai")
    result = analyze("KC KC KD KD KH KH KS KS", rules, 7)  # a go-out round: eight kings never fit
    assert result.cards_away is None and not result.can_lay_down
    impossible = render(dataclasses.replace(result, proven_optimal=True), rules)
    assert "cannot lay down the contract, whatever cards it draws" in impossible
    assert "every card must fit" in impossible
    timed_out = render(dataclasses.replace(result, proven_optimal=False), rules)
    assert "not proven impossible" in timed_out and "whatever cards" not in timed_out


def test_a_terminal_without_suit_symbols_gets_suit_letters() -> None:
    out = succeeded(run("--example", encoding="ascii"))
    assert "7C 8C 9C 10C" in out and "♣" not in out


# ---- one hand, as JSON ------------------------------------------------------------------------


def test_json_is_the_lay_down_dict() -> None:
    answer = json.loads(succeeded(run("--example", "--json")))
    assert answer == analyze(EXAMPLE_HAND, "progressive", 3).to_dict()
    assert set(answer) == {
        "rules", "round", "contract", "go_out", "hand", "can_lay_down", "melds", "leftover",
        "leftover_points", "cards_away", "missing", "with_missing", "proven_optimal",
        "moment", "note", "discard", "points_after_discard", "goes_out",
    }
    used = Counter(card for meld in answer["melds"] for card in meld["cards"])
    assert used + Counter(answer["leftover"]) == Counter(answer["hand"])
    assert answer["can_lay_down"] and answer["cards_away"] == 0 and answer["discard"] in answer["leftover"]


def test_json_for_a_hand_that_cannot_lay_down(tmp_path: Path) -> None:
    answer = json.loads(succeeded(run(hand_file(tmp_path, THREE_AWAY), "-r", "6", "--json")))
    assert not answer["can_lay_down"] and answer["melds"] == []
    assert len(answer["missing"]) == answer["cards_away"] == 3
    used = Counter(card for meld in answer["with_missing"] for card in meld["cards"])
    assert used - Counter(answer["missing"]) <= Counter(answer["hand"])
    assert Counter(answer["missing"]) <= used


def test_stdin_and_a_file_give_the_same_answer(tmp_path: Path) -> None:
    text = "# from my hand\n10h, 8♥ 9h\n7H 5c 5D 5s\n"
    from_file = json.loads(succeeded(run(hand_file(tmp_path, text), "--round", "2", "--json")))
    from_stdin = json.loads(succeeded(run("-", "--round", "2", "--json", stdin=text)))
    assert from_file == from_stdin == analyze(LAY_DOWN, "progressive", 2).to_dict()


def test_players_decide_the_jokers(tmp_path: Path) -> None:
    path = hand_file(tmp_path, "JK JK JK 7H 7D")  # pagat: players - 1 jokers
    answer = json.loads(succeeded(run(path, "-r", "1", "--rules", "pagat", "--players", "4", "--json")))
    assert answer["hand"].count("JK") == 3 and answer["cards_away"] == 1
    assert_refused(run(path, "-r", "1", "--rules", "pagat", "--players", "3"), "3 jokers", "only 2")
    assert_refused(run(path, "-r", "1", "--rules", "pagat", "--players", "2"), "3 to 5 players")


def test_a_rules_file_changes_the_contract(tmp_path: Path) -> None:
    rules = tmp_path / "five.toml"
    rules.write_text('base = "progressive"\nrounds = [{ deal = 7, contract = "R5" }]\n', encoding="utf-8")
    answer = json.loads(succeeded(run(hand_file(tmp_path, "3C 4C 5C 6C 7C KD"), "-r", "1", "--rules", str(rules),
                                      "--json")))
    assert answer["rules"] == "progressive+five"
    assert answer["contract"] == [{"kind": "run", "size": 5}]
    assert answer["melds"] == [{"kind": "run", "cards": ["3C", "4C", "5C", "6C", "7C"],
                                "as": ["3C", "4C", "5C", "6C", "7C"]}]
    assert answer["leftover"] == ["KD"] and answer["leftover_points"] == 10


def test_time_limit_is_accepted(tmp_path: Path) -> None:
    answer = json.loads(succeeded(run(hand_file(tmp_path, LAY_DOWN), "-r", "2", "--time-limit", "2.5", "--json")))
    assert answer["can_lay_down"]


# ---- batches ----------------------------------------------------------------------------------


def test_batch_answers_each_line_in_order_and_goes_on_after_bad_ones(tmp_path: Path) -> None:
    good = [
        {"hand": LAY_DOWN, "round": 2},
        {"hand": THREE_AWAY, "round": 6, "rules": "Liverpool", "players": 4, "time_limit": 3},
        {"hand": EXAMPLE_HAND, "round": 3, "rules": "progressive"},
    ]
    lines = [
        json.dumps(good[0]),
        "{not json",
        json.dumps(good[1]),
        json.dumps({"hand": "7H 8X", "round": 2}),
        "",
        json.dumps({"hand": LAY_DOWN}),
        json.dumps({"hand": LAY_DOWN, "round": 2, "rules": "no-such-rules"}),
        json.dumps({"hand": LAY_DOWN, "round": 2, "player": 4}),
        json.dumps([LAY_DOWN, 2]),
        json.dumps({"hand": LAY_DOWN, "round": "2"}),
        json.dumps({"hand": LAY_DOWN, "round": 2, "time_limit": 0}),
        "[" * 50_000,
        json.dumps(good[2]),
    ]
    result = run("--batch", hand_file(tmp_path, "\n".join(lines) + "\n", "jobs.jsonl"))
    message = assert_refused(result, "9 of 12", "line 2")
    assert "not JSON" in message
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    # One output line per non-blank input line: the blank line 5 is skipped, not answered.
    numbered = [number for number, line in enumerate(lines, start=1) if line.strip()]
    assert len(answers) == len(numbered) == len(lines) - 1
    by_line = dict(zip(numbered, answers))
    for number, job in zip((1, 3, 13), good):
        assert by_line[number] == analyze(job["hand"], job.get("rules", "progressive"), job["round"],
                                          job.get("players")).to_dict()
    # The answers themselves, known by hand: 7♥-10♥ + 5 5 5 melds every card; THREE_AWAY needs
    # a 7, a heart and a spade; the example's best play keeps 8 points (README).
    assert by_line[1]["can_lay_down"] and by_line[1]["leftover_points"] == 0
    assert by_line[3]["rules"] == "pagat" and by_line[3]["cards_away"] == 3 and len(by_line[3]["missing"]) == 3
    assert by_line[13]["can_lay_down"] and by_line[13]["points_after_discard"] == 8
    errors = {number: answer["error"] for number, answer in by_line.items() if "error" in answer}
    assert all(set(by_line[number]) == {"error"} for number in errors)
    expected = {2: "not JSON", 4: "'8X'", 6: "missing \"round\"", 7: "'no-such-rules'",
                8: "unknown field 'player'", 9: "JSON object", 10: "round: expected a whole number",
                11: "time_limit", 12: "nested too deeply"}
    assert sorted(errors) == sorted(expected)
    for number, words in expected.items():
        assert errors[number].startswith(f"line {number}: ") and words in errors[number]


def test_bundled_batch_runs_clean_and_keeps_its_order() -> None:
    jobs = [json.loads(line) for line in (EXAMPLES / "batch.jsonl").read_text(encoding="utf-8").splitlines()]
    answers = [json.loads(line) for line in succeeded(run("--batch", str(EXAMPLES / "batch.jsonl"))).splitlines()]
    assert len(answers) == len(jobs) >= 4
    assert len({job.get("rules", "progressive") for job in jobs}) >= 4
    for job, answer in zip(jobs, answers):
        name = job.get("rules", "progressive")
        assert answer["rules"] == ALIASES.get(name, name) and answer["round"] == job["round"]
        assert answer == analyze(job["hand"], name, job["round"], job.get("players")).to_dict()
        check_answer_dict(answer, job.get("players"))
    # The first four answers, known by hand (each line's hand is before the draw):
    # 7♥-10♥ + 5♣ 5♦ 5♠, nothing left;
    assert answers[0]["can_lay_down"] and answers[0]["leftover_points"] == 0
    # shanghai 2 runs: 5♥ 6♥ 7♥ JK + 9♣-Q♣, keeping K♠ 2♦ 3♦ (10 + 5 + 5);
    assert answers[1]["can_lay_down"] and sorted(answers[1]["leftover"]) == ["2D", "3D", "KS"]
    assert answers[1]["leftover_points"] == 20
    # liverpool 3 sets: 9 9 9 down, a 4 and a K (or jokers) missing;
    assert not answers[2]["can_lay_down"] and answers[2]["cards_away"] == 2
    # may-i 2 runs, longer allowed: 3♠-8♠ and 10♦-A♦, keeping the 5♣.
    assert answers[3]["can_lay_down"] and answers[3]["leftover"] == ["5C"] and answers[3]["leftover_points"] == 5


def test_batch_from_stdin_takes_defaults_from_the_command_line() -> None:
    jobs = json.dumps({"hand": LAY_DOWN}) + "\n" + json.dumps({"hand": LAY_DOWN, "round": 1, "rules": "may-i"})
    answers = [json.loads(line) for line in
               succeeded(run("--batch", "-", "--round", "2", "--rules", "shanghai", stdin=jobs)).splitlines()]
    assert [(a["rules"], a["round"]) for a in answers] == [("shanghai", 2), ("may-i", 1)]
    assert answers == [analyze(LAY_DOWN, "shanghai", 2).to_dict(), analyze(LAY_DOWN, "may-i", 1).to_dict()]
    # Shanghai round 2 (a set and a run): every card melds. May I? round 1 (two sets): one set
    # of 5s and two cards short of another.
    assert answers[0]["can_lay_down"] and answers[0]["leftover_points"] == 0
    assert not answers[1]["can_lay_down"] and answers[1]["cards_away"] == 2
    for answer in answers:
        check_answer_dict(answer, None)


def test_batch_line_over_the_cap_is_an_error_for_that_line_only(tmp_path: Path) -> None:
    long_line = json.dumps({"hand": "7H " * 30_000, "round": 2})
    path = hand_file(tmp_path, long_line + "\n" + json.dumps({"hand": LAY_DOWN, "round": 2}) + "\n", "jobs.jsonl")
    result = run("--batch", path)
    assert_refused(result, "1 of 2")
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert "longer than 64 KiB" in first["error"]
    assert second["can_lay_down"]


# ---- rule sets --------------------------------------------------------------------------------


def players_in(line: str) -> dict[int, tuple[int, int]]:
    """``2-4: 2 decks + 1 joker; 5-8: ...`` as {players: (decks, jokers)}."""
    found: dict[int, tuple[int, int]] = {}
    for low, high, decks, jokers in re.findall(r"(\d+)(?:-(\d+))?: (\d+) decks? \+ (\d+) jokers?", line):
        for players in range(int(low), int(high or low) + 1):
            found[players] = (int(decks), int(jokers))
    return found


RANK_ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def points_in(line: str) -> tuple[dict[str, int], int, int | None]:
    """``A 15, 2-10 face value, J-K 10, joker 25`` as ({rank: points}, joker, wild 2)."""
    by_rank: dict[str, int] = {}
    joker, wild_two = -1, None
    for part in line.split(", "):
        label, value = part.rsplit(" ", 1) if not part.endswith("face value") else (part[:-11], "face")
        if label == "joker":
            joker = int(value)
        elif label == "wild 2":
            wild_two = int(value)
        else:
            first, _, last = label.partition("-")
            ranks = RANK_ORDER[RANK_ORDER.index(first):RANK_ORDER.index(last or first) + 1]
            for rank in ranks:
                by_rank[rank] = int(rank) if value == "face" else int(value)
    return by_rank, joker, wild_two


def describe(melds: tuple[tuple[str, int], ...]) -> str:
    """A contract as --list-rules words it (``2 sets of 3 + 1 run of 4``), from RULES.md's table."""
    counts: dict[tuple[str, int], int] = {}
    for meld in melds:
        counts[meld] = counts.get(meld, 0) + 1
    return " + ".join(f"{n} pair ({size} cards)" if kind == "pair" else f"{n} {kind}{'s' if n > 1 else ''} of {size}"
                      for (kind, size), n in counts.items())


def test_list_rules_shows_every_preset_as_rules_md_has_it() -> None:
    """Every preset's block against RULES.md §6-7 (``GOLDEN``, transcribed by hand), never
    against ``PRESETS``."""
    out = succeeded(run("--list-rules"))
    blocks = {block.splitlines()[0].split()[0].rstrip(","): block for block in out.split("\n\n")}
    assert list(blocks) == list(GOLDEN)  # RULES.md §7's order
    assert blocks["progressive"].splitlines()[0] == "progressive (default)"
    assert blocks["pagat"].splitlines()[0] == "pagat, also liverpool"
    for name, want in GOLDEN.items():
        block = blocks[name]
        text = " ".join(block.split())
        assert f"seed {want['source']}" in text or f"seeds {want['source']}" in text
        fields = {key: value for key, value in re.findall(r"^ {4}(\w+): (.*?)(?=^ {4}\w+:|\Z)", block,
                                                           re.MULTILINE | re.DOTALL)}
        fields = {key: " ".join(value.split()) for key, value in fields.items()}
        assert players_in(fields["players"]) == want["decks"], name
        melds = fields["melds"]
        assert melds.startswith("exactly the contract's sizes" if want["mode"] == "exact"
                                else "may be longer than the contract's sizes"), name
        assert f"same-suit runs: {want['same_suit']}" in melds
        assert ("ace low or high" if want["ace_low"] else "ace high only") in melds
        wild = "wild: jokers and 2s" if want["deuces_wild"] else "wild: jokers"
        wild += f", at most {want['wilds_per_meld']} per meld" if want["wilds_per_meld"] else ""
        assert wild in melds and (f"{wild};" in melds or melds.endswith(wild)), melds
        assert ("no two sets of one rank" in melds) == want["distinct_set_ranks"]
        play = fields["play"]
        assert f"discard to go out: {want['discard_to_go_out']}" in play
        if len(set(want["buys"])) == 1 and len(set(want["penalty"])) == 1:
            buys, penalty = want["buys"][0], want["penalty"][0]
            limit = "unlimited buys" if buys is None else f"{buys} buys a round"
            assert f"buying: {limit}, {penalty} penalty card{'s' if penalty != 1 else ''}" in play, play
        else:
            assert "buying: by round" in play
        assert ("never the same player twice in a row" in play) == want["no_consecutive"]
        by_rank, joker, wild_two = points_in(fields["points"])
        assert [by_rank[rank] for rank in RANK_ORDER if not (rank == "2" and want["deuces_wild"])] == [
            points for rank, points in zip(RANK_ORDER, want["points"]) if not (rank == "2" and want["deuces_wild"])]
        assert joker == want["joker"]
        assert wild_two == (want["wild_two"] if want["deuces_wild"] else None)
        round_lines = [line for line in block.splitlines() if " cards: " in line]
        assert len(round_lines) == len(want["deals"])
        for number, (line, deal, melds_wanted) in enumerate(zip(round_lines, want["deals"], want["contracts"]),
                                                            start=1):
            assert line.split(".")[0].strip() == str(number)
            assert f"{deal:>2} cards: {describe(melds_wanted)}" in line, line
            assert ("[go out]" in line) == (number in want["go_out"]), line
            if "by round" in play:
                buys, penalty = want["buys"][number - 1], want["penalty"][number - 1]
                said = ("no buying" if not buys else
                        f"{buys} buy{'s' if buys > 1 else ''}, {penalty or 'no'} penalty card{'s' if penalty > 1 else ''}")
                assert f"[{said}]" in line, line


def test_list_rules_as_json() -> None:
    """The JSON of every preset against RULES.md (``GOLDEN``), field by field."""
    presets = json.loads(succeeded(run("--list-rules", "--json")))
    assert list(presets) == list(GOLDEN)
    for name, want in GOLDEN.items():
        got = presets[name]
        assert got["name"] == name
        decks = {players: (deck["decks"], deck["jokers"]) for deck in got["decks"]
                 for players in range(deck["min_players"], deck["max_players"] + 1)}
        assert decks == want["decks"], name
        assert [r["deal"] for r in got["rounds"]] == want["deals"]
        assert [sorted((m["kind"], m["size"]) for m in r["contract"]) for r in got["rounds"]] == [
            sorted(c) for c in want["contracts"]]
        assert [n for n, r in enumerate(got["rounds"], start=1) if r["go_out"]] == want["go_out"]
        assert [got["buys_per_round"] if r["buys"] is None else r["buys"] for r in got["rounds"]] == want["buys"]
        assert [got["buy_penalty_cards"] if r["buy_penalty_cards"] is None else r["buy_penalty_cards"]
                for r in got["rounds"]] == want["penalty"]
        assert got["no_consecutive_buys"] == want["no_consecutive"]
        assert got["points"]["by_rank"][2:] == list(want["points"][2:]) and got["points"]["by_rank"][0] == want["points"][0]
        if not want["deuces_wild"]:
            assert got["points"]["by_rank"][1] == want["points"][1]
        assert got["points"]["joker"] == want["joker"]
        if want["wild_two"] is not None:
            assert got["points"]["wild_deuce"] == want["wild_two"]
        assert (got["contract_mode"], got["same_suit_runs"], got["ace_low"], got["ace_high"]) == (
            want["mode"], want["same_suit"], want["ace_low"], want["ace_high"])
        assert (got["deuces_wild"], got["max_wilds_per_meld"], got["distinct_set_ranks"]) == (
            want["deuces_wild"], want["wilds_per_meld"], want["distinct_set_ranks"])
        assert got["wilds_may_outnumber_naturals"] is True and got["max_run_length"] == 14
        assert got["discard_to_go_out"] == want["discard_to_go_out"]


def test_readme_and_its_docs_show_what_the_command_prints(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example, away = (block.split("```")[0].strip() for block in readme.split("```text\n")[1:3])
    assert example == succeeded(run("--example")).strip()
    assert THREE_AWAY in readme
    assert away in succeeded(run(hand_file(tmp_path, THREE_AWAY), "-r", "6"))
    command = (ROOT / "docs" / "command.md").read_text(encoding="utf-8")
    shown_json = command.split("## The JSON answer\n")[1].split("```json\n")[1].split("```")[0]
    assert json.loads(shown_json) == json.loads(succeeded(run("--example", "--json")))


def test_help() -> None:
    assert "--batch" in succeeded(run("--help"))


# ---- bad input: one line on stderr, exit status 2 ---------------------------------------------

HAND_FILE_CASES = [
    ("7H 8X 9H", ["-r", "1"], ["'8X'", "card 2"]),
    ("7H 7H 7H 7H", ["-r", "1"], ["4 copies of 7H"]),
    ("JK JK 7H", ["-r", "1", "--players", "3"], ["2 jokers", "only 1"]),
    ("7H 8H 9H", ["-r", "8"], ["round 8", "rounds 1 to 7"]),
    ("7H 8H 9H", ["-r", "0", "--rules", "shanghai"], ["round 0"]),
    ("7H 8H 9H", ["-r", "1", "--rules", "rummy500"], ["unknown rule set 'rummy500'"]),
    ("# nothing but a comment\n", ["-r", "1"], ["empty"]),
    ("7H 8H 9H", [], ["missing --round"]),
    ("7H 8H 9H", ["-r", "x"], ["--round", "'x'"]),
    ("7H 8H 9H", ["-r", "1", "--players", "1"], ["not 1"]),
    ("7H 8H 9H", ["-r", "1", "--time-limit", "-3"], ["time limit"]),
    ("7H 8H 9H", ["-r", "1", "--time-limit", "nan"], ["time limit"]),
    ("7H 8H 9H", ["-r", "1", "--bogus"], ["--bogus"]),
    ("7H 8H 9H", ["-r", "1", "--batch", "jobs.jsonl"], ["give one of"]),
    ("7H 8H 9H", ["-r", "1", "--rules", "missing.toml"], ["'missing.toml' not found"]),
    (b"\xff\xfe7\x00H\x00", ["-r", "1"], ["not text"]),
]


@pytest.mark.parametrize(("text", "args", "words"), HAND_FILE_CASES, ids=lambda case: str(case)[:30])
def test_bad_hand_or_options_are_refused(tmp_path: Path, text: str | bytes, args: list[str],
                                         words: list[str]) -> None:
    assert_refused(run(hand_file(tmp_path, text), *args), *words)


def test_unknown_field_in_a_rules_file(tmp_path: Path) -> None:
    rules = tmp_path / "house.toml"
    rules.write_text('base = "shanghai"\njokers_wild = true\n', encoding="utf-8")
    assert_refused(run(hand_file(tmp_path, LAY_DOWN), "-r", "2", "--rules", str(rules)), "'jokers_wild'")


def test_missing_hand_file(tmp_path: Path) -> None:
    assert_refused(run(str(tmp_path / "nowhere.txt"), "-r", "1"), "not found")


def test_a_directory_is_not_a_hand_file(tmp_path: Path) -> None:
    assert_refused(run(str(tmp_path), "-r", "1"), "is a directory")


def test_a_huge_hand_file_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as sparse:
        sparse.truncate(8 * 1024**3)  # 8 GiB on paper, nothing on disk: reading it would hang
    assert_refused(run(str(path), "-r", "1", "--time-limit", "1"), "64 KiB")


def test_huge_standard_input_is_refused() -> None:
    assert_refused(run("-", "-r", "1", stdin="7H " * 30_000), "standard input", "64 KiB")


def test_no_hand_at_all() -> None:
    assert_refused(run(), "give one of")
    assert_refused(run("--round", "3"), "give one of")


def test_missing_batch_file(tmp_path: Path) -> None:
    assert_refused(run("--batch", str(tmp_path / "jobs.jsonl")), "batch file", "not found")


# ---- advice: outs, the discard table, buying ----------------------------------------------------

ONE_AWAY = "7H 8H 10H 5C 5D 5S KC 2D"  # progressive round 2: needs the 9H (or a joker); KC and 2D spare
BUYER = "7H 8H 10H 5C 5D 5S KC"  # the same before the draw, when a discard is offered


def test_outs_are_shown_when_the_hand_is_away(tmp_path: Path) -> None:
    out = succeeded(run(hand_file(tmp_path, THREE_AWAY), "-r", "6", "--players", "4"))
    advice = advise(THREE_AWAY, "progressive", 6, players=4)
    assert advice.unseen_outs > 0
    listed = ", ".join(f"{out.card.face} ×{out.unseen}" for out in advice.outs)
    assert f"Cards that help (unseen copies): {listed} — {advice.unseen_outs} in all" in out
    assert "(Unseen: 2 decks + 1 joker (for 4 players), less your hand.)" in out
    assert "Cards that help" not in succeeded(run("--example"))  # it can lay down: nothing to wish for


def test_seen_cards_lower_the_unseen_counts(tmp_path: Path) -> None:
    path = hand_file(tmp_path, ONE_AWAY)
    answer = json.loads(succeeded(run(path, "-r", "2", "--players", "4", "--seen", "9h, joker", "--json")))
    assert answer["outs"] == [{"card": "9H", "unseen": 1}, {"card": "JK", "unseen": 0}] and answer["unseen_outs"] == 1
    assert answer["seen"] == ["9H", "JK"] and answer["discards"] is None and answer["buy"] is None
    out = succeeded(run(path, "-r", "2", "--players", "4", "--seen", "9H"))
    assert "9♥ ×1, Joker ×1 — 2 in all" in out and "less your hand and 1 seen card." in out


def test_json_carries_the_outs_when_asked(tmp_path: Path) -> None:
    path = hand_file(tmp_path, ONE_AWAY)
    answer = json.loads(succeeded(run(path, "-r", "2", "--outs", "--json")))
    assert answer == advise(ONE_AWAY, "progressive", 2).to_dict()
    assert {"outs", "unseen_outs", "discards", "buy", "seen"} <= set(answer)
    assert "outs" not in json.loads(succeeded(run(path, "-r", "2", "--json")))


def test_the_discard_table_for_people_and_as_json(tmp_path: Path) -> None:
    path = hand_file(tmp_path, ONE_AWAY)
    out = succeeded(run(path, "-r", "2", "--players", "4", "--discards"))
    table = advise(ONE_AWAY, "progressive", 2, players=4, discards=True).discards
    assert table is not None and table[0].card.face == "K♣"
    lines = out.split("Which card to discard, best first:\n")[1].splitlines()
    assert lines[0].split() == ["rank", "discard", "cards", "away", "unseen", "outs", "points", "kept", "card",
                                "points"]
    rows = lines[1:1 + len(table)]
    for row, line in zip(table, rows):
        assert line.split()[:6] == [f"{row.rank}{'=' if row.rank in {r.rank for r in table if r.equal_to_previous} else ''}",
                                    row.card.face, str(row.cards_away), str(row.unseen_outs), str(row.points_kept),
                                    str(row.card_points)]
        assert line.endswith("← discard this") == (row.rank == 1)
    assert len({line.index(row.card.face) for line, row in zip(rows, table)}) == 1  # columns line up
    assert lines[-1] == "Ranked by: fewest cards away, then most unseen outs, then fewest points kept."
    answer = json.loads(succeeded(run(path, "-r", "2", "--players", "4", "--discards", "--json")))
    assert answer["discards"] == [row.to_dict() for row in table]


def test_should_you_buy_for_people_and_as_json(tmp_path: Path) -> None:
    path = hand_file(tmp_path, BUYER)
    options = ["-r", "2", "--players", "4", "--buy", "9h", "--rollouts", "40", "--seed", "5"]
    answer = json.loads(succeeded(run(path, *options, "--json")))
    expected = advise(BUYER, "progressive", 2, players=4, buy="9H", rollouts=40, seed=5)
    assert answer == expected.to_dict()
    assert answer["buy"]["verdict"] == "buy" and answer["buy"]["seed"] == 5 and answer["buy"]["turn"] == 2
    out = succeeded(run(path, *options))
    assert "Buy the 9♥? BUY: The 9♥ is one of your outs: it completes your contract." in out
    assert answer["buy_answer"]["verdict"] == "buy"
    assert ("Simulated play, passing and buying the 9♥: with 1 penalty card, from your turn 2 to the end of the "
            "round, 4 players") in out
    assert "The simulation's verdict: BUY: buying leaves you" in out and "points better off against the table" in out
    assert "Why: Buying the 9♥ completes your contract" in out
    table = out.split("seed 5):\n")[1].splitlines()[:3]
    assert table[0].split() == ["cards", "lays", "down", "goes", "out", "first", "points", "held", "others", "hold",
                                "against", "table"]
    assert expected.buy is not None
    assert table[1].split()[:2] == ["pass", "7"]
    assert table[2].split()[:3] == ["buy", "9", f"{expected.buy.buying.lay_down_probability:.0%}"]
    later = succeeded(run(path, "-r", "2", "--players", "4", "--buy", "9H", "--rollouts", "40", "--turn", "6",
                          "--horizon", "2"))
    assert "from your turn 6 over at most 2 turns of yours" in later


def test_batch_lines_take_the_advice_fields(tmp_path: Path) -> None:
    lines = [
        {"hand": ONE_AWAY, "round": 2, "seen": "9H", "discards": True},
        {"hand": BUYER, "round": 2, "buy": "9H", "rollouts": 20, "seed": 1, "players": 4},
        {"hand": ONE_AWAY, "round": 2},
        {"hand": ONE_AWAY, "round": 2, "discards": "yes"},
        {"hand": ONE_AWAY, "round": 2, "horizon": 2},
        {"hand": BUYER + " 2C 3C 4C 6C", "round": 1, "rules": "eveleigh", "buy": "9H"},
    ]
    result = run("--batch", hand_file(tmp_path, "\n".join(json.dumps(line) for line in lines) + "\n", "jobs.jsonl"))
    assert_refused(result, "3 of 6", "line 4")
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert answers[0] == advise(ONE_AWAY, "progressive", 2, seen="9H", discards=True).to_dict()
    assert answers[1] == advise(BUYER, "progressive", 2, players=4, buy="9H", rollouts=20, seed=1).to_dict()
    assert answers[2] == analyze(ONE_AWAY, "progressive", 2).to_dict()
    assert "discards: expected true or false" in answers[3]["error"]
    assert '"horizon" goes with "buy"' in answers[4]["error"]
    assert "no buying in round 1" in answers[5]["error"]


ADVICE_CASES = [
    (["--seen", "9H 9H"], ["the hand and the seen cards", "3 copies of 9H"]),  # the hand holds one
    (["--seen", "9H 9Q"], ["seen cards", "'9Q'"]),
    (["--buy", "7H"], ["offered 7H", "3 copies of 7H"]),  # the hand holds two already
    (["--buy", "9H", "--seen", "9H"], ["offered 9H", "3 copies of 9H"]),
    (["--buy", "9H 10H"], ["one card"]),
    (["--buy", "9H", "--rollouts", "0"], ["rollouts"]),
    (["--buy", "9H", "--horizon", "99"], ["horizon"]),
    (["--horizon", "2"], ["--horizon goes with --buy"]),
    (["--buy", "9H", "--rules", "eveleigh", "-r", "3"], ["'eveleigh' allows no buying in round 3"]),
    (["--buy", "9H", "--rules", "shanghai", "--buys-used", "2"], ["allows 2 buys", "used 2"]),
    (["--buy", "9H", "--rules", "pagat", "--bought-last"], ["twice in succession"]),
]


def test_buys_used_counts_the_cards_of_a_buyer_without_an_offered_card(tmp_path: Path) -> None:
    """Where buying is unlimited (``contract``), six buys bring 12 cards more than any turn of the
    analyser's default reading holds: ``--buys-used`` says so, with or without ``--buy``; past the
    buys a round allows it is refused."""
    runs = "3H 4H 5H 6H 7C 8C 9C 10C JS QS KS AS"
    path = hand_file(tmp_path, runs + " 2D 2D 4D 6D 8D 10D QD QD KH KH 9S 7S JD")  # 25: after the draw
    assert_refused(run(path, "--rules", "contract", "-r", "7"), "no turn of round 7", "25 cards")
    out = succeeded(run(path, "--rules", "contract", "-r", "7", "--buys-used", "6"))
    laid = out.split("You can lay down:")[1].split("and discard")[0]
    assert Counter(card for card in laid.split() if not card.endswith(":") and card not in ("run", "of")) == \
        Counter(Card.parse(card).face for card in runs.split())
    answer = json.loads(succeeded(run(path, "--rules", "contract", "-r", "7", "--buys-used", "6", "--seen", "5S",
                                      "--json")))
    assert answer["cards_away"] == 0
    assert_refused(run(hand_file(tmp_path, "7H 7H 8H 9H 10H 5C 5D", "b.txt"), "--rules", "shanghai", "-r", "2",
                       "--buys-used", "3"), "'shanghai' allows 2 buys in round 2, not the 3 used")
    assert_refused(run(path, "--rules", "contract", "-r", "7", "--buys-used", "6", "--down", "3H 4H 5H 6H"),
                   "--buys-used does not go with --down")
    assert_refused(run(path, "--rules", "contract", "-r", "7", "--buys-used", "-1"), "buys used must be 0 or more")
    # Unlimited buying still ends where the deck does (158 cards: 73 buys of 2 beyond the 12 dealt).
    assert_refused(run(path, "--rules", "contract", "-r", "7", "--buys-used", "999999999"),
                   "holds the cards of 999999999 buys", "has cards for 73 buys")


@pytest.mark.parametrize(("args", "words"), ADVICE_CASES, ids=lambda case: str(case)[:40])
def test_bad_advice_options_are_refused(tmp_path: Path, args: list[str], words: list[str]) -> None:
    path = hand_file(tmp_path, "7H 7H 8H 9H 10H 5C 5D")  # before the draw: 7 cards are dealt
    assert_refused(run(path, "-r", "2", "--players", "4", *args), *words)


def test_readme_shows_what_the_advice_prints(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Advice: outs, discards, buying\n")[1].split("\n## ")[0]
    outs_block, buy_block = (block.split("```")[0].strip() for block in section.split("```text\n")[1:3])
    hand, buy_hand = "7C 7D 4H 5H 6H 9S 10S JS KD 2C 3C QD", "7C 7D 4H 5H 6H 9S 10S JS QS KD 3C"
    assert hand in section and buy_hand in section
    out = succeeded(run(hand_file(tmp_path, hand), "-r", "6", "--players", "4", "--seen", "7H 7S QS", "--discards"))
    assert outs_block in out
    out = succeeded(run(hand_file(tmp_path, buy_hand, "buy.txt"), "-r", "6", "--players", "4", "--buy", "7H"))
    assert buy_block in out


# ---- where the hand stands in its turn ----------------------------------------------------------


def test_the_moment_can_be_said_outright(tmp_path: Path) -> None:
    path = hand_file(tmp_path, "7H 8H 9H 10H 5C 5D 5S KD")  # round 2: 8 cards, after the draw
    after = json.loads(succeeded(run(path, "-r", "2", "--json")))
    assert after == analyze("7H 8H 9H 10H 5C 5D 5S KD", "progressive", 2).to_dict()
    assert after["moment"] == "after-draw" and after["discard"] == "KD" and after["goes_out"]
    before = json.loads(succeeded(run(path, "-r", "2", "--before-draw", "--json")))
    assert before["moment"] == "before-draw" and before["discard"] is None and before["note"]
    text = succeeded(run(path, "-r", "2", "--before-draw"))
    assert "8 cards, before your draw" in text and "After your draw you can lay down:" in text
    assert "Note: 8 cards before your draw" in text
    assert_refused(run(path, "-r", "2", "--before-draw", "--after-draw"), "not allowed with")


def test_a_hand_no_turn_gives_is_refused_with_the_sizes(tmp_path: Path) -> None:
    thirty = " ".join(f"{rank}{suit}" for suit in "CDH" for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J"))
    line = assert_refused(run(hand_file(tmp_path, thirty), "-r", "1"), "30 cards", "6 are dealt")
    assert "17 after it" in line
    part = succeeded(run(hand_file(tmp_path, "7H 8H 9H 5C 5D", "part.txt"), "-r", "2"))
    assert "Note: 5 cards, fewer than the 7 dealt" in part


def test_batch_lines_say_the_moment(tmp_path: Path) -> None:
    lines = [{"hand": "7H 8H 9H 10H 5C 5D 5S KD", "round": 2, "moment": "before-draw"},
             {"hand": "7H 8H 9H 10H 5C 5D 5S KD", "round": 2},
             {"hand": "7H 8H 9H 10H 5C 5D 5S KD", "round": 2, "moment": "later"}]
    result = run("--batch", hand_file(tmp_path, "\n".join(json.dumps(line) for line in lines) + "\n", "jobs.jsonl"))
    assert_refused(result, "1 of 3", "line 3")
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert answers[0] == analyze("7H 8H 9H 10H 5C 5D 5S KD", "progressive", 2, moment="before-draw").to_dict()
    assert answers[1]["moment"] == "after-draw" and answers[1]["discard"] == "KD"
    assert "before-draw" in answers[2]["error"]


def test_a_buy_after_the_draw_is_refused(tmp_path: Path) -> None:
    path = hand_file(tmp_path, ONE_AWAY)  # 8 cards in round 2: the draw is done
    assert_refused(run(path, "-r", "2", "--buy", "9H"), "before your draw", "8 cards")
