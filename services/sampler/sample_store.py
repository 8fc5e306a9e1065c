"""Store a sampled turn and its scores exactly once, whatever the redelivery."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from shared.contracts.agent_messages import TrafficTurn
from shared.contracts.evaluation import Evaluation, EvaluatorSpec
from shared.db.models import OnlineSample, OnlineScore
from shared.evaluators import EvaluatorRegistry, run_item_evaluators


def evaluator_input(turn: TrafficTurn, previous_response: str | None) -> dict[str, Any]:
    return {"customer_utterance": turn.utterance, "previous_response": previous_response}


def evaluator_output(turn: TrafficTurn) -> dict[str, Any]:
    """The turn in the shape the reference-free evaluators read."""
    return {
        "response": turn.response,
        "tool_calls": turn.tool_calls,
        "trajectory": [m.model_dump(mode="json") for m in turn.trajectory],
        "order_items": [line.model_dump(mode="json") for line in turn.order_items],
        "finalized": turn.finalized,
    }


async def insert_sample(session: AsyncSession, turn: TrafficTurn) -> int | None:
    """The new sample's id, or None when this (project, conversation, turn) is already stored."""
    stmt = (
        insert(OnlineSample)
        .values(
            project_id=turn.project,
            conversation_id=turn.conversation_id,
            turn_index=turn.turn_index,
            model=turn.model,
            prompt_version=turn.prompt_version,
            turn=turn.model_dump(mode="json"),
            turn_at=turn.timestamp,
        )
        .on_conflict_do_nothing(index_elements=["project_id", "conversation_id", "turn_index"])
        .returning(OnlineSample.id)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def insert_scores(
    session: AsyncSession,
    sample_id: int,
    turn: TrafficTurn,
    evaluations: list[Evaluation],
    specs: list[EvaluatorSpec],
) -> None:
    if not evaluations:
        return
    rows = [
        {
            "project_id": turn.project,
            "sample_id": sample_id,
            "name": e.name,
            "value": None if e.value is None else float(e.value),
            "comment": e.comment,
            "score_metadata": e.metadata,
            "error": e.error,
            "evaluator_version": e.evaluator_version or "1",
            "model": turn.model,
            "prompt_version": turn.prompt_version,
            "turn_at": turn.timestamp,
        }
        for e in evaluations
    ]
    # One statement with the rows as parameters: compiled once and cached, unlike .values(rows).
    stmt = insert(OnlineScore).on_conflict_do_nothing(index_elements=["sample_id", "name"])
    await session.execute(stmt, rows)


async def store_and_score(
    session: AsyncSession,
    registry: EvaluatorRegistry,
    turn: TrafficTurn,
    specs: list[EvaluatorSpec],
    previous_response: str | None,
) -> int | None:
    """Insert the sample and, only if it is new, its scores. Returns the new sample id (or None).

    The caller commits; a redelivered turn finds the sample present and scores nothing.
    """
    sample_id = await insert_sample(session, turn)
    if sample_id is None:
        return None
    evaluations = await run_item_evaluators(
        registry,
        specs,
        input=evaluator_input(turn, previous_response),
        output=evaluator_output(turn),
        expected_output=None,
        metadata=turn.metadata,
    )
    await insert_scores(session, sample_id, turn, evaluations, specs)
    return sample_id
