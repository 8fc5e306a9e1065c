"""How the NATS targets turn an item into the service's request."""

from __future__ import annotations

from typing import Any, cast

import pytest
from nats.aio.client import Client as NatsClient

from services.evaluator.errors import TargetConfigError
from services.evaluator.targets.agent import AgentInvokeTarget
from services.evaluator.targets.answer import SearchAnswerTarget
from services.evaluator.targets.search import SearchQueryTarget
from yardstick.api.agent_messages import ModelConfig
from yardstick.api.eval_messages import AgentTarget, AnswerTarget, EvalTask, SearchTarget

pytestmark = pytest.mark.unit

NO_NATS = cast(NatsClient, None)


def task(input: dict[str, Any], target: AgentTarget | SearchTarget | AnswerTarget) -> EvalTask:
    return EvalTask(experiment_id="e", item_id="i7", input=input, target=target)


def test_agent_request_carries_utterance_history_and_model() -> None:
    model = ModelConfig(provider="offline", temperature=0.0)
    history = [{"type": "human", "content": "hi"}, {"type": "ai", "content": "what can I get you?"}]
    req = AgentInvokeTarget(NO_NATS, "x").build_request(
        task({"customer_utterance": "two coffees", "messages": history}, AgentTarget(model=model))
    )
    assert req.customer_utterance == "two coffees"
    assert [m.type for m in req.messages] == ["human", "ai"]
    assert req.model == model


def test_agent_item_without_utterance_is_a_config_error() -> None:
    with pytest.raises(TargetConfigError, match=r"i7.*customer_utterance"):
        AgentInvokeTarget(NO_NATS, "x").build_request(task({"query": "?"}, AgentTarget()))


def test_search_request_copies_the_target_options() -> None:
    spec = SearchTarget(mode="thorough", limit=7, backend="corpus", bypass_cache=False, degrade=0.25)
    req = SearchQueryTarget(NO_NATS, "x").build_request(task({"query": "reset password"}, spec))
    assert (req.query, req.mode, req.limit, req.backend, req.bypass_cache, req.degrade) == (
        "reset password",
        "thorough",
        7,
        "corpus",
        False,
        0.25,
    )


def test_search_item_with_empty_query_is_a_config_error() -> None:
    with pytest.raises(TargetConfigError, match=r"does not fit a search request"):
        SearchQueryTarget(NO_NATS, "x").build_request(task({"query": ""}, SearchTarget()))


def test_answer_request_copies_the_target_options_and_accepts_question() -> None:
    spec = AnswerTarget(mode="thorough", limit=4, answerer="extractive", max_sentences=2, degrade=0.3)
    target = SearchAnswerTarget(NO_NATS, "x")
    req = target.build_request(task({"question": "who broke redis?"}, spec))
    assert (req.query, req.mode, req.limit, req.answerer, req.max_sentences, req.degrade) == (
        "who broke redis?",
        "thorough",
        4,
        "extractive",
        2,
        0.3,
    )
    with pytest.raises(TargetConfigError, match=r"i7.*input.query"):
        target.build_request(task({"customer_utterance": "x"}, spec))
    with pytest.raises(TargetConfigError, match="answer target given a 'search' task"):
        target.build_request(task({"query": "x"}, SearchTarget()))
