"""The lay-down solver: CP-SAT models for the best lay-down of a contract, the fewest cards
that would make it possible, and the outs (docs/lay-down.md and docs/advice.md say exactly
what is computed). CP-SAT types never leave this package.

The model, in words. Cards are counted, never placed one by one:

- *Runs* are counted per window (suit, first and last position; 1 = low ace ... 14 = high ace)
  when no per-meld wild limit applies, with the hand's naturals counted per position; with such
  a limit (the Shanghai family) each run of the contract gets its own slot.
- *Sets* (and pairs) are counted per rank: how many sets of rank r, how many of the hand's
  naturals of that rank they hold, and (where limits apply) how many wild and missing cards.
- Positions no natural fills are *gaps*, taken by the hand's wild cards or by *missing* cards.
- The objective is lexicographic, in one number: fewest missing cards (that is "cards away"),
  then fewest leftover points.
- A missing card must exist in the deck. The first model ignores that (rarely binding); when its
  answer over-draws the deck, a strict model counts missing copies card by card.

Modules, in the order data flows: ``model`` (problem, variables, constraints), ``translate``
(solve, then read melds back), ``lay_down`` (the entry point), ``outs``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded when first used (PEP 562): importing the package does not load OR-Tools, so the
# command's ``--help``, ``--list-rules`` and input errors do not pay for it.
_HOMES = {"solve_lay_down": "analyzer.solver.lay_down", "find_outs": "analyzer.solver.outs"}

__all__ = ["find_outs", "solve_lay_down"]

if TYPE_CHECKING:
    from analyzer.solver.lay_down import solve_lay_down
    from analyzer.solver.outs import find_outs


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'analyzer.solver' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value
