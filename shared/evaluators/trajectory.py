"""The trajectory evaluators, plus a partial-credit similarity.

``output["trajectory"]``: message dicts ``{type: human|ai|tool, content, tool_calls: [{id, name,
args}], tool_call_id, name}`` (falls back to ``output["tool_calls"]`` names when absent);
``expected_output``: ``{"reference_trajectory": [trajectory-scenario records] | None, "requirements":
{mandatory_tools, forbidden_tools, trajectory_mode, require_match}}``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from shared.datasets.trajectory_scenarios import TrajectoryRequirements
from shared.evaluators.payload import as_dict, as_list, tool_call_names
from shared.evaluators.registry import register
from shared.evaluators.trajectory_matching import (
    ArgsMode,
    TrajectoryMode,
    normalise,
    similarity,
    trajectories_match,
)
from yardstick.api.evaluation import Evaluation
from yardstick.api.metric_spec import MetricSpec

SKIPPED_NO_REFERENCE = "skipped: no reference trajectory"


class _Case(BaseModel):
    actual: list[dict[str, Any]]
    reference: list[dict[str, Any]] | None
    requirements: TrajectoryRequirements
    called: list[str]


def _case(output: Any, expected_output: Any) -> _Case:
    out = as_dict(output, "output")
    expected = as_dict(expected_output, "expected_output")
    actual = [as_dict(m, "trajectory message") for m in as_list(out.get("trajectory"), "output.trajectory")]
    if not actual and out.get("tool_calls"):
        actual = [{"type": "ai", "tool_calls": [{"name": name, "args": {}}]} for name in tool_call_names(out)]
    reference_raw = expected.get("reference_trajectory")
    reference = (
        None
        if reference_raw is None
        else [as_dict(m, "reference message") for m in as_list(reference_raw, "reference_trajectory")]
    )
    requirements = TrajectoryRequirements.model_validate(expected.get("requirements") or {})
    called = normalise(actual).names
    return _Case(actual=actual, reference=reference, requirements=requirements, called=called)


def _match(
    case: _Case, mode: TrajectoryMode | None, args_mode: ArgsMode, filter_to_mandatory: bool
) -> Evaluation:
    name = "trajectory_match"
    if case.reference is None:
        return Evaluation(name=name, value=None, comment=SKIPPED_NO_REFERENCE)
    mode = mode or case.requirements.trajectory_mode
    only = (
        case.requirements.mandatory_tools
        if filter_to_mandatory and case.requirements.mandatory_tools
        else None
    )
    actual = normalise(case.actual, args_mode=args_mode, only_tools=only)
    reference = normalise(case.reference, args_mode=args_mode, only_tools=only)
    ok = trajectories_match(actual, reference, mode, args_mode)
    return Evaluation(
        name=name,
        value=ok,
        comment=f"{mode} match {'passed' if ok else 'failed'}: "
        f"called {actual.names}, reference {reference.names}",
        metadata={"mode": mode, "args_mode": args_mode, "actual": actual.names, "reference": reference.names},
    )


def _mandatory(case: _Case, tools: list[str] | None) -> Evaluation:
    name = "mandatory_tools_check"
    required = case.requirements.mandatory_tools if tools is None else tools
    if not required:
        return Evaluation(name=name, value=None, comment="skipped: no mandatory tools")
    missing = [t for t in required if t not in case.called]
    if missing:
        return Evaluation(
            name=name,
            value=False,
            comment=f"Mandatory tools not called: {missing}",
            metadata={"missing": missing},
        )
    return Evaluation(name=name, value=True, comment="All mandatory tools called")


def _forbidden(case: _Case, tools: list[str] | None) -> Evaluation:
    name = "forbidden_tools_check"
    banned = case.requirements.forbidden_tools if tools is None else tools
    if not banned:
        return Evaluation(name=name, value=None, comment="skipped: no forbidden tools")
    used = sorted({t for t in case.called if t in banned})
    if used:
        return Evaluation(
            name=name, value=False, comment=f"Forbidden tools called: {used}", metadata={"used": used}
        )
    return Evaluation(name=name, value=True, comment="No forbidden tools called")


@register("trajectory_match", inline=True)
def trajectory_match(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any,
    metadata: Any = None,
    trajectory_mode: TrajectoryMode | None = None,
    args_mode: ArgsMode = "ignore",
    filter_to_mandatory: bool = False,
    **kwargs: Any,
) -> Evaluation:
    """Normalised trajectory vs the reference in the item's (or the given) trajectory_mode."""
    return _match(_case(output, expected_output), trajectory_mode, args_mode, filter_to_mandatory)


