"""Generation and verification: the acceptance rules (a runner-up that ties is rejected, a
lay-down without a trap is rejected), positions from play that are reproducible, planted
positions marked so, and ``verify`` catching every kind of tampering."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import puzzles.generate
from analyzer import LayDown, Suit, analyze, parse_cards, preset
from analyzer.turn import Moment, hand_sizes
from puzzles.bank import load_bank
from puzzles.check import play_problems
from puzzles.generate import (
    _no_trap,
    away_at_least,
    derive,
    difficulty,
    discard_criterion,
    generate,
    kept_at_least,
    needs_buying,
    wild_cards_short,
)
from puzzles.hasty import NO_READING, STRATEGIES, hasty_play, mistake
from puzzles.model import BUY, PASS, LayDownAnswer, Puzzle
from puzzles.rerate import reword
from puzzles.themes import tag
from puzzles.verify import Report, check, position_of, verify
from tests.puzzles.test_check import RULE_SETS, _reference_plays
from tests.strategies import hands, near_contract, within_deck


def position(kind: str, rules: str, round_number: int, hand: str, **fields: object) -> Puzzle:
    moment = "before-draw" if kind == "buy" else "after-draw"
    return Puzzle(
        kind=kind, rules=rules, round=round_number, players=4, moment=moment, hand=parse_cards(hand), **fields
    )  # type: ignore[arg-type]


def row(
    card: str, away: int | None, outs: int, lays_down: bool = False, goes_out: bool = False
) -> dict[str, object]:
    return {
        "card": card,
        "cards_away": away,
        "unseen_outs": outs,
        "lays_down": lays_down,
        "goes_out": goes_out,
    }


@pytest.mark.parametrize(
    ("top", "runner", "criterion"),
    [
        (row("KD", 0, 0, True, True), row("5C", 1, 4), "lays-down"),
        (row("KD", 0, 0, True, True), row("QD", 0, 0, True, False), "goes-out"),
        (row("KD", 0, 0, True, False), row("QD", 0, 0, True, False), None),  # both lay down: points only
        (row("KD", 1, 4), row("5C", 2, 20), "cards-away"),
        (row("KD", 1, 4), row("5C", None, 0), "cards-away"),
        (row("KD", 1, 12), row("5C", 1, 9), "outs"),  # 3 more
        (row("KD", 1, 11), row("5C", 1, 9), None),  # 2 more: not clear
        (row("KD", 1, 25), row("5C", 1, 20), "outs"),  # 25% of 20
        (row("KD", 1, 24), row("5C", 1, 20), None),
        (row("KD", 2, 25), row("5C", 2, 9), None),  # two cards away the outs are no criterion
        (row("KD", 1, 9), row("QD", 1, 9), None),  # a tie with the runner-up
        (row("KD", None, 0), row("QD", None, 0), None),
    ],
)
def test_a_discard_puzzle_needs_a_clear_margin_over_the_runner_up(
    top: dict, runner: dict, criterion: str | None
) -> None:
    assert discard_criterion(top, runner) == criterion


def test_a_discard_puzzle_whose_runner_up_ties_is_rejected() -> None:
    # K♦, 2♣ and 3♥ help nothing: the table ranks K♦ first by points only.
    assert derive(position("discard", "progressive", 1, "5C 5D 9H 9S KD 2C 3H")) is None


def test_a_discard_puzzle_with_a_clear_top_group_accepts_every_card_of_it() -> None:
    puzzle = derive(position("discard", "progressive", 2, "5C 5D 5S 7H 8H 10H 10S KD"))
    assert puzzle is not None
    assert set(puzzle.answers) == {"KD", "10S"} and puzzle.margin.criterion == "cards-away"


def test_a_lay_down_without_a_trap_is_rejected_and_one_with_a_trap_accepted() -> None:
    assert derive(position("lay-down", "progressive", 1, "5C 5D 5S 9H 9S 9C KD")) is None
    puzzle = derive(position("lay-down", "progressive", 3, "6C 7C 8C 9C 10C AD 2D 3D 4D 5D 6D"))
    assert puzzle is not None and puzzle.best_points == 8 and puzzle.answers == ("lay-down",)
    # Both hasty players and the greedy one keep 11 points, the runs taken whole.
    assert puzzle.margin.proven_optimal and puzzle.margin.hasty_players == 3 == puzzle.margin.hasty_failures
    assert [outcome["points"] for outcome in puzzle.analysis.hasty] == [11, 11, 11]


def test_cannot_is_the_answer_only_when_the_hand_looks_ready() -> None:
    ready = derive(position("lay-down", "progressive", 3, "3D 4D 5D 6D 7D 8D 9D 10D KS"))
    assert ready is not None and ready.answers == ("cannot",) and ready.best_points is None
    assert derive(position("lay-down", "progressive", 3, "3D 4D 5D 9C 7D 8D 9H 10S KS")) is None  # far away


def test_generation_from_play_is_a_pure_function_of_its_arguments() -> None:
    first = generate("lay-down", "progressive", 5, 11)
    assert first is not None and first.source == "play" and first.seed == 11
    assert generate("lay-down", "progressive", 5, 11) == first
    assert first.to_dict() == generate("lay-down", "progressive", 5, 11).to_dict()  # type: ignore[union-attr]
    # The position is one a real table produced: the seen cards fit in the deck with the hand.
    deck = preset("progressive").deck_for(first.players)
    assert len(first.hand) + len(first.seen) <= 104 + deck.jokers
    assert verify(first) == []


def test_planted_positions_say_so() -> None:
    planted = [
        p
        for p in (generate("lay-down", "progressive", 1 + s % 7, s, source="planted") for s in range(12))
        if p is not None
    ]
    assert planted and all(p.source == "planted" for p in planted)
    with pytest.raises(ValueError, match="lay-down"):
        generate("discard", "progressive", 1, 0, source="planted")


def test_verify_names_every_difference() -> None:
    puzzle = derive(position("lay-down", "progressive", 3, "6C 7C 8C 9C 10C AD 2D 3D 4D 5D 6D"))
    assert puzzle is not None and verify(puzzle) == []
    assert any("best_points" in p for p in verify(dataclasses.replace(puzzle, best_points=11)))
    assert any("themes" in p for p in verify(dataclasses.replace(puzzle, themes=("go-out",))))
    assert any("rating" in p for p in verify(dataclasses.replace(puzzle, rating=puzzle.rating + 10)))
    assert any("margin" in p for p in verify(dataclasses.replace(puzzle, margin=dataclasses.replace(puzzle.margin, hasty_failures=puzzle.margin.hasty_failures + 1))))
    obvious = dataclasses.replace(
        puzzle.solution,
        melds=puzzle.analysis.hasty and (puzzle.solution.melds[0], puzzle.solution.melds[0]),
    )  # type: ignore[union-attr]
    assert any("stored best play" in p for p in verify(dataclasses.replace(puzzle, solution=obvious)))
    discard = derive(position("discard", "progressive", 2, "5C 5D 5S 7H 8H 10H 10S KD"))
    assert discard is not None
    assert any("answers" in p for p in verify(dataclasses.replace(discard, answers=("KD",))))
    # A position that is no longer clear is named as such.
    unclear = dataclasses.replace(discard, hand=parse_cards("5C 5D 9H 9S KD 2C 3H"))
    assert verify(unclear) == ["the position is no longer accepted as a clear puzzle"]
    assert position_of(discard).answers == ()


def test_the_rounds_that_need_buying() -> None:
    eveleigh = preset("eveleigh")
    # Round 12 (5 runs of 3, 15 cards) from 11 dealt needs buying; round 9 (4 sets of 3) does
    # not: 12 cards after the draw meld out without a discard, as Eveleigh allows.
    assert needs_buying(eveleigh, 12) and needs_buying(eveleigh, 13) and not needs_buying(eveleigh, 1)
    assert not needs_buying(eveleigh, 9)
    assert not any(needs_buying(preset("progressive"), n) for n in range(1, 8))


def test_a_buy_puzzle_is_accepted_only_with_the_same_verdict_under_a_second_seed() -> None:
    puzzle = generate("buy", "progressive", 2, 2)
    assert puzzle is not None and puzzle.answers in (("buy",), ("pass",))
    margin = puzzle.margin
    assert margin.second["verdict"] == margin.verdict == puzzle.answers[0]
    assert (
        margin.second["rollouts"] == 2 * puzzle.analysis.verdict["rollouts"]
        or puzzle.analysis.verdict["rollouts"] < 120
    )  # settled early
    clear = abs(margin.difference) - margin.margin
    assert margin.std_error is None or clear >= 3 * margin.std_error - 0.02


def _other_best_play(puzzle: Puzzle) -> LayDownAnswer:
    """A legal play of the brute-force reference keeping the optimum's points, whose themes
    differ from the stored play's."""
    for play, legal, points in _reference_plays(puzzle.hand, puzzle.rules, puzzle.round):
        if legal and points == puzzle.best_points and tag(dataclasses.replace(puzzle, solution=play)) != puzzle.themes:
            return play
    raise AssertionError("no other best play with other themes")


