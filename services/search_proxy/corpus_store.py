"""Load a corpus into ``search_documents`` (idempotent upsert keyed by document id)."""

from __future__ import annotations

import logging

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.search_proxy.corpus import Corpus
from shared.db.models import SearchDocument

log = logging.getLogger(__name__)


async def loaded_count(session_factory: async_sessionmaker[AsyncSession], corpus_version: str) -> int:
    async with session_factory() as session:
        stmt = (
            select(func.count())
            .select_from(SearchDocument)
            .where(SearchDocument.corpus_version == corpus_version)
        )
        return int((await session.execute(stmt)).scalar_one())


async def ensure_corpus_loaded(session_factory: async_sessionmaker[AsyncSession], corpus: Corpus) -> bool:
    """Upsert every document of ``corpus`` unless this corpus version is already fully loaded.

    Returns True when rows were written. Rows of other corpus versions with the same id are
    overwritten (the id is the primary key); searches always filter on the corpus version.
    """
    version = corpus.corpus_version
    documents = corpus.documents()
    if await loaded_count(session_factory, version) == len(documents):
        log.info("corpus already loaded", extra={"corpus_version": version, "documents": len(documents)})
        return False
    rows = [
        {
            "id": doc.id,
            "corpus_version": version,
            "source_type": doc.source_type,
            "title": doc.title,
            "body": doc.body,
            "actor": doc.actor,
            "occurred_at": doc.occurred_at,
            "doc_metadata": doc.metadata,
        }
        for doc in documents
    ]
    stmt = insert(SearchDocument).values(rows)
    stmt = stmt.on_conflict_do_update(
        index_elements=[SearchDocument.id],
        set_={
            "corpus_version": stmt.excluded.corpus_version,
            "source_type": stmt.excluded.source_type,
            "title": stmt.excluded.title,
            "body": stmt.excluded.body,
            "actor": stmt.excluded.actor,
            "occurred_at": stmt.excluded.occurred_at,
            "metadata": stmt.excluded.metadata,
        },
    )
    async with session_factory() as session, session.begin():
        await session.execute(stmt)
    log.info("corpus loaded", extra={"corpus_version": version, "documents": len(documents)})
    return True
