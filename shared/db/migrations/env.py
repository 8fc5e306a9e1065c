"""Alembic environment: runs migrations synchronously through psycopg."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool

from shared.db import models  # noqa: F401  (registers the tables)
from shared.db.base import Base
from shared.db.dsn import sync_url

config = context.config
if not config.get_main_option("sqlalchemy.url"):
    import os

    config.set_main_option("sqlalchemy.url", os.environ["DATABASE_URL"])
target_metadata = Base.metadata


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url") or ""
    return sync_url(url)


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = create_engine(_url(), poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
