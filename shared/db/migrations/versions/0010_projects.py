"""projects: every dataset, experiment, comparison, prompt, online config, traffic record, drift alert,
API key and audit row belongs to one project; what existed moves into the project ``default``.
Names are unique per project (datasets, prompts); the sampling config is one row per project.

Downgrade refuses (with a sentence) while any project but ``default`` holds data: folding two
projects into one namespace could not keep their names unique.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26 11:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEFAULT = "default"

# Tables whose rows belong to a project; audit rows may be instance-wide (NULL: a project created).
OWNED = (
    "datasets",
    "experiments",
    "comparisons",
    "prompt_versions",
    "prompt_labels",
    "sampling_config",
    "online_samples",
    "online_scores",
    "drift_alerts",
    "api_keys",
)


def _unique_named(table: str, columns: list[str]) -> str:
    """The name PostgreSQL gave a unique constraint (0003 created some without a name)."""
    for constraint in sa.inspect(op.get_bind()).get_unique_constraints(table):
        if constraint["column_names"] == columns and constraint["name"]:
            return constraint["name"]
    raise RuntimeError(f"no unique constraint on {table}{tuple(columns)}")


def _primary_key_name(table: str) -> str:
    name = sa.inspect(op.get_bind()).get_pk_constraint(table)["name"]
    assert name, table
    return str(name)


def upgrade() -> None:
    op.create_table(
        "projects",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("description", sa.Text(), nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("id", name="pk_projects"),
        sa.CheckConstraint("id ~ '^[a-z0-9][a-z0-9_-]{0,63}$'", name="ck_projects_id_slug"),
    )
    op.execute(f"INSERT INTO projects (id, description) VALUES ('{DEFAULT}', 'Created by migration 0010')")
    for table in OWNED:
        op.add_column(table, sa.Column("project_id", sa.String(64), nullable=False, server_default=DEFAULT))
        op.alter_column(table, "project_id", server_default=None)  # new rows must say their project
        op.create_foreign_key(
            f"fk_{table}_project_id_projects", table, "projects", ["project_id"], ["id"], ondelete="RESTRICT"
        )
    # Existing audit rows get the default through the column default (a trigger refuses UPDATE);
    # NULL afterwards means an instance-wide change (a project created).
    op.add_column(
        "audit_events", sa.Column("project_id", sa.String(64), nullable=True, server_default=DEFAULT)
    )
    op.alter_column("audit_events", "project_id", server_default=None)
    op.create_index("ix_audit_events_project_at", "audit_events", ["project_id", "at"])

    op.drop_constraint("uq_datasets_name", "datasets", type_="unique")
    op.create_unique_constraint("uq_datasets_project_id_name", "datasets", ["project_id", "name"])
    op.create_index("ix_experiments_project_created", "experiments", ["project_id", "created_at"])
    op.create_index("ix_comparisons_project_created", "comparisons", ["project_id", "created_at"])

    op.drop_constraint(
        _unique_named("prompt_versions", ["name", "version"]), "prompt_versions", type_="unique"
    )
    op.create_unique_constraint(
        "uq_prompt_versions_project_id_name_version", "prompt_versions", ["project_id", "name", "version"]
    )
    op.drop_constraint(_primary_key_name("prompt_labels"), "prompt_labels", type_="primary")
    op.create_primary_key("pk_prompt_labels", "prompt_labels", ["project_id", "name", "label"])

    op.drop_constraint("pk_sampling_config", "sampling_config", type_="primary")
    op.drop_column("sampling_config", "id")
    op.create_primary_key("pk_sampling_config", "sampling_config", ["project_id"])

    op.drop_constraint("uq_online_samples_conversation_id_turn_index", "online_samples", type_="unique")
    op.create_unique_constraint(
        "uq_online_samples_project_id_conversation_id_turn_index",
        "online_samples",
        ["project_id", "conversation_id", "turn_index"],
    )
    op.drop_index("ix_online_scores_name_at", table_name="online_scores")
    op.create_index("ix_online_scores_project_name_at", "online_scores", ["project_id", "name", "turn_at"])
    op.create_index("ix_api_keys_project_id", "api_keys", ["project_id"])


def downgrade() -> None:
    bind = op.get_bind()
    for table in (*OWNED, "audit_events"):
        others = bind.execute(
            sa.text(f"SELECT count(*) FROM {table} WHERE project_id IS DISTINCT FROM '{DEFAULT}'")
        ).scalar_one()
        if table != "audit_events" and others:
            raise RuntimeError(
                f"cannot downgrade below 0010: {others} row(s) of {table} belong to projects other than "
                f"'{DEFAULT}'; delete those projects' data first"
            )
    op.drop_index("ix_api_keys_project_id", table_name="api_keys")
    op.drop_index("ix_online_scores_project_name_at", table_name="online_scores")
    op.create_index("ix_online_scores_name_at", "online_scores", ["name", "turn_at"])
    op.drop_constraint(
        "uq_online_samples_project_id_conversation_id_turn_index", "online_samples", type_="unique"
    )
    op.create_unique_constraint(
        "uq_online_samples_conversation_id_turn_index", "online_samples", ["conversation_id", "turn_index"]
    )
    op.drop_constraint("pk_sampling_config", "sampling_config", type_="primary")
    op.add_column("sampling_config", sa.Column("id", sa.Integer(), nullable=False, server_default="1"))
    op.alter_column("sampling_config", "id", server_default=None)
    op.create_primary_key("pk_sampling_config", "sampling_config", ["id"])
    op.drop_constraint("pk_prompt_labels", "prompt_labels", type_="primary")
    op.create_primary_key("prompt_labels_pkey", "prompt_labels", ["name", "label"])
    op.drop_constraint("uq_prompt_versions_project_id_name_version", "prompt_versions", type_="unique")
    op.create_unique_constraint("prompt_versions_name_version_key", "prompt_versions", ["name", "version"])
    op.drop_index("ix_comparisons_project_created", table_name="comparisons")
    op.drop_index("ix_experiments_project_created", table_name="experiments")
    op.drop_constraint("uq_datasets_project_id_name", "datasets", type_="unique")
    op.create_unique_constraint("uq_datasets_name", "datasets", ["name"])
    op.drop_index("ix_audit_events_project_at", table_name="audit_events")
    op.drop_column("audit_events", "project_id")
    for table in OWNED:
        op.drop_constraint(f"fk_{table}_project_id_projects", table, type_="foreignkey")
        op.drop_column(table, "project_id")
    op.drop_table("projects")
