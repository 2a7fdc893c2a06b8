"""The load benchmark run tiny (benchmarks/trainer_load.py): the served trainer with a few
clients for a second or two, its database check passing on SQLite (and PostgreSQL when a server
is given), and the check failing on a database with an attempt lost, doubled or a rating update
lost, planted afterwards. No timing is asserted: speed is the benchmark's to print."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import create_engine, delete, insert, select, update

from benchmarks.trainer_load import Report, benchmark, check_database, main
from puzzles.bank import load_bank
from webapp.db import Attempt


@pytest.fixture(scope="module")
def bank_ratings() -> dict[str, float]:
    return {puzzle.id: float(puzzle.rating) for puzzle in load_bank()}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Report:
    """Three clients flat out for two seconds on SQLite: a few dozen answers, repeats among them."""
    return benchmark(clients=3, seconds=2.0, think=1.0, database_url=None,
                     folder=tmp_path_factory.mktemp("load"), phases=("flat out",))


def test_a_tiny_run_records_every_form_exactly_once(tiny_run: Report) -> None:
    check = tiny_run.consistency
    assert not tiny_run.failures, tiny_run.failures[:3]
    assert check.ok, check.problems
    assert check.forms > 10 and check.attempts == check.forms
    # Some forms went twice (in a row or from two tabs at once); every extra one was a repeat.
    assert check.posts > check.forms and check.repeats == check.posts - check.forms
    assert 0 < check.rated <= check.attempts
    times = tiny_run.phases[0].times
    assert all(times[kind] for kind in ("practice", "puzzle page", "answer", "reference"))


def test_the_benchmark_on_each_database_finds_nothing_lost(tmp_path: Path, database_url: str) -> None:
    report = benchmark(clients=2, seconds=1.0, think=0.2, database_url=database_url, folder=tmp_path,
                       phases=("players",))
    assert not report.failures, report.failures[:3]
    assert report.consistency.ok, report.consistency.problems
    assert report.consistency.attempts > 0


def planted(report: Report, folder: Path) -> str:
    """A copy of the run's SQLite database, to plant a fault in."""
    source = Path(report.database_url.removeprefix("sqlite:///"))
    copy = folder / "planted.sqlite3"
    shutil.copy(source, copy)
    return f"sqlite:///{copy}"


def problem_sorts(url: str, report: Report, bank_ratings: dict[str, float]) -> set[str]:
    check = check_database(url, report.submitted, bank_ratings)
    assert not check.ok
    return {problem.split(":")[0] for problem in check.problems}


def test_a_lost_attempt_is_found(tiny_run: Report, tmp_path: Path, bank_ratings: dict[str, float]) -> None:
    url = planted(tiny_run, tmp_path)
    engine = create_engine(url)
    with engine.begin() as connection:
        last = connection.scalar(select(Attempt.id).order_by(Attempt.id.desc()).limit(1))
        connection.execute(delete(Attempt).where(Attempt.id == last))
    engine.dispose()
    assert "lost" in problem_sorts(url, tiny_run, bank_ratings)


def test_an_answer_recorded_twice_is_found(tiny_run: Report, tmp_path: Path, bank_ratings: dict[str, float]) -> None:
    url = planted(tiny_run, tmp_path)
    engine = create_engine(url)
    with engine.begin() as connection:
        row = connection.execute(select(Attempt.__table__).order_by(Attempt.id.desc()).limit(1)).mappings().one()
        copy = {**row, "id": None, "token": "f" * 32}  # the same answer again, as a second attempt
        connection.execute(insert(Attempt).values(**copy))
    engine.dispose()
    assert "not submitted" in problem_sorts(url, tiny_run, bank_ratings)


def test_a_repeat_answered_as_new_is_found(tiny_run: Report, bank_ratings: dict[str, float]) -> None:
    """The server saying "recorded" twice for one form is a doubled answer, even when the rows
    look right."""
    form = next(form for form in tiny_run.submitted.values() if form.repeats)
    form.repeats -= 1
    try:
        assert "first answer" in problem_sorts(tiny_run.database_url, tiny_run, bank_ratings)
    finally:
        form.repeats += 1


def test_a_lost_rating_update_is_found(tiny_run: Report, tmp_path: Path, bank_ratings: dict[str, float]) -> None:
    """Two answers rated from the same starting point (a race) leave a fork in the chain."""
    url = planted(tiny_run, tmp_path)
    engine = create_engine(url)
    with engine.begin() as connection:
        rated = connection.execute(select(Attempt.id, Attempt.player_id, Attempt.rating_before)
                                   .where(Attempt.rated.is_(True)).order_by(Attempt.id)).all()
        # a player's two rated answers in a row (other players' answers may come between them)
        first, second = next((a, b) for i, a in enumerate(rated) for b in rated[i + 1:] if a.player_id == b.player_id)
        connection.execute(update(Attempt).where(Attempt.id == second.id).values(rating_before=first.rating_before))
    engine.dispose()
    assert "player chain" in problem_sorts(url, tiny_run, bank_ratings)


def test_the_command_line_prints_the_figures_and_the_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--quick", "--clients", "2", "--seconds", "1", "--phase", "flat out"]) == 0
    printed = capsys.readouterr().out
    for row in ("practice", "puzzle page", "answer", "reference", "p99/ref", "load average"):
        assert row in printed
    assert "exactly once and rating chains unbroken: yes" in printed


@pytest.mark.parametrize("arguments", [["--clients", "0"], ["--seconds", "-1"], ["--think", "nan"]])
def test_bad_arguments_are_one_line_and_status_2(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(arguments)
    assert stopped.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_switching_rule_set_while_another_player_answers_is_not_a_500(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the load benchmark: /practice read the player, then remembered the rule set in
    the same (read) transaction; on SQLite a write committed in between made that a 500. The
    write committed here lands exactly there, every time."""
    import webapp.train
    from tests.webapp.conftest import make_app
    from tests.webapp.test_trainer import BUY, answer

    app = make_app(tmp_path)
    player, other = app.test_client(), app.test_client()
    for client in (player, other):  # rows of their own (a visitor's rule set is kept in its cookie)
        assert answer(client, BUY, choice="buy").status_code == 200
        assert client.get("/practice").status_code == 303
    engine = create_engine(app.config["DATABASE_URL"])
    read_filters = webapp.train._filters

    def filters_then_someone_else_writes(*args, **kwargs):  # type: ignore[no-untyped-def]
        chosen = read_filters(*args, **kwargs)
        with engine.begin() as connection:  # another player's answer, committed meanwhile
            connection.exec_driver_sql("UPDATE players SET streak = streak + 1 WHERE id = 2")
        return chosen

    monkeypatch.setattr(webapp.train, "_filters", filters_then_someone_else_writes)
    response = player.get("/practice?rules=pagat")
    engine.dispose()
    assert response.status_code == 303, response.text[:300]
    with app.app_context():
        from webapp.db import Player, session

        assert {p.rules for p in session().scalars(select(Player))} == {"pagat", "progressive"}
