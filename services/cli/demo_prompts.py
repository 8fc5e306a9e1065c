"""The demo's prompt loop: change the prompt, run the eval, compare, promote only if it passes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.rule import Rule

from shared.shipped_data import DRIVE_THRU

if TYPE_CHECKING:
    from yardstick.client import Client

PROMPTS = DRIVE_THRU / "prompts"
NAME = "drive-thru/orchestrator"
DATASET = "drive-thru/order-correctness-v1"
RunExperiment = Callable[["Client", dict[str, Any]], dict[str, Any]]


def prompt_loop(client: Client, run: RunExperiment, out: Console, offline: bool) -> str:
    """Push the production prompt and a candidate version (label staging), run both, compare, and
    move the production label to the candidate only when the comparison finds no regression. The
    staging run is interleaved: production's configuration runs again beside it, and the two are
    compared, so neither is measured on a busier minute than the other."""
    out.print(Rule("Drive-thru prompt loop: staging vs production, promote if it passes"))
    for path, label in (("orchestrator-v1.txt", "production"), ("orchestrator-v2.txt", "staging")):
        row = client.prompts.push(NAME, (PROMPTS / path).read_text(), labels=[label], source=path)
        out.print(f"prompt {NAME} v{row.version} → {label}")
    if offline:
        out.print(
            "[dim](offline model: it does not read the prompt, so both runs score the same; with "
            "MISTRAL_API_KEY set the loop compares two real prompts)[/dim]"
        )
    base = {"dataset": DATASET, "concurrency": 10}
    production = run(
        client,
        base
        | {"name": "demo-prompt-production", "target": {"kind": "agent", "prompt": f"{NAME}@production"}},
    )
    staging = run(
        client,
        base
        | {
            "name": "demo-prompt-staging",
            "baseline_id": production["id"],
            "interleave": True,  # production's configuration runs again beside it: same minutes
            "target": {"kind": "agent", "prompt": f"{NAME}@staging"},
        },
    )
    candidate = client.prompts.resolve(f"{NAME}@staging")
    warned = [run["name"] for run in (production, staging) if (run.get("aggregates") or {}).get("warnings")]
    if warned:
        verdict = f"not promoted: {', '.join(warned)} had warnings (errors or nothing measured)"
    elif staging.get("regression") is False:
        client.prompts.move_label(NAME, "production", candidate.version)
        verdict = f"no regression: production → v{candidate.version}"
    else:
        verdict = f"regression: production stays; v{candidate.version} not promoted"
    out.print(f"Prompt loop verdict: {verdict}")
    return verdict
