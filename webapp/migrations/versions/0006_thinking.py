"""games: whether the table stopped for the computer's thinking, and the person's answer waiting
for it (the page plays the computer's turns one request at a time)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("thinking", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("answer", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("answer")
        batch.drop_column("thinking")
