"""The JSON export of one experiment: summary, category breakdown and per-item test results (the
trajectory-report shape), plus the aggregates and the scored run, as one versioned model. Every
item carries its typed ``failure`` (an evaluation its evaluator's in ``details``), ``error`` its
summary."""

from __future__ import annotations

import json

from shared.analysis.pass_rule import PassPolicy, stored_policy
from yardstick.api.experiment_document import (
    CategoryStats,
    EvaluationEntry,
    ExperimentDocument,
    ReportItem,
    RunSummary,
)
from yardstick.api.run_aggregates import ExperimentAggregates
from yardstick.api.run_data import RunData, ScoredItem

UNCATEGORIZED = "uncategorized"


def _evaluations(item: ScoredItem) -> list[EvaluationEntry]:
    out: list[EvaluationEntry] = []
    seen: set[str] = set()
    for e in item.evaluations:
        seen.add(e.name)
        score = item.scores.get(e.name, e.numeric)
        failed = {"error": e.error, "failure": e.failure.model_dump()} if e.failure else {}
        out.append(
            EvaluationEntry(key=e.name, score=score, comment=e.comment, details=dict(e.metadata) | failed)
        )
    out += [EvaluationEntry(key=k, score=v) for k, v in item.scores.items() if k not in seen]
    return out


def _test_result(item: ScoredItem, policy: PassPolicy) -> ReportItem:
    return ReportItem(
        name=item.item_id,
        trial=item.trial,
        category=str(item.metadata.get("category", UNCATEGORIZED)),
        description=str(item.metadata.get("description", "")),
        success=policy.passed(item),
        status=item.status,
        error=item.error,
        failure=item.failure,
        execution_time=None if item.latency_ms is None else item.latency_ms / 1000.0,
        evaluations=_evaluations(item),
        agent_response=None if item.output is None else json.dumps(item.output, default=str),
    )


def experiment_json(run: RunData, aggregates: ExperimentAggregates) -> ExperimentDocument:
    """The exported report of one run (see :class:`ExperimentDocument`)."""
    policy = stored_policy(aggregates)
    results = [_test_result(i, policy) for i in run.items]
    passed = sum(r.success for r in results)
    times = [r.execution_time for r in results if r.status == "ok" and r.execution_time is not None]
    categories: dict[str, list[ReportItem]] = {}
    for r in results:
        categories.setdefault(r.category, []).append(r)
    breakdown = {
        cat: CategoryStats(
            count=len(rs), passed=sum(r.success for r in rs), pass_rate=sum(r.success for r in rs) / len(rs)
        )
        for cat, rs in sorted(categories.items())
    }
    doc = ExperimentDocument(
        experiment_id=run.experiment_id,
        name=run.name,
        summary=RunSummary(
            total_tests=len(results),
            passed_tests=passed,
            failed_tests=len(results) - passed,
            pass_rate=passed / len(results) if results else 0.0,
            avg_execution_time=sum(times) / len(times) if times else None,
        ),
        category_breakdown=breakdown,
        test_results=results,
        aggregates=aggregates,
        run=run,
    )
    return doc
