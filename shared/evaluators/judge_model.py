"""Which model the LLM judges ask, built by a replaceable factory on the provider layer.

A judge's model comes from its arguments ``judge_provider`` / ``judge_model``, else from
``JUDGE_PROVIDER`` / ``JUDGE_MODEL`` (the retired ``YARDSTICK_JUDGE_MODEL`` is refused), else
``auto``: Mistral with ``MISTRAL_API_KEY``, an OpenAI-compatible endpoint with ``OPENAI_BASE_URL``
or ``OPENAI_API_KEY``, else none, and the judges record "skipped: no judge model configured" (see
:mod:`shared.llm.config`). The default factory returns a :class:`~shared.llm.StructuredLlm`; tests
install a fake with :func:`set_judge_factory`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from shared.llm import LlmConfig, LlmNotConfigured, LlmSettings, ProviderChoice, StructuredLlm, llm_config
from shared.llm.structured import StructuredReply

SKIPPED = "skipped: no judge model configured"

T = TypeVar("T", bound=BaseModel)


class JudgeModel(Protocol):
    """What a judge asks: one prompt, one reply parsed as ``schema`` (or None with the reason)."""

    async def ask(self, schema: type[T], prompt: str) -> StructuredReply[T]: ...


JudgeFactory = Callable[[LlmConfig], JudgeModel | None]


def judge_config(
    judge_model: str | None, temperature: float, judge_provider: ProviderChoice | None = None
) -> LlmConfig:
    """The judge's model: arguments first, then ``JUDGE_PROVIDER``/``JUDGE_MODEL``, then ``auto``.
    Raises :class:`~shared.llm.LlmNotConfigured` when an explicit provider lacks its key or URL."""
    try:
        env = LlmSettings()
    except ValidationError as exc:  # e.g. JUDGE_PROVIDER=anthropic: said on every judge score
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in exc.errors())
        raise LlmNotConfigured(f"invalid LLM settings: {problems}") from exc
    provider = judge_provider or env.judge_provider
    model = judge_model or env.judge_model
    return llm_config(provider, model, temperature=temperature, settings=env)


def default_judge_factory(config: LlmConfig) -> JudgeModel | None:
    """A :class:`StructuredLlm` for ``config``; None for the offline provider (the judge skips)."""
    return None if config.provider == "offline" else StructuredLlm(config)


_factory: JudgeFactory = default_judge_factory


def set_judge_factory(factory: JudgeFactory | None) -> JudgeFactory:
    """Install ``factory`` (None restores the default); returns the previous one."""
    global _factory
    previous = _factory
    _factory = factory or default_judge_factory
    return previous


def judge_model_for(config: LlmConfig) -> JudgeModel | None:
    return _factory(config)


def judge_available() -> bool:
    """Whether the default judge configuration reaches a model (online sampling adds judges then)."""
    try:
        return judge_model_for(judge_config(None, 0.0)) is not None
    except LlmNotConfigured:
        return False
