"""The live sampling configuration (table ``sampling_config``, one row per project).

Which evaluators score an application's traces: its own when it has them; else the project's, except
that the project's default set (the drive-thru agent's: ``DEFAULT_EVALUATORS``, plus its tone judge)
belongs to the demo agent's service name (``DRIVE_THRU_APPLICATION``) only. Any other application
(a ``support-bot`` instrumented with OpenInference, say) gets the registry's generic reference-free
evaluators instead (``generic_evaluators``: ``latency_budget`` at 10 s, and ``answer_relevancy``
when a judge model is configured), never the drive-thru agent's checks of menu items and tool calls.
A project set that differs from the default applies to every application without its own."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field, field_validator
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import SamplingConfig
from shared.evaluators import UnknownEvaluator
from shared.evaluators.arguments import validate_arguments
from shared.evaluators.judge_model import judge_available
from shared.evaluators.loading import process_registry
from shared.online.application_sampling import (
    ApplicationSampling,
    EffectiveSampling,
    TraceFilters,
)
from yardstick.api.evaluation import EvaluatorSpec

DEFAULT_EVALUATORS = ("no_hallucinated_items", "tool_call_protocol", "finalize_after_confirmation")
JUDGE_EVALUATORS = ("drive_thru_tone",)
DRIVE_THRU_APPLICATION = "drive-thru"
"""The demo agent's service.name (its ``OTEL_SERVICE_NAME`` default): the default set is its own."""
GENERIC_LATENCY_BUDGET_MS = 10_000.0
GENERIC_JUDGE_EVALUATORS = ("answer_relevancy",)


class NotReferenceFree(ValueError):
    """An evaluator that needs an expected output cannot score live traffic."""


class SamplingFilters(BaseModel):
    """A turn is eligible only if it matches every filter that is set."""

    model: str | None = Field(default=None, description="Only turns of this model identity")
    prompt_version: str | None = Field(default=None, description="Only turns of this prompt version")
    finalized: bool | None = Field(default=None, description="Only finalized (True) / open (False) turns")
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Only turns whose metadata has these exact key/values"
    )


def default_evaluators() -> list[EvaluatorSpec]:
    """The deterministic reference-free evaluators, plus the tone judge when a judge model is
    configured (``MISTRAL_API_KEY``, ``OPENAI_BASE_URL``…); without one a judge would only
    record "skipped"."""
    names = list(DEFAULT_EVALUATORS)
    if judge_available():
        names += JUDGE_EVALUATORS
    return [EvaluatorSpec(name=name) for name in names]


def generic_evaluators() -> list[EvaluatorSpec]:
    """Reference-free evaluators any application's traces can be scored with: ``latency_budget``
    (a turn within 10 s), plus ``answer_relevancy`` (does the reply address the user's question)
    when a judge model is configured."""
    specs = [EvaluatorSpec(name="latency_budget", args={"max_ms": GENERIC_LATENCY_BUDGET_MS})]
    if judge_available():
        specs += [EvaluatorSpec(name=name) for name in GENERIC_JUDGE_EVALUATORS]
    return specs


def is_drive_thru_default(specs: list[EvaluatorSpec]) -> bool:
    """Whether ``specs`` is the default set (the drive-thru agent's, with or without its judge)."""
    names = {spec.name for spec in specs}
    return all(not spec.args for spec in specs) and set(DEFAULT_EVALUATORS) <= names <= {
        *DEFAULT_EVALUATORS,
        *JUDGE_EVALUATORS,
    }


def _known_reference_free(specs: list[EvaluatorSpec]) -> list[EvaluatorSpec]:
    for spec in specs:
        try:
            entry = process_registry().get(spec.name, "item")
        except UnknownEvaluator as exc:  # a LookupError: re-raise as ValueError so pydantic → 422
            raise ValueError(str(exc)) from exc
        validate_arguments(spec.name, entry.arguments, spec.args)  # a ValueError: pydantic → 422
        if not entry.reference_free:
            raise NotReferenceFree(
                f"evaluator {spec.name!r} needs an expected output; choose a reference-free one "
                "(e.g. " + ", ".join(DEFAULT_EVALUATORS) + ")"
            )
    return specs


class SamplingSettings(BaseModel):
    """What ``GET/PUT /online/config`` exchange and the sampler applies."""

    rate: float = Field(default=0.1, ge=0.0, le=1.0, description="Fraction of conversations sampled")
    filters: SamplingFilters = Field(default_factory=SamplingFilters)
    cap_per_minute: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000,
        description="At most this many sampled turns per minute (None: no cap)",
    )
    evaluators: list[EvaluatorSpec] = Field(default_factory=default_evaluators, min_length=1)
    applications: dict[str, ApplicationSampling] = Field(
        default_factory=dict,
        description="Per application (a trace's service.name): overrides of the settings above",
    )
    updated_at: datetime | None = Field(default=None, description="Set by the server on save")

    @field_validator("evaluators")
    @classmethod
    def _evaluators_reference_free(cls, specs: list[EvaluatorSpec]) -> list[EvaluatorSpec]:
        return _known_reference_free(specs)

    @field_validator("applications")
    @classmethod
    def _applications_reference_free(
        cls, applications: dict[str, ApplicationSampling]
    ) -> dict[str, ApplicationSampling]:
        for app in applications.values():
            if app.evaluators is not None:
                _known_reference_free(app.evaluators)
        return applications

    def for_application(self, application: str) -> EffectiveSampling:
        """What applies to ``application``'s traces: its own settings, else the project's (the
        default evaluators only for the drive-thru agent; the generic ones for any other)."""
        own = self.applications.get(application, ApplicationSampling())
        evaluators = own.evaluators
        if evaluators is None:
            drive_thru_only = application != DRIVE_THRU_APPLICATION and is_drive_thru_default(self.evaluators)
            evaluators = generic_evaluators() if drive_thru_only else self.evaluators
        return EffectiveSampling(
            rate=self.rate if own.rate is None else own.rate,
            filters=own.filters if own.filters is not None else TraceFilters(model=self.filters.model),
            cap_per_minute=self.cap_per_minute if own.cap_per_minute is None else own.cap_per_minute,
            evaluators=evaluators,
        )


def _from_row(row: SamplingConfig) -> SamplingSettings:
    return SamplingSettings.model_validate(
        {
            "rate": row.rate,
            "filters": row.filters or {},
            "cap_per_minute": row.cap_per_minute,
            "evaluators": row.evaluators or [s.model_dump() for s in default_evaluators()],
            "applications": row.applications or {},
            "updated_at": row.updated_at,
        }
    )


async def load_config(session: AsyncSession, project: str) -> SamplingSettings:
    """``project``'s stored config, or the defaults when none was saved yet."""
    row = (
        await session.execute(select(SamplingConfig).where(SamplingConfig.project_id == project))
    ).scalar_one_or_none()
    return SamplingSettings() if row is None else _from_row(row)


async def save_config(session: AsyncSession, project: str, config: SamplingSettings) -> SamplingSettings:
    """Insert or replace ``project``'s config row (the caller commits)."""
    row = await session.get(SamplingConfig, project)
    if row is None:
        row = SamplingConfig(project_id=project)
        session.add(row)
    row.rate = config.rate
    row.filters = config.filters.model_dump(mode="json")
    row.cap_per_minute = config.cap_per_minute
    row.evaluators = [spec.model_dump(mode="json") for spec in config.evaluators]
    row.applications = {name: app.model_dump(mode="json") for name, app in config.applications.items()}
    row.updated_at = datetime.now(UTC)
    await session.flush()
    return _from_row(row)
