"""The CP-SAT model a hand gets, pinned byte for byte.

Simulated play and the shipped puzzle bank depend on which optimum CP-SAT returns, and that
depends on the model's exact form (variable order, names, coefficients, constraint order) and
the solver's parameters, not only on what the model means. So speed work on the model builder
must leave both unchanged: these digests were recorded with the builder of main at c5b0534
(before the rewrite of analyzer/solver/model.py for speed), by running this file as a script
there (``python -m tests.analyzer.test_model_identity`` prints the table below), and the rewritten
builder must give the same digests. A deliberate change of the model records them again, in its
own commit that says why: on 2026-11-24 the runs of the one-wild-a-meld presets (``shanghai``,
``shanghai-powe``, ``kolsov``) became counted per window where a contract repeats a run
(``WindowWilds``), and CP-SAT lost SAT inprocessing and CG cuts while go-out rounds came to
count missing cards as the target less the hand's melded cards (``pagat``, ``ill-buy-it``,
``shanghai`` and ``kolsov`` go-out rounds): generator puzzles-3, the bank re-derived. Recorded
again the same day for those four presets' go-out rounds, given a tighter relaxation (sets hold
naturals only when laid, no run window longer than the target leaves; ``TIGHT_GO_OUT``):
generator puzzles-4, the bank re-derived.

Every preset, every round: typical hands (deal + 1 cards, seeded) and hard hands (deal + 6..10
cards, 3-6 jokers where the deck has them), each built as the lay-down builds it (relaxed and
strict deck), as the outs build it (every rank offered), counted before the draw, and with the
melds holding at most all but two of the hand's cards.
"""

from __future__ import annotations

import hashlib
import random
import sys

import pytest

from analyzer.cards import ALL_NATURALS, JOKER, Card
from analyzer.rules import PRESETS, Rules, preset
from analyzer.solver.model import _CpModel, _sum, build_model, make_problem
from analyzer.solver.translate import new_solver
from analyzer.solver.work import deterministic_work

Case = tuple[tuple[Card, ...], int]  # a hand and its round


def seeded_cases(rules: Rules, seed: int) -> list[Case]:
    """Two typical and two hard hands a round, from the largest deck the rule set uses."""
    rng = random.Random(seed)
    deck = rules.deck_for(None)
    cards = list(ALL_NATURALS) * deck.decks + [JOKER] * deck.jokers
    naturals = list(ALL_NATURALS) * deck.decks
    cases: list[Case] = []
    for number, rule in enumerate(rules.rounds, start=1):
        for _ in range(2):
            cases.append((tuple(rng.sample(cards, rule.deal + 1)), number))
        for _ in range(2):
            jokers = rng.randint(min(3, deck.jokers), min(6, deck.jokers))
            size = rule.deal + rng.randint(6, 10)
            cases.append((tuple(rng.sample(naturals, size - jokers)) + (JOKER,) * jokers, number))
    return cases


# variant -> (before_draw, meld_at_most given as "all but two", strict_deck, all_ranks)
VARIANTS = {
    "relaxed": (False, False, False, False),
    "strict": (False, False, True, False),
    "all-ranks": (False, False, False, True),
    "before-draw": (True, False, False, False),
    "at-most": (False, True, False, False),
    "at-most-strict": (False, True, True, False),
}


def model_digest(rules: Rules, variant: str, seed: int = 7) -> str:
    """One digest over the text form of every seeded hand's model (the text form shows every
    field of the CpModelProto: variables with names and domains, constraints, objective)."""
    before_draw, at_most, strict_deck, all_ranks = VARIANTS[variant]
    digest = hashlib.sha256()
    for hand, number in seeded_cases(rules, seed):
        problem = make_problem(hand, rules, number, rules.deck_for(None), before_draw=before_draw,
                               meld_at_most=len(hand) - 2 if at_most else None)
        built = build_model(problem, strict_deck, all_ranks)
        # The outs and near_best add constraints on the model's total of missing cards: its
        # expression's form shows in theirs.
        built.model.add(built.missing_total <= 1)
        digest.update(str(built.model.proto).encode())
    return digest.hexdigest()[:16]


def parameters_digest() -> str:
    digest = hashlib.sha256(str(new_solver(3.5).parameters).encode())
    with deterministic_work(2.0):
        digest.update(str(new_solver(3.5).parameters).encode())
    return digest.hexdigest()[:16]


