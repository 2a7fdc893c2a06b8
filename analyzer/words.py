"""Small helpers for the sentences the analyser writes."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 joker``, ``2 jokers``, ``0 decks``; ``nouns`` for an irregular plural.

    >>> plural(1, "player"), plural(3, "copy", "copies")
    ('1 player', '3 copies')
    """
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def players_text(low: int, high: int) -> str:
    """``3 players``, ``1 player``, ``2-4 players``."""
    return plural(low, "player") if low == high else f"{low}-{high} players"
