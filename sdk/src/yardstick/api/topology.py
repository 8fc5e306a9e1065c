"""NATS subject, stream and consumer names, shared by every publisher and consumer.

Every name is derived from one *namespace* so that several stacks (or several tests) can share
one NATS server without seeing each other's messages. The default namespace is ``yardstick``.
"""

from __future__ import annotations

import re
from functools import cached_property

from pydantic import BaseModel, Field, field_validator

# Subject suffixes. A full subject is "<namespace>.<suffix>".
EVAL_TASK = "eval.task"
EVAL_RESULT = "eval.result"
EVAL_CAPACITY = "eval.capacity"
EVAL_EVALUATORS = "eval.evaluators"
AGENT_INVOKE = "agent.invoke"
AGENT_CONVERSE = "agent.converse"
SEARCH_QUERY = "search.query"
SEARCH_ANSWER = "search.answer"
TRAFFIC_SPANS = "traffic.spans"
EXPERIMENT_EVENTS = "experiment.events"
TASK_INVOKE = "task.invoke"
TASK_ALIVE = "task.alive"
ALERTS = "alerts.drift"

# Durable consumer names (scoped by their stream, so they need no namespace).
EVAL_WORKERS_CONSUMER = "eval-workers"
COORDINATOR_RESULTS_CONSUMER = "coordinator-results"
SAMPLER_SPANS_CONSUMER = "sampler-spans"

# Queue groups for request/reply services.
AGENT_QUEUE = "agents"
SEARCH_QUEUE = "search-proxies"
TASK_QUEUE = "task-workers"

DEFAULT_NAMESPACE = "yardstick"

_NAMESPACE_RE = re.compile(r"^[a-z][a-z0-9_-]{0,40}$")


class Topology(BaseModel, frozen=True):
    """All NATS names for one namespace."""

    namespace: str = Field(default=DEFAULT_NAMESPACE, description="Prefix of every subject and stream")

    @field_validator("namespace")
    @classmethod
    def _valid_namespace(cls, value: str) -> str:
        if not _NAMESPACE_RE.match(value):
            raise ValueError(
                f"namespace {value!r} must be lower-case letters, digits, '-' or '_' and start with a letter"
            )
        return value

    def subject(self, suffix: str) -> str:
        return f"{self.namespace}.{suffix}"

    def _stream(self, name: str) -> str:
        return f"{self.namespace.upper().replace('-', '_')}_{name}"

    @cached_property
    def eval_task(self) -> str:
        return self.subject(EVAL_TASK)

    @cached_property
    def eval_result(self) -> str:
        return self.subject(EVAL_RESULT)

    @cached_property
    def eval_capacity(self) -> str:
        """Core NATS: every eval worker answers with its task slots (scatter-gather, no queue group)."""
        return self.subject(EVAL_CAPACITY)

    @cached_property
    def eval_evaluators(self) -> str:
        """Core NATS: every eval worker answers with the evaluators it has loaded (scatter-gather)."""
        return self.subject(EVAL_EVALUATORS)

    @cached_property
    def agent_invoke(self) -> str:
        return self.subject(AGENT_INVOKE)

    @cached_property
    def agent_converse(self) -> str:
        """Request/reply: replay a scripted conversation in one agent thread."""
        return self.subject(AGENT_CONVERSE)

    @cached_property
    def search_query(self) -> str:
        return self.subject(SEARCH_QUERY)

    @cached_property
    def search_answer(self) -> str:
        """Request/reply, ``SEARCH_QUEUE`` group: retrieval + an answer with citations."""
        return self.subject(SEARCH_ANSWER)

    @cached_property
    def traffic_spans(self) -> str:
        """JetStream: OpenTelemetry spans the ingest service accepted (``SpanBatch``)."""
        return self.subject(TRAFFIC_SPANS)

    @cached_property
    def alerts(self) -> str:
        return self.subject(ALERTS)

    def task_invoke(self, name: str) -> str:
        """Request/reply, ``TASK_QUEUE`` group: run one item through the python target ``name``."""
        return self.subject(f"{TASK_INVOKE}.{name}")

    def task_alive(self, name: str) -> str:
        """Request/reply, ``TASK_QUEUE`` group: does any task worker serve ``name``? (liveness probe)"""
        return self.subject(f"{TASK_ALIVE}.{name}")

    def experiment_events(self, experiment_id: str) -> str:
        """Core-NATS subject with live progress events of one experiment."""
        return self.subject(f"{EXPERIMENT_EVENTS}.{experiment_id}")

    @cached_property
    def eval_tasks_stream(self) -> str:
        return self._stream("EVAL_TASKS")

    @cached_property
    def eval_results_stream(self) -> str:
        return self._stream("EVAL_RESULTS")

    @cached_property
    def traffic_spans_stream(self) -> str:
        return self._stream("TRAFFIC_SPANS")

    @cached_property
    def alerts_stream(self) -> str:
        return self._stream("ALERTS")

    @cached_property
    def target_throttle_bucket(self) -> str:
        """JetStream KV bucket where the workers share each target's pause and rate schedule."""
        return self._stream("TARGET_THROTTLE")

    @cached_property
    def eval_credits_bucket(self) -> str:
        """JetStream KV bucket where the coordinator grants each experiment's concurrency to the
        eval workers (one key per running experiment, watched by every worker)."""
        return self._stream("EVAL_CREDITS")
