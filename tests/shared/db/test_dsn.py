"""``DATABASE_URL`` with several hosts renders for SQLAlchemy (``?host=`` list) and for libpq
(``h1:p1,h2:p2``) from either form; a one-host URL keeps its form."""

from __future__ import annotations

import pytest
from sqlalchemy.dialects.postgresql.asyncpg import dialect as asyncpg_dialect
from sqlalchemy.dialects.postgresql.psycopg import dialect as psycopg_dialect
from sqlalchemy.engine import make_url

from shared.db import async_url, plain_url, sync_url
from shared.db.dsn import InvalidDatabaseUrl

pytestmark = pytest.mark.unit

LIBPQ = "postgresql://postgres@127.0.0.1:5001,127.0.0.1:5002/yardstick?target_session_attrs=read-write"
ALCHEMY = (
    "postgresql+asyncpg://postgres@/yardstick?host=127.0.0.1:5001&host=127.0.0.1:5002"
    "&target_session_attrs=read-write"
)


@pytest.mark.parametrize("url", [LIBPQ, ALCHEMY])
def test_a_multi_host_dsn_reaches_asyncpg_as_a_host_list(url: str) -> None:
    _, kwargs = asyncpg_dialect().create_connect_args(make_url(async_url(url)))
    assert kwargs["host"] == ["127.0.0.1", "127.0.0.1"] and kwargs["port"] == [5001, 5002]
    assert kwargs["target_session_attrs"] == "read-write" and kwargs["database"] == "yardstick"


@pytest.mark.parametrize("url", [LIBPQ, ALCHEMY])
def test_a_multi_host_dsn_reaches_psycopg_through_sqlalchemy(url: str) -> None:
    _, kwargs = psycopg_dialect().create_connect_args(make_url(sync_url(url)))
    assert kwargs["host"] == "127.0.0.1,127.0.0.1" and kwargs["port"] == "5001,5002"
    assert kwargs["target_session_attrs"] == "read-write"


@pytest.mark.parametrize("url", [LIBPQ, ALCHEMY])
def test_a_multi_host_dsn_is_a_libpq_uri_for_psycopg(url: str) -> None:
    assert plain_url(url) == LIBPQ


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://postgres:@/postgres?host=/tmp/pg%20data",
        "postgresql://u:p%40ss@db.example:5433/ys?sslmode=require",
    ],
)
def test_a_one_host_url_keeps_its_form(url: str) -> None:
    assert plain_url(url) == url
    assert async_url(url) == url.replace("postgresql://", "postgresql+asyncpg://")
    assert sync_url(url).startswith("postgresql+psycopg://")


def test_another_scheme_is_refused_by_name() -> None:
    with pytest.raises(InvalidDatabaseUrl, match="mysql://"):
        async_url("mysql://u@h/db")
