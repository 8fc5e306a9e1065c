"""``DATABASE_URL`` in the forms each driver reads, a multi-host DSN included.

A PostgreSQL primary with a standby is named by one DSN with both hosts and
``target_session_attrs=read-write``, so a client finds whichever is the primary now. libpq (psycopg,
LangGraph's checkpointer) and asyncpg write the hosts in the authority, ``h1:p1,h2:p2``; SQLAlchemy
cannot parse that (it reads one port) and wants ``?host=h1:p1&host=h2:p2`` instead. Either form is
accepted here and rendered for each consumer:

- :func:`async_url`: SQLAlchemy + asyncpg (the services);
- :func:`sync_url`: SQLAlchemy + psycopg (Alembic migrations, revision checks);
- :func:`plain_url`: a libpq URI (psycopg directly, psycopg-pool, LangGraph's checkpointer).

A one-host URL (pgserver's ``postgresql://postgres:@/postgres?host=DIR`` included) keeps its form;
only the scheme changes.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from pydantic import BaseModel, Field

SCHEMES = ("postgresql+asyncpg://", "postgresql+psycopg://", "postgresql://", "postgres://")


class InvalidDatabaseUrl(ValueError):
    """``DATABASE_URL`` is not a ``postgresql://`` URL."""


class DatabaseDsn(BaseModel):
    """A ``DATABASE_URL`` taken apart: credentials, hosts (one or more), database, options."""

    userinfo: str = Field(default="", description="user[:password], still percent-encoded")
    hosts: list[str] = Field(default_factory=list, description="host[:port] of each server, in order")
    hosts_in_query: bool = Field(default=False, description="The hosts came as ?host=…")
    path: str = Field(default="", description="/database, as written")
    query: list[str] = Field(default_factory=list, description="Other options, each key=value as written")

    @classmethod
    def parse(cls, url: str) -> DatabaseDsn:
        rest = next((url[len(s) :] for s in SCHEMES if url.startswith(s)), None)
        if rest is None:
            raise InvalidDatabaseUrl(
                f"DATABASE_URL must be a postgresql:// URL, got {url.split(':', 1)[0]}://…"
            )
        rest, _, query_text = rest.partition("?")
        authority, slash, path = rest.partition("/")
        userinfo, at, hostpart = authority.rpartition("@")
        if not at:
            userinfo, hostpart = "", authority
        query = [part for part in query_text.split("&") if part]
        hosts = [h for h in hostpart.split(",") if h]
        in_query = [unquote(part[len("host=") :]) for part in query if part.startswith("host=")]
        if not hosts and len(in_query) > 1:
            return cls(
                userinfo=userinfo,
                hosts=in_query,
                hosts_in_query=True,
                path=slash + path,
                query=[part for part in query if not part.startswith("host=")],
            )
        return cls(userinfo=userinfo, hosts=hosts, path=slash + path, query=query)

    @property
    def multi_host(self) -> bool:
        return len(self.hosts) > 1

    def _render(self, scheme: str, *, hosts_in_query: bool) -> str:
        user = f"{self.userinfo}@" if self.userinfo else ""
        query = list(self.query)
        authority = ",".join(self.hosts)
        if hosts_in_query:
            query = [f"host={quote(h, safe='/:[]')}" for h in self.hosts] + query
            authority = ""
        tail = f"?{'&'.join(query)}" if query else ""
        return f"{scheme}{user}{authority}{self.path or '/'}{tail}"

    def sqlalchemy(self, driver: str) -> str:
        return self._render(f"postgresql+{driver}://", hosts_in_query=self.multi_host)

    def libpq(self) -> str:
        return self._render("postgresql://", hosts_in_query=False)


def async_url(url: str) -> str:
    """The SQLAlchemy + asyncpg URL of ``DATABASE_URL``."""
    return DatabaseDsn.parse(url).sqlalchemy("asyncpg")


def sync_url(url: str) -> str:
    """The SQLAlchemy + psycopg URL of ``DATABASE_URL`` (Alembic)."""
    return DatabaseDsn.parse(url).sqlalchemy("psycopg")


def plain_url(url: str) -> str:
    """The libpq URI of ``DATABASE_URL`` (psycopg, psycopg-pool, LangGraph's checkpointer)."""
    return DatabaseDsn.parse(url).libpq()
