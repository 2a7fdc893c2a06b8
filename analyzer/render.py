"""The analyser's answers as a card player reads them: the ``analyze`` command's text (the JSON is
each result's ``to_dict()``), and the rule sets as ``analyze --list-rules`` shows them."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from analyzer.advice import Advice, DiscardRow
from analyzer.buy import BuyAdvice, BuyAnswer, BuyObjective, Verdict
from analyzer.cards import Card, Rank, faces
from analyzer.down import DownAdvice, DownRow, FaceUp, move_text
from analyzer.question import DEFAULT_RULES
from analyzer.result import LayDown, PlacedMeld
from analyzer.rules import ALIASES, PRESETS, ContractMode, DeckRule, Points, Rules, preset_key
from analyzer.turn import Moment, cards_off, witness_turn_end
from analyzer.words import plural as _plural

FACE = "face value"

# What the discard table's columns mean, in a line each: the command prints them under the table
# and the web page beside it (the one home of these words).
DISCARD_COLUMNS = {
    "points kept": ("when you lay down this turn, what you hold once the turn ends; else what the best lay-down "
                    "leaves when 0 away, or all the cards you keep"),
    "unseen outs": "unseen copies of the cards that would then help",
}
# ...and those of the discard table once the contract is down.
DOWN_COLUMNS = {
    "lays off": "cards that row's best play lays off (and jokers it takes back)",
    "kept": "what you hold once the turn ends",
    "unseen outs": "unseen copies of the cards that would let a kept card be laid off next turn",
}


# ---- an analysis ------------------------------------------------------------------------------


def render(result: LayDown, rules: Rules, asked_rules: str | None = None) -> str:
    """The analysis as a card player reads it: where the hand stands in its turn, then the
    turn's play (melds, discard, going out), or how far the hand is and what would do it.
    ``asked_rules``: the name the player gave (``liverpool`` is shown as ``pagat (liverpool)``)."""
    round_rule = rules.round(result.round)
    where = f", {Moment(result.moment).describe()}" if result.moment else ""
    lines = [
        f"Rules: {_rules_named(result.rules, asked_rules)}, round {result.round} of {len(rules.rounds)}: "
        f"{round_rule.describe_contract()}, {round_rule.deal} cards dealt"
        + (" (go-out round: every card must be melded)" if result.go_out else ""),
        f"Hand ({len(result.hand)} cards{where}): {faces(result.hand)}",
    ]
    if result.note:
        lines.append(f"Note: {result.note}")
    lines.append("")
    after_draw = result.moment == Moment.AFTER_DRAW.value
    if result.can_lay_down:
        lines += _play_lines(result, rules, after_draw)
        shown = result.melds
    elif result.cards_away is None and result.proven_optimal:
        lines.append("This hand cannot lay down the contract, whatever cards it draws"
                     + (": in this round every card must fit into the melds." if result.go_out else "."))
        shown = ()
    elif result.cards_away is None:
        lines.append("Nothing found within the time limit, not even with extra cards (not proven impossible: "
                     "a longer --time-limit may find a lay-down).")
        return "\n".join(lines)
    else:
        lines += _away_lines(result, rules, after_draw)
        shown = result.with_missing
    stand_ins = [(card, meaning) for meld in shown for card, meaning in zip(meld.cards, meld.stands_for)
                 if card != meaning]
    if stand_ins:
        card, meaning = stand_ins[0]
        wild = "joker" if card.is_joker else f"wild {card.face}"
        lines.append(f"({card.face}={meaning.face}: the {wild} stands for the {meaning.face}.)")
    if not result.proven_optimal:
        lines.append("Note: best found within the time limit, not proven optimal "
                     "(a longer --time-limit may find better).")
    return "\n".join(lines)


def _play_lines(result: LayDown, rules: Rules, after_draw: bool) -> list[str]:
    """A hand that lays down: after the draw the whole turn, before it the lay-down to come."""
    if result.go_out and after_draw:
        return ["You go out:", *_meld_lines(result.melds)]
    if not after_draw:
        return ["After your draw you can lay down:", *_meld_lines(result.melds),
                _left_line(result.leftover, result.leftover_points, "Left in hand, with the card you draw",
                           "Every card you hold is melded; the card you draw is left to discard.")]
    lines = ["You can lay down:", *_meld_lines(result.melds)]
    if result.discard is None:
        lines.append("and meld every card: you go out without a discard.")
        return lines
    if result.goes_out:
        lines.append(f"and discard {result.discard.face}: you go out.")
        return lines
    kept = list(result.leftover)
    kept.remove(result.discard)
    lines.append(f"and discard {result.discard.face}: you keep {faces(kept)} "
                 f"({_plural(result.points_after_discard or 0, 'point')}).")
    lines += [f"({note})" for note in lay_off_notes(kept, result.melds, rules)]
    return lines


def lay_off_notes(kept: Sequence[Card], melds: Sequence[PlacedMeld], rules: Rules) -> list[str]:
    """A sentence for each kept card that could go onto one of the player's own ``melds`` on a
    later turn: ``On a later turn you can lay off the 6♣ on your run 7♣ 8♣ 9♣ 10♣.``"""
    return [f"On a later turn you can lay off the {card.face} on your {meld.kind.value} {meld.describe()}."
            for card, meld in cards_off(kept, melds, rules)]


def _away_lines(result: LayDown, rules: Rules, after_draw: bool) -> list[str]:
    """A hand that cannot lay down this turn: how far it is and one way there."""
    away = result.cards_away
    assert away is not None
    let_go = result.kept_with_missing()
    if result.go_out:
        # Go-out rounds count draws: each turn draws a card and lets one go (docs/lay-down.md).
        lines = [(f"Not {'this turn' if after_draw else 'yet'}: you are {_plural(away, 'draw')} from going out "
                 "(each turn you draw a card and discard one).")]
        if after_draw and let_go:
            lines.append(f"Let go of {faces(let_go)} (discard {'it' if len(let_go) == 1 else 'them'} on this and "
                         f"later turns), draw {result.describe_missing()}, and you could go out:")
        elif let_go:
            lines.append(f"Draw {result.describe_missing()} and let go of {faces(let_go)}, and you could go out:")
        else:
            lines.append(f"Draw {result.describe_missing()}, and you could go out:")
        return lines + _meld_lines(result.with_missing)
    lines = [f"Not {'this turn' if after_draw else 'yet'}: you are {_plural(away, 'card')} away.",
             f"{'This card' if away == 1 else 'These cards'} would do it: {result.describe_missing()}",
             "and then you could lay down:", *_meld_lines(result.with_missing)]
    if not after_draw:
        return lines + [_left_line(let_go, sum(rules.points_of(card) for card in let_go), "You would keep",
                                   "Every card you hold would be melded.")]
    # After the draw the witness is a whole turn's play: the melds, then its discard.
    melded = [card for meld in result.with_missing for card in meld.cards]
    discard, kept = witness_turn_end(result.hand, result.missing, melded, rules)
    if discard is None:
        return lines + ["and meld every card: you would go out without a discard."]
    if not kept:
        return lines + [f"and discard {discard.face}: you would go out."]
    return lines + [(f"and discard {discard.face}: you would keep {faces(kept)} "
                     f"({_plural(sum(map(rules.points_of, kept)), 'point')}).")]


def render_advice(advice: Advice, rules: Rules, players: int | None = None, asked_rules: str | None = None) -> str:
    """The analysis, then the cards that would help, the discard table and the buy comparison."""
    blocks = [render(advice.lay_down, rules, asked_rules)]
    if advice.outs:
        listed = ", ".join(f"{out.card.face} ×{out.unseen}" for out in advice.outs)
        after = " after your discard" if advice.lay_down.moment == Moment.AFTER_DRAW.value else ""
        blocks.append(f"Cards that help{after} (unseen copies): {listed} — {advice.unseen_outs} in all\n"
                      + _unseen_note(advice, rules, players))
    if advice.discards:  # none when the time limit came before any row was ranked
        blocks.append(_discard_lines(advice.discards, advice.discard_order))
    if advice.buy_answer is not None:
        blocks.append(_answer_lines(advice.buy_answer))
    if advice.buy is not None:
        blocks.append(_buy_lines(advice.buy))
    if advice.unfinished:
        blocks.append("\n".join(["Not finished within the time limit (--time-limit gives more):",
                                 *(f"  {note}" for note in advice.unfinished)]))
    return "\n\n".join(blocks)


def _unseen_note(advice: Advice, rules: Rules, players: int | None) -> str:
    """Which cards "unseen" counts: the deck less the hand, the seen cards and the offered card."""
    deck = rules.deck_for(players)
    gone = ["your hand"]
    if advice.seen:
        gone.append(_plural(len(advice.seen), "seen card"))
    if advice.buy:
        gone.append(f"the offered {advice.buy.offered.face}")
    which = f"for {players} players" if players else "the largest deck; --players N gives yours"
    return (f"(Unseen: {_plural(deck.decks, 'deck')} + {_plural(deck.jokers, 'joker')} ({which}), "
            f"less {', '.join(gone[:-1]) + ' and ' + gone[-1] if len(gone) > 1 else gone[0]}.)")


def _discard_lines(rows: Sequence[DiscardRow], order: str | None) -> str:
    """The discard table, best first, columns aligned, equal rows marked ``2=``; the equal best
    rows are one line, "any of" their cards; then the order that chose the best, in words."""
    header = ("rank", "discard", "cards away", "unseen outs", "points kept", "card points")
    tied = {row.rank for row in rows if row.equal_to_previous}
    best = [row for row in rows if row.rank == 1]
    grouped = [best[0], *[row for row in rows if row.rank != 1]]
    cells = [_discard_cells(row, best, tied) for row in grouped]
    widths = [max(len(text) for text in column) for column in zip(header, *cells)]
    lines = ["Which card to discard, best first:",
             "  " + "  ".join(f"{text:<{w}}" if i < 2 else f"{text:>{w}}" for i, (text, w) in
                              enumerate(zip(header, widths)))]
    for row, line in zip(grouped, cells):
        text = "  " + "  ".join(f"{cell:<{w}}" if i < 2 else f"{cell:>{w}}" for i, (cell, w) in
                                enumerate(zip(line, widths)))
        if row.rank == 1:
            text += "  ← discard " + ("this" if len(best) == 1 else "any of these")
            text += ": you go out" if row.goes_out else ": you lay down" if row.lays_down else ""
        lines.append(text)
    lines.append("(" + "; ".join(f"{column}: {words}" for column, words in DISCARD_COLUMNS.items()) + ")")
    if order:
        lines.append(f"Ranked by: {order}.")
    return "\n".join(lines)


def _discard_cells(row: DiscardRow, best: list[DiscardRow], tied: set[int]) -> tuple[str, ...]:
    """One line of the discard table: the equal best rows as one, "any of" their cards."""
    if row.rank == 1:
        rank, card = "1", (row.card.face if len(best) == 1 else "any of " + " ".join(r.card.face for r in best))
        card_points = str(row.card_points) if len(best) == 1 else ""
    else:
        rank, card, card_points = f"{row.rank}{'=' if row.rank in tied else ''}", row.card.face, str(row.card_points)
    away = "never" if row.cards_away is None else str(row.cards_away)
    return rank, card, away, str(row.unseen_outs), str(row.points_kept), card_points


def _answer_lines(answer: BuyAnswer) -> str:
    """The advice's answer to the offered card, and the rule it follows."""
    return "\n".join([f"Buy the {answer.offered.face}? {answer.verdict.value.upper()}: {answer.reason}",
                      ("  (the advice buys an offered card when it is one of your outs; in play this did better "
                       "than the simulation below)")])


