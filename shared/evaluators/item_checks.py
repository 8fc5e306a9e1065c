"""``item_checks``: run the checks each item carries in ``expected_output.checks``.

One experiment-level spec serves items whose expectations all differ (one wants "Bonjour", the
next a regular expression, the third a rubric): each :class:`~shared.contracts.item_checks.ItemCheck`
names a built-in evaluator and this item's arguments for it (see that module for the pass rules).

Reported: one 0/1 score per metric the item's checks name (1 when every check of that metric
passes, 0 when one fails, None when none fails but one could not be measured), each with the
checks' own values and comments in its metadata. An item without checks records one
``item_checks`` score "skipped" (value None). A check whose arguments are wrong is recorded as not
measured with the reason, never as a failure of the output.

Arguments: ``field`` (where the answer is in the output, for every check that reads one),
and every judge's ``judge_model`` / ``judge_provider`` / ``temperature`` for ``llm_rubric`` checks.
Synchronous checks (user regular expressions among them) run in a worker thread.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationError

from shared.contracts.item_checks import CHECKS_KEY, CheckEvaluator, ItemCheck
from shared.evaluators import generic, rubric
from shared.evaluators.arguments import arguments_model, validate_arguments
from shared.evaluators.registry import register
from shared.llm import ProviderChoice
from yardstick.api.evaluation import Evaluation

ITEM_CHECKS_VERSION = "1"

CHECK_FUNCTIONS: dict[CheckEvaluator, Callable[..., Any]] = {
    "exact_match": generic.exact_match,
    "contains": generic.contains,
    "regex_match": generic.regex_match,
    "json_valid": generic.json_valid,
    "json_schema": generic.json_schema,
    "string_similarity": generic.string_similarity,
    "fuzzy_match": generic.fuzzy_match,
    "llm_rubric": rubric.llm_rubric,
}
FIELD_READERS = frozenset(CHECK_FUNCTIONS) - {"llm_rubric"}
"""The check evaluators that read the answer at ``field``."""
JUDGE_ARGS = ("judge_model", "judge_provider", "temperature")


@cache
def _arguments(name: CheckEvaluator) -> type[BaseModel]:
    return arguments_model(name, CHECK_FUNCTIONS[name])


class _Outcome:
    """One check's verdict: passed (True/False) or not measured (None), with what it saw."""

    def __init__(self, check: ItemCheck, passed: bool | None, details: list[dict[str, Any]]) -> None:
        self.check = check
        self.passed = passed
        self.details = details

    def describe(self) -> str:
        state = {True: "passed", False: "failed", None: "not measured"}[self.passed]
        reasons = "; ".join(str(d.get("comment") or "") for d in self.details if d.get("comment"))
        name = self.check.label or self.check.evaluator
        return f"{name}: {state}" + (f" ({reasons[:300]})" if reasons else "")


async def _evaluate(check: ItemCheck, kwargs: dict[str, Any]) -> Evaluation:
    fn = CHECK_FUNCTIONS[check.evaluator]
    if inspect.iscoroutinefunction(fn):
        result = await fn(**kwargs)
    else:
        result = await asyncio.to_thread(lambda: fn(**kwargs))
    return result if isinstance(result, Evaluation) else Evaluation.model_validate(result)


def _combine(verdicts: list[bool | None], match: str) -> bool | None:
    if match == "all":
        return False if False in verdicts else (None if None in verdicts else True)
    return True if True in verdicts else (None if None in verdicts else False)


async def run_check(
    check: ItemCheck, *, input: Any, output: Any, metadata: Any, shared_args: Mapping[str, Any]
) -> _Outcome:
    """Run ``check`` on one output; an argument it refuses makes it not measured, with the reason."""
    args = dict(check.args)
    for name, value in shared_args.items():
        if name == "field" and check.evaluator not in FIELD_READERS:
            continue
        if name in JUDGE_ARGS and check.evaluator != "llm_rubric":
            continue
        args.setdefault(name, value)
    runs = [{**args, "expected": value} for value in check.values] if check.values else [args]
    threshold = 1.0 if check.threshold is None else check.threshold
    verdicts: list[bool | None] = []
    details: list[dict[str, Any]] = []
    for run_args in runs:
        try:
            validated = validate_arguments(check.evaluator, _arguments(check.evaluator), run_args)
            evaluation = await _evaluate(
                check,
                {
                    "input": input,
                    "output": output,
                    "expected_output": None,
                    "metadata": metadata,
                    **validated,
                },
            )
        except (ValueError, TypeError, ValidationError) as exc:  # MalformedPayload is a ValueError
            verdicts.append(None)
            details.append({"value": None, "comment": f"not measured: {exc}"})
            continue
        value = evaluation.numeric
        verdicts.append(None if value is None else value >= threshold)
        details.append({"value": value, "comment": evaluation.error or evaluation.comment})
    passed = _combine(verdicts, check.match)
    if check.negate and passed is not None:
        passed = not passed
    return _Outcome(check, passed, details)


def _parse_checks(expected_output: Any) -> list[ItemCheck] | str:
    raw = expected_output.get(CHECKS_KEY) if isinstance(expected_output, Mapping) else None
    if not isinstance(raw, list):
        return f"skipped: the item has no expected_output.{CHECKS_KEY} list"
    try:
        return [ItemCheck.model_validate(entry) for entry in raw]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"not measured: expected_output.{CHECKS_KEY} is malformed ({where}: {first['msg']})"


def _score(metric: str, outcomes: list[_Outcome]) -> Evaluation:
    verdicts = [o.passed for o in outcomes]
    passed = _combine(verdicts, "all")
    value = None if passed is None else float(passed)
    return Evaluation(
        name=metric,
        value=value,
        comment="; ".join(o.describe() for o in outcomes)[:2000],
        metadata={
            "checks": [
                {
                    "label": o.check.label,
                    "evaluator": o.check.evaluator,
                    "passed": o.passed,
                    "runs": o.details,
                }
                for o in outcomes
            ]
        },
    )


@register("item_checks", version=ITEM_CHECKS_VERSION)
async def item_checks(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    field: str | None = None,
    judge_model: str | None = None,
    judge_provider: ProviderChoice | None = None,
    temperature: float = 0.0,
    **kwargs: Any,
) -> list[Evaluation]:
    """The checks each item carries (``expected_output.checks``), one 0/1 score per metric they name."""
    checks = _parse_checks(expected_output)
    if isinstance(checks, str):
        return [Evaluation(name="item_checks", value=None, comment=checks)]
    if not checks:
        return [Evaluation(name="item_checks", value=None, comment="skipped: the item has no checks")]
    shared_args: dict[str, Any] = {"temperature": temperature}
    if field is not None:
        shared_args["field"] = field
    if judge_model is not None:
        shared_args["judge_model"] = judge_model
    if judge_provider is not None:
        shared_args["judge_provider"] = judge_provider
    by_metric: dict[str, list[_Outcome]] = {}
    for check in checks:
        outcome = await run_check(
            check, input=input, output=output, metadata=metadata, shared_args=shared_args
        )
        by_metric.setdefault(check.metric, []).append(outcome)
    return [_score(metric, outcomes) for metric, outcomes in by_metric.items()]
