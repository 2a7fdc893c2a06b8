"""trainer: ratings, attempts, daily results, reports, accounts

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as players:
        players.add_column(sa.Column("rating", sa.Float, nullable=False, server_default="1500.0"))
        players.add_column(sa.Column("deviation", sa.Float, nullable=False, server_default="350.0"))
        players.add_column(sa.Column("volatility", sa.Float, nullable=False, server_default="0.06"))
        players.add_column(sa.Column("streak", sa.Integer, nullable=False, server_default="0"))
        players.add_column(sa.Column("best_streak", sa.Integer, nullable=False, server_default="0"))
        players.add_column(sa.Column("daily_streak", sa.Integer, nullable=False, server_default="0"))
        players.add_column(sa.Column("last_daily_solved", sa.Date, nullable=True))
        players.add_column(sa.Column("username", sa.String(40), nullable=True))
        players.add_column(sa.Column("password_hash", sa.String(256), nullable=True))
        players.create_unique_constraint("uq_players_username", ["username"])
    op.create_table(
        "puzzle_ratings",
        sa.Column("puzzle_id", sa.String(12), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("solved", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_table(
        "attempts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
        sa.Column("puzzle_id", sa.String(12), nullable=False),
        sa.Column("token", sa.String(32), nullable=False),
        sa.Column("answer", sa.JSON, nullable=False),
        sa.Column("right", sa.Boolean, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("daily", sa.Date, nullable=True),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("rating_after", sa.Float, nullable=False),
        sa.Column("deviation_after", sa.Float, nullable=False),
        sa.Column("puzzle_rating_before", sa.Float, nullable=True),
        sa.Column("puzzle_rating_after", sa.Float, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.UniqueConstraint("player_id", "token", name="uq_attempts_player_token"),
    )
    op.create_index("ix_attempts_player_puzzle", "attempts", ["player_id", "puzzle_id"])
    op.create_index("ix_attempts_puzzle", "attempts", ["puzzle_id"])
    op.create_table(
        "daily_results",
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("puzzle_id", sa.String(12), nullable=False),
        sa.Column("solved", sa.Boolean, nullable=False),
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("puzzle_id", sa.String(12), nullable=False),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id", ondelete="SET NULL"), nullable=True),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("state", sa.String(10), nullable=False, server_default="open"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_reports_puzzle", "reports", ["puzzle_id"])


def downgrade() -> None:
    op.drop_index("ix_reports_puzzle", "reports")
    op.drop_table("reports")
    op.drop_table("daily_results")
    op.drop_index("ix_attempts_puzzle", "attempts")
    op.drop_index("ix_attempts_player_puzzle", "attempts")
    op.drop_table("attempts")
    op.drop_table("puzzle_ratings")
    with op.batch_alter_table("players") as players:
        players.drop_constraint("uq_players_username", type_="unique")
        for column in ("password_hash", "username", "last_daily_solved", "daily_streak", "best_streak",
                       "streak", "volatility", "deviation", "rating"):
            players.drop_column(column)