def _buy_lines(buy: BuyAdvice) -> str:
    """Passing and buying side by side as simulated, that simulation's verdict (saying what it
    compares) and its reason: for the player to read beside the advice's answer."""
    how = ("exact" if buy.method == "exact"
           else f"{buy.rollouts} simulated rounds, seed {buy.seed}")
    until = ("to the end of the round" if buy.horizon is None
             else f"over at most {_plural(buy.horizon, 'turn')} of yours")
    penalty = _plural(buy.penalty_cards, "penalty card") if buy.penalty_cards else "no penalty card"
    header = ("", "cards", "lays down", "goes out first", "points held", "others hold", "against table")
    cells = [(name, str(option.hand_size), f"{option.lay_down_probability:.0%}",
              f"{option.go_out_probability:.0%}", f"{option.expected_points:.1f}",
              f"{option.opponent_points:.1f}", f"{option.relative_points:+.1f}")
             for name, option in (("pass", buy.passing), ("buy", buy.buying))]
    widths = [max(len(text) for text in column) for column in zip(header, *cells)]
    table = ["  " + "  ".join(f"{text:<{w}}" if i == 0 else f"{text:>{w}}" for i, (text, w) in
                              enumerate(zip(line, widths))) for line in (header, *cells)]
    spread = f" ±{buy.std_error:.1f}" if buy.std_error is not None else ""
    change = abs(buy.difference)
    if buy.objective is BuyObjective.AGAINST_TABLE:
        verdict = {
            Verdict.BUY: f"BUY: buying leaves you {change:.1f}{spread} points better off against the table",
            Verdict.PASS: f"PASS: buying leaves you {change:.1f}{spread} points worse off against the table",
            Verdict.CLOSE_CALL: f"CLOSE CALL: the two differ by {change:.1f}{spread} points against the table",
            Verdict.UNDECIDED: "UNDECIDED: the time limit came before a verdict",
        }[buy.verdict]
        compared = ("(against the table: your points less the other players' mean when the round ends; "
                    "lower is better)")
    else:
        verdict = {
            Verdict.BUY: f"BUY: buying leaves you holding {change:.1f}{spread} fewer points on average",
            Verdict.PASS: f"PASS: buying leaves you holding {change:.1f}{spread} more points on average",
            Verdict.CLOSE_CALL: f"CLOSE CALL: the two differ by {change:.1f}{spread} points on average",
            Verdict.UNDECIDED: "UNDECIDED: the time limit came before a verdict",
        }[buy.verdict]
        compared = "(compared by your own points held alone)"
    if buy.verdict is Verdict.UNDECIDED:
        table = []
    return "\n".join([
        (f"Simulated play, passing and buying the {buy.offered.face}: with {penalty}, from your turn {buy.turn} "
         f"{until}, {buy.players} players ({how}):"),
        *table,
        *([] if buy.verdict is Verdict.UNDECIDED else [f"  {compared}"]),
        f"The simulation's verdict: {verdict} (a close call is within {buy.margin:.1f}).",
        f"Why: {' '.join(filter(None, (buy.reason, buy.why_still())))}",
    ])


