"""Review queues, their items and the labels people give (``yardstick.api.review``).

A queue belongs to a project; its items point at exactly one thing they review (an experiment's
item and trial, or a sampled trace) and disappear with it; a label is one
reviewer's answer for one item, unique per (item, reviewer), so labelling again replaces it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from shared.db.base import Base, new_uuid, utcnow
from shared.db.models import ProjectOwned
from shared.db.pydantic_json import PydanticJSON
from yardstick.api.review import QueueDefinition


class ReviewQueue(ProjectOwned, Base):
    __tablename__ = "review_queues"
    __table_args__ = (UniqueConstraint("project_id", "name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    definition: Mapped[QueueDefinition] = mapped_column(PydanticJSON(QueueDefinition))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    created_by: Mapped[str] = mapped_column(String(100), default="")


class ReviewItem(Base):
    __tablename__ = "review_items"
    __table_args__ = (UniqueConstraint("queue_id", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    queue_id: Mapped[str] = mapped_column(ForeignKey("review_queues.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer, doc="1-based place in the queue")
    experiment_id: Mapped[str | None] = mapped_column(ForeignKey("experiments.id", ondelete="CASCADE"))
    item_id: Mapped[str | None] = mapped_column(String(200))
    trial: Mapped[int | None] = mapped_column(Integer)
    trace_pk: Mapped[int | None] = mapped_column(
        BigInteger,
        index=True,
        doc="The trace's id (``traces.id``; no foreign key, as traces are partitioned by day: retention "
        "deletes the items of the traces it drops)",
    )
    assigned_to: Mapped[str | None] = mapped_column(String(100))


class ReviewLabel(Base):
    __tablename__ = "review_labels"
    __table_args__ = (UniqueConstraint("review_item_id", "reviewer"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    review_item_id: Mapped[int] = mapped_column(ForeignKey("review_items.id", ondelete="CASCADE"), index=True)
    reviewer: Mapped[str] = mapped_column(String(100))
    values: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
