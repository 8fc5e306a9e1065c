"""Messages of the agent service: ``agent.invoke`` request/reply, its trajectory and order lines."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.spend import OFFLINE_MODEL_PREFIX

SCHEMA_VERSION = 1


class OfflineBehaviour(BaseModel, frozen=True, extra="forbid"):
    """Named behaviour switches of the deterministic offline model, so two configurations differ."""

    ambiguous_policy: Literal["ask", "guess_first"] = Field(
        default="ask",
        description="'ask': ambiguous names get a clarifying question; 'guess_first': add the first match",
    )
    understand_modifiers: bool = Field(
        default=True, description="Parse 'with egg' / 'no cheese' / 'extra …' into modifiers"
    )
    understand_quantity_words: bool = Field(
        default=True, description="Parse spelled-out quantities ('two', 'a couple of')"
    )
    simulated_latency_ms: float = Field(
        default=0.0, ge=0, description="BENCHMARK ONLY: sleep this long per model call (off by default)"
    )
    simulate_silent_drift: bool = Field(
        default=False,
        description=(
            "SIMULATION ONLY: finalize as soon as the customer says they are done, skipping the"
            " read-back, while keeping the same identity, as if the provider had changed the model"
            " behind the same name (drift-detection tests and the demo)"
        ),
    )

    @property
    def identity(self) -> str:
        """The model identity traffic and experiments carry, e.g. ``offline:ask,no-modifiers``.

        ``simulated_latency_ms`` and ``simulate_silent_drift`` are left out on purpose.
        """
        flags: list[str] = [self.ambiguous_policy]
        if not self.understand_modifiers:
            flags.append("no-modifiers")
        if not self.understand_quantity_words:
            flags.append("no-quantity-words")
        return OFFLINE_MODEL_PREFIX + ",".join(flags)


class ModelConfig(BaseModel, frozen=True, extra="forbid"):
    """Which chat model drives the agent for one request."""

    provider: Literal["offline", "mistral", "openai"] = Field(
        default="offline",
        description="Model family: 'openai' is any OpenAI-compatible endpoint (OPENAI_BASE_URL on the agent)",
    )
    name: str | None = Field(
        default=None, description="Model name, e.g. 'mistral-small-latest' (None: the provider's default)"
    )
    temperature: float = Field(default=0.0, ge=0, le=2)
    offline: OfflineBehaviour = Field(default_factory=OfflineBehaviour)


class ModifierLine(BaseModel):
    modifier_id: str
    name: str


class OrderLine(BaseModel):
    """One order line in the drive-thru evaluators' shape."""

    item_id: str
    name: str
    quantity: int = Field(ge=1)
    size: str = "regular"
    modifiers: list[ModifierLine] = Field(default_factory=list)


class TokenUsage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    model: str | None = Field(default=None, description="The model that spent them, when it said (prices it)")


class TrajectoryMessage(BaseModel):
    """A serialisable message of the agent's trajectory (the trajectory-scenario message format)."""

    type: Literal["human", "ai", "tool", "system"]
    content: str = ""
    tool_calls: list[dict[str, Any]] = Field(default_factory=list, description="[{id, name, args}] on ai")
    tool_call_id: str | None = Field(default=None, description="On tool messages")
    name: str | None = Field(default=None, description="Tool name on tool messages")


class AgentInvokeRequest(BaseModel):
    """``agent.invoke``: run one isolated conversation turn (fresh thread)."""

    schema_version: int = SCHEMA_VERSION
    customer_utterance: str = Field(min_length=1, max_length=2000, description="What the customer said")
    messages: list[TrajectoryMessage] = Field(default_factory=list, description="Optional prior turns")
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


class AgentInvokeResponse(BaseModel):
    schema_version: int = SCHEMA_VERSION
    ok: bool = Field(default=True, description="False when the agent failed; see error")
    error: str | None = None
    order_items: list[OrderLine] = Field(default_factory=list)
    tool_calls: list[str] = Field(default_factory=list, description="Tool names in call order")
    trajectory: list[TrajectoryMessage] = Field(default_factory=list)
    response: str = ""
    item_count: int = 0
    finalized: bool = False
    latency_ms: float = 0.0
    usage: TokenUsage | None = None
    llm_requests: int | None = Field(
        default=None,
        description="HTTP requests sent to the model's endpoint this turn "
        "(provider 'openai'; None: not counted)",
    )
    llm_retries: int | None = Field(
        default=None,
        description="Of those, failed requests that were sent again (the client's retries after 429, 5xx "
        "and timeouts, and the graph's retries of the model step)",
    )
    model: str = Field(default="offline", description="Model identity, e.g. 'offline:ask' or 'mistral:…'")
    prompt_version: str = Field(default="builtin", description="Prompt version used ('builtin' = fallback)")
