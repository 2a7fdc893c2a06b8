"""Puzzles: generated, verified problems (to come)."""
