"""Puzzles: "Can you lay down?", "Which discard?" and "Should you buy?" problems generated from
simulated play, verified against the analyser, a shipped bank and the daily puzzle (docs/bank.md)."""
