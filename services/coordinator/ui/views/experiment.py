"""One experiment's page: its configuration, aggregates, breakdown charts, latency and errors."""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel

from services.coordinator.experiments.store.distributions import Histogram
from services.coordinator.ui.views import formatting
from services.coordinator.ui.views.experiments import target_label
from shared.analysis import wilson_bounds
from yardstick.api.agent_messages import ModelConfig
from yardstick.api.experiment_config import ExperimentConfig
from yardstick.api.experiments import ExperimentOut
from yardstick.api.run_aggregates import ExperimentAggregates


class ConfigRow(BaseModel):
    label: str
    value: str


class EvaluatorRow(BaseModel):
    name: str
    args: str
    run_level: bool = False


class MetricRow(BaseModel):
    name: str
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    ci_method: str
    median: float | None
    count: int
    not_measured: int
    criterion: str


class GroupBar(BaseModel):
    value: str
    count: int
    pass_rate: float
    low: float
    high: float
    errors: int
    means: dict[str, float | None]


class BreakdownChart(BaseModel):
    key: str
    groups: list[GroupBar]
    metrics: list[str]

    def chart_data(self) -> dict[str, Any]:
        """What static/app.js gives Chart.js: pass rate per group with its Wilson interval."""
        return {
            "kind": "breakdown",
            "labels": [g.value for g in self.groups],
            "values": [{"y": g.pass_rate, "yMin": g.low, "yMax": g.high} for g in self.groups],
            "counts": [g.count for g in self.groups],
        }


class ExperimentPage(BaseModel):
    experiment: ExperimentOut
    config: list[ConfigRow]
    evaluators: list[EvaluatorRow]
    metrics: list[MetricRow]
    breakdowns: list[BreakdownChart]
    latency: Histogram
    running: bool

    def latency_chart(self) -> dict[str, Any]:
        return {"kind": "histogram", "labels": bin_labels(self.latency.edges), "counts": self.latency.counts}


def bin_labels(edges: list[float]) -> list[str]:
    """The start of each latency bin, with as many decimals as the bin width needs to tell
    neighbours apart (bins narrower than 1 ms read '1.2 ms', '1.4 ms', not '1 ms', '1 ms')."""
    if len(edges) < 2:
        return []
    width = edges[1] - edges[0]
    if width >= 1 or edges[-1] >= 10_000:
        return [formatting.ms(edge) for edge in edges[:-1]]
    decimals = min(3, math.ceil(-math.log10(width)) if width > 0 else 3)
    return [f"{edge:,.{decimals}f} ms" for edge in edges[:-1]]


def _word(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"{value:g}" if isinstance(value, float) else str(value)


def model_label(model: ModelConfig) -> str:
    """'mistral · mistral-small-latest · temperature 0.2'; the offline model lists only the
    behaviours changed from its defaults ('offline · defaults' when none)."""
    parts: list[str] = [model.provider]
    if model.name:
        parts.append(model.name)
    if model.provider == "offline":
        changed = model.offline.model_dump(exclude_defaults=True)
        parts.append(
            ", ".join(f"{k.replace('_', ' ')}: {_word(v)}" for k, v in changed.items()) or "defaults"
        )
    else:
        parts.append(f"temperature {model.temperature:g}")
    return " · ".join(parts)


def config_rows(experiment: ExperimentOut, config: ExperimentConfig) -> list[ConfigRow]:
    rows = [
        ConfigRow(label="Target", value=target_label(config.target)),
        ConfigRow(label="Dataset", value=f"{experiment.dataset}@{experiment.dataset_version}"),
        ConfigRow(label="Concurrency", value=str(config.concurrency)),
        ConfigRow(label="Repetitions", value=str(config.repetitions)),
        ConfigRow(label="Timeout per attempt", value=f"{config.timeout_s:g} s"),
        ConfigRow(label="Max error rate", value=formatting.percent(config.max_error_rate)),
    ]
    model = getattr(config.target, "model", None)
    if isinstance(model, ModelConfig):
        rows.insert(1, ConfigRow(label="Model", value=model_label(model)))
    if config.cache is not None:
        rows.append(ConfigRow(label="Output cache", value=f"on, outputs up to {config.cache.ttl_s:g} s old"))
    if config.item_filter:
        rows.append(ConfigRow(label="Item filter", value=json.dumps(config.item_filter, sort_keys=True)))
    if config.item_ids:
        rows.append(ConfigRow(label="Items", value=", ".join(config.item_ids[:20])))
    if config.gates:
        rows.append(ConfigRow(label="Gates", value=", ".join(str(g) for g in config.gates)))
    if config.metadata:
        rows.append(ConfigRow(label="Metadata", value=json.dumps(config.metadata, sort_keys=True)))
    return rows


def metric_rows(aggregates: ExperimentAggregates | None) -> list[MetricRow]:
    if aggregates is None:
        return []
    return [
        MetricRow(
            name=name,
            mean=m.mean,
            ci_low=m.ci_low,
            ci_high=m.ci_high,
            ci_method=m.ci_method,
            median=m.median,
            count=m.count,
            not_measured=m.none_count,
            criterion=formatting.criterion(aggregates.pass_criteria.get(name)),
        )
        for name, m in aggregates.metrics.items()
    ]


def wilson(passed: int, count: int) -> tuple[float, float]:
    """95% Wilson interval of a pass rate (the same method the aggregates use for 0/1 scores)."""
    if count == 0:
        return 0.0, 0.0
    return wilson_bounds(passed, count)


def breakdown_charts(aggregates: ExperimentAggregates | None) -> list[BreakdownChart]:
    if aggregates is None:
        return []
    charts = []
    for key, groups in aggregates.breakdowns.items():
        bars = []
        for value, group in sorted(groups.items()):
            low, high = wilson(group.passed, group.count)
            bars.append(
                GroupBar(
                    value=value,
                    count=group.count,
                    pass_rate=group.pass_rate,
                    low=low,
                    high=high,
                    errors=group.error_count,
                    means={name: m.mean for name, m in group.metrics.items()},
                )
            )
        charts.append(BreakdownChart(key=key, groups=bars, metrics=list(aggregates.metrics)))
    return charts


def experiment_page(
    experiment: ExperimentOut, config: ExperimentConfig, latency: Histogram
) -> ExperimentPage:
    return ExperimentPage(
        experiment=experiment,
        config=config_rows(experiment, config),
        evaluators=[
            EvaluatorRow(
                name=spec.name,
                args=json.dumps(spec.args, sort_keys=True) if spec.args else "",
                run_level=spec in config.run_evaluators,
            )
            for spec in [*config.evaluators, *config.run_evaluators]
        ],
        metrics=metric_rows(experiment.aggregates),
        breakdowns=breakdown_charts(experiment.aggregates),
        latency=latency,
        running=experiment.status.active,
    )
