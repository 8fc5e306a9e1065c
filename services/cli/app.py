"""The `yardstick` command line: wiring only; each command lives in its own module."""

from __future__ import annotations

import typer

from services.cli import (
    datasets_cmd,
    experiments_cmd,
    import_cmd,
    keys_cmd,
    online_cmd,
    projects_cmd,
    prompts_cmd,
    review_cmd,
    stack_cmd,
    traces_cmd,
    traffic_cmd,
)
from services.cli.audit_cmd import audit_command
from services.cli.backfill_cmd import backfill_command
from services.cli.calibrate_cmd import calibrate_command
from services.cli.cancel_cmd import cancel_command
from services.cli.compare_cmd import compare_command
from services.cli.coordinator import use_project
from services.cli.demo_cmd import demo_command
from services.cli.generate_retrieval import generate_retrieval_command
from services.cli.plan_cmd import plan_command
from services.cli.report_cmd import report_command
from services.cli.rescore_cmd import rescore_command
from services.cli.run_cmd import run_command
from services.cli.score import score_command
from services.cli.ui_cmd import ui_command
from services.cli.worker_cmd import worker_command

app = typer.Typer(
    name="yardstick",
    help="Self-hosted evaluation for LLM agents and retrieval systems.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback()
def _options(
    project: str | None = typer.Option(
        None,
        "--project",
        envvar="YARDSTICK_PROJECT",
        help="The project to act in (default: the API key's own; only an owner key may name another)",
    ),
) -> None:
    use_project(project)


app.add_typer(stack_cmd.app, name="stack")
app.add_typer(projects_cmd.app, name="projects")
app.add_typer(datasets_cmd.app, name="datasets")
app.add_typer(experiments_cmd.app, name="experiments")
app.add_typer(prompts_cmd.app, name="prompts")
app.add_typer(keys_cmd.app, name="keys")
app.add_typer(traffic_cmd.app, name="traffic")
app.add_typer(online_cmd.app, name="online")
app.add_typer(traces_cmd.app, name="traces")
app.add_typer(review_cmd.app, name="review")
app.add_typer(import_cmd.app, name="import")
datasets_cmd.app.command("generate-retrieval")(generate_retrieval_command)
app.command("run")(run_command)
app.command("rescore")(rescore_command)
online_cmd.app.command("backfill")(backfill_command)
app.command("cancel")(cancel_command)
app.command("compare")(compare_command)
app.command("plan")(plan_command)
app.command("report")(report_command)
app.command("items")(experiments_cmd.items_command)
app.command("score")(score_command)
app.command("demo")(demo_command)
app.command("ui")(ui_command)
app.command("audit")(audit_command)
app.command("calibrate")(calibrate_command)
app.command("worker")(worker_command)


def main() -> None:
    app()
