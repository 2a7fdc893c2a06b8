"""trust: each player's count of rated attempts, each report's weight

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26

``players.rated_attempts`` is counted from the attempts already recorded. Reports made before
this revision get weight 0: none of them takes a puzzle out of service by itself any more; they
stay on the maintainers' list (``flask --app webapp reports list``) until reviewed.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as players:
        players.add_column(sa.Column("rated_attempts", sa.Integer, nullable=False, server_default="0"))
    with op.batch_alter_table("reports") as reports:
        reports.add_column(sa.Column("weight", sa.Integer, nullable=False, server_default="0"))
    op.create_index("ix_reports_player", "reports", ["player_id"])
    attempts = sa.table("attempts", sa.column("player_id", sa.Integer), sa.column("rated", sa.Boolean))
    players_table = sa.table("players", sa.column("id", sa.Integer), sa.column("rated_attempts", sa.Integer))
    counted = (sa.select(sa.func.count()).select_from(attempts)
               .where(attempts.c.player_id == players_table.c.id, attempts.c.rated.is_(True))
               .scalar_subquery())
    op.execute(players_table.update().values(rated_attempts=counted))


def downgrade() -> None:
    op.drop_index("ix_reports_player", "reports")
    with op.batch_alter_table("reports") as reports:
        reports.drop_column("weight")
    with op.batch_alter_table("players") as players:
        players.drop_column("rated_attempts")