@register("mandatory_tools_check", inline=True)
def mandatory_tools_check(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    mandatory_tools: list[str] | None = None,
    **kwargs: Any,
) -> Evaluation:
    """True when every mandatory tool (requirements or args) was called; None when none are set."""
    return _mandatory(_case(output, expected_output), mandatory_tools)


@register("forbidden_tools_check", inline=True)
def forbidden_tools_check(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    forbidden_tools: list[str] | None = None,
    **kwargs: Any,
) -> Evaluation:
    """True when no forbidden tool (requirements or args) was called; None when none are set."""
    return _forbidden(_case(output, expected_output), forbidden_tools)


_COMBINED = ("trajectory_match", "mandatory_tools_check", "forbidden_tools_check")


@register(
    "trajectory_pass",
    metrics={
        "trajectory_pass": MetricSpec.higher(1.0, primary=True),
        **dict.fromkeys(_COMBINED, MetricSpec.informational("higher_is_better", regression=0.05)),
    },
)
def trajectory_pass(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any,
    metadata: Any = None,
    trajectory_mode: TrajectoryMode | None = None,
    args_mode: ArgsMode = "ignore",
    filter_to_mandatory: bool = False,
    **kwargs: Any,
) -> Evaluation:
    """The trajectory-scenario pass/fail policy over the tool checks and the reference match.

    With tool checks: pass iff all pass (and, if ``require_match``, the match passes too).
    Without tool checks but with a reference: pass iff the match passes. Otherwise pass.
    A skipped match (no reference) never gates.
    """
    case = _case(output, expected_output)
    checks = [c for c in (_mandatory(case, None), _forbidden(case, None)) if c.value is not None]
    match = _match(case, trajectory_mode, args_mode, filter_to_mandatory)
    match_checks = [match] if match.value is not None else []
    if checks:
        passed = all(c.value for c in checks) and (
            not case.requirements.require_match or all(m.value for m in match_checks)
        )
        policy = "tool checks" + (" + match" if case.requirements.require_match and match_checks else "")
    elif match_checks:
        passed = bool(match.value)
        policy = "match"
    else:
        passed, policy = True, "default (no checks)"
    failed = [c.name for c in [*checks, *match_checks] if c.value is False]
    return Evaluation(
        name="trajectory_pass",
        value=passed,
        comment=f"{'PASS' if passed else 'FAIL'} by {policy}" + (f"; failed: {failed}" if failed else ""),
        metadata={"policy": policy, "checks": {c.name: c.value for c in [*checks, match]}},
    )


@register("trajectory_similarity")
def trajectory_similarity(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any,
    metadata: Any = None,
    method: Literal["lcs", "edit"] = "lcs",
    filter_to_mandatory: bool = False,
    **kwargs: Any,
) -> Evaluation:
    """Partial credit in [0, 1] over the normalised tool-call name sequences (LCS or edit distance)."""
    case = _case(output, expected_output)
    if case.reference is None:
        return Evaluation(name="trajectory_similarity", value=None, comment=SKIPPED_NO_REFERENCE)
    only = (
        case.requirements.mandatory_tools
        if filter_to_mandatory and case.requirements.mandatory_tools
        else None
    )
    actual = normalise(case.actual, only_tools=only).names
    reference = normalise(case.reference, only_tools=only).names
    value = round(similarity(actual, reference, method), 6)
    return Evaluation(
        name="trajectory_similarity",
        value=value,
        comment=f"{method} similarity {value:.3f}: called {actual}, reference {reference}",
        metadata={"method": method, "actual": actual, "reference": reference},
    )
