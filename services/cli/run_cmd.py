"""`yardstick run`: start an experiment, follow it live, print the summary (and the comparison)."""

from __future__ import annotations

import json
import time
from typing import Any

import typer
from rich.console import Console

from services.cli.api_client import ApiClient, ApiError
from services.cli.consoles import stderr_console, stdout_console
from services.cli.progress_view import TERMINAL, follow, summary_table
from services.cli.target_options import TargetOptionError, build_target

err = stderr_console()


def start_and_follow(
    client: ApiClient, body: dict[str, Any], console: Console, quiet: bool = False
) -> dict[str, Any]:
    accepted = client.post("/experiments", body)
    experiment_id = accepted["id"]
    if not quiet:
        console.print(f"experiment [bold]{experiment_id}[/bold]: {accepted['total']} tasks")
    try:
        if not quiet:
            return follow(client, experiment_id, console)
        experiment: dict[str, Any] = client.get(f"/experiments/{experiment_id}")
        while experiment["status"] not in TERMINAL:
            time.sleep(0.25)
            experiment = client.get(f"/experiments/{experiment_id}")
        return experiment
    except KeyboardInterrupt:
        console.print(
            f"\n[yellow]detached[/yellow]: experiment {experiment_id} keeps running on the stack; "
            f"`yardstick cancel {experiment_id}` stops it, `yardstick report {experiment_id}` shows it"
        )
        raise typer.Exit(130) from None


def print_comparison(client: ApiClient, experiment: dict[str, Any], console: Console) -> None:
    if experiment.get("comparison_id"):
        body = client.get(f"/comparisons/{experiment['comparison_id']}")
        from services.cli.comparison_view import comparison_view  # deferred: SciPy
        from shared.analysis.comparison_models import ComparisonReport

        stdout_console().print(comparison_view(ComparisonReport.model_validate(body["report"])))


def run_command(
    dataset: str = typer.Option(..., "--dataset", "-d", help="Dataset name (push it first)"),
    target: str = typer.Option("agent", "--target", "-t", help="agent | search | http"),
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
    as_json: bool = typer.Option(False, "--json", help="Print the finished experiment as JSON (for scripts)"),
    fail_on_regression: bool = typer.Option(False, help="Exit 1 when the comparison finds a regression"),
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
            "item_filter": dict(f.split("=", 1) for f in filter_),
        }
        if evaluator:
            body["evaluators"] = evaluator
        if baseline:
            body["baseline_id" if len(baseline) == 36 and baseline.count("-") == 4 else "baseline_name"] = (
                baseline
            )
        client = ApiClient.discover()
        experiment = start_and_follow(client, body, err, quiet=as_json)
    except (ApiError, TargetOptionError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    if as_json:
        print(json.dumps(experiment, indent=2))
    else:
        stdout_console().print(summary_table(experiment))
        print_comparison(client, experiment, err)
    if experiment["status"] != "completed":
        err.print(f"[red]experiment {experiment['status']}[/red]: {experiment.get('error') or ''}")
        raise typer.Exit(1)
    if fail_on_regression and experiment.get("regression"):
        raise typer.Exit(1)
