"""Web trainer (Flask, to come)."""