def render_down(advice: DownAdvice) -> str:
    """The advice once the contract is down: the best play, the discard table, and with a
    face-up card whether to take it."""
    when = "before your draw" if advice.face_up else "after your draw"
    blocks = [f"Your contract is down ({advice.rules}, round {advice.round}); your hand {when}: {faces(advice.hand)}"]
    if advice.face_up is not None:
        blocks.append(_face_up_lines(advice.face_up))
    best = advice.best
    taken = f"If you take the {advice.face_up.card.face}, the best play" if advice.face_up else "Best play"
    lines = [f"{taken}:"] + [f"  {move_text(move, made)}" for move, made in zip(best.moves, best.made)]
    if not best.moves:
        lines.append("  nothing to lay off")
    if best.discard is not None:
        lines.append(f"  discard {best.discard.face}" + (": you go out" if best.goes_out else ""))
    elif best.goes_out:
        lines.append("  no discard: you go out")
    if not best.goes_out:
        lines.append("  " + _left_line(best.kept, best.points_kept, "you keep", ""))
    blocks.append("\n".join(lines))
    blocks.append(_down_lines(advice.rows))
    if not advice.complete:
        blocks.append("(Not finished: the search stopped at its bound of positions or the time limit, "
                      "--time-limit gives more; a better play may exist.)")
    return "\n\n".join(blocks)


