"""The settings reference: every environment variable of every service, from its settings class."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from docs.gen.json_schema import cell
from services.agent.settings import AgentSettings
from services.coordinator.settings import CoordinatorSettings
from services.evaluator.settings import WorkerSettings
from services.ingest.settings import IngestSettings
from services.sampler.settings import SamplerSettings
from services.search_proxy.settings import SearchProxySettings
from shared.db.judge_verdicts import JudgeCacheSettings
from shared.llm import LlmSettings
from shared.llm.prices import PriceSettings
from shared.retired_settings import RETIRED_NAMES
from shared.settings import CommonSettings
from yardstick.worker_settings import TaskWorkerSettings

SERVICES: list[tuple[str, type[BaseSettings]]] = [
    ("Every service", CommonSettings),
    ("coordinator", CoordinatorSettings),
    ("eval workers (`services.evaluator`)", WorkerSettings),
    ("agent", AgentSettings),
    ("search-proxy", SearchProxySettings),
    ("sampler", SamplerSettings),
    ("ingest (OTLP/HTTP receiver)", IngestSettings),
    ("task workers (`yardstick worker`)", TaskWorkerSettings),
    (
        "LLM providers (every process that calls a model: agent, eval workers, sampler, search-proxy)",
        LlmSettings,
    ),
    ("LLM prices (the coordinator: spend, cost and budgets)", PriceSettings),
    ("Judge cache (eval workers, sampler, coordinator)", JudgeCacheSettings),
]


def _variable(name: str, field: FieldInfo, prefix: str) -> str:
    alias = field.validation_alias
    return alias if isinstance(alias, str) else f"{prefix}{name}".upper()


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    if field.default_factory is not None:
        return "computed at start-up"
    value: Any = field.default
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    try:
        return f"`{cell(json.dumps(value, default=str))}`"
    except (TypeError, ValueError):
        return f"`{cell(value)}`"


def settings_page() -> str:
    lines = [
        "# Settings",
        "",
        "Every setting is an environment variable (or a line of `.env` in the working directory),",
        "read once at start-up by the service's settings class; generated from those classes when",
        "the docs are built. The local stack (`yardstick stack up`) sets the connection settings",
        "for every process it starts.",
        "",
    ]
    for title, cls in SERVICES:
        prefix = str(cls.model_config.get("env_prefix") or "")
        own = {n: f for n, f in cls.model_fields.items() if _shown(cls, n)}
        lines += [f"## {title}", "", f"`{cls.__module__}.{cls.__name__}`", ""]
        lines += ["| variable | default | description |", "|---|---|---|"]
        for name, field in own.items():
            description = cell(field.description or "")
            lines.append(f"| `{_variable(name, field, prefix)}` | {_default(field)} | {description} |")
        lines.append("")
    lines += [
        "## Retired names",
        "",
        "A retired name that is still set (in the environment or `.env`) stops start-up with a sentence",
        "naming the variable that replaced it (`shared.retired_settings`).",
        "",
        "| retired | set instead |",
        "|---|---|",
    ]
    lines += [f"| `{old}` | `{new}` |" for old, new in RETIRED_NAMES.items()]
    return "\n".join(lines) + "\n"


def _shown(cls: type[BaseSettings], name: str) -> bool:
    """A service's own settings, and the common ones whose default it changes."""
    if (
        cls is CommonSettings
        or not issubclass(cls, CommonSettings)
        or name not in CommonSettings.model_fields
    ):
        return True
    return bool(cls.model_fields[name].default != CommonSettings.model_fields[name].default)
