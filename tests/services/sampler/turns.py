"""Synthetic traffic turns for the sampler tests."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from shared.contracts.agent_messages import OrderLine, TrafficTurn, TrajectoryMessage


def make_turn(
    conversation_id: str,
    turn_index: int = 0,
    *,
    item_id: str = "egg-mcmuffin",
    model: str = "offline:ask",
    prompt_version: str = "v1",
    finalized: bool = False,
    at: datetime | None = None,
    metadata: dict[str, Any] | None = None,
) -> TrafficTurn:
    """A turn that looked the item up, then added it (all reference-free checks pass for menu items)."""
    call_lookup = {"id": "c1", "name": "lookup_menu_item", "args": {"item_name": item_id}}
    call_add = {"id": "c2", "name": "add_item_to_order", "args": {"item_id": item_id, "quantity": 1}}
    found = json.dumps({"found": True, "item_id": item_id, "name": item_id})
    return TrafficTurn(
        conversation_id=conversation_id,
        turn_index=turn_index,
        utterance=f"one {item_id} please",
        response="Added. Anything else?",
        tool_calls=["lookup_menu_item", "add_item_to_order"],
        trajectory=[
            TrajectoryMessage(type="human", content=f"one {item_id} please"),
            TrajectoryMessage(type="ai", tool_calls=[call_lookup]),
            TrajectoryMessage(type="tool", content=found, tool_call_id="c1", name="lookup_menu_item"),
            TrajectoryMessage(type="ai", tool_calls=[call_add]),
            TrajectoryMessage(type="tool", content="added", tool_call_id="c2", name="add_item_to_order"),
            TrajectoryMessage(type="ai", content="Added. Anything else?"),
        ],
        order_items=[OrderLine(item_id=item_id, name=item_id, quantity=1)],
        finalized=finalized,
        model=model,
        prompt_version=prompt_version,
        latency_ms=5.0,
        timestamp=at or datetime.now(UTC),
        metadata=metadata or {},
    )
