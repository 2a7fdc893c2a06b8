"""Alembic's environment: migrations run online on the URL ``webapp.db.upgrade`` was given."""

from alembic import context

from webapp.db import Base, make_engine

target_metadata = Base.metadata


def run_migrations_online() -> None:
    engine = make_engine(context.config.attributes["url"])
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=connection.dialect.name == "sqlite")
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not set up; run them on a database")
run_migrations_online()
