"""games: whole games (every round of the rule set), the totals and the review once made

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("whole", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("past", sa.JSON, nullable=True))
        batch.add_column(sa.Column("totals", sa.JSON, nullable=True))
        batch.add_column(sa.Column("review", sa.JSON, nullable=True))
        batch.add_column(sa.Column("match_rate", sa.Float, nullable=True))
    # The rounds finished before: their totals are their scores (the record's last event).
    games = sa.table("games", sa.column("id", sa.String), sa.column("record", sa.JSON),
                     sa.column("finished", sa.Boolean), sa.column("totals", sa.JSON))
    bind = op.get_bind()
    for game_id, record in bind.execute(sa.select(games.c.id, games.c.record).where(games.c.finished.is_(True))).all():
        if record and record[-1].get("event") == "score":
            bind.execute(games.update().where(games.c.id == game_id).values(totals=record[-1]["points"]))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("match_rate")
        batch.drop_column("review")
        batch.drop_column("totals")
        batch.drop_column("past")
        batch.drop_column("whole")
