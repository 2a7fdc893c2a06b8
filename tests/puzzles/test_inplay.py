"""A puzzle's answer judged in play (puzzles.inplay): the same deals for both discards (or for
buying and passing), hidden cards drawn from the unseen cards only, the same numbers from the
same seed, and an obvious answer found better."""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter

import pytest

from analyzer import deck_cards, load_rules, parse_cards
from puzzles import inplay
from puzzles.bank import BANK_DIR, read_puzzles
from puzzles.cli import run
from puzzles.generate import derive
from puzzles.inplay import InPlayError, Standing, deal_hidden, judge, unseen_cards
from puzzles.model import Puzzle, meld_from_dict


@functools.cache
def lay_down_or_break() -> Puzzle:
    """Round 1 of progressive (two sets of 3): discarding the king lays both sets down and goes
    out; the runner-up breaks a set."""
    position = Puzzle(kind="discard", rules="progressive", round=1, players=4, moment="after-draw",
                      hand=parse_cards("5C 5D 5S 9H 9D 9S KC"), source="planted")
    puzzle = derive(position)
    assert puzzle is not None and puzzle.answers == ("KC",) and puzzle.margin.criterion == "lays-down"
    return puzzle


def seen_position() -> Puzzle:
    """A position with a discard pile and a meld on another seat's part of the table, and both
    copies of a card in the hand: none of them may be dealt again."""
    run_meld = meld_from_dict({"kind": "run", "cards": ["4H", "5H", "6H", "7H"]})
    set_meld = meld_from_dict({"kind": "set", "cards": ["QS", "QD", "QC"]})
    return dataclasses.replace(
        lay_down_or_break(), round=2, hand=parse_cards("3C 3C 8D 10S JD KH 2S AC"),
        discard_pile=parse_cards("AS 7C 7C 10D JK"), table=((), (set_meld, run_meld), (), ()), seat=2, turn=4)


def every_card_once(puzzle: Puzzle, deal: inplay.Deal) -> Counter:
    """The deal's hidden cards, checked: they are the unseen ones, and with the hand, the seen
    cards and the offered card they make the deck, every card once."""
    rules = load_rules(puzzle.rules)
    hidden = Counter(card for hand in deal.hands for card in hand) + Counter(deal.stock)
    assert hidden == Counter(unseen_cards(puzzle, rules))
    offered = Counter([puzzle.offered] if puzzle.offered is not None else [])
    assert hidden + Counter(puzzle.hand) + Counter(puzzle.seen) + offered == Counter(
        deck_cards(rules.deck_for(puzzle.players)))
    return hidden


def test_the_hidden_cards_are_the_unseen_ones_and_no_other():
    puzzle = seen_position()
    rules = load_rules(puzzle.rules)
    for index in range(20):
        deal = deal_hidden(puzzle, rules, 7, index)
        hidden = every_card_once(puzzle, deal)
        assert not hidden[parse_cards("3C")[0]] and not hidden[parse_cards("7C")[0]]  # both copies seen
        assert deal.hands[puzzle.seat] == ()
        assert [len(hand) for hand in deal.hands] == [7, 1, 0, 7]  # seat 1 has 7 cards on the table


def test_the_same_seed_gives_the_same_numbers():
    puzzle = lay_down_or_break()
    first, again = judge(puzzle, deals=4, seed=3), judge(puzzle, deals=4, seed=3)
    assert first == again
    assert deal_hidden(puzzle, load_rules("progressive"), 3, 0) != deal_hidden(puzzle, load_rules("progressive"), 4, 0)


def test_both_discards_meet_the_same_deals(monkeypatch):
    """Common random numbers: each deal is played once with each discard, and the same discard
    twice gives the same points on every deal (the table's own shuffles are shared too)."""
    puzzle = lay_down_or_break()
    seen: list[tuple[inplay.Deal, object]] = []
    play_on = inplay.play_on

    def recording(puzzle, rules, base, deal, play):
        seen.append((deal, play.discard))
        return play_on(puzzle, rules, base, deal, play)

    monkeypatch.setattr(inplay, "play_on", recording)
    judge(puzzle, deals=3)
    assert [str(discard) for _, discard in seen] == ["KC", puzzle.margin.runner_up["card"]] * 3
    assert all(seen[i][0] == seen[i + 1][0] for i in range(0, 6, 2))
    assert len({deal for deal, _ in seen}) == 3
    monkeypatch.undo()

    same = dataclasses.replace(puzzle, margin=dataclasses.replace(puzzle.margin, runner_up=puzzle.margin.top))
    twin = judge(same, deals=5)
    assert twin.gains == (0.0,) * 5 and twin.standing is Standing.INDISTINCT
    other = dataclasses.replace(puzzle, margin=dataclasses.replace(puzzle.margin, top=puzzle.margin.runner_up,
                                                             runner_up=puzzle.margin.runner_up))
    assert judge(other, deals=5).gains == (0.0,) * 5


def test_a_discard_that_lays_down_beats_one_that_breaks_a_meld():
    """Going out now against going out a turn or more later: early in the round the others hold
    much the same cards either way, so it takes the full 40 deals to tell (about +14 points)."""
    judgement = judge(lay_down_or_break(), deals=40)
    assert judgement.standing is Standing.BETTER
    assert judgement.gain.low is not None and judgement.gain.low > 0
    assert all(points < 0 for points in judgement.answer_points)  # it went out: the others pay


