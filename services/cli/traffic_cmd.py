"""`yardstick traffic simulate`: drive the agent's chat API with realistic multi-turn conversations."""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import typer
from pydantic import BaseModel, Field
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from services.cli.consoles import stderr_console, stdout_console
from services.stack.state import DEFAULT_STATE_DIR, StackState
from shared.shipped_data import MENU

app = typer.Typer(help="Production-like traffic against the agent's chat API.")
out = stdout_console()
err = stderr_console()

DEFAULT_MENU = MENU
GREETINGS = ("Hi there", "Good morning", "Hello", "Hey, can I order?", "Morning!")
ORDER_OPENERS = ("I'd like", "Can I get", "Let me get", "I'll have", "Could I have", "Gimme")
QUANTITY_WORDS = {1: "a", 2: "two", 3: "three"}
CLOSINGS = ("That's all", "That's it, thanks", "No, that's everything")
CONFIRMATIONS = ("Yes", "Yes, that's right", "Yep, correct")


class AgentNotFound(RuntimeError):
    """No agent URL given and no local stack state with one."""


class SimulationResult(BaseModel):
    conversations: int = 0
    turns_sent: int = 0
    errors: int = 0
    error_messages: list[str] = Field(default_factory=list, description="The first few errors")
    turns_by_conversation: dict[str, int] = Field(
        default_factory=dict, description="Turns answered, per conversation id the agent gave"
    )


def load_menu_items(path: Path = DEFAULT_MENU) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(path.read_text())["items"]
    return items


def order_utterance(rng: random.Random, item: dict[str, Any]) -> str:
    quantity = rng.choice((1, 1, 1, 2, 2, 3))
    words = QUANTITY_WORDS[quantity] if rng.random() < 0.7 else str(quantity)
    text = f"{rng.choice(ORDER_OPENERS)} {words} {item['name']}"
    modifiers = item.get("available_modifiers") or []
    if modifiers and rng.random() < 0.3:
        text += f" with {rng.choice(modifiers)['name'].lower()}"
    return text + rng.choice(("", " please", ", thanks"))


def conversation_script(rng: random.Random, items: list[dict[str, Any]]) -> list[str]:
    """Greeting, one to three orders, "that's all", "yes"."""
    orders = [order_utterance(rng, item) for item in rng.sample(items, rng.randint(1, 3))]
    return [rng.choice(GREETINGS), *orders, rng.choice(CLOSINGS), rng.choice(CONFIRMATIONS)]


def resolve_agent_url(option: str | None, state_dir: Path = DEFAULT_STATE_DIR) -> str:
    url = option or os.environ.get("AGENT_URL")
    if url:
        return url
    state = StackState.load(state_dir)
    if state is None or not state.agent_url:
        raise AgentNotFound(
            "no agent URL: pass --agent-url, set AGENT_URL, or start the local stack (`yardstick stack up`)"
        )
    return state.agent_url


async def simulate(
    client: httpx.AsyncClient,
    conversations: int,
    seed: int,
    items: list[dict[str, Any]],
    on_conversation: Callable[[], None] = lambda: None,
) -> SimulationResult:
    """Run ``conversations`` scripted conversations; an error ends that conversation, not the run.

    A conversation also ends early when the agent finalizes the order (e.g. before the confirmation).
    """
    rng = random.Random(seed)
    result = SimulationResult()
    for _ in range(conversations):
        script = conversation_script(rng, items)
        try:
            created = await client.post("/conversations")
            created.raise_for_status()
            conversation_id = str(created.json()["conversation_id"])
            result.turns_by_conversation[conversation_id] = 0
            for text in script:
                response = await client.post(
                    f"/conversations/{conversation_id}/messages", json={"text": text}
                )
                response.raise_for_status()
                result.turns_sent += 1
                result.turns_by_conversation[conversation_id] += 1
                if response.json().get("finalized"):
                    break  # the order is in: a customer drives on (more turns would get 409)
        except (httpx.HTTPError, KeyError, ValueError) as exc:
            result.errors += 1
            if len(result.error_messages) < 5:
                result.error_messages.append(f"{type(exc).__name__}: {exc}")
        result.conversations += 1
        on_conversation()
    return result


async def _run(
    url: str,
    request_timeout_s: float,
    conversations: int,
    seed: int,
    items: list[dict[str, Any]],
    on_conversation: Callable[[], None],
) -> SimulationResult:
    async with httpx.AsyncClient(base_url=url.rstrip("/"), timeout=request_timeout_s) as client:
        return await simulate(client, conversations, seed, items, on_conversation)


def simulate_with_progress(
    url: str, conversations: int, seed: int, timeout: float, console: Console
) -> SimulationResult:
    """:func:`simulate` against ``url`` with a progress bar on ``console`` (blocking)."""
    items = load_menu_items()
    columns = (TextColumn("conversations"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as bar:
        task = bar.add_task("simulate", total=conversations)
        return asyncio.run(_run(url, timeout, conversations, seed, items, lambda: bar.advance(task)))


@app.command("simulate")
def simulate_command(
    conversations: int = typer.Option(20, min=1, help="Conversations to run"),
    agent_url: str | None = typer.Option(None, help="Agent base URL (default: AGENT_URL or the local stack)"),
    seed: int = typer.Option(0, help="Random seed: the same seed sends the same utterances"),
    timeout: float = typer.Option(30.0, help="Per-request timeout (seconds)"),
) -> None:
    """Send greeting, 1 to 3 orders, "that's all", "yes" conversations to the agent's chat API."""
    try:
        url = resolve_agent_url(agent_url)
    except AgentNotFound as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    result = simulate_with_progress(url, conversations, seed, timeout, err)
    out.print(
        f"turns sent: {result.turns_sent}  errors: {result.errors}  ({result.conversations} conversations)"
    )
    for message in result.error_messages:
        err.print(f"[red]error:[/red] {message}")
    if result.errors == result.conversations:
        raise typer.Exit(1)
