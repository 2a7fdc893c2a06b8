"""The builder's flattened terms (``missing_terms``, read off the variables) against OR-Tools'
own flattening of the same expressions: the objective is written from those terms, so they
must be the very coefficients ``FlatIntExpr`` gives (test_model_identity pins the result)."""

from __future__ import annotations

import pytest

from analyzer.rules import PRESETS, preset
from analyzer.solver.model import _flat, _missing_terms, build_model, make_problem
from tests.test_model_identity import VARIANTS, seeded_cases


def _nonzero(terms: dict[int, int]) -> dict[int, int]:
    return {index: coefficient for index, coefficient in terms.items() if coefficient}


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("variant", ["relaxed", "strict", "all-ranks", "before-draw"])
def test_missing_terms_are_the_flattened_expressions(name: str, variant: str) -> None:
    rules = preset(name)
    before_draw, _, strict_deck, all_ranks = VARIANTS[variant]
    groups_seen = 0
    for hand, number in seeded_cases(rules, 11):
        problem = make_problem(hand, rules, number, rules.deck_for(None), before_draw=before_draw)
        built = build_model(problem, strict_deck, all_ranks)
        for slot in built.runs:
            terms, constant = slot.missing_terms()
            assert (_nonzero(terms), constant) == _flat(slot.missing())
        for window_group in built.windows:
            terms, constant = window_group.missing_terms()
            assert (_nonzero(terms), constant) == _flat(window_group.missing())
        for set_group in built.sets:
            terms, constant = set_group.missing_terms()
            assert (_nonzero(terms), constant) == _flat(set_group.missing_total())
        terms, constant = _missing_terms(built.runs, built.windows, built.sets)
        assert (_nonzero(terms), constant) == _flat(built.missing_total)
        assert terms, "every contract has a meld, so some variable counts missing cards"
        groups_seen += len(built.runs) + len(built.windows) + len(built.sets)
    assert groups_seen
