"""``yardstick run --cache-ttl`` and ``yardstick rescore`` against a real coordinator, two in-process
eval workers and a scripted agent that counts its calls."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from typer.testing import CliRunner, Result

from services.cli.app import app as cli
from services.cli.rescore_cmd import rescore_body
from tests.services.coordinator.conftest import agent, workers
from tests.services.coordinator.harness import ScriptedAgent, synthetic_items
from tests.services.live_api import Api
from yardstick.api.evaluation import EvaluatorSpec

__all__ = ["agent", "workers"]  # fixtures used here


async def yardstick(api: Api, *args: str) -> Result:
    """The CLI blocks while it follows a run: off the loop, so the in-process workers keep going."""
    return await asyncio.to_thread(CliRunner().invoke, cli, list(args), env=api.env)


@pytest.mark.integration
@pytest.mark.timeout(120)
@pytest.mark.usefixtures("workers")
async def test_cached_rerun_and_rescore_call_no_target(api: Api, agent: ScriptedAgent) -> None:
    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as client:
        (await client.post("/datasets", json={"name": "syn", "kind": "drive_thru"})).raise_for_status()
        items = {"items": synthetic_items(6), "replace": True}
        (await client.post("/datasets/syn/items", json=items)).raise_for_status()

    first = await yardstick(api, "run", "-d", "syn", "-n", "first", "--cache-ttl", "3600")
    assert first.exit_code == 0, first.output
    assert agent.calls == 6

    cached = await yardstick(
        api, "run", "-d", "syn", "-n", "second", "-e", "no_hallucinated_items", "--cache-ttl", "3600"
    )
    assert cached.exit_code == 0, cached.output
    assert "cache hits 6" in cached.stdout
    assert agent.calls == 6

    rescored = await yardstick(api, "rescore", "first", "-e", "order_correctness", "-n", "again")
    assert rescored.exit_code == 0, rescored.output
    assert "re-scores" in rescored.stderr and "order_correctness" in rescored.stdout
    assert "yardstick compare" in rescored.stderr
    assert agent.calls == 6

    refused = await yardstick(api, "rescore", "first", "-e", "no_such_metric")
    assert refused.exit_code == 2
    assert "no_such_metric" in refused.stderr and "422" in refused.stderr


@pytest.mark.unit
def test_rescore_body_parses_specs_and_refuses_bad_ones() -> None:
    assert rescore_body([], [], None) == {}
    assert rescore_body(['retrieval:{"ks": [5]}'], ["score_breakdown"], "n") == {
        "evaluators": [EvaluatorSpec(name="retrieval", args={"ks": [5]})],
        "run_evaluators": [EvaluatorSpec(name="score_breakdown")],
        "name": "n",
    }
    with pytest.raises(ValueError, match="not valid JSON"):
        rescore_body(["retrieval:{ks"], [], None)
