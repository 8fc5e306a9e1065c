"""Messages between the coordinator and the eval workers (``eval.task`` / ``eval.result``)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, RootModel, field_validator, model_validator

from yardstick.api.agent_messages import ModelConfig, TokenUsage
from yardstick.api.answer_messages import Answerer
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.item_outcome import ItemOutcome
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.prompts import DEFAULT_LABEL, DEFAULT_PROMPT_NAME, PromptRef
from yardstick.api.search_messages import SearchMode

SCHEMA_VERSION = 1


class RateLimit(BaseModel, frozen=True, extra="forbid"):
    """A target's budget, shared by every worker and every experiment calling it (the provider's
    limit, not one run's): calls start no faster than ``requests`` per ``per``, and, with
    ``tokens_per_minute``, no call starts while the tokens reported by earlier calls exceed that
    rate (a post-paid budget: calls already in flight when it runs out may overrun it by what they
    spend). At least one of the two is set."""

    requests: int | None = Field(default=None, ge=1, le=1_000_000, description="Requests allowed per period")
    per: Literal["second", "minute"] = Field(default="second", description="The period of ``requests``")
    tokens_per_minute: int | None = Field(
        default=None,
        ge=1,
        le=100_000_000,
        description="Tokens (the response's reported usage) allowed per minute; calls already in "
        "flight when the budget runs out may overrun it by what they spend",
    )

    @model_validator(mode="after")
    def _some_limit(self) -> RateLimit:
        if self.requests is None and self.tokens_per_minute is None:
            raise ValueError("a rate_limit needs 'requests' or 'tokens_per_minute' (or both)")
        return self

    @property
    def interval_s(self) -> float | None:
        """Seconds between two call starts at the allowed request rate; None without ``requests``."""
        if self.requests is None:
            return None
        return (1.0 if self.per == "second" else 60.0) / self.requests


class AgentTarget(BaseModel, frozen=True, extra="forbid"):
    """Run the item through the drive-thru agent over ``agent.invoke``."""

    kind: Literal["agent"] = "agent"
    model: ModelConfig = Field(default_factory=ModelConfig)
    prompt: str | None = Field(
        default=None,
        description="NAME@LABEL or NAME@VERSION, e.g. drive-thru/orchestrator@staging; default: production",
    )
    rate_limit: RateLimit | None = Field(
        default=None,
        description="The agent's model's limit (requests per second or minute and/or tokens per "
        "minute), enforced across all workers and experiments running this agent with the same "
        "model; None: no limit",
    )

    @field_validator("prompt")
    @classmethod
    def _prompt_ref(cls, value: str | None) -> str | None:
        return None if value is None else str(PromptRef.parse(value))

    def prompt_ref(self) -> PromptRef:
        """The prompt the agent will use: the one named, or the default prompt's production label."""
        if self.prompt is None:
            return PromptRef(name=DEFAULT_PROMPT_NAME, label=DEFAULT_LABEL)
        return PromptRef.parse(self.prompt)


class SearchTarget(BaseModel, frozen=True, extra="forbid"):
    """Run the item's query through the search-proxy over ``search.query``."""

    kind: Literal["search"] = "search"
    mode: SearchMode = "balanced"
    limit: int = Field(default=10, ge=1, le=100)
    backend: Literal["corpus", "http"] | None = None
    bypass_cache: bool = True
    degrade: float = Field(default=0.0, ge=0, le=1, description="FAULT INJECTION for regression checks")


class AnswerTarget(BaseModel, frozen=True, extra="forbid"):
    """Ask the search-proxy to answer the item's query with citations, over ``search.answer``."""

    kind: Literal["answer"] = "answer"
    mode: SearchMode = "balanced"
    limit: int = Field(default=5, ge=1, le=20, description="Documents retrieved and read")
    backend: Literal["corpus", "http"] | None = None
    bypass_cache: bool = True
    answerer: Answerer | None = Field(default=None, description="None: the proxy's default")
    max_sentences: int = Field(default=3, ge=1, le=10)
    degrade: float = Field(default=0.0, ge=0, le=1, description="FAULT INJECTION for regression checks")


class HttpTarget(BaseModel, frozen=True, extra="forbid"):
    """Call any HTTP endpoint; ``body_template`` placeholders like ``{input.query}`` are filled
    from the item (without a template the item's input is the JSON body), ``output_mapping`` picks
    output fields out of the JSON response."""

    kind: Literal["http"] = "http"
    url: str = Field(description="http(s)://host[:port]/path")
    method: Literal["GET", "POST", "PUT"] = "POST"
    headers: dict[str, str] = Field(default_factory=dict, description="Literal, non-secret headers")
    headers_from_env: dict[str, str] = Field(
        default_factory=dict, description="Header name -> environment variable holding the secret"
    )
    body_template: Any = Field(
        default=None,
        description="JSON body with '{input.<key>}' placeholders; none: the item's input is the body",
    )
    output_mapping: dict[str, str] = Field(
        default_factory=dict, description="output key -> dotted path in the response JSON; empty = whole body"
    )
    rate_limit: RateLimit | None = Field(
        default=None,
        description="Requests per second or minute and/or tokens per minute this endpoint accepts, "
        "enforced across all workers and experiments calling the same URL; None: no limit but the "
        "endpoint's own 429s",
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"{value!r} is not an http(s) URL with a host, e.g. http://127.0.0.1:8080/answer"
            )
        return value


