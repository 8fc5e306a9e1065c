"""`yardstick demo` (what `make demo` runs): the main job end to end on the embedded stack.

Each step reads in about one screen and ends with the command that shows its full detail: a
comparison's per-category rows appear only where a category regressed or improved, and the
sentences every metric's reason would repeat are printed once. The closing summary has one line per
step: every comparison's verdict, a lone run's pass rate, the prompt loop and the online traffic."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import typer
from rich.rule import Rule

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect
from services.cli.datasets_cmd import push_file
from services.cli.demo_prompts import prompt_loop
from services.cli.progress_view import summary_line
from services.cli.run_cmd import print_comparison, start_and_follow
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
    """Runs the demo's experiments (progress, one summary line, compact comparison) and keeps each
    one's outcome for the closing summary: a comparison's verdict, else the run's pass rate."""

    def __init__(self) -> None:
        self.outcomes: list[tuple[str, str, str]] = []  # (experiment id, what, outcome)
        self.baselines: set[str] = set()  # ids
        self.last: dict[str, Any] = {}

    def __call__(self, client: Client, body: dict[str, Any]) -> dict[str, Any]:
        experiment = start_and_follow(client, body, err)
        out.print(summary_line(experiment))
        print_comparison(client, experiment, err, compact=True)
        if experiment["status"] != "completed":
            raise RuntimeError(
                f"experiment {experiment['name']} ended {experiment['status']}: {experiment.get('error')}"
            )
        self.last = experiment
        if experiment.get("comparison_id"):
            report = client.get_comparison(experiment["comparison_id"]).report
            self.baselines |= {report.baseline_id, experiment.get("baseline_id") or ""}
            what = f"{experiment['name']} vs its baseline"
            self.outcomes.append((experiment["id"], what, report.headline or report.verdict))
        else:
            rate = (experiment.get("aggregates") or {}).get("pass_rate")
            shown = "-" if rate is None else f"{rate:.3f}"
            outcome = f"pass rate {shown} on {experiment['progress']['total']} items"
            self.outcomes.append((experiment["id"], experiment["name"], outcome))
        return experiment

    def detail(self, client: Client) -> None:
        """End a step with where its full detail is: the last run's comparison in the browser (the
        compact view named the command), else the run's report."""
        experiment = self.last
        if experiment.get("comparison_id"):
            report = client.get_comparison(experiment["comparison_id"]).report
            base, cand = report.baseline_name, report.candidate_name
            out.print(
                f"in the browser: `yardstick ui '/ui/compare?baseline={base}&candidate={cand}'`",
                highlight=False,
            )
        else:
            out.print(f"full detail: `yardstick report {experiment['name']}`", highlight=False)

    def summary(self) -> list[tuple[str, str]]:
        """Every outcome but the baselines' own pass rates (their comparison says it)."""
        return [(what, outcome) for run_id, what, outcome in self.outcomes if run_id not in self.baselines]


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
    run.detail(client)
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
    run.detail(client)
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
    run.detail(client)


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
    run.detail(client)
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
    run.detail(client)


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
        runs.detail(client)
        stack = StackState.load(DEFAULT_STATE_DIR)
        if stack is None or not stack.agent_url:
            raise RuntimeError(f"no agent URL in {StackState.path(DEFAULT_STATE_DIR)}")
        online = online_demo(client, stack.agent_url, out, err, own_stack=started_here)
        out.print(
            "full detail: `yardstick online metrics --window 15m --bucket 5s`, `yardstick online alerts`, "
            "`yardstick traces list --service drive-thru`",
            highlight=False,
        )
        _retrieval(client, runs)
        out.print(Rule("Summary"))
        for name, verdict in runs.summary():
            style = (
                "red"
                if verdict.startswith("FAIL")
                else ("yellow" if verdict.startswith("INCON") else "green")
            )
            out.print(f"[bold]{name}[/bold]: [{style}]{verdict}[/{style}]", highlight=False)
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
