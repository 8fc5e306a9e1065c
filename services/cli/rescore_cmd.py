"""`yardstick rescore ID -e ...`: score a finished experiment's stored outputs again (no target
call), follow it live, print the summary; the new experiment pairs with its source in `compare`.

Exit codes as `yardstick run`: 0 ok, 1 a gate missed, 2 a usage error or refused request, 3 the
run went wrong."""

from __future__ import annotations

import json
from typing import Any

import typer

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail
from services.cli.experiment_refs import resolve_experiment
from services.cli.progress_view import follow, summary_table
from services.cli.run_cmd import exit_code, print_failures
from yardstick.api.evaluation import EvaluatorSpec


def rescore_body(evaluators: list[str], run_evaluators: list[str], name: str | None) -> dict[str, Any]:
    """The request: each ``NAME[:JSON_ARGS]`` parsed here, so a typo is a usage error (exit 2)."""
    body: dict[str, Any] = {}
    if evaluators:
        body["evaluators"] = [EvaluatorSpec.parse(e) for e in evaluators]
    if run_evaluators:
        body["run_evaluators"] = [EvaluatorSpec.parse(e) for e in run_evaluators]
    if name:
        body["name"] = name
    return body


def rescore_command(
    experiment: str = typer.Argument(..., help="Source experiment id or name (its newest run)"),
    evaluator: list[str] = typer.Option(
        [], "--evaluator", "-e", help="NAME[:JSON_ARGS] (repeatable); default: the source's"
    ),
    run_evaluator: list[str] = typer.Option(
        [], "--run-evaluator", help="Run-level NAME[:JSON_ARGS] (repeatable); default: the source's"
    ),
    name: str | None = typer.Option(None, "--name", "-n", help="Default: '<source name>-rescored'"),
    judge_cache: bool = typer.Option(
        True,
        "--judge-cache/--no-judge-cache",
        help="Reuse LLM judges' verdicts from the judge cache (default); --no-judge-cache asks again",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the finished experiment as JSON"),
) -> None:
    """Score a finished experiment's outputs with other (or updated) evaluators, calling no target."""
    err = stderr_console()
    try:
        body = rescore_body(evaluator, run_evaluator, name)
        client = connect()
        source_id = resolve_experiment(client, experiment)
        accepted = client.rescore(source_id, **body, judge_cache=judge_cache)
        if not as_json:
            err.print(f"experiment [bold]{accepted.id}[/bold] re-scores {source_id}: {accepted.total} items")
        for warning in accepted.warnings:
            err.print(f"[yellow]⚠ {warning}[/yellow]")
        finished = follow(client, accepted.id, err) if not as_json else client.wait(accepted.id)
        done = finished.model_dump(mode="json")
    except (ApiError, ValueError) as exc:
        raise fail(exc) from exc
    if as_json:
        print(json.dumps(done, indent=2))
    else:
        stdout_console().print(summary_table(done))
        print_failures(client, done, err)
        err.print(f"compare with its source: `yardstick compare {source_id} {done['id']}`")
    raise typer.Exit(exit_code(done, fail_on_regression=False))
