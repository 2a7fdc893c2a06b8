"""The advised player's ways of buying, compared in the arena: its outs, the advice's answer
(``advised``), by the simulated verdict against the table (``advised-verdict``), or by the verdict
on its own points (``advised-old-buy``), or only an out that completes the contract
(``advised-completes``)."""

from __future__ import annotations

import pytest

from analyzer import BuyObjective, Card, deterministic_work, parse_cards, preset
from arena import policies
from arena.duplicate import WORK
from arena.policies import AdvisedPlayer, Buying, PolicyName, Round, Sight, make_policy

ONE_AWAY = parse_cards("7H 8H 10H 5C 5D 5S KC")  # progressive round 2: needs the 9H (or a joker)


@pytest.fixture(autouse=True)
def _no_remembered_verdicts() -> None:
    """Each test asks its verdicts afresh (the process remembers them: ``policies._VERDICTS``)."""
    policies._VERDICTS.clear()


def sight(cards: tuple[Card, ...]) -> Sight:
    return Sight(0, tuple(sorted(cards, key=Card.sort_key)), (), None, 3, 0, ((),) * 4, 4, (Card.parse("4D"),),
                 False)


@pytest.mark.parametrize(("name", "buying"), [(PolicyName.ADVISED, Buying.OUTS),
                                              (PolicyName.ADVISED_VERDICT, Buying.VERDICT),
                                              (PolicyName.ADVISED_OLD_BUY, Buying.OWN_POINTS_VERDICT),
                                              (PolicyName.ADVISED_COMPLETES, Buying.COMPLETING)])
def test_each_advised_policy_buys_its_own_way(name: PolicyName, buying: Buying) -> None:
    player = make_policy(PolicyName.named(str(name)), Round(preset("progressive"), 2, 4), "test")
    assert isinstance(player, AdvisedPlayer) and player.buying is buying


def test_the_advice_buys_its_outs_and_asks_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """It asks the advice's own answer (``buy_answer``), never the simulation."""
    at = Round(preset("progressive"), 2, 4)
    player = make_policy(PolicyName.ADVISED, at, "test")
    asked: list[tuple[object, object]] = []
    real = policies.advise

    def advise(*args: object, **kwargs: object) -> object:
        asked.append((kwargs.get("buy"), kwargs.get("simulate_buy", True)))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(policies, "advise", advise)
    with deterministic_work(WORK):
        assert player.wants_to_buy_at(sight(ONE_AWAY), Card.parse("9H"))  # an out
        assert not player.wants_to_buy_at(sight(ONE_AWAY), Card.parse("KD"))
    assert [str(card) for card, _ in asked] == ["9H", "KD"]
    assert all(simulated is False for _, simulated in asked)


def test_completing_buys_only_the_out_that_lays_down() -> None:
    """One away, the out completes the contract: bought. Two away (the 9H is still an out, the
    advice buys it), ``advised-completes`` passes; a card that is no out, never."""
    at = Round(preset("progressive"), 2, 4)
    completing = make_policy(PolicyName.ADVISED_COMPLETES, at, "test")
    advised = make_policy(PolicyName.ADVISED, at, "test")
    two_away = parse_cards("7H 8H 10H 5C 5D 4S KC")  # the set needs a third 5 too
    with deterministic_work(WORK):
        assert completing.wants_to_buy_at(sight(ONE_AWAY), Card.parse("9H"))
        assert advised.wants_to_buy_at(sight(two_away), Card.parse("9H"))
        assert not completing.wants_to_buy_at(sight(two_away), Card.parse("9H"))
        assert not completing.wants_to_buy_at(sight(ONE_AWAY), Card.parse("KD"))


@pytest.mark.parametrize(("buying", "objective"), [(Buying.VERDICT, BuyObjective.AGAINST_TABLE),
                                                   (Buying.OWN_POINTS_VERDICT, BuyObjective.OWN_POINTS)])
def test_the_verdicts_compare_what_their_policy_says(monkeypatch: pytest.MonkeyPatch, buying: Buying,
                                                     objective: BuyObjective) -> None:
    at = Round(preset("progressive"), 2, 4)
    player = AdvisedPlayer(at, at.simulated_player(), "test", buying)
    asked: list[object] = []
    real = policies.advise

    def advise(*args: object, **kwargs: object) -> object:
        asked.append(kwargs.get("buy_objective"))
        kwargs["rollouts"] = 10
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(policies, "advise", advise)
    with deterministic_work(WORK):
        player.wants_to_buy_at(sight(ONE_AWAY), Card.parse("9H"))
    assert asked == [objective]


def test_a_verdict_asked_again_is_remembered_not_worked_out_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """As /play asks it: a fresh player on each request, the same question. Another work bound
    is another question."""
    at = Round(preset("progressive"), 2, 4)
    asked: list[object] = []
    real = policies.advise

    def advise(*args: object, **kwargs: object) -> object:
        asked.append(kwargs.get("buy"))
        kwargs["rollouts"] = 10
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(policies, "advise", advise)
    with deterministic_work(WORK):
        first = verdict_player(at, "test").wants_to_buy_at(sight(ONE_AWAY), Card.parse("9H"))
        again = verdict_player(at, "test").wants_to_buy_at(sight(ONE_AWAY), Card.parse("9H"))
    assert first == again and len(asked) == 1
    with deterministic_work(WORK / 2):
        verdict_player(at, "test").wants_to_buy_at(sight(ONE_AWAY), Card.parse("9H"))
    assert len(asked) == 2
    verdict_player(at, "other seed").wants_to_buy_at(sight(ONE_AWAY), Card.parse("9H"))
    assert len(asked) == 3


def verdict_player(at: Round, seed: str) -> AdvisedPlayer:
    return AdvisedPlayer(at, at.simulated_player(), seed, Buying.VERDICT)
