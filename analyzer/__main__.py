"""``python -m analyzer`` runs the ``analyze`` command."""

from analyzer.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