def _down_lines(rows: Sequence[DownRow]) -> str:
    header = ("rank", "discard", "lays off", "kept", "unseen outs", "points kept")
    tied = {row.rank for row in rows if row.equal_to_previous}
    cells = [(f"{row.rank}{'=' if row.rank in tied else ''}", "none" if row.discard is None else row.discard.face,
              str(len(row.moves)), faces(row.kept) if row.kept else "nothing: out", str(row.unseen_outs),
              str(row.points_kept)) for row in rows]
    widths = [max(len(text) for text in column) for column in zip(header, *cells)]
    numbers = {2, 4, 5}
    lines = ["Which card to discard, best first:"]
    for line in (header, *cells):
        lines.append("  " + "  ".join(f"{text:>{w}}" if i in numbers else f"{text:<{w}}"
                                      for i, (text, w) in enumerate(zip(line, widths))).rstrip())
    lines.append("(" + "; ".join(f"{column}: {words}" for column, words in DOWN_COLUMNS.items()) + ")")
    return "\n".join(lines)


def _figure(value: float | None) -> str:
    """A figure of the face-up table; "-" where it was not worked out (it decides nothing)."""
    return "-" if value is None else f"{value:.1f}"


def _face_up_lines(face_up: FaceUp) -> str:
    header = ("", "goes out", "cards kept", "unseen outs", "points kept")
    cells = [(option.choice.value, f"{option.goes_out:.0%}", f"{option.cards_kept:.1f}", _figure(option.unseen_outs),
              _figure(option.points_kept)) for option in face_up.options]
    widths = [max(len(text) for text in column) for column in zip(header, *cells)]
    verdict = "TAKE it" if face_up.take else "DRAW from the stock"
    return "\n".join([f"Take the face-up {face_up.card.face}? {verdict}.",
                      *("  " + "  ".join(f"{text:<{w}}" if i == 0 else f"{text:>{w}}"
                                         for i, (text, w) in enumerate(zip(line, widths)))
                        for line in (header, *cells)),
                      ("  (the turn's best play after each; drawing: the mean over the unseen cards; "
                       "fewer cards kept wins, then more unseen outs, then fewer points)")])


