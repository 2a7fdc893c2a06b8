"""``python -m arena`` runs the ``rummy-arena`` command."""

from arena.command import main

if __name__ == "__main__":
    raise SystemExit(main())
