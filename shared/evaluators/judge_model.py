"""The chat model behind the LLM judges, built by a replaceable factory.

The default factory returns ``ChatMistralAI`` when ``MISTRAL_API_KEY`` is set and None otherwise
(judges then report "skipped: no judge model configured"). Tests install a fake with
:func:`set_judge_factory`. The default model name comes from ``YARDSTICK_JUDGE_MODEL``
(default ``mistral-small-latest``); an evaluator's ``judge_model`` arg overrides it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from langchain_core.runnables import Runnable
from pydantic import BaseModel, Field, SecretStr

DEFAULT_JUDGE_MODEL = "mistral-small-latest"
SKIPPED = "skipped: no judge model configured"

T = TypeVar("T", bound=BaseModel)


class JudgeConfig(BaseModel, frozen=True):
    model: str = Field(description="Judge model name, e.g. 'mistral-small-latest'")
    temperature: float = Field(default=0.0, ge=0, le=2)
    timeout_s: float = Field(default=30.0, gt=0)
    max_retries: int = Field(default=2, ge=0)


class StructuredChatModel(Protocol):
    """Anything with LangChain's ``with_structured_output`` (every ``BaseChatModel``)."""

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Runnable[Any, Any]: ...


JudgeFactory = Callable[[JudgeConfig], StructuredChatModel | None]


class JudgeAnswerInvalid(ValueError):
    """The judge model's structured answer did not match the expected schema."""


def judge_config(judge_model: str | None, temperature: float) -> JudgeConfig:
    model = judge_model or os.environ.get("YARDSTICK_JUDGE_MODEL") or DEFAULT_JUDGE_MODEL
    return JudgeConfig(model=model, temperature=temperature)


_mistral_cache: dict[JudgeConfig, StructuredChatModel] = {}


def mistral_judge_factory(config: JudgeConfig) -> StructuredChatModel | None:
    """``ChatMistralAI`` for ``config`` (cached), or None without ``MISTRAL_API_KEY``."""
    key = os.environ.get("MISTRAL_API_KEY")
    if not key:
        return None
    if config not in _mistral_cache:
        from langchain_mistralai import ChatMistralAI

        _mistral_cache[config] = ChatMistralAI(
            model=config.model,
            temperature=config.temperature,
            timeout=int(config.timeout_s),
            max_retries=config.max_retries,
            api_key=SecretStr(key),
        )
    return _mistral_cache[config]


_factory: JudgeFactory = mistral_judge_factory


def set_judge_factory(factory: JudgeFactory | None) -> JudgeFactory:
    """Install ``factory`` (None restores the Mistral default); returns the previous one."""
    global _factory
    previous = _factory
    _factory = factory or mistral_judge_factory
    return previous


def judge_model_for(config: JudgeConfig) -> StructuredChatModel | None:
    return _factory(config)


async def ask_judge(model: StructuredChatModel, schema: type[T], prompt: str) -> T:
    """One structured judge call; :class:`JudgeAnswerInvalid` when the answer has the wrong shape."""
    answer = await model.with_structured_output(schema).ainvoke(prompt)
    if isinstance(answer, schema):
        return answer
    try:
        return schema.model_validate(answer)
    except ValueError as exc:
        raise JudgeAnswerInvalid(f"judge answer is not a valid {schema.__name__}: {exc}") from exc