def test_lay_down_puzzles_are_not_judged():
    # (A discard puzzle always stores its top row and runner-up: puzzles.model refuses one without.)
    with pytest.raises(InPlayError, match="not a discard puzzle"):
        judge(read_puzzles(BANK_DIR / "progressive-lay-down.jsonl.gz")[0])


# ---- buy puzzles ---------------------------------------------------------------------------------


@functools.cache
def completing_buy() -> Puzzle:
    """Round 2 of progressive (a set of 3 and a run of 4), the player in seat 2 on its second
    turn: the offered 9♥ completes its contract; the 5♦ from the seat before was declined."""
    return Puzzle(kind="buy", rules="progressive", round=2, players=4, moment="before-draw",
                  hand=parse_cards("5C 5D 5S 7H 8H 10H KC"), discard_pile=parse_cards("QD 4S 3C 2D JS 6C"),
                  seat=2, offered=parse_cards("9H")[0], turn=2, answers=("buy",), source="planted")


def test_a_buy_puzzles_hidden_cards_leave_out_the_offered_card():
    puzzle = completing_buy()
    for index in range(10):
        hidden = every_card_once(puzzle, deal_hidden(puzzle, load_rules(puzzle.rules), 0, index))
        assert hidden[puzzle.offered] <= 1  # of the two decks' 9♥, the offered one is seen


def test_the_offer_is_played_as_it_stood(monkeypatch):
    """The seat before the player declined the card and draws; the player is offered it first:
    buying takes it with the penalty card, passing leaves it to the seats after."""
    puzzle = completing_buy()
    rules = load_rules(puzzle.rules)
    deal = deal_hidden(puzzle, rules, 0, 0)
    base = inplay.SimulatedPlayer(inplay.RoundSolver(rules, 2, rules.deck_for(4), float("inf"), work=inplay.WORK))
    tables: list = []
    real_play = inplay.Table.play

    def keep(table):
        tables.append(table)
        return real_play(table)

    monkeypatch.setattr(inplay.Table, "play", keep)
    bought = inplay.play_offer(puzzle, rules, base, deal, True)
    passed = inplay.play_offer(puzzle, rules, base, deal, False)
    first_buy, first_pass = (table.events[0] for table in tables)
    assert (first_buy.kind.value, first_buy.seat, first_buy.cards[0]) == ("buy", 2, puzzle.offered)
    assert len(first_buy.cards) == 2  # the card and one penalty card
    assert not any(e.kind.value == "buy" and e.seat == 2 for e in tables[1].events[:2])
    assert first_pass.seat != 2 and tables[1].events[0].kind.value in ("buy", "draw")
    assert tables[0].events[1].kind.value == "draw" and tables[0].events[1].seat == 1  # the seat in turn draws
    assert bought.penalty_points != passed.penalty_points or bought.winner != passed.winner


def test_buying_the_card_that_completes_the_contract_is_better_in_play():
    judgement = judge(completing_buy(), deals=40)
    assert (judgement.answer, judgement.runner_up, judgement.criterion) == ("buy", "pass", "buy")
    assert judgement.standing is Standing.BETTER, judgement.gain


def test_a_buy_puzzle_judged_twice_gives_the_same_numbers():
    assert judge(completing_buy(), deals=3, seed=2) == judge(completing_buy(), deals=3, seed=2)


def test_the_command_prints_verdicts_and_a_summary(tmp_path, capsys):
    from puzzles.bank import write_puzzles

    shard = tmp_path / "discard.jsonl"
    write_puzzles(shard, [lay_down_or_break()])
    assert run(["verify", str(shard), "--in-play", "--deals", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{lay_down_or_break().id} lays-down    KC vs 9D ")
    assert out[-1].split()[:2] == ["all", "1"]


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    assert run(["verify", str(tmp_path / "missing.jsonl"), "--in-play"]) == 2
    assert run(["verify", str(tmp_path), "--in-play", "--deals", "0"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith("puzzles: ") for line in err)


def test_a_position_whose_hands_take_every_unseen_card_is_played_and_one_with_fewer_skipped(tmp_path, capsys):
    """Late in a round the unseen cards may just fill the other hands (no stock: the table turns
    the discard pile over), or be too few when buys the position does not record made the
    hands bigger: that puzzle is skipped with a line and the run goes on."""
    from puzzles.bank import write_puzzles

    puzzle = lay_down_or_break()
    rules = load_rules(puzzle.rules)
    rest = list((Counter(deck_cards(rules.deck_for(4))) - Counter(puzzle.hand)).elements())
    others = 3 * rules.round(1).deal
    full = dataclasses.replace(puzzle, discard_pile=tuple(rest[: len(rest) - others]), turn=9)
    short = dataclasses.replace(puzzle, discard_pile=tuple(rest[: len(rest) - others + 1]), turn=9)
    assert len(deal_hidden(full, rules, 0, 0).stock) == 0
    assert len(judge(full, deals=2).gains) == 2
    shard = tmp_path / "late.jsonl"
    write_puzzles(shard, [short, full])
    assert run(["verify", str(shard), "--in-play", "--deals", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{short.id} skipped: ") and out[1].startswith(full.id)
