"""The builder's flattened terms (``missing_terms``, read off the variables) against OR-Tools'
own flattening of the same expressions: the objective is written from those terms, so they
must be the very coefficients ``FlatIntExpr`` gives (test_model_identity pins the result).
Likewise the long rows the builder writes into the proto itself against ``model.add``."""

from __future__ import annotations

import random

import pytest
from ortools.sat.python import cp_model

from analyzer.rules import PRESETS, preset
from analyzer.solver.model import (
    _NO_LOWER,
    _NO_UPPER,
    _add_long_linear,
    _CpModel,
    _flat,
    _missing_terms,
    build_model,
    make_problem,
)
from tests.analyzer.test_model_identity import VARIANTS, seeded_cases


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


def test_long_rows_give_the_proto_of_add() -> None:
    """The builder writes long linear rows into the proto itself (``_add_long_linear``): for
    each bound (one-sided either way, two-sided, an equality) and lengths from one term to a
    few hundred, the row must be the one ``model.add`` writes for the same sum."""
    rng = random.Random(5)
    for _ in range(300):
        protos = []
        count = rng.choice([1, 2, 7, 40, 300])
        chosen = sorted(rng.sample(range(400), count))
        coefficients = [rng.choice([-3, -1, 1, 2, 5]) for _ in chosen]
        lower, upper = rng.choice([(0, _NO_UPPER), (_NO_LOWER, 0), (-12, 9), (4, 4), (_NO_LOWER, -2)])
        for direct in (False, True):
            model = _CpModel()
            variables = [model.new_int_var(0, 3, f"v{i}") for i in range(400)]
            model.add(variables[0] <= 2)  # rows around it stay in place
            if direct:
                _add_long_linear(model, chosen, coefficients, lower, upper)
            else:  # as the builder wrote these rows before
                total = cp_model.LinearExpr.weighted_sum([variables[i] for i in chosen], coefficients)
                if lower == _NO_LOWER:
                    model.add(total <= upper)
                elif upper == _NO_UPPER:
                    model.add(total >= lower)
                elif lower == upper:
                    model.add(total == lower)
                else:
                    model.add_linear_constraint(total, lower, upper)
            model.add(variables[1] >= 1)
            protos.append(str(model.proto))
        assert protos[0] == protos[1], (chosen, coefficients, lower, upper)
