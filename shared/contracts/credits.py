"""Worker-held credits: how many tasks of one experiment each eval worker may run at once.

The coordinator writes one :class:`CreditGrant` per running experiment into the KV bucket
``Topology.eval_credits_bucket`` (key: the experiment id); every eval worker watches the bucket and
starts a task of that experiment only while it runs fewer than its credits. The grants of an
experiment add up to its concurrency (less when the fleet holds fewer task slots)."""

from __future__ import annotations

from pydantic import BaseModel, Field

SCHEMA_VERSION = 1


class CreditGrant(BaseModel):
    """The value under ``<experiment id>`` in the credits bucket."""

    schema_version: int = SCHEMA_VERSION
    experiment_id: str
    concurrency: int = Field(ge=1, description="The experiment's C, which the grants split")
    grants: dict[str, int] = Field(
        description="Worker id -> tasks of this experiment it may run at once (0: none, hand them back)"
    )
    revision: int = Field(ge=1, description="Grows with every change of this experiment's grants")
    updated_at: float = Field(description="Wall-clock epoch seconds of the write")

    def credits_of(self, worker_id: str) -> int | None:
        """The worker's credits, or None when the grant does not name it (it joined after the write)."""
        return self.grants.get(worker_id)
