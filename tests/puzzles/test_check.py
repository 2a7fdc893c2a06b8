"""The lay-down checker: every equivalent best play accepted, every worse or illegal one rejected.

The plays come from the brute-force reference (tests/reference.py), not from the solver, and
the checker is built on the independent validator: a checker that compared strings, or that
accepted everything, or rejected everything, fails these tests.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import event, given
from hypothesis import strategies as st

from analyzer import JOKER, MeldKind, PlacedMeld, Suit, analyze, parse_cards, preset
from puzzles.check import check_answer, check_lay_down, play_problems
from puzzles.model import LayDownAnswer, Puzzle
from tests.reference import reference_lay_downs
from tests.strategies import near_contract

RULE_SETS = [
    preset(name) for name in ("progressive", "shanghai", "pagat", "may-i", "eveleigh", "shanghai-powe")
]


def _puzzle(hand: tuple, rules: str, round_number: int, players: int | None = None) -> Puzzle:
    """A lay-down puzzle whose best points come from the analyser (as the generator does)."""
    best = analyze(hand, rules, round_number, players, moment="after-draw")
    return Puzzle(
        kind="lay-down",
        rules=rules,
        round=round_number,
        players=players or 4,
        moment="after-draw",
        hand=tuple(sorted(hand, key=lambda card: card.sort_key())),
        answers=("lay-down",) if best.can_lay_down else ("cannot",),
        best_points=best.points_after_discard if best.can_lay_down else None,
    )


def _reference_plays(
    hand: tuple, rules_name: str, round_number: int
) -> list[tuple[LayDownAnswer, bool, int]]:
    """Every play of the turn the reference finds: (play, legal turn end, points kept). A play is
    a legal lay-down of the hand less the discard (or of the whole hand, with no discard)."""
    rules = preset(rules_name)
    go_out = rules.round(round_number).go_out
    plays = []
    choices = [None] + list(dict.fromkeys(hand))
    for discard in choices:
        if go_out and discard is not None:
            continue
        rest = list(hand)
        if discard is not None:
            rest.remove(discard)
        seen = set()
        for melds, leftover in reference_lay_downs(rest, rules, round_number):
            key = (tuple(sorted((m.kind.value, m.cards, m.stands_for) for m in melds)), leftover)
            if key in seen:
                continue
            seen.add(key)
            if go_out:
                legal = not leftover
            elif discard is None:
                legal = not leftover and rules.discard_to_go_out != "required"
            else:
                legal = bool(leftover) or rules.discard_to_go_out != "never"
            plays.append((LayDownAnswer(melds, discard), legal, sum(rules.points_of(c) for c in leftover)))
    return plays


@given(near_contract(RULE_SETS, [1, 2], [Suit.HEARTS, Suit.SPADES], 9, within_largest_deck=True))
def test_every_best_play_is_accepted_and_every_worse_or_illegal_one_rejected(case: tuple) -> None:
    rules, round_number, hand = case
    if len(hand) < 3:
        return
    puzzle = _puzzle(hand, rules.name, round_number)
    plays = _reference_plays(hand, rules.name, round_number)
    legal = [(play, points) for play, ok, points in plays if ok]
    best = min((points for _, points in legal), default=None)
    assert puzzle.best_points == best  # the solver's best agrees with brute force
    assert check_lay_down(puzzle, LayDownAnswer(cannot=True)).right == (best is None)
    event(f"{len(legal)} legal plays" if len(legal) < 3 else "3+ legal plays")
    for play, ok, points in plays:
        verdict = check_lay_down(puzzle, play)
        assert verdict.right == (ok and points == best), (play, ok, points, verdict)
        if ok:
            assert verdict.points == points and not verdict.problems
        # The same play with a meld's first card dropped is never a legal lay-down.
        if play.melds:
            first = play.melds[0]
            broken = PlacedMeld(first.kind, first.cards[1:], first.stands_for[1:])
            worse = LayDownAnswer((broken,) + play.melds[1:], play.discard)
            assert not check_lay_down(puzzle, worse).right


README_HAND = parse_cards("6C 7C 8C 9C 10C AD 2D 3D 4D 5D 6D")


def _run(text: str, as_: str | None = None) -> PlacedMeld:
    cards = parse_cards(text)
    return PlacedMeld(MeldKind.RUN, cards, cards if as_ is None else parse_cards(as_))


def _set(text: str, as_: str | None = None) -> PlacedMeld:
    cards = parse_cards(text)
    return PlacedMeld(MeldKind.SET, cards, cards if as_ is None else parse_cards(as_))


def test_the_readme_hand_accepts_the_best_play_in_any_order_and_rejects_the_obvious_one() -> None:
    puzzle = _puzzle(README_HAND, "progressive", 3)
    assert puzzle.best_points == 8
    best = LayDownAnswer((_run("7C 8C 9C 10C"), _run("3D 4D 5D 6D")), parse_cards("AD")[0])
    assert check_lay_down(puzzle, best).right
    assert check_lay_down(puzzle, LayDownAnswer(best.melds[::-1], best.discard)).right
    obvious = LayDownAnswer((_run("7C 8C 9C 10C"), _run("AD 2D 3D 4D")), parse_cards("6D")[0])
    verdict = check_lay_down(puzzle, obvious)
    assert not verdict.right and verdict.points == 11 and not verdict.problems
    assert not check_lay_down(puzzle, LayDownAnswer(cannot=True)).right
    assert check_answer(puzzle, best)


def test_a_joker_may_stand_wherever_the_rules_allow_and_each_such_play_is_accepted() -> None:
    hand = parse_cards("7H 8H 10H JK 5C 5D 5S KD")
    puzzle = _puzzle(hand, "progressive", 2)
    assert puzzle.best_points == 0
    king = parse_cards("KD")[0]
    for run in (_run("7H 8H JK 10H", "7H 8H 9H 10H"),):
        assert check_lay_down(puzzle, LayDownAnswer((_set("5C 5D 5S"), run), king)).right
    # The joker said to stand for a card it cannot (a gap left) is refused by the validator.
    wrong = LayDownAnswer((_set("5C 5D 5S"), _run("7H 8H 10H JK", "7H 8H 10H JH")), king)
    assert check_lay_down(puzzle, wrong).problems


def test_turn_end_rules_no_discard_and_going_out() -> None:
    hand = parse_cards("5C 5D 5S 9H 9S 9C KD")
    sets = (_set("5C 5D 5S"), _set("9H 9S 9C"))
    progressive = preset("progressive")  # discard to go out: optional
    assert play_problems(hand, progressive, 1, LayDownAnswer(sets, None))[0]  # K♦ left, no discard
    assert play_problems(hand, progressive, 1, LayDownAnswer(sets, hand[-1])) == ([], 0)
    assert play_problems(hand, progressive, 1, LayDownAnswer(sets, JOKER))[0]  # not in the hand
    six = parse_cards("5C 5D 5S 9H 9S 9C")
    assert play_problems(six, progressive, 1, LayDownAnswer(sets, None)) == ([], 0)
    assert play_problems(six, preset("contract"), 1, LayDownAnswer(sets, None))[0]  # required
    powe = preset("shanghai-powe")  # never a discard to go out
    assert play_problems(hand, powe, 1, LayDownAnswer(sets, hand[-1]))[0]


def test_other_kinds_are_scored_by_their_answers() -> None:
    discard = Puzzle(
        kind="discard",
        rules="progressive",
        round=1,
        players=4,
        moment="after-draw",
        hand=parse_cards("5C 5D 9H 9S KD 2C 3H"),
        answers=("KD", "9H"),
    )
    assert check_answer(discard, "kd") and check_answer(discard, "K♦") and check_answer(discard, "9H")
    assert not check_answer(discard, "2C") and not check_answer(discard, "zz")
    buy = Puzzle(
        kind="buy",
        rules="progressive",
        round=1,
        players=4,
        moment="before-draw",
        hand=parse_cards("5C 5D 9H 9S KD 2C"),
        offered=parse_cards("5H")[0],
        answers=("buy",),
    )
    assert check_answer(buy, "Buy") and not check_answer(buy, "pass")


@given(st.sampled_from(["5C 5D 5S 9H 9S 9C KD", "7H 8H 9H 10H 5C 5D 5S KD"]), st.permutations(range(3)))
def test_identical_plays_written_differently_are_all_accepted(text: str, order: list[int]) -> None:
    hand = parse_cards(text)
    round_number = 1 if len(hand) == 7 else 2
    puzzle = _puzzle(hand, "progressive", round_number)
    best = analyze(hand, "progressive", round_number, moment="after-draw")
    melds = list(best.melds) + [None]
    reordered = tuple(m for m in (melds[i] for i in order) if m is not None)
    assert Counter(reordered) == Counter(best.melds)
    assert check_lay_down(puzzle, LayDownAnswer(reordered, best.discard)).right
