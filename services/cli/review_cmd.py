"""`yardstick review create|alert|list|label|dataset`: review queues from the terminal.

``review label`` is the keyboard reviewer for binary, ordinal and categorical fields: it shows each
item (the evaluators' scores only after you labelled, when the queue hides them), asks each field
in turn, saves the label at once and moves on; ``s`` skips an item, ``q`` stops."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import typer
from rich.panel import Panel
from rich.table import Table

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail
from yardstick.api.review import LabelValue, QueueOut, ReviewItemOut, Rubric, RubricField

app = typer.Typer(help="Review queues: people label items; labels become human scores.")
out = stdout_console()
err = stderr_console()


class Skip(Exception):
    """The reviewer skipped the item."""


class Quit(Exception):
    """The reviewer stopped."""


def parse_field(spec: str) -> dict[str, Any]:
    """``correct:binary``, ``helpfulness:ordinal:1-5``, ``tone:categorical:ok|rude``, ``note:text``."""
    parts = spec.split(":", 2)
    if len(parts) < 2:
        raise typer.BadParameter(
            f"{spec!r}: use NAME:KIND[:DETAIL], e.g. correct:binary", param_hint="--field"
        )
    field: dict[str, Any] = {"name": parts[0], "kind": parts[1]}
    if parts[1] == "ordinal":
        try:
            low, high = (int(v) for v in parts[2].split("-"))
        except (IndexError, ValueError):
            raise typer.BadParameter(
                f"{spec!r}: an ordinal field needs a scale, e.g. 1-5", param_hint="--field"
            ) from None
        field["scale"] = [low, high]
    elif parts[1] == "categorical":
        field["options"] = parts[2].split("|") if len(parts) > 2 else []
    elif parts[1] == "text":
        field["required"] = False
    return field


def _window_and_score(since: str | None, below: str | None) -> dict[str, Any]:
    """``--since`` (a duration back from now) and ``--below EVALUATOR=VALUE`` as source fields."""
    fields: dict[str, Any] = {}
    if since:
        from yardstick.api.durations import InvalidDuration, parse_duration

        try:
            fields["since"] = (datetime.now(UTC) - parse_duration(since)).isoformat()
        except InvalidDuration as exc:
            raise typer.BadParameter(str(exc), param_hint="--since") from exc
    if below:
        name, _, value = below.partition("=")
        try:
            fields["evaluator"], fields["below"] = name, float(value)
        except ValueError:
            raise typer.BadParameter(
                "use EVALUATOR=VALUE, e.g. no_hallucinated_items=1", param_hint="--below"
            ) from None
    return fields


def _source(
    experiment: str | None,
    traces: str | None,
    failing: str | None,
    category: str | None,
    since: str | None,
    model: str | None,
    below: str | None,
    alert: str | None,
    errors: bool,
) -> dict[str, Any]:
    if (experiment is None) == (traces is None):
        raise typer.BadParameter(
            "give one of --experiment ID, or --traces APPLICATION for an application's sampled traces "
            "(with --alert ID: the window of that drift alert)"
        )
    if errors and traces is None:
        raise typer.BadParameter("--errors selects traces: use it with --traces APPLICATION")
    if experiment is not None:
        return {"kind": "experiment", "experiment_id": experiment, "failing": failing, "category": category}
    filters = {"model": model, "alert_id": alert, **_window_and_score(since, below)}
    return {"kind": "traces", "application": traces, "errors_only": errors, **filters}


def _made(queue: QueueOut) -> None:
    err.print(
        f"queue [bold]{queue.name}[/bold]: {queue.items} items; "
        f"label them: yardstick review label {queue.name}"
    )


@app.command()
def create(
    name: str = typer.Argument(..., help="The queue's name"),
    field: list[str] = typer.Option(
        ..., "--field", help="NAME:binary | NAME:ordinal:1-5 | NAME:categorical:a|b | NAME:text (repeat)"
    ),
    experiment: str | None = typer.Option(None, help="Review this experiment's items"),
    traces: str | None = typer.Option(
        None, "--traces", help="Review this application's sampled traces (its service.name)"
    ),
    failing: str | None = typer.Option(None, help="Experiment: only items failing this metric"),
    category: str | None = typer.Option(None, help="Experiment: only items of this category"),
    since: str | None = typer.Option(None, help="Traces: the last 24h, 7d, …"),
    model: str | None = typer.Option(None, help="Traces: only this model"),
    below: str | None = typer.Option(None, help="Traces: EVALUATOR=VALUE, scored below it"),
    alert: str | None = typer.Option(None, help="Traces: the window of this drift alert"),
    errors: bool = typer.Option(False, "--errors", help="Traces: only traces with an error"),
    sample: int | None = typer.Option(None, help="A random sample of this many items"),
    seed: int = typer.Option(0, help="The sample's seed"),
    reviewers: int = typer.Option(1, help="Reviewers per item (2: agreement between people)"),
    show_scores: bool = typer.Option(
        False, "--show-scores", help="Show the evaluators' scores before labelling"
    ),
    instructions: str = typer.Option("", help="What reviewers look for, in words"),
    assign: list[str] | None = typer.Option(
        None, help="Deal the items to these reviewers, round-robin (repeat)"
    ),
) -> None:
    """Make a review queue; then `yardstick review label NAME`."""
    source = _source(experiment, traces, failing, category, since, model, below, alert, errors)
    source |= {"sample": sample, "seed": seed}
    rubric = {"instructions": instructions, "fields": [parse_field(f) for f in field]}
    try:
        queue = connect().review.create(
            name,
            source,
            rubric,
            reviewers_per_item=reviewers,
            hide_scores=not show_scores,
            assign=assign or [],
        )
    except (ApiError, ValueError) as exc:
        raise fail(exc) from exc
    _made(queue)


@app.command("alert")
def from_alert(alert_id: str = typer.Argument(..., help="The drift alert (yardstick online alerts)")) -> None:
    """A queue over a drift alert's window, in one step (its application's traces)."""
    try:
        queue = connect().review.from_alert(alert_id)
    except ApiError as exc:
        raise fail(exc) from exc
    _made(queue)


@app.command("list")
def list_() -> None:
    """The project's review queues and how far along they are."""
    try:
        rows = connect().review.list()
    except ApiError as exc:
        raise fail(exc) from exc
    table = Table("name", "source", "fields", "labelled", "reviewers/item", "created by")
    for q in rows:
        table.add_row(
            q.name,
            q.source.kind,
            ", ".join(f"{f.name} ({f.kind})" for f in q.rubric.fields),
            f"{q.labelled}/{q.items}",
            str(q.reviewers_per_item),
            q.created_by,
        )
    out.print(table)


