"""`yardstick plan RUN METRIC --drop X`: how many items a comparison needs to detect that change."""

from __future__ import annotations

import typer

from services.cli.consoles import stdout_console
from services.cli.coordinator import ApiError, connect, fail
from services.cli.experiment_refs import resolve_experiment


def plan_command(
    experiment: str = typer.Argument(
        ..., help="A completed run: experiment id or name (its newest completed run)"
    ),
    metric: str = typer.Argument(..., help="The metric, e.g. order_correctness"),
    drop: float = typer.Option(..., "--drop", min=0.0, help="The change to detect, in the metric's units"),
    alpha: float = typer.Option(0.05, min=0.0001, max=0.5, help="Family-wise significance level"),
    power: float = typer.Option(0.8, min=0.5, max=0.99, help="Probability of detecting the change"),
    metrics_compared: int | None = typer.Option(
        None,
        "--metrics-compared",
        min=1,
        help="Metrics in the Holm family (default: the run's, + error_rate)",
    ),
    correlation: float = typer.Option(
        0.5, min=-1.0, max=0.99, help="Assumed correlation between two runs' scores of an item"
    ),
) -> None:
    """How many paired items a comparison needs to detect a change of METRIC (from this run's spread,
    or pass rate for 0/1 scores), and what the run's own size can detect."""
    from shared.analysis import planned_and_measured

    try:
        client = connect()
        experiment_id = resolve_experiment(client, experiment, completed=True)
        plan = client.plan(
            experiment_id,
            metric,
            drop,
            alpha=alpha,
            power=power,
            family_size=metrics_compared,
            correlation=correlation,
        )
        comparison_id = client.get_experiment(experiment_id).comparison_id
        report = None if comparison_id is None else client.get_comparison(comparison_id).report
    except (ApiError, ValueError) as exc:
        raise fail(exc) from exc
    noise = (
        f"pass rate {plan.baseline_mean:.3f}, churn {plan.noise:.3g}"
        if plan.test == "mcnemar_exact"
        else f"SD {plan.baseline_sd:.3g}, SD of differences {plan.noise:.3g}"
    )
    out = stdout_console()
    out.print(
        f"[bold]{plan.pairs_needed}[/bold] paired items detect a change of {plan.drop:g} in {plan.metric} "
        f"with {plan.power:.0%} power at alpha {plan.alpha:g} / {plan.family_size} metrics "
        f"= {plan.level:.3g} "
        f"({plan.test.replace('_', ' ')}; {noise}; correlation between runs {plan.correlation:g})"
    )
    measured = None if report is None else next((r for r in report.metrics if r.metric == metric), None)
    out.print(f"with this run's {plan.items_now} items a comparison detects:")
    for line in planned_and_measured(plan, measured, "" if report is None else report.baseline_name):
        out.print(f"  {line}", highlight=False)