def test_verify_survives_a_solver_that_picks_another_play_of_equal_merit(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two best plays: the run J-Q-K of hearts with the ace (a joker standing for it) or without.
    puzzle = derive(position("lay-down", "may-i", 2, "KC KC 3D 6D 2H 3H JH QH KH 3S JK"))
    assert puzzle is not None and puzzle.solution is not None and verify(puzzle) == []
    other = _other_best_play(puzzle)

    def analyze_picking_the_other(*args: object, **kwargs: object) -> LayDown:
        best = analyze(*args, **kwargs)  # type: ignore[arg-type]
        if best.can_lay_down and getattr(args[1], "name", None) == "may-i":
            return dataclasses.replace(best, melds=other.melds, discard=other.discard)
        return best

    monkeypatch.setattr(puzzles.generate, "analyze", analyze_picking_the_other)
    # The solver's new choice would tag the puzzle otherwise...
    assert derive(position_of(puzzle)).themes != puzzle.themes  # type: ignore[union-attr]
    # ...but verify reads the themes off the stored play, proven legal and optimal.
    assert verify(puzzle) == []
    # And a bank that stored the other play verifies as well, with that play's themes.
    monkeypatch.setattr(puzzles.generate, "analyze", analyze)
    stored_other = derive(position_of(puzzle), other)
    assert stored_other is not None and stored_other.solution == other and verify(stored_other) == []
    assert stored_other.themes == tag(dataclasses.replace(puzzle, solution=other))
    # A legal play that keeps more points is not a best play: named, and the themes not read off it.
    worse = next(
        play for play, legal, points in _reference_plays(puzzle.hand, puzzle.rules, puzzle.round)
        if legal and points > puzzle.best_points  # type: ignore[operator]
    )
    assert any("stored best play" in p for p in verify(dataclasses.replace(puzzle, solution=worse)))


def test_verify_of_a_buy_puzzle_demands_its_answer_and_acceptance_and_notes_its_figures() -> None:
    puzzle = generate("buy", "progressive", 2, 2)
    assert puzzle is not None
    assert check(puzzle) == Report((), ())
    flipped = PASS if puzzle.answers == (BUY,) else BUY
    assert any("answers" in p or "stored answer" in p for p in verify(dataclasses.replace(puzzle, answers=(flipped,))))
    # Figures that no longer show a clear verdict fail; figures that drift but stay clear are noted.
    unclear = dataclasses.replace(puzzle.margin, std_error=abs(puzzle.margin.difference))
    assert any("not clear" in p for p in verify(dataclasses.replace(puzzle, margin=unclear)))
    drift = dataclasses.replace(puzzle.margin, difference=round(puzzle.margin.difference * 1.5, 2))
    drifted = dataclasses.replace(puzzle, margin=drift)
    drifted = dataclasses.replace(drifted, rating=difficulty(drifted))
    report = check(drifted)
    assert report.problems == () and len(report.notes) == 1 and "difference stored" in report.notes[0]
    assert any("rating" in p for p in verify(dataclasses.replace(puzzle, rating=puzzle.rating + 10)))
    assert any("themes" in p for p in verify(dataclasses.replace(puzzle, themes=("buy-completes",))))


@settings(max_examples=60, deadline=None)
@given(near_contract(RULE_SETS, [1, 2], [Suit.HEARTS, Suit.SPADES], 9, within_largest_deck=True))
def test_the_no_trap_shortcut_rejects_only_what_solving_the_turn_rejects(case: tuple) -> None:
    # The bound the generator rejects trap-less lay-downs by, before solving the turn's best
    # play: never above the fewest points a legal play keeps (brute force), and a position it
    # calls trap-less has every hasty play legal and keeping exactly that.
    rules, round_number, hand = case
    if len(hand) < 3 or rules.round(round_number).go_out:
        return
    whole = analyze(hand, rules, round_number, None, 60.0, "before-draw")
    legal = [points for _, ok, points in _reference_plays(hand, rules.name, round_number) if ok]
    best = min(legal, default=None)
    bound = kept_at_least(hand, rules, whole)
    if best is not None:  # a legal play lays the whole hand down, its discard left over
        assert bound is not None and 0 <= bound <= best
        event("bound is the best" if bound == best else "bound below the best")
    plays = [hasty_play(hand, rules, round_number, strategy) for strategy in STRATEGIES]
    lay_down = position("lay-down", rules.name, round_number, " ".join(c.token for c in hand))
    if _no_trap(lay_down, rules, whole, plays):
        event("no trap")
        for play in plays:
            assert play_problems(hand, rules, round_number, play) == ([], best)


@settings(max_examples=60, deadline=None)
@given(
    near_contract(RULE_SETS, [1, 2], [Suit.HEARTS, Suit.SPADES], 9, within_largest_deck=True),
    st.data(),
)
def test_a_hand_is_never_nearer_than_its_floor_says(case: tuple, data: st.DataObject) -> None:
    # The generator skips the solve of a seat's hand after its draw when an earlier hand of the
    # seat, proven some cards away, shows it cannot lay down: the floor must never be above the
    # solver's own count for the later hand (cards dropped, cards added).
    rules, round_number, hand = case
    if len(hand) < 2 or rules.round(round_number).go_out:
        return
    before = analyze(hand, rules, round_number, None, 60.0, "before-draw")
    if before.cards_away is None or not before.proven_optimal:
        return
    dropped = data.draw(st.sets(st.integers(0, len(hand) - 1), max_size=len(hand) - 1), label="dropped")
    kept = [card for index, card in enumerate(hand) if index not in dropped]
    strays = parse_cards("JK 7H 8H 9S QS")
    added = data.draw(st.lists(st.sampled_from([*hand, *strays]), max_size=3), label="added")
    later = tuple(within_deck(kept + added, rules.deck_for(None)))
    if not later:
        return
    floor = away_at_least((Counter(hand), before.cards_away), Counter(later))
    after = analyze(later, rules, round_number, None, 60.0, "before-draw")
    event(f"floor {max(floor, 0)}")
    if floor >= 1:
        assert not after.can_lay_down
    if after.cards_away is not None:
        assert after.cards_away >= floor


def test_sets_of_one_size_share_their_ranks_copies_in_the_wild_card_bound() -> None:
    # Round 1 of progressive: two sets of 3. Four 7s make one set and a card over; the second set
    # takes the two 9s and needs a wild card (or a third 9): one short, and the solver agrees.
    hand = parse_cards("7H 7S 7C 7D 9C 9D KS 4C")
    rules = preset("progressive")
    assert wild_cards_short(hand, rules, 1) == 1
    assert analyze(hand, rules, 1, None, 60.0, "before-draw").cards_away == 1
    assert wild_cards_short(parse_cards("7H 7S 7C 7D 9C 9D KS JK"), rules, 1) == 0


def test_the_generators_shortcuts_do_skip_solves_on_plain_hands() -> None:
    # The property tests above only check the shortcuts never claim too much: these pin that
    # they claim something (a floor above 0, a trap-less position found, a positive bound), so a
    # shortcut returning 0 or False everywhere (the generator's output unchanged, only slower)
    # fails here. Progressive round 1: two sets of 3.
    rules = preset("progressive")
    ready = parse_cards("7H 7S 7C 9C 9D 9S KC 3C")  # two sets; discard KC and keep 3 points
    whole = analyze(ready, rules, 1, None, 60.0, "before-draw")
    assert kept_at_least(ready, rules, whole) == 3  # 13 left over, less the king's 10
    plays = [hasty_play(ready, rules, 1, strategy) for strategy in STRATEGIES]
    assert _no_trap(position("lay-down", "progressive", 1, "7H 7S 7C 9C 9D 9S KC 3C"), rules, whole, plays)
    far = parse_cards("7H 7S 9C 9D 4S 5S KC 3C QD")  # a 7 and a 9 away
    proven = analyze(far, rules, 1, None, 60.0, "before-draw")
    assert proven.cards_away == 2 and wild_cards_short(far, rules, 1) == 2
    later = parse_cards("7H 7S 9C 9D 4S 5S KC 3C 8H")  # QD out, 8H in: one card nearer at most
    assert away_at_least((Counter(far), 2), Counter(later)) == 1
    assert analyze(later, rules, 1, None, 60.0, "before-draw").cards_away == 2


BOUND_RULE_SETS = [*RULE_SETS, preset("kolsov"), preset("contract")]


@st.composite
def dealt(draw: st.DrawFn) -> tuple:
    """A rule set, a round and a hand of its size after the draw, dealt from its deck."""
    rules = draw(st.sampled_from(BOUND_RULE_SETS))
    round_number = draw(st.integers(1, len(rules.rounds)))
    size = rules.round(round_number).deal + 1
    return rules, round_number, draw(hands(rules, size, size))


@settings(max_examples=160, deadline=None)
@given(st.one_of(near_contract(BOUND_RULE_SETS, [1, 2, 3, 4, 5, 6], [Suit.HEARTS, Suit.SPADES], 12,
                               within_largest_deck=True), dealt()))
def test_a_hand_short_of_wild_cards_is_at_least_that_many_cards_away(case: tuple) -> None:
    # The generator takes a positive bound for the solver's "cannot lay down" without solving
    # (``_known_after``): the bound must never exceed the solver's proven cards away.
    rules, round_number, hand = case
    if not hand or round_number > len(rules.rounds) or rules.round(round_number).go_out:
        return
    if len(hand) > max(hand_sizes(rules, round_number)[Moment.AFTER_DRAW]):
        return
    short = wild_cards_short(hand, rules, round_number)
    answer = analyze(hand, rules, round_number, None, 60.0, "before-draw")
    event(f"short {max(short, 0)}" + (", can lay down" if answer.can_lay_down else ""))
    if short > 0:
        assert not answer.can_lay_down
    if answer.proven_optimal and answer.cards_away is not None:
        assert answer.cards_away >= short


# ---- the reason sentence -------------------------------------------------------------------------------

VALIDATOR_WORDING = ("extras", "meld 1 (", "meld 2 (", "melds 1 and", "(no-touch)", "(distinct-suits)",
                     "allowed per meld", "rising order", "is left over", "breaks a rule")


def test_a_hasty_player_counting_a_wild_two_twice_is_told_so_in_words() -> None:
    # eveleigh puzzle 0240e660bda7 said "cards that are not in the hand or the extras: 2S".
    rules = preset("eveleigh")
    hand = parse_cards("2C 2D 6H 8H JH AS 2S 9S JS JK JK JK")
    play = hasty_play(hand, rules, 8, "runs-first")
    problems, _ = play_problems(hand, rules, 8, play)
    assert problems  # the validator's finding, for the program
    said = mistake(hand, rules, 8, play)
    assert said.startswith("they count the 2♠ twice, as itself and as a wild card, and hold only one")
    assert not any(words in said for words in VALIDATOR_WORDING)


@settings(max_examples=150, deadline=None)
@given(near_contract([*RULE_SETS, preset("kolsov"), preset("contract"), preset("ill-buy-it")], [1, 2, 3],
                     [Suit.HEARTS, Suit.SPADES], 12, within_largest_deck=True))
def test_the_hasty_players_mistake_is_named_exactly_when_the_validator_rejects_the_play(case: tuple) -> None:
    # Each reading ``mistake`` names is a rule the play really breaks: a legal play gets none,
    # an illegal one at least one (never the catch-all sentence).
    rules, round_number, hand = case
    for strategy in STRATEGIES:
        play = hasty_play(hand, rules, round_number, strategy)
        if play.cannot:
            continue
        problems, _ = play_problems(hand, rules, round_number, play)
        said = mistake(hand, rules, round_number, play)
        event("illegal" if problems else "legal")
        assert (said != NO_READING) == bool(problems), (problems, said)


def test_every_shipped_lay_down_says_why_in_a_players_words() -> None:
    lay_downs = [puzzle for puzzle in load_bank() if puzzle.kind == "lay-down"]
    assert len(lay_downs) >= 1000
    for puzzle in lay_downs:
        reason = puzzle.analysis.reason
        assert reword(puzzle).analysis.reason == reason, puzzle.id  # what the generator says now
        assert not any(words in reason for words in (*VALIDATOR_WORDING, NO_READING)), (puzzle.id, reason)
        trap = next(o for o in puzzle.analysis.hasty if o["fails"] or puzzle.best_points is None)
        if trap.get("play"):
            assert "hasty player" in reason and "lay" in reason, (puzzle.id, reason)
