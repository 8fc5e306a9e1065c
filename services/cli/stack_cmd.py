"""`yardstick stack up [--ha]|down|status|restart|promote`.

`up` starts the stack in this folder (``./.yardstick``, or ``$YARDSTICK_HOME``) and records where it
runs in the per-user file (:mod:`yardstick.api.stack_location`); the other commands act on this folder's
stack, else on the one the per-user file names, so they work from any folder.

The launcher (Alembic, SQLAlchemy, nats-py) is imported inside the commands, as the other heavy
modules are across the CLI: every `yardstick` invocation imports every command module, and should
not pay for the ones it does not run.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from services.cli.consoles import stderr_console, stdout_console
from services.cli.key_values import parse_key_values
from services.stack.errors import StackError
from services.stack.state import DEFAULT_STATE_DIR, StackState
from yardstick.api.stack_location import read_location, user_state_file

app = typer.Typer(help="Run the embedded stack (NATS, PostgreSQL, every service) on this machine.")
console = stderr_console()


@app.command()
def up(
    ha: bool = typer.Option(
        False,
        "--ha",
        help="Three NATS nodes in one JetStream cluster (R3 streams) and a PostgreSQL primary with a "
        "streaming standby, all on this machine",
    ),
) -> None:
    """Start NATS + JetStream, PostgreSQL, migrations, streams and every service; wait until healthy."""
    from services.stack import launcher

    with console.status("starting the stack…"):
        try:
            state = launcher.up(DEFAULT_STATE_DIR, ha=ha)
        except StackError as exc:
            console.print(f"[red]stack up failed:[/red] {exc}")
            raise typer.Exit(1) from exc
    console.print(
        f"[green]stack up[/green]: {len(state.processes)} processes, API {state.api_url}, "
        f"OTLP {state.otlp_url} (gRPC {state.otlp_grpc_url}), logs in {DEFAULT_STATE_DIR / 'logs'}"
    )
    _print_status(state)


@app.command()
def down() -> None:
    """Stop everything `stack up` started (by pid) and leave no process behind."""
    from services.stack import launcher

    stopped = launcher.down(_stack_dir())
    console.print(f"stopped: {', '.join(stopped)}" if stopped else "no running stack")


@app.command()
def restart(
    name: str = typer.Argument(..., help="Service label as `stack status` shows it, e.g. agent"),
    env: list[str] | None = typer.Option(None, help="KEY=VALUE added to its environment (repeat)"),
) -> None:
    """Restart one service of the running stack, optionally with changed settings."""
    from services.stack import launcher

    extra = parse_key_values(env, "--env")
    with console.status(f"restarting {name}…"):
        try:
            record = launcher.restart_service(name, extra, _stack_dir())
        except StackError as exc:
            console.print(f"[red]restart failed:[/red] {exc}")
            raise typer.Exit(1) from exc
    console.print(f"[green]{name} restarted[/green]: pid {record.pid}, port {record.port}")


@app.command()
def promote() -> None:
    """Promote the PostgreSQL standby of an HA stack (after its primary failed); services follow."""
    from services.stack.ha_servers import promote_standby

    state = _running_state("yardstick stack up --ha")
    try:
        node = promote_standby(state)
    except StackError as exc:
        console.print(f"[red]promote failed:[/red] {exc}")
        raise typer.Exit(1) from exc
    console.print(f"[green]{node.name} promoted[/green]: primary on port {node.port} ({node.data_dir})")


@app.command()
def status() -> None:
    """Show NATS (JetStream), PostgreSQL (migration revision) and each service's health."""
    if not _print_status(_running_state("yardstick stack up")):
        raise typer.Exit(1)


def _stack_dir() -> Path:
    """This folder's stack (``$YARDSTICK_HOME``'s when set); without one, the folder of the stack the
    per-user file names."""
    user_file = user_state_file()
    if StackState.path(DEFAULT_STATE_DIR).exists() or user_file is None:
        return DEFAULT_STATE_DIR
    try:
        location = read_location(user_file)
    except ValueError:
        return DEFAULT_STATE_DIR
    return Path(location.state_dir) if location is not None else DEFAULT_STATE_DIR


def _running_state(start_with: str) -> StackState:
    state_dir = _stack_dir()
    state = StackState.load(state_dir)
    if state is None:
        looked = [StackState.path(DEFAULT_STATE_DIR).absolute(), user_state_file()]
        places = ", then ".join(str(p) for p in looked if p is not None)
        console.print(f"no stack found (looked at {places}): `{start_with}`")
        raise typer.Exit(1)
    return state


def _print_status(state: StackState) -> bool:
    from services.stack.status import otlp_note, outbound_note, stack_status

    table = Table("component", "health", "pid", "role", "detail", title="Yardstick stack")
    components = stack_status(state)
    for c in components:
        health = "[green]healthy[/green]" if c.healthy else "[red]DOWN[/red]"
        table.add_row(c.name, health, str(c.pid or ""), c.role or "", c.detail)
    stdout_console().print(table)
    stdout_console().print(outbound_note(state))
    if (note := otlp_note(state)) is not None:
        stdout_console().print(note)
    return all(c.healthy for c in components)
