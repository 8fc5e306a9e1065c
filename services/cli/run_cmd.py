"""`yardstick run`: start an experiment, follow it live, print the summary, what went wrong (and the
comparison).

Exit codes: 0 ok; 1 a gate missed or a regression (with ``--fail-on-regression``); 2 a usage error
(bad option, refused request); 3 the run itself went wrong: it failed or was cancelled, more items
errored than ``--max-error-rate`` allows, or a metric measured nothing; or, with
``--fail-on-regression``, the comparison had too few items to detect any change in some metric."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail
from services.cli.failures_view import failures_view, gates_view, warnings_view
from services.cli.key_values import parse_key_values
from services.cli.progress_view import follow, summary_table
from services.cli.target_options import TargetOptionError, build_target

if TYPE_CHECKING:
    from yardstick.client import Client

err = stderr_console()


def start_and_follow(
    client: Client, body: dict[str, Any], console: Console, quiet: bool = False
) -> dict[str, Any]:
    """Start the experiment ``body`` describes (the fields of ``POST /experiments``), follow it to
    its end (with a live progress bar unless ``quiet``); the finished experiment as the API's JSON."""
    accepted = client.start_experiment(**body)
    experiment_id = accepted.id
    if not quiet:
        console.print(f"experiment [bold]{experiment_id}[/bold]: {accepted.total} tasks")
    for warning in accepted.warnings:
        console.print(f"[yellow]⚠ {warning}[/yellow]")
    try:
        done = follow(client, experiment_id, console) if not quiet else client.wait(experiment_id)
        return done.model_dump(mode="json")
    except KeyboardInterrupt:
        console.print(
            f"\n[yellow]detached[/yellow]: experiment {experiment_id} keeps running on the stack; "
            f"`yardstick cancel {experiment_id}` stops it, `yardstick report {experiment_id}` shows it"
        )
        raise typer.Exit(130) from None


def print_comparison(
    client: Client, experiment: dict[str, Any], console: Console, compact: bool = False
) -> bool:
    """Print the run's comparison with its baseline, if any (``compact``: per-category rows only
    where one regressed or improved); whether it was inconclusive (too few items to detect any change
    in some metric)."""
    if experiment.get("comparison_id"):
        comparison = client.get_comparison(experiment["comparison_id"])
        from services.cli.comparison_view import comparison_view  # deferred: SciPy

        stdout_console().print(comparison_view(comparison.report, compact=compact))
        return comparison.report.inconclusive
    return False


