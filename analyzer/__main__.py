"""``python -m analyzer`` runs the ``analyze`` command."""

from analyzer.command import main

if __name__ == "__main__":
    raise SystemExit(main())
