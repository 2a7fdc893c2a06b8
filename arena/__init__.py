"""The arena: seeded rounds between policies in duplicate play, and who is stronger.

A room of its own that uses only the analyser's public API (``from analyzer import ...``):

- ``arena.policies``: the players by name (``random``, ``greedy``, ``simulated``, ``advised``),
  each shown only what its seat may see (a ``Sight``);
- ``arena.duplicate``: ``play_seed(match, round, seed)``, one deal played with the challenger in
  every seat, a pure function of its arguments;
- ``arena.report`` (on ``analyzer.stats``): relative points with their 95% t interval over seeds,
  as text, JSON and an SVG;
- ``arena.cli``: the ``rummy-arena`` command (docs/strength.md has the figures it measured).
"""