TASK_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$"
"""A python target's name: one NATS subject token (no '.', '*', '>' or spaces)."""


class PythonTarget(BaseModel, frozen=True, extra="forbid"):
    """Call a Python function served by task workers (``yardstick worker module:function``) under
    ``name``, over ``<ns>.task.invoke.<name>``."""

    kind: Literal["python"] = "python"
    name: str = Field(
        pattern=TASK_NAME_PATTERN,
        description="The name given to @yardstick.task(...): letters, digits, '_' and '-'",
    )


TargetSpec = Annotated[
    AgentTarget | SearchTarget | AnswerTarget | HttpTarget | PythonTarget, Field(discriminator="kind")
]


def task_key(experiment_id: str, item_id: str, trial: int) -> str:
    """The id of one (experiment, item, trial): ``Nats-Msg-Id`` of its task and result, and in logs."""
    return f"{experiment_id}:{item_id}:{trial}"


def batch_message_id(kind: str, task_ids: list[str]) -> str:
    """``Nats-Msg-Id`` of a message carrying several tasks or results: unique to that set of tasks,
    so only a retry of the same message is dropped as a duplicate."""
    digest = hashlib.blake2b("\n".join(sorted(task_ids)).encode(), digest_size=16).hexdigest()
    return f"{kind}:{digest}"


class RecordedOutput(BaseModel, frozen=True):
    """An output the target already produced (a re-scored experiment's source, or the output cache):
    a task carrying one is scored without calling the target."""

    source: Literal["rescore", "cache"] = Field(description="Where the output comes from")
    output: dict[str, Any] | None = Field(description="The target's output, as first recorded")
    latency_ms: float | None = Field(default=None, description="The target's latency when it ran")
    usage: TokenUsage | None = Field(default=None, description="Tokens the target used when it ran")


class EvalTask(BaseModel):
    """One (experiment, item, trial) to run and score."""

    schema_version: int = SCHEMA_VERSION
    experiment_id: str
    project: str = Field(default=DEFAULT_PROJECT, description="The experiment's project")
    item_id: str
    trial: int = Field(default=0, ge=0)
    input: dict[str, Any]
    expected_output: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    target: TargetSpec
    evaluators: list[EvaluatorSpec] = Field(default_factory=list)
    timeout_s: float = Field(default=30.0, gt=0, description="Per-attempt budget for the target call")
    recorded: RecordedOutput | None = Field(
        default=None, description="Score this output instead of calling the target (rescore, cache hit)"
    )
    concurrency: int | None = Field(
        default=None,
        ge=1,
        description="The experiment's concurrency: the adaptive concurrency a worker reports for this "
        "task's target is at most this (None: the worker's task slots)",
    )
    judge_cache: bool = Field(
        default=True, description="The experiment's judge_cache: false, every judge asks its model"
    )
    dispatched_at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    @property
    def task_id(self) -> str:
        """Stable id, used as ``Nats-Msg-Id`` for the task and its result."""
        return task_key(self.experiment_id, self.item_id, self.trial)


TASK_BATCH_HEADER = "Yardstick-Tasks"
"""Set (to the number of tasks) on a task message that carries an :class:`EvalTaskBatch`; a message
without it carries one :class:`EvalTask`."""

TASKS_PER_MESSAGE = 16
"""Tasks the coordinator publishes together at most: few enough that a refill spreads over the
workers (a worker fetches one message per this many free slots), enough that a wave of C tasks
costs C/16 publishes and PubAcks instead of C."""

PRIOR_ATTEMPTS_HEADER = "Yardstick-Prior-Attempts"
"""On a task a worker split off a batch to retry or hand back: the deliveries it already had, added
to the message's own delivery count (so ``max_deliver`` counts every attempt of the task)."""


class EvalTaskBatch(RootModel[list[EvalTask]]):
    """Tasks the coordinator published together, in one message (a JSON array of :class:`EvalTask`)."""


class EvalResult(ItemOutcome):
    """The outcome of one task (:class:`~yardstick.api.item_outcome.ItemOutcome`: output and every
    item-level score, or the failure) with its keys and the worker's bookkeeping. ``error`` (derived)
    stays on the wire for coordinators of the previous version."""

    schema_version: int = SCHEMA_VERSION
    experiment_id: str
    item_id: str
    trial: int = 0
    status: Literal["ok", "error"]
    total_ms: float | None = Field(default=None, description="Time from fetch to result publish")
    attempts: int = Field(default=1, ge=1)
    throttled: int = Field(
        default=0, ge=0, description="Times the target answered 429/503 (rate limited) before this outcome"
    )
    target_concurrency: int | None = Field(
        default=None, ge=1, description="The worker's adaptive concurrency for this target when it finished"
    )
    worker_id: str = ""
    code_fingerprint: str | None = Field(
        default=None, description="Of a python target: the task worker's code that produced the output"
    )
    finished_at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    @property
    def task_id(self) -> str:
        return task_key(self.experiment_id, self.item_id, self.trial)


RESULT_BATCH_HEADER = "Yardstick-Results"
"""Set (to the number of results) on a results message that carries an :class:`EvalResultBatch`;
a message without it carries one :class:`EvalResult`."""


class EvalResultBatch(RootModel[list[EvalResult]]):
    """Results a worker scored close together, in one message (a JSON array of :class:`EvalResult`)."""
