"""`yardstick demo` (what `make demo` runs): the main job end to end on the embedded stack."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import typer
from rich.rule import Rule

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect
from services.cli.datasets_cmd import push_file
from services.cli.demo_prompts import prompt_loop
from services.cli.progress_view import summary_table
from services.cli.run_cmd import print_comparison, print_failures, start_and_follow
from services.stack.errors import StackError
from services.stack.state import DEFAULT_STATE_DIR, StackState
from shared import shipped_data as shipped

if TYPE_CHECKING:
    from yardstick.client import Client

DRIVE_THRU = shipped.DRIVE_THRU / "order-correctness-v1.yaml"
GOLDEN = shipped.SEARCH / "golden-v1.json"
RAG_GOLDEN = shipped.SEARCH / "rag-golden-v1.json"
RAG_EVALUATORS = ["citation_recall", "hallucination_rate", "entity_recall"]
"""The deterministic RAG evaluators: the judges (the answer target's other defaults) would make the
demo wait on Mistral when a key is set."""
SCENARIOS = shipped.DRIVE_THRU / "trajectory-scenarios-v1.yaml"
CONVERSATIONS = shipped.DRIVE_THRU / "conversations-v1.yaml"

out = stdout_console()
err = stderr_console()


class Runs:
    """Runs the demo's experiments (progress, summary, failures, comparison) and keeps every
    comparison's verdict for the closing summary."""

    def __init__(self) -> None:
        self.verdicts: list[tuple[str, str]] = []

    def __call__(self, client: Client, body: dict[str, Any]) -> dict[str, Any]:
        experiment = start_and_follow(client, body, err)
        out.print(summary_table(experiment))
        print_failures(client, experiment, err)
        print_comparison(client, experiment, err)
        if experiment["status"] != "completed":
            raise RuntimeError(
                f"experiment {experiment['name']} ended {experiment['status']}: {experiment.get('error')}"
            )
        if experiment.get("comparison_id"):
            report = client.get_comparison(experiment["comparison_id"]).report
            self.verdicts.append((experiment["name"], report.headline or report.verdict))
        return experiment

    def last_verdict(self) -> str:
        return self.verdicts[-1][1] if self.verdicts else "no comparison"


def _drive_thru(client: Client, run: Runs) -> None:
    out.print(Rule("Drive-thru agent: baseline vs candidate (two offline-model configurations)"))
    push_file(client, DRIVE_THRU)
    base = {"dataset": "drive-thru/order-correctness-v1", "concurrency": 10}
    baseline = run(
        client,
        base
        | {
            "name": "demo-drive-thru-baseline",
            "target": {"kind": "agent", "model": {"provider": "offline"}},
        },
    )
    run(
        client,
        base
        | {
            "name": "demo-drive-thru-candidate",
            "baseline_id": baseline["id"],
            "target": {
                "kind": "agent",
                "model": {
                    "provider": "offline",
                    "offline": {"ambiguous_policy": "guess_first", "understand_modifiers": False},
                },
            },
        },
    )
    out.print(f"Drive-thru verdict: {run.last_verdict()}")
    out.print(Rule("Drive-thru agent: trajectory scenarios"))
    push_file(client, SCENARIOS, name="drive-thru/trajectory-scenarios-v1")
    run(
        client,
        {
            "name": "demo-trajectories",
            "dataset": "drive-thru/trajectory-scenarios-v1",
            "concurrency": 10,
            "target": {"kind": "agent", "model": {"provider": "offline"}},
        },
    )
    _conversations(client, run)


def _conversations(client: Client, run: Runs) -> None:
    out.print(Rule("Drive-thru agent: multi-turn conversations (each replayed in one thread)"))
    push_file(client, CONVERSATIONS)
    run(
        client,
        {
            "name": "demo-conversations",
            "dataset": "drive-thru/conversations-v1",
            "concurrency": 10,
            "target": {"kind": "agent", "model": {"provider": "offline"}},
        },
    )


def _retrieval(client: Client, run: Runs) -> None:
    if not GOLDEN.exists() or not RAG_GOLDEN.exists():
        err.print(f"(skipping retrieval: {GOLDEN} or {RAG_GOLDEN} not present)")
        return
    out.print(Rule("Retrieval: golden set vs corpus backend, then a candidate that drops 30% of queries"))
    push_file(client, GOLDEN, name="search/golden-v1")
    base = {"dataset": "search/golden-v1", "concurrency": 10}
    baseline = run(client, base | {"name": "demo-search-baseline", "target": {"kind": "search"}})
    run(
        client,
        base
        | {
            "name": "demo-search-degraded",
            "baseline_id": baseline["id"],
            "target": {"kind": "search", "degrade": 0.3},
        },
    )
    out.print(f"Retrieval verdict (degrade=0.3): {run.last_verdict()}")
    _rag(client, run)


def _rag(client: Client, run: Runs) -> None:
    out.print(
        Rule("RAG answers with citations, then a candidate that retrieves nothing for half the questions")
    )
    push_file(client, RAG_GOLDEN, name="search/rag-golden-v1")
    base = {"dataset": "search/rag-golden-v1", "concurrency": 10, "evaluators": RAG_EVALUATORS}
    answer = {"kind": "answer", "answerer": "extractive"}
    baseline = run(client, base | {"name": "demo-rag-baseline", "target": answer})
    run(
        client,
        base
        | {
            "name": "demo-rag-degraded",
            "baseline_id": baseline["id"],
            "target": answer | {"degrade": 0.5},
        },
    )
    out.print(f"RAG verdict (degrade=0.5): {run.last_verdict()}")


def _open_the_ui(client: Client, stack_stays_up: bool) -> None:
    """With the stack left up: a one-time sign-in link to the drive-thru comparison. Otherwise: how
    to see all this in the web UI."""
    if not stack_stays_up:
        out.print(
            "Web UI: `make demo` stops the stack at the end. Run `yardstick demo --keep` to leave it up, "
            "then open the link it prints (or `yardstick ui` for a new one)."
        )
        return
    found = client.list_experiments(name="demo-drive-thru-candidate", limit=1)
    path = "/ui/experiments"
    if found and found[0].baseline_id:
        path = f"/ui/compare?baseline={found[0].baseline_id}&candidate={found[0].id}"
    out.print(f"Web UI (one-time sign-in link, valid a few minutes): {client.sign_in_link(path)}")
    out.print("For another link: yardstick ui [PATH].  Stop the stack: yardstick stack down")


def demo_command(keep: bool = typer.Option(False, help="Leave the stack running afterwards")) -> None:
    """Bring the stack up, push datasets, run baseline + candidate experiments, compare, bring it down."""
    # Deferred (the launcher, the sampler's code): see services/cli/stack_cmd.py.
    from services.cli.demo_online import SAMPLER_ENV, online_demo
    from services.stack import launcher

    existing = StackState.load(DEFAULT_STATE_DIR)
    started_here = existing is None or not existing.alive_processes()
    try:
        if started_here:
            with err.status("starting the embedded stack (NATS, PostgreSQL, services)…"):
                state = launcher.up(DEFAULT_STATE_DIR, extra_env=SAMPLER_ENV)
            err.print(f"stack up: {', '.join(p.name for p in state.processes)}")
        client = connect()
        runs = Runs()
        _drive_thru(client, runs)
        prompts = prompt_loop(client, runs, out, offline=not os.environ.get("MISTRAL_API_KEY"))
        stack = StackState.load(DEFAULT_STATE_DIR)
        if stack is None or not stack.agent_url:
            raise RuntimeError(f"no agent URL in {StackState.path(DEFAULT_STATE_DIR)}")
        online = online_demo(client, stack.agent_url, out, err, own_stack=started_here)
        _retrieval(client, runs)
        out.print(Rule("Summary"))
        for name, verdict in runs.verdicts:
            style = (
                "red"
                if verdict.startswith("FAIL")
                else ("yellow" if verdict.startswith("INCON") else "green")
            )
            out.print(f"[bold]{name}[/bold] vs its baseline: [{style}]{verdict}[/{style}]", highlight=False)
        out.print(f"Prompt loop: {prompts}")
        out.print(f"Production traffic: {online}")
        _open_the_ui(client, keep or not started_here)
    except (StackError, ApiError, RuntimeError) as exc:
        err.print(f"[red]demo failed:[/red] {exc}")
        raise typer.Exit(1) from exc
    finally:
        if started_here and not keep:
            stopped = launcher.down(DEFAULT_STATE_DIR)
            err.print(f"stack down: stopped {len(stopped)} processes")