RECORDED: dict[tuple[str, str], str] = {
    ("progressive", "relaxed"): "0027a094a8d45de8",
    ("progressive", "strict"): "de32e31407aeef11",
    ("progressive", "all-ranks"): "b143f95010b85373",
    ("progressive", "before-draw"): "0027a094a8d45de8",
    ("progressive", "at-most"): "146768d868c4f73e",
    ("progressive", "at-most-strict"): "e692013198d5cfda",
    ("ill-buy-it", "relaxed"): "e5d57971d738ce13",
    ("ill-buy-it", "strict"): "9617725ddd9e4674",
    ("ill-buy-it", "all-ranks"): "ddfeaefdfdf3c156",
    ("ill-buy-it", "before-draw"): "04b26075f917d6be",
    ("ill-buy-it", "at-most"): "afac561d4c43d385",
    ("ill-buy-it", "at-most-strict"): "a71572126b19def7",
    ("contract", "relaxed"): "9e64dfa2d371cc24",
    ("contract", "strict"): "1b062b6fd16bedb7",
    ("contract", "all-ranks"): "d2d1e1982abcabd9",
    ("contract", "before-draw"): "9e64dfa2d371cc24",
    ("contract", "at-most"): "74fd9745252c54e3",
    ("contract", "at-most-strict"): "ac5bafeab34463d9",
    ("pagat", "relaxed"): "2619df90c2de328e",
    ("pagat", "strict"): "0dd3d1ddd8a67c13",
    ("pagat", "all-ranks"): "47f38d15574bc90d",
    ("pagat", "before-draw"): "d52264dacc9e38d2",
    ("pagat", "at-most"): "9eb615df7c5a7968",
    ("pagat", "at-most-strict"): "27b3ae775c0cc142",
    ("may-i", "relaxed"): "36339e8f781ae80d",
    ("may-i", "strict"): "72831817ac59d3e3",
    ("may-i", "all-ranks"): "a6bffc7a40168cdc",
    ("may-i", "before-draw"): "36339e8f781ae80d",
    ("may-i", "at-most"): "3fb53e1d3c30e1d4",
    ("may-i", "at-most-strict"): "0f7e9582b2363d83",
    ("shanghai", "relaxed"): "63248f1147491683",
    ("shanghai", "strict"): "ab7225ce473cab99",
    ("shanghai", "all-ranks"): "13978f810a1f8065",
    ("shanghai", "before-draw"): "445eefd045c8d370",
    ("shanghai", "at-most"): "f98b58b2528830d3",
    ("shanghai", "at-most-strict"): "5950cf1582613df1",
    ("shanghai-powe", "relaxed"): "e85404dbb2d892e5",
    ("shanghai-powe", "strict"): "37440ee1488308f2",
    ("shanghai-powe", "all-ranks"): "da4359c27b9c660a",
    ("shanghai-powe", "before-draw"): "e85404dbb2d892e5",
    ("shanghai-powe", "at-most"): "bbfe4168188c2949",
    ("shanghai-powe", "at-most-strict"): "99cea643683010cb",
    ("kolsov", "relaxed"): "9a9a00f5d0270585",
    ("kolsov", "strict"): "ce7eedd69607ec57",
    ("kolsov", "all-ranks"): "67d836cf9ee1bf33",
    ("kolsov", "before-draw"): "3c8e24a3122f4195",
    ("kolsov", "at-most"): "147bea3732c9c983",
    ("kolsov", "at-most-strict"): "ef367099e68985d0",
    ("eveleigh", "relaxed"): "345813193935e742",
    ("eveleigh", "strict"): "6b84d2102a9eb6a4",
    ("eveleigh", "all-ranks"): "3b9baaa518862ef2",
    ("eveleigh", "before-draw"): "345813193935e742",
    ("eveleigh", "at-most"): "dcd5cc41318597ea",
    ("eveleigh", "at-most-strict"): "25c2974b9404aab4",
}
RECORDED_PARAMETERS = "771145dfd25cf7ad"


@pytest.mark.parametrize("name, variant", sorted(RECORDED))
def test_model_is_byte_identical_to_the_recorded_one(name: str, variant: str) -> None:
    assert model_digest(preset(name), variant) == RECORDED[name, variant]


def test_every_preset_and_variant_is_pinned() -> None:
    assert set(RECORDED) == {(name, variant) for name in PRESETS for variant in VARIANTS}


def test_solver_parameters_are_the_recorded_ones() -> None:
    assert parameters_digest() == RECORDED_PARAMETERS


def test_digest_sees_a_one_coefficient_change() -> None:
    """The digest is no identity: one more constraint on one hand changes it."""
    rules = preset("progressive")
    hand, number = seeded_cases(rules, 7)[0]
    built = build_model(make_problem(hand, rules, number, rules.deck_for(None)), False)
    before = hashlib.sha256(str(built.model.proto).encode()).hexdigest()
    built.model.add(built.missing_total <= 99)
    assert hashlib.sha256(str(built.model.proto).encode()).hexdigest() != before


def test_one_step_sum_gives_the_proto_of_python_sum() -> None:
    """The builder's ``_sum`` (LinearExpr.sum in one step) stands in for Python's ``sum`` over the
    same variables: alone in a constraint, scaled, beside other terms and in the objective it
    must give the same proto, for empty lists (a natural no meld can hold), single terms and
    repeated variables."""
    rng = random.Random(3)
    for _ in range(400):
        protos = []
        picks = [rng.randrange(6) for _ in range(rng.randint(0, 7))]
        scale = rng.randint(1, 4)
        for summed in (sum, _sum):
            model = _CpModel()
            variables = [model.new_int_var(0, 3, f"v{i}") for i in range(6)]
            terms = [variables[i] for i in picks]
            total = summed(terms)
            model.add(total <= 5)  # alone: an empty sum is the integer 0 (a constant constraint)
            model.add(total <= scale * variables[0] + 1)
            model.add(scale * total - variables[1] >= 0)
            model.minimize(7 * variables[2] - scale * total)
            protos.append(str(model.proto))
        assert protos[0] == protos[1], picks


if __name__ == "__main__":  # print the table above, from whatever builder is installed here
    for name in PRESETS:
        for variant in VARIANTS:
            print(f'    ("{name}", "{variant}"): "{model_digest(preset(name), variant)}",')
    print(f'RECORDED_PARAMETERS = "{parameters_digest()}"')
    sys.exit(0)
