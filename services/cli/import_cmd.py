"""`yardstick import promptfoo|openai-evals`: bring another tool's test cases in as a dataset.

Each command reads the file (``shared.datasets.importers``), refuses it with exit 2 listing every
check that has no Yardstick evaluator of the same meaning (``--skip-unsupported`` leaves them out,
each named in a warning), then pushes the dataset as a new version (as ``yardstick datasets push``
does) or, with ``--out``, writes it as a dataset YAML without a server. Last, it prints the
``yardstick run`` command that runs the dataset with its checks (``-e item_checks``).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

import typer
import yaml

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail
from services.cli.target_options import TargetOptionError, build_target
from shared.datasets.files import DatasetFileError
from shared.datasets.importers import Imported, import_openai_evals, import_promptfoo

if TYPE_CHECKING:
    from shared.datasets.importers.openai_evals import EvalClass

app = typer.Typer(help="Import test cases from other tools as datasets: promptfoo, OpenAI Evals.")
err = stderr_console()

TARGET_HELP = "The target the printed run command names (agent | search | answer | http | python)"
SET_HELP = "A target setting for the printed run command, dotted.key=value (repeatable)"
PLACEHOLDER_SETS = {"python": ["name=YOUR_TASK"], "http": ["url=https://YOUR_APP/answer"]}
"""Shown when no --set is given: the setting the user must fill in for these targets."""

OUT_OPTION = typer.Option(None, "--out", help="Write the dataset YAML here instead of pushing it")
SKIP_OPTION = typer.Option(
    False, "--skip-unsupported", help="Import without the checks Yardstick cannot express (each listed)"
)
TARGET_OPTION = typer.Option("python", "--target", "-t", help=TARGET_HELP)
SET_OPTION = typer.Option([], "--set", help=SET_HELP)
FIELD_OPTION = typer.Option(
    None, "--output-field", help="Where the answer is in your target's output (dotted path)"
)


def run_command(imported: Imported, target: str, sets: list[str], output_field: str | None) -> str:
    """The ``yardstick run`` command line that runs the imported dataset with its checks."""
    name = imported.dataset.name
    spec = imported.evaluator(output_field)
    evaluator = spec.name if not spec.args else f"{spec.name}:{_json(spec.args)}"
    words = ["yardstick", "run", "--dataset", name, "--name", name, "--target", target]
    for setting in sets or PLACEHOLDER_SETS.get(target, []):
        words += ["--set", setting]
    return shlex.join([*words, "--evaluator", evaluator])


def _json(args: dict[str, object]) -> str:
    return json.dumps(args, separators=(",", ":"))


def _refuse_or_warn(imported: Imported, skip_unsupported: bool) -> None:
    if not imported.unsupported:
        return
    lines = "\n".join(f"  - {u.describe()}" for u in imported.unsupported)
    if not skip_unsupported:
        err.print(
            f"[red]error:[/red] {len(imported.unsupported)} check(s) have no Yardstick evaluator of the same "
            f"meaning, so importing would lose them:\n{lines}\n"
            "Rewrite them as supported assertions, or pass --skip-unsupported to import without them.",
            highlight=False,
        )
        raise typer.Exit(2)
    err.print(f"[yellow]⚠ left out ({len(imported.unsupported)}):[/yellow]\n{lines}", highlight=False)


def finish(
    read: Callable[[], Imported],
    source: Path,
    *,
    out: Path | None,
    skip_unsupported: bool,
    target: str,
    sets: list[str],
    output_field: str | None,
) -> None:
    """Refuse or warn about unsupported checks, store the dataset (or write ``out``), print the run
    command. ``read`` makes the import (its bad input exits 2, as a misspelt --target or --set does)."""
    try:
        build_target(target, sets or PLACEHOLDER_SETS.get(target, []))
        imported = read()
    except (DatasetFileError, TargetOptionError) as exc:
        raise fail(exc) from exc
    _refuse_or_warn(imported, skip_unsupported)
    for warning in imported.warnings:
        err.print(f"[yellow]⚠ {warning}[/yellow]", highlight=False)
    dataset = imported.dataset
    if out is not None:
        document = dataset.model_dump(mode="json", exclude={"metadata"})
        try:
            out.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True), encoding="utf-8")
        except OSError as exc:
            raise fail(ValueError(f"{out}: cannot write it ({exc.strerror})")) from exc
        err.print(f"{out}: [bold]{dataset.name}[/bold] ({len(dataset.items)} items); push it with:")
        stdout_console().print(shlex.join(["yardstick", "datasets", "push", str(out)]), highlight=False)
    else:
        try:
            result = connect().push_dataset(
                dataset.name,
                dataset.items,
                kind=dataset.kind,
                description=dataset.description,
                source=f"import:{source.name}",
            )
        except ApiError as exc:
            raise fail(exc) from exc
        verb = "new version" if result.created_new_version else "unchanged"
        err.print(
            f"{source}: [bold]{result.dataset}[/bold] v{result.version} ({verb}; {result.item_count} items)"
        )
    if imported.uses_judge:
        err.print(
            "llm_rubric checks need a judge model on the eval workers (JUDGE_PROVIDER / JUDGE_MODEL, or "
            "MISTRAL_API_KEY / OPENAI_API_KEY); without one they are recorded as skipped"
        )
    err.print("run it with (your application as the target):")
    stdout_console().print(run_command(imported, target, sets, output_field), highlight=False, soft_wrap=True)


@app.command("promptfoo")
def promptfoo_command(
    config: Path = typer.Argument(..., help="The promptfoo config (promptfooconfig.yaml)"),
    name: str | None = typer.Option(None, help="Dataset name (default: the config's description, as a slug)"),
    out: Path | None = OUT_OPTION,
    skip_unsupported: bool = SKIP_OPTION,
    target: str = TARGET_OPTION,
    set_: list[str] = SET_OPTION,
    output_field: str | None = FIELD_OPTION,
) -> None:
    """Import a promptfoo config's tests (vars → input, assertions → checks) as a dataset version."""
    finish(
        lambda: import_promptfoo(config, name),
        config,
        out=out,
        skip_unsupported=skip_unsupported,
        target=target,
        sets=set_,
        output_field=output_field,
    )