def run_command(
    dataset: str = typer.Option(..., "--dataset", "-d", help="Dataset name (push it first)"),
    target: str = typer.Option(
        "agent", "--target", "-t", help="agent | search | answer | http | python (--set name=NAME)"
    ),
    set_: list[str] = typer.Option([], "--set", help="Target setting, dotted.key=value (repeatable)"),
    name: str = typer.Option(..., "--name", "-n", help="Experiment name (baselines are found by name)"),
    concurrency: int = typer.Option(10, "--concurrency", "-c", help="Tasks in flight"),
    repetitions: int = typer.Option(1, help="Trials per item"),
    evaluator: list[str] = typer.Option(
        [], "--evaluator", "-e", help="NAME[:JSON_ARGS]; default per dataset"
    ),
    baseline: str | None = typer.Option(
        None, help="Baseline experiment id, or name of its latest completed run"
    ),
    version: int | None = typer.Option(None, help="Dataset version (default latest)"),
    timeout: float = typer.Option(30.0, help="Per-item timeout in seconds"),
    filter_: list[str] = typer.Option([], "--filter", help="metadata key=value (repeatable)"),
    case: list[str] = typer.Option([], "--case", help="Only this item id (repeatable): rerun one case"),
    pass_: list[str] = typer.Option(
        [],
        "--pass",
        help="Override a metric's pass criterion: 'ndcg@10>=0.7', 'hallucination_rate<=0.1', "
        "'precision@10=informational' (repeatable)",
    ),
    gate: list[str] = typer.Option(
        [], "--gate", help="Absolute gate on the run's mean: 'order_correctness>=0.9' (repeatable; exit 1)"
    ),
    max_error_rate: float = typer.Option(
        0.0, min=0.0, max=1.0, help="Share of items allowed to error; above it the run exits 3"
    ),
    cache_ttl: float | None = typer.Option(
        None,
        "--cache-ttl",
        min=0.001,
        help="Reuse target outputs cached by earlier runs of the same target and items, at most this "
        "many seconds old (and cache this run's); default: off",
    ),
    max_cost: float | None = typer.Option(
        None,
        "--max-cost",
        min=0.0,
        help="Budget in the LLM_PRICES currency: stop dispatching once the recorded spend reaches it "
        "(the run ends budget_exhausted with what it finished; exit 3)",
    ),
    judge_cache: bool = typer.Option(
        True,
        "--judge-cache/--no-judge-cache",
        help="Reuse LLM judges' verdicts from the project's judge cache (default); --no-judge-cache: "
        "every judge asks its model",
    ),
    interleave: bool = typer.Option(
        False,
        "--interleave",
        help="With --baseline: run the baseline's configuration again beside this run, both in the "
        "same minutes, and compare with that run (latency then compares fairly)",
    ),
    primary: list[str] = typer.Option(
        [],
        "--primary",
        help="A metric that gates the comparison with --baseline (repeatable); default: those the "
        "evaluators declare primary",
    ),
    must_pass_category: list[str] = typer.Option(
        [],
        "--must-pass-category",
        help="Items of this category are must-pass in the comparison (repeatable), besides the items "
        "the dataset marks must_pass",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the finished experiment as JSON (for scripts)"),
    fail_on_regression: bool = typer.Option(
        False,
        help="Exit 1 when the comparison with --baseline fails: a must-pass item broke, a primary metric "
        "regressed, or a gate was missed",
    ),
) -> None:
    """Run a dataset through a target with live progress; end with the summary table."""
    try:
        body: dict[str, Any] = {
            "name": name,
            "dataset": dataset,
            "dataset_version": version,
            "target": build_target(target, set_),
            "concurrency": concurrency,
            "repetitions": repetitions,
            "timeout_s": timeout,
            "item_filter": parse_key_values(filter_, "--filter"),
            "item_ids": case,
            "pass_criteria": parse_pass_criteria(pass_),
            "max_error_rate": max_error_rate,
            "gates": gate,
            "must_pass_categories": must_pass_category,
            "interleave": interleave,
        }
        if primary:
            body["primary_metrics"] = primary
        if evaluator:
            body["evaluators"] = evaluator
        if cache_ttl is not None:
            body["cache"] = {"ttl_s": cache_ttl}
        if max_cost is not None:
            body["max_cost"] = max_cost
        if not judge_cache:
            body["judge_cache"] = False
        if baseline:
            body["baseline_id" if len(baseline) == 36 and baseline.count("-") == 4 else "baseline_name"] = (
                baseline
            )
        client = connect()
        experiment = start_and_follow(client, body, err, quiet=as_json)
    except (ApiError, TargetOptionError, ValueError) as exc:
        raise fail(exc) from exc
    inconclusive = False
    if as_json:
        print(json.dumps(experiment, indent=2))
        if fail_on_regression and experiment.get("comparison_id"):
            inconclusive = client.get_comparison(experiment["comparison_id"]).report.inconclusive
    else:
        stdout_console().print(summary_table(experiment))
        print_failures(client, experiment, err)
        inconclusive = print_comparison(client, experiment, err)
    raise typer.Exit(exit_code(experiment, fail_on_regression, inconclusive))


def print_failures(client: Client, experiment: dict[str, Any], console: Console) -> None:
    """Gates, warnings, then target errors grouped by message and the worst failing scores."""
    if (gates := gates_view((experiment.get("aggregates") or {}).get("gates") or [])) is not None:
        console.print(gates)
    if (warnings := warnings_view(experiment.get("aggregates"))) is not None:
        console.print(warnings)
    failures = client.failures(experiment["id"], limit=10).model_dump(mode="json")
    if (view := failures_view(failures)) is not None:
        console.print(view)
        console.print(
            f"all items: `yardstick items {experiment['id']}` (--errors, --failing METRIC); "
            f"full report: `yardstick report {experiment['id']}`"
        )


def exit_code(experiment: dict[str, Any], fail_on_regression: bool, inconclusive: bool = False) -> int:
    """3 when the run went wrong (failed, cancelled, stopped by its budget, warnings) or, with
    ``fail_on_regression``, its comparison could not have detected any change in some metric; 1 for a
    regression that counts."""
    if experiment["status"] == "budget_exhausted":
        err.print(
            "[bold yellow]budget exhausted[/bold yellow]: the run stopped dispatching at its --max-cost; "
            f"what it finished is scored above. {experiment.get('error') or ''}"
        )
        return 3
    if experiment["status"] != "completed":
        err.print(f"[red]experiment {experiment['status']}[/red]: {experiment.get('error') or ''}")
        return 3
    aggregates = experiment.get("aggregates") or {}
    if aggregates.get("warnings"):
        return 3
    if any(not g["passed"] for g in aggregates.get("gates") or []):
        return 1
    if fail_on_regression and experiment.get("regression"):
        return 1
    if fail_on_regression and inconclusive:
        err.print("[bold yellow]inconclusive[/bold yellow]: too few items to detect any change; exit 3")
        return 3
    return 0


def parse_pass_criteria(options: list[str]) -> dict[str, str]:
    """``["ndcg@10>=0.7", "precision@10=informational"]`` → ``{"ndcg@10": ">=0.7", …}``
    (the criterion itself is checked by the API, which names what is wrong)."""
    criteria: dict[str, str] = {}
    for option in options:
        for op in (">=", "<=", "="):
            metric, sep, rest = option.partition(op)
            if sep:
                break
        if not sep or not metric.strip():
            raise typer.BadParameter(f"--pass {option!r}: use METRIC>=X, METRIC<=X or METRIC=informational")
        criteria[metric.strip()] = rest.strip() if op == "=" else f"{op}{rest.strip()}"
    return criteria