def _show(item: ReviewItemOut, rubric: Rubric) -> None:
    def block(value: Any) -> str:
        text = json.dumps(value, indent=1, ensure_ascii=False, default=str)
        return text if len(text) < 1500 else text[:1500] + " …"

    title = f"item {item.position}/{item.total}" + (f" · {item.item_id}" if item.item_id else "")
    title += f" · trace {item.trace_id}" if item.trace_id else ""
    out.print(Panel(block(item.input), title=f"{title} · input", title_align="left"))
    out.print(Panel(block(item.output), title="output", title_align="left"))
    if item.expected_output is not None:
        out.print(Panel(block(item.expected_output), title="expected", title_align="left"))
    if rubric.instructions:
        out.print(f"[dim]{rubric.instructions}[/dim]")


def _parser(field: RubricField) -> tuple[str, Callable[[str], LabelValue | None]]:
    """The prompt for a field, and how a typed answer becomes its value (None: not an answer)."""
    if field.kind == "binary":
        return f"{field.name} [y]es/[n]o", {"y": True, "n": False}.get
    if field.kind == "ordinal":
        assert field.scale is not None
        return f"{field.name} {field.scale[0]}-{field.scale[1]}", lambda t: int(t) if t.isdigit() else None
    options = field.options or []

    def option(text: str) -> LabelValue | None:
        return options[int(text) - 1] if text.isdigit() and 1 <= int(text) <= len(options) else None

    return f"{field.name} " + " ".join(f"[{n}] {o}" for n, o in enumerate(options, start=1)), option


def _ask(field: RubricField, read: Callable[[str], str]) -> LabelValue | None:
    if field.kind == "text":
        answer = read(f"{field.name} (text, enter to leave empty)").strip()
        return answer or None
    prompt, parse = _parser(field)
    while True:
        answer = read(f"{prompt} (s skip, q quit)").strip().lower()
        if answer == "s":
            raise Skip
        if answer == "q":
            raise Quit
        value = parse(answer)
        if value is None:
            err.print("[yellow]not an answer for this field[/yellow]")
            continue
        try:
            return field.check(value)
        except ValueError as exc:
            err.print(f"[yellow]{exc}[/yellow]")


@app.command()
def label(
    queue: str = typer.Argument(..., help="The queue's name or id"),
    reviewer: str | None = typer.Option(None, help="Your name (default: the API key's name)"),
) -> None:
    """Label the queue's items one after another from the keyboard."""
    client = connect()

    def read(prompt: str) -> str:
        return str(typer.prompt(prompt, default="", show_default=False))

    try:
        rubric = client.review.get(queue).rubric
        position, done = client.review.next(queue, reviewer=reviewer), 0
        while position is not None:
            item = client.review.item(queue, position, reviewer=reviewer)
            _show(item, rubric)
            try:
                values = {f.name: v for f in rubric.fields if (v := _ask(f, read)) is not None}
            except Skip:
                position = client.review.next(queue, after=position, reviewer=reviewer)
                continue
            client.review.label(queue, position, values, reviewer=reviewer)
            done += 1
            scores = client.review.item(queue, position, reviewer=reviewer).scores or {}
            if scores:
                shown = (f"{k}={'n/a' if v is None else format(v, '.3g')}" for k, v in scores.items())
                out.print("evaluators: " + ", ".join(shown))
            position = client.review.next(queue, after=position, reviewer=reviewer)
    except Quit:
        pass
    except ApiError as exc:
        raise fail(exc) from exc
    err.print(f"{done} labelled; nothing left for you in {queue}" if position is None else f"{done} labelled")


@app.command()
def dataset(
    queue: str = typer.Argument(..., help="The queue's name or id"),
    name: str = typer.Argument(..., help="The dataset to add the reviewed items to"),
) -> None:
    """Add the queue's fully labelled items to a dataset as a new version."""
    try:
        result = connect().review.to_dataset(queue, name)
    except ApiError as exc:
        raise fail(exc) from exc
    err.print(f"dataset {result.dataset} v{result.version}: {result.item_count} items")
