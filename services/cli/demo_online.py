"""The demo's production-traffic part: simulated conversations with the drive-thru agent, which
reports each turn as an OpenTelemetry trace to the ingest service (application ``drive-thru``); the
sampler samples and scores the traces, then a simulated silent model change is caught by its drift
check."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TypeVar

from rich.console import Console
from rich.rule import Rule

from services.cli.online_cmd import alerts_table, metrics_table, updated_config
from services.cli.traffic_cmd import SimulationResult, simulate_with_progress
from services.sampler.sampling import in_sample
from services.stack import launcher

if TYPE_CHECKING:
    from yardstick.api.online import DriftAlertOut
    from yardstick.client import Client

RATE = 0.5
CONVERSATIONS = 40
SAMPLER_WAIT_S = 60.0
ALERT_WAIT_S = 45.0
DRIFTED_AGENT_ENV = {"CHAT_OFFLINE": json.dumps({"simulate_silent_drift": True})}
DRIFTED_EVALUATOR = "finalize_after_confirmation"
APPLICATION = "drive-thru"  # the agent's OTEL_SERVICE_NAME
MAX_TRACES = 500
# What the demo's own stack runs the sampler with: a 30 s drift window checked every 3 s, so the
# demo sees its alert in seconds and a rerun is not compared with the last run's traffic (the
# defaults are a one-hour window checked every 30 s).
SAMPLER_ENV = {"SAMPLER_DRIFT_INTERVAL_S": "3", "SAMPLER_DRIFT_WINDOW_S": "30"}


T = TypeVar("T")


class OnlineDemoError(RuntimeError):
    """The sampler did not score the simulated traffic, or raise the drift alert, in time."""


def _until(deadline_s: float, check: Callable[[], T]) -> T:
    """Poll ``check()`` every half second until it returns something truthy or the time is up."""
    deadline = time.monotonic() + deadline_s
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def _traffic(client: Client, agent_url: str, seed: int, err: Console) -> SimulationResult:
    since = datetime.now(UTC)
    result = simulate_with_progress(agent_url, CONVERSATIONS, seed, 30.0, err)
    if result.errors:
        err.print(f"[yellow]{result.errors} conversations failed:[/yellow] {result.error_messages}")
    sampled = {c: n for c, n in result.turns_by_conversation.items() if in_sample(c, RATE)}
    expected = sum(sampled.values())

    def stored() -> int:
        page = client.online.traces(service=APPLICATION, since=since, limit=MAX_TRACES)
        return sum(1 for trace in page.items if trace.conversation_id in sampled and trace.scores)

    with err.status(f"waiting for the {expected} sampled turns' traces to be scored…"):
        done = _until(SAMPLER_WAIT_S, lambda: stored() >= expected)
    if not done:
        raise OnlineDemoError(
            f"the sampler stored {stored()} of {expected} sampled turns' traces within {SAMPLER_WAIT_S:.0f}s:"
            " see .yardstick/logs/agent.log, ingest.log and sampler.log"
        )
    err.print(
        f"{result.turns_sent} turns in {len(result.turns_by_conversation)} conversations, each an"
        f" OpenTelemetry trace of application {APPLICATION}; sampled at rate {RATE}:"
        f" {len(sampled)} conversations, {expected} traces, all scored"
    )
    return result


def _metrics(client: Client, out: Console, since: datetime) -> None:
    """The online metrics since ``since`` (this demo's traffic), in 5 s buckets."""
    window = f"{math.ceil((datetime.now(UTC) - since).total_seconds() / 5) * 5}s"
    out.print(metrics_table(client.online.metrics(window=window, bucket="5s"), window, "5s"))


def _drift_alert(client: Client, since: datetime) -> list[DriftAlertOut]:
    return [
        row
        for row in client.online.alerts(limit=20)
        if row.evaluator == DRIFTED_EVALUATOR and row.application == APPLICATION and row.created_at >= since
    ]


def online_demo(client: Client, agent_url: str, out: Console, err: Console, own_stack: bool) -> str:
    """Run the production-traffic demo; returns a one-line verdict."""
    out.print(Rule("Production traffic: simulated conversations, sampled and scored online"))
    current = client.online.config()
    body = updated_config(
        current,
        rate=RATE,
        cap=None,
        no_cap=True,
        evaluators=None,
        model=None,
        prompt_version=None,
        finalized=None,
        metadata=None,
        clear_filters=True,
    )
    client.online.set_config(body)
    section_start = datetime.now(UTC)
    _traffic(client, agent_url, seed=1, err=err)
    _metrics(client, out, section_start)
    if not own_stack:
        return "online scores shown (drift step skipped: the demo does not restart an agent it did not start)"

    out.print(Rule("Drift: the model provider silently changes the model behind the same name"))
    started = datetime.now(UTC)
    launcher.restart_service("agent", DRIFTED_AGENT_ENV)
    err.print(
        'agent restarted with CHAT_OFFLINE={"simulate_silent_drift": true}: it now finalizes without'
        " reading the order back, still reporting model offline:ask"
    )
    try:
        _traffic(client, agent_url, seed=2, err=err)
        with err.status("waiting for the sampler's drift check…"):
            alerts = _until(ALERT_WAIT_S, lambda: _drift_alert(client, started))
    finally:
        launcher.restart_service("agent")
    _metrics(client, out, section_start)
    if not alerts:
        raise OnlineDemoError(
            f"no drift alert on {DRIFTED_EVALUATOR} of {APPLICATION} within {ALERT_WAIT_S:.0f}s:"
            " see .yardstick/logs/sampler.log"
        )
    out.print(alerts_table(alerts))
    return f"[red]DRIFT[/red] on {DRIFTED_EVALUATOR}: {len(alerts)} alert(s), also published on NATS"