@app.command("openai-evals")
def openai_evals_command(
    file: Path = typer.Argument(
        ..., help="Samples .jsonl, a registry eval .yaml, or an Evals API data .jsonl"
    ),
    name: str | None = typer.Option(None, help="Dataset name (default: from the file's name)"),
    eval_class: str | None = typer.Option(
        None,
        "--eval-class",
        help="How samples are checked: match | includes | fuzzy_match (default: the registry's, else match)",
    ),
    eval_name: str | None = typer.Option(None, "--eval", help="With a registry .yaml: the eval to import"),
    criteria: Path | None = typer.Option(
        None,
        "--criteria",
        help="With an Evals API data file: the eval object (JSON) with its testing_criteria",
    ),
    out: Path | None = OUT_OPTION,
    skip_unsupported: bool = SKIP_OPTION,
    target: str = TARGET_OPTION,
    set_: list[str] = SET_OPTION,
    output_field: str | None = FIELD_OPTION,
) -> None:
    """Import OpenAI Evals samples (Match / Includes / FuzzyMatch) or an Evals API export as a dataset
    version."""
    if eval_class not in (None, "match", "includes", "fuzzy_match"):
        raise fail(ValueError(f"--eval-class {eval_class!r}: use match, includes or fuzzy_match"))
    chosen = cast("EvalClass | None", eval_class)
    finish(
        lambda: import_openai_evals(file, name, chosen, eval_name, criteria),
        file,
        out=out,
        skip_unsupported=skip_unsupported,
        target=target,
        sets=set_,
        output_field=output_field,
    )
