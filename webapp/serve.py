"""``rummy-trainer``: the trainer on this machine, database migrated, served by waitress.

    rummy-trainer                     # http://127.0.0.1:5000/, SQLite in the instance folder
    rummy-trainer --port 8000 --threads 8

For serving for real (gunicorn, PostgreSQL, Redis for the rate limits) see docs/serving.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from webapp import create_app
from webapp.bank import bank
from webapp.db import upgrade


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rummy-trainer", description="Serve the Contract Rummy trainer.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument("--threads", type=int, default=4, help="worker threads (default 4)")
    args = parser.parse_args(argv)

    import waitress.server

    app = create_app()
    upgrade(app.config["DATABASE_URL"])
    with app.app_context():
        bank()  # loaded now (a second or two), not while the first player waits for a puzzle
        for name in app.jinja_env.list_templates(filter_func=lambda name: name.endswith(".html")):
            app.jinja_env.get_template(name)  # compiled now too, not on the first requests
    try:  # listening before the address is printed: once it is, the trainer answers
        server = waitress.server.create_server(app, host=args.host, port=args.port, threads=args.threads,
                                               ident="rummy-trainer")
    except OSError as error:
        print(f"rummy-trainer: cannot listen on {args.host}:{args.port}: {error.strerror or error}", file=sys.stderr)
        return 1
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Contract Rummy trainer: http://{shown_host}:{args.port}/  (Ctrl-C stops it)", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
