"""``agent.converse``: replay a scripted conversation in one agent thread and report every turn.

The agent plays the customer turns in order on one thread (one conversation id, the checkpointed
state carried from turn to turn, exactly as the chat API does), so the order grows, and the
read-back and the confirmation happen across turns. A turn after the order was finalized is not
played (the chat API refuses it too): the reply says how many turns were played and why it stopped.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from yardstick.api.agent_messages import SCHEMA_VERSION, ModelConfig, OrderLine, TokenUsage, TrajectoryMessage
from yardstick.api.projects import DEFAULT_PROJECT

MAX_CONVERSATION_TURNS = 50

StopReason = Literal["completed", "finalized_early"]


class AgentConversationRequest(BaseModel):
    """Replay ``turns`` (customer utterances) in one thread, after any prior ``messages``."""

    schema_version: int = SCHEMA_VERSION
    turns: list[str] = Field(
        min_length=1,
        max_length=MAX_CONVERSATION_TURNS,
        description="What the customer says, one entry per turn, in order",
    )
    messages: list[TrajectoryMessage] = Field(
        default_factory=list, description="Optional earlier messages the conversation starts from"
    )
    conversation_id: str | None = Field(
        default=None,
        max_length=500,
        description="Id of the replayed conversation (its thread); a fresh one when omitted",
    )
    model: ModelConfig = Field(default_factory=ModelConfig)
    prompt: str | None = Field(
        default=None,
        description="System prompt reference, NAME@LABEL or NAME@VERSION (default: the production label)",
    )
    project: str = Field(
        default=DEFAULT_PROJECT,
        max_length=64,
        description="The project whose prompt registry the reference is resolved in",
    )


class ConversationTurnResult(BaseModel):
    """One played turn: what the customer said, what the agent did, and the order after it."""

    turn_index: int = Field(ge=0, description="0 for the first scripted turn")
    customer_utterance: str
    response: str = Field(description="What the agent said")
    order_items: list[OrderLine] = Field(default_factory=list, description="The order after this turn")
    tool_calls: list[str] = Field(default_factory=list, description="Tool names in call order")
    trajectory: list[TrajectoryMessage] = Field(default_factory=list, description="This turn's messages")
    finalized: bool = False
    latency_ms: float = 0.0


class AgentConversationResponse(BaseModel):
    """The replay: every played turn, and the whole conversation in ``AgentInvokeResponse``'s shape
    (final order, all tool calls, whole trajectory, last reply) so single-turn evaluators apply."""

    schema_version: int = SCHEMA_VERSION
    ok: bool = Field(default=True, description="False when the agent failed; see error")
    error: str | None = None
    conversation_id: str = ""
    turns: list[ConversationTurnResult] = Field(default_factory=list, description="The played turns")
    turns_scripted: int = Field(default=0, ge=0, description="How many turns the request held")
    stopped: StopReason = Field(
        default="completed", description="'finalized_early': the order was finalized before the last turn"
    )
    order_items: list[OrderLine] = Field(default_factory=list, description="The order after the last turn")
    tool_calls: list[str] = Field(default_factory=list, description="Every tool name, in call order")
    trajectory: list[TrajectoryMessage] = Field(default_factory=list, description="Every played message")
    response: str = Field(default="", description="The agent's last reply")
    item_count: int = 0
    finalized: bool = False
    latency_ms: float = 0.0
    usage: TokenUsage | None = None
    model: str = Field(default="offline", description="Model identity, e.g. 'offline:ask' or 'mistral:…'")
    prompt_version: str = Field(default="builtin", description="Prompt version used ('builtin' = fallback)")
