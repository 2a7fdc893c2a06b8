"""``rummy-trainer``: migrates the database, prints its address and serves; a port already taken
is one line and exit status 1, never a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.webapp.conftest import _free_port


def _start(tmp_path: Path, port: int) -> subprocess.Popen[str]:
    environment = {**os.environ, "RUMMY_INSTANCE_PATH": str(tmp_path / "instance")}
    environment.pop("DATABASE_URL", None)
    return subprocess.Popen([sys.executable, "-c", "from webapp.serve import main; raise SystemExit(main())",
                             "--port", str(port)], env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_rummy_trainer_prints_its_address_and_serves_with_the_database_ready(tmp_path: Path) -> None:
    port = _free_port()
    server = _start(tmp_path, port)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as response:
            assert response.status == 200
        assert (tmp_path / "instance" / "rummy.sqlite3").exists()
        assert (tmp_path / "instance" / "secret_key").exists()
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_port_already_taken_is_one_line_and_status_1(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        server = _start(tmp_path, taken.getsockname()[1])
        _, errors = server.communicate(timeout=60)
    assert server.returncode == 1
    assert errors.startswith("rummy-trainer: cannot listen on 127.0.0.1:") and "Traceback" not in errors
