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


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("match_rate")
        batch.drop_column("review")
        batch.drop_column("totals")
        batch.drop_column("past")
        batch.drop_column("whole")