def _meld_lines(melds: Sequence[PlacedMeld]) -> list[str]:
    labels = [f"{meld.kind.value} of {len(meld.cards)}:" for meld in melds]
    width = max(map(len, labels), default=0)
    return [f"  {label:<{width}}  {meld.describe()}" for label, meld in zip(labels, melds)]


def _left_line(cards: Sequence[Card], points: int, what: str, when_none: str) -> str:
    if not cards:
        return when_none
    return f"{what}: {faces(cards)} ({points} point{'s' if points != 1 else ''})"


# ---- the rule sets ---------------------------------------------------------------------------


def render_rule_sets() -> str:
    """Every preset: source, decks, how melds work, points, and each round's deal and contract."""
    return "\n\n".join(render_rule_set(rules, rules_title(name)) for name, rules in PRESETS.items())


def rules_title(name: str) -> str:
    """A preset's title line: ``pagat, also liverpool``, ``progressive (default)``."""
    aliases = [alias for alias, target in ALIASES.items() if target == name]
    return name + (" (default)" if name == DEFAULT_RULES else "") + "".join(f", also {a}" for a in aliases)


def _rules_named(name: str, asked: str | None) -> str:
    """The rule set's name as the answer shows it; for an alias the player ``asked`` for, both:
    ``pagat (liverpool)``."""
    key = (asked or "").lower()
    if not key or key.endswith(".toml") or key == name or preset_key(key) != name:
        return name
    return f"{name} ({key})"


def render_rule_set(rules: Rules, title: str) -> str:
    """One rule set: source, decks, how melds work, points, and each round's deal and contract."""
    lines = [title, *_wrapped("source: " + rules.source), *_wrapped("players: " + _decks_text(rules.decks)),
             *_wrapped("melds: " + _melds_text(rules)), *_wrapped("play: " + _play_text(rules)),
             *_wrapped("points: " + _points_text(rules)),
             "    rounds:"]
    for number, rule in enumerate(rules.rounds, start=1):
        notes = []
        if rule.go_out:
            notes.append("go out")
        if rule.buys is not None or rule.buy_penalty_cards is not None:
            notes.append(_buys_text(rules.buys_in(number), rules.buy_penalty_in(number), ""))
        note = f"  [{'; '.join(notes)}]" if notes else ""
        lines.append(f"    {number:>6}. {rule.deal:>2} cards: {rule.describe_contract()}{note}")
    return "\n".join(lines)


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(text, width=96, initial_indent="    ", subsequent_indent="        ")


