"""What every LLM judge shares: resolving its model, asking it, and turning the outcome into a score.

A judge body asks through :meth:`Judging.ask`; a reply that never parses, a provider that stays
down, or a score outside the judge's scale raises :class:`NotMeasured`, which the wrapper turns into
value None with the comment ``not measured: <reason>`` and the raw reply in ``metadata.raw_reply``
(never an invented score, never an evaluator error). Every judge score's metadata records
``judge_provider``, ``judge_model``, ``prompt_version``, ``temperature``, token ``usage``
(input/output), ``llm_requests``, ``retries``, ``format_fallbacks``, ``parse_failures`` and the
``response_format`` the endpoint accepted. Common args: ``judge_model`` (name), ``judge_provider``
(``auto``, ``mistral``, ``openai``, ``offline``) and ``temperature`` (default 0.0).

With a judge cache in use (:mod:`shared.evaluators.judge_cache`), a verdict already measured for the
same judge, model, arguments and content is returned without asking the model.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from shared.evaluators.judge_cache import cached_verdict, current_store, remember, verdict_key
from shared.evaluators.judge_model import SKIPPED, JudgeModel, judge_config, judge_model_for
from shared.evaluators.registry import EvaluatorFn, register
from shared.llm import LlmCallStats, LlmConfig, LlmNotConfigured, ProviderChoice
from yardstick.api.evaluation import Evaluation
from yardstick.api.metric_spec import MetricSpec

T = TypeVar("T", bound=BaseModel)
RAW_REPLY_CHARS = 4000
"""The raw reply kept in a not-measured score's metadata is cut to this many characters."""


class NotMeasured(Exception):
    """The judge could not give a score; the reason and the model's raw reply say why."""

    def __init__(self, reason: str, raw: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


@dataclass
class Judging:
    """One judge run: its name, prompt version, model configuration, the model, what it spent."""

    name: str
    version: str
    config: LlmConfig
    model: JudgeModel
    stats: LlmCallStats = field(default_factory=LlmCallStats)
    last_raw: str | None = None

    async def ask(self, schema: type[T], prompt: str) -> T:
        """The model's answer as ``schema``; :class:`NotMeasured` when there is none."""
        reply = await self.model.ask(schema, prompt)
        self.stats = self.stats + reply.stats
        self.last_raw = reply.raw
        if reply.value is None:
            raise NotMeasured(reply.reason or "the judge gave no reply", reply.raw)
        return reply.value

    def on_scale(self, value: float, low: float, high: float, what: str = "score") -> float:
        """``value`` when ``low <= value <= high``; else :class:`NotMeasured` (never clipped: a
        judge that answers 10 on a 1-5 scale did not follow the rubric, so its number means nothing)."""
        if not math.isfinite(value) or not low <= value <= high:
            raise NotMeasured(f"{what} {value:g} is outside the scale {low:g}-{high:g}", self.last_raw)
        return value

    def metadata(self, **extra: Any) -> dict[str, Any]:
        return {**_identity(self.config, self.version), **self.stats.as_metadata(), **extra}

    def result(self, value: float | None, comment: str | None, **details: Any) -> Evaluation:
        """The judge's evaluation, with the model, prompt version and call figures recorded."""
        return Evaluation(name=self.name, value=value, comment=comment, metadata=self.metadata(**details))

    def not_measured(self, exc: NotMeasured) -> Evaluation:
        raw = exc.raw if exc.raw is None else exc.raw[:RAW_REPLY_CHARS]
        return self.result(None, f"not measured: {exc.reason}", reason=exc.reason, raw_reply=raw)


def _identity(config: LlmConfig, version: str) -> dict[str, Any]:
    return {
        "judge_provider": config.provider,
        "judge_model": config.model,
        "prompt_version": version,
        "temperature": config.temperature,
    }


JudgeBody = Callable[..., Awaitable[Evaluation]]


async def run_judge(
    name: str,
    version: str,
    body: Callable[[Judging], Awaitable[Evaluation]],
    *,
    judge_model: str | None,
    judge_provider: ProviderChoice | None,
    temperature: float,
    args: Mapping[str, Any] | None = None,
    content: Mapping[str, Any] | None = None,
) -> Evaluation:
    """Resolve the judge's model and run ``body``; skipped without a model, not measured on trouble.

    ``args`` (the judge's own arguments) and ``content`` (what it judges) key the judge cache."""
    try:
        config = judge_config(judge_model, temperature, judge_provider)
    except LlmNotConfigured as exc:
        reason = str(exc)
        comment = f"not measured: {reason}"
        return Evaluation(name=name, value=None, comment=comment, metadata={"reason": reason})
    model = judge_model_for(config)
    if model is None:
        return Evaluation(name=name, value=None, comment=SKIPPED, metadata=_identity(config, version))
    store = current_store()
    key = verdict_key(name, version, config, args or {}, content or {}) if store is not None else ""
    if store is not None:
        hit = await cached_verdict(store, key)
        if hit is not None:
            return hit
    judging = Judging(name, version, config, model)
    try:
        verdict = await body(judging)
    except NotMeasured as exc:
        return judging.not_measured(exc)
    if store is not None:
        await remember(store, key, name, verdict)
    return verdict


def judge(name: str, version: str, regression: float = 0.05) -> Callable[[JudgeBody], EvaluatorFn]:
    """Register ``body(judging, *, input, output, expected_output)`` as the reference-free item
    evaluator ``name`` (higher is better in [0, 1]; its version is the prompt's)."""

    def wrap(body: JudgeBody) -> EvaluatorFn:
        @functools.wraps(body)
        async def evaluate(
            *,
            input: Any = None,
            output: Any,
            expected_output: Any = None,
            metadata: Any = None,
            judge_model: str | None = None,
            judge_provider: ProviderChoice | None = None,
            temperature: float = 0.0,
            **kwargs: Any,
        ) -> Evaluation:
            async def run(judging: Judging) -> Evaluation:
                return await body(judging, input=input, output=output, expected_output=expected_output)

            return await run_judge(
                name,
                version,
                run,
                judge_model=judge_model,
                judge_provider=judge_provider,
                temperature=temperature,
                args=kwargs,
                content={"input": input, "output": output, "expected_output": expected_output},
            )

        metrics = {name: MetricSpec.higher(regression=regression)}
        return register(name, version=version, reference_free=True, metrics=metrics)(evaluate)

    return wrap
