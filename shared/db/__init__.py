"""Database models, the session factory and migrations."""

from shared.db import models, project_scope, review_models, trace_models
from shared.db.base import Base
from shared.db.migrate import upgrade_to_head
from shared.db.session import async_url, make_engine, make_session_factory, plain_url, sync_url

__all__ = [
    "Base",
    "async_url",
    "make_engine",
    "make_session_factory",
    "models",
    "plain_url",
    "project_scope",
    "review_models",
    "sync_url",
    "trace_models",
    "upgrade_to_head",
]