def _decks_text(decks: Sequence[DeckRule]) -> str:
    parts = []
    for deck in decks:
        players = str(deck.min_players) if deck.min_players == deck.max_players else f"{deck.min_players}-{deck.max_players}"
        parts.append(f"{players}: {_plural(deck.decks, 'deck')} + {_plural(deck.jokers, 'joker')}")
    return "; ".join(parts)


def _melds_text(rules: Rules) -> str:
    exact = rules.contract_mode == ContractMode.EXACT
    ace = {(True, True): "low or high", (False, True): "high only", (True, False): "low only"}
    wild = "jokers and 2s" if rules.deuces_wild else "jokers"
    if rules.deuces_wild and rules.deuces_always_wild:
        wild += " (a 2 is always wild, never natural)"
    if rules.max_wilds_per_meld is not None:
        wild += f", at most {rules.max_wilds_per_meld} per meld"
    if not rules.wilds_may_outnumber_naturals:
        wild += ", never more than the natural cards"
    parts = [
        "exactly the contract's sizes" if exact else "may be longer than the contract's sizes",
        f"same-suit runs: {rules.same_suit_runs.value}",
        f"ace {ace[rules.ace_low, rules.ace_high]}" if rules.two_position_in_runs
        else "runs from 3 up to the ace (never the 2's place), ace high only",
        f"wild: {wild}",
    ]
    if rules.distinct_set_ranks:
        parts.append("no two sets of one rank")
    return "; ".join(parts)


def _play_text(rules: Rules) -> str:
    by_round = [rule.buys is not None or rule.buy_penalty_cards is not None for rule in rules.rounds]
    if all(by_round):
        buys = "by round"
    else:
        buys = _buys_text(rules.buys_per_round, rules.buy_penalty_cards, " a round")
        buys += ", other rounds as marked" if any(by_round) else ""
    if rules.no_consecutive_buys:
        buys += ", never the same player twice in a row"
    lay_offs = ("on any meld" if rules.lay_off_on_others else "on one's own melds") + (
        ", from the turn of laying down" if rules.lay_off_same_turn else ", from the next turn")
    jokers = {"none": "never", "runs": "from runs", "runs-and-sets": "from runs and sets"}[rules.joker_substitution.value]
    return (f"discard to go out: {rules.discard_to_go_out}; buying: {buys}; lay-offs: {lay_offs}; "
            f"jokers taken back: {jokers}")


def _buys_text(buys: int | None, penalty: int, per: str) -> str:
    if buys == 0:
        return "no buying"
    count = "unlimited buys" if buys is None else _plural(buys, "buy") + per
    return f"{count}, {_plural(penalty, 'penalty card') if penalty else 'no penalty card'}"


def _points_text(rules: Rules) -> str:
    """``A 15, 2-10 face value, J-K 10, joker 25``: consecutive ranks worth alike, grouped."""
    points: Points = rules.points
    groups: list[list[Any]] = []  # [first rank, last rank, points or FACE]
    for number, value in enumerate(points.by_rank, start=1):
        last = groups[-1] if groups else None
        if last and last[2] == value:
            last[1] = number
        elif last and value == number and (last[2] == FACE or last[0] == last[1] == last[2] == number - 1 >= 2):
            last[1:] = [number, FACE]  # 2, 3, 4...: each worth its own number
        else:
            groups.append([number, number, value])
    parts = [
        Rank(first).token + (f"-{Rank(last).token}" if last != first else "") + f" {value}"
        for first, last, value in groups
    ]
    parts.append(f"joker {points.joker}")
    if rules.deuces_wild:
        parts.append(f"wild 2 {points.wild_deuce}")
    return ", ".join(parts)
