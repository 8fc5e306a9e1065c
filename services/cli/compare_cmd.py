"""`yardstick compare A B`: statistical comparison of two experiments (ids, names or exported files).

Exit codes: 0 ok; 1 a gate missed, or with ``--fail-on-regression`` a failed comparison (a must-pass
item broke, or a primary metric regressed significantly); 2 a usage error;
3 with ``--fail-on-regression``, no regression but some metric had too few items to detect any
change (``report.inconclusive``): a gate that could not have failed is not a pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import typer

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail
from services.cli.experiment_refs import resolve_experiment
from services.cli.key_values import parse_key_values

if TYPE_CHECKING:
    from yardstick.api.run_data import RunData

err = stderr_console()


def _load_file(path: Path) -> RunData:
    from yardstick.api.run_data import RunData

    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read an exported experiment: {exc}") from exc
    if "run" not in data:
        raise ValueError(
            f"{path}: not an exported experiment (export one with `yardstick report ID --format json`)"
        )
    return RunData.model_validate(data["run"])


def compare_command(
    baseline: str = typer.Argument(
        ..., help="Baseline: experiment id, experiment name, or exported JSON file"
    ),
    candidate: str = typer.Argument(..., help="Candidate: same forms"),
    format: Literal["table", "md", "json", "junit"] = typer.Option("table", "--format", "-f"),
    metric: list[str] = typer.Option([], "--metric", "-m", help="Compare only these metrics"),
    alpha: float = typer.Option(
        0.05, min=0.0001, max=0.5, help="Family-wise significance level over the primary metrics"
    ),
    primary: list[str] = typer.Option(
        [],
        "--primary",
        help="A metric that gates (repeatable); default: those the evaluators declare primary; the "
        "others are secondary (reported, exploratory)",
    ),
    threshold: list[str] = typer.Option(
        [],
        "--threshold",
        help="METRIC=DELTA or METRIC=+N%: a regression threshold for this comparison, e.g. "
        "'latency_ms=+20%' (latency gates only with one) or 'order_correctness=-0.1' (repeatable)",
    ),
    must_pass_category: list[str] = typer.Option(
        [], "--must-pass-category", help="Items of this category are must-pass (repeatable)"
    ),
    multiplicity: Literal["westfall_young", "holm"] = typer.Option(
        "westfall_young",
        help="westfall_young (correlated metrics cost little power) or holm",
    ),
    fail_on_regression: bool = typer.Option(
        False,
        help="Exit 1 when the comparison fails (for CI): a must-pass item broke or a primary metric "
        "regressed significantly; exit 3 when some primary metric had too few items to detect any "
        "change (the gate could not have failed)",
    ),
    gate: list[str] = typer.Option(
        [],
        "--gate",
        help="Absolute gate on the candidate's mean: 'order_correctness>=0.9' (exit 1 if missed)",
    ),
    gate_on: str = typer.Option(
        "point", "--gate-on", help="point: the delta decides; ci: only a whole interval past the threshold"
    ),
    judge: str | None = typer.Option(
        None,
        "--judge",
        help="Also judge each matched pair with llm_pairwise by these criteria (in words), in both "
        "orders; win/tie/loss rates with intervals (needs the coordinator and a judge model)",
    ),
    judge_model: str | None = typer.Option(
        None, "--judge-model", help="Model of --judge (default JUDGE_MODEL)"
    ),
    judge_cache: bool = typer.Option(
        True,
        "--judge-cache/--no-judge-cache",
        help="Reuse --judge verdicts from the project's judge cache (default); --no-judge-cache asks "
        "the model for every pair",
    ),
) -> None:
    """Compare a candidate against a baseline: the items that broke, then per metric the delta, its
    interval, the paired test and the verdict."""
    # Deferred (SciPy, NumPy): see services/cli/stack_cmd.py.
    from services.cli.comparison_view import comparison_view
    from services.cli.judging_view import compare_judged
    from shared.analysis import (
        ComparisonConfig,
        compare_runs,
        comparison_junit,
        comparison_markdown,
        pairwise_lines,
    )
    from yardstick.api.pairwise import PairwiseJudgeSpec

    try:
        thresholds: dict[str, float | str] = dict(parse_key_values(threshold, "--threshold"))
        config = ComparisonConfig(
            metrics=metric or None,
            alpha=alpha,
            gates=gate,  # type: ignore[arg-type]
            gate=gate_on,  # type: ignore[arg-type]
            thresholds=thresholds,
            primary=primary or None,
            must_pass_categories=must_pass_category,
            multiplicity=multiplicity,
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc).splitlines()[-1].strip()) from exc
    try:
        if Path(baseline).is_file() and Path(candidate).is_file():
            if judge is not None:
                raise ValueError("--judge needs the coordinator: compare experiments, not exported files")
            report = compare_runs(_load_file(Path(baseline)), _load_file(Path(candidate)), config)
        else:
            client = connect()
            ids = (
                resolve_experiment(client, baseline, completed=True),
                resolve_experiment(client, candidate, completed=True),
            )
            options: dict[str, Any] = {
                "metrics": metric or None,
                "alpha": alpha,
                "gates": gate,
                "gate": config.gate,
                "thresholds": config.thresholds,
                "primary": config.primary,
                "must_pass_categories": config.must_pass_categories,
                "multiplicity": config.multiplicity,
            }
            if judge is None:
                report = client.compare(*ids, **options).report
            else:
                spec = PairwiseJudgeSpec(criteria=judge, judge_model=judge_model, judge_cache=judge_cache)
                judged = compare_judged(client, err, *ids, spec, **options)
                if judged.judging is not None and judged.judging.status == "failed":
                    raise ValueError(f"the pairwise judging failed: {judged.judging.error}")
                report = judged.report
    except (ApiError, ValueError) as exc:
        raise fail(exc) from exc
    if format == "json":
        print(report.model_dump_json(indent=2))
    elif format == "md":
        print(comparison_markdown(report))
    elif format == "junit":
        print(comparison_junit(report))
    else:
        stdout_console().print(comparison_view(report))
        if report.pairwise is not None:
            stdout_console().print("\n".join(pairwise_lines(report.pairwise)).strip())
    if not report.gates_passed or (fail_on_regression and report.regression):
        raise typer.Exit(1)
    if fail_on_regression and report.inconclusive:
        err.print(
            f"[bold yellow]inconclusive[/bold yellow]: too few items to detect any change in "
            f"{', '.join(report.underpowered)}; exit 3"
        )
        raise typer.Exit(3)
