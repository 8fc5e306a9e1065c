"""``yardstick online …``: ``updated_config`` on its own, then the real Typer commands against a
real coordinator served over HTTP (uvicorn in a thread) on the session's NATS and Postgres."""

from __future__ import annotations

import asyncio
import copy
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import typer
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from typer.testing import CliRunner, Result

from services.cli.app import app as cli
from services.cli.online_cmd import updated_config
from shared.db.models import DriftAlertRow
from shared.online.sampling_config import DEFAULT_EVALUATORS
from tests.services.coordinator.traces.api.test_traces import store
from tests.services.live_api import Api

Sessions = async_sessionmaker[AsyncSession]
TOOL_CALLED = {"rate": 1.0, "evaluators": [{"name": "tool_called", "args": {"tool": "lookup_order"}}]}

CURRENT: dict[str, Any] = {
    "rate": 0.2,
    "filters": {
        "model": "offline:ask",
        "prompt_version": None,
        "finalized": None,
        "metadata": {"store": "17"},
    },
    "cap_per_minute": 100,
    "evaluators": [{"name": "tool_call_protocol"}],
    "updated_at": "2025-06-01T12:00:00Z",
}


def apply(**options: Any) -> dict[str, Any]:
    """``updated_config(CURRENT, …)`` with every option left out unless given."""
    defaults: dict[str, Any] = {
        "rate": None,
        "cap": None,
        "no_cap": False,
        "evaluators": None,
        "model": None,
        "prompt_version": None,
        "finalized": None,
        "metadata": None,
        "clear_filters": False,
    }
    return updated_config(CURRENT, **(defaults | options))


@pytest.mark.unit
def test_options_left_out_keep_their_values() -> None:
    before = copy.deepcopy(CURRENT)
    unchanged = apply()
    assert unchanged == {k: v for k, v in CURRENT.items() if k != "updated_at"}
    assert apply(rate=0.5) == unchanged | {"rate": 0.5}
    assert apply(rate=0.0)["rate"] == 0.0
    assert apply(cap=5)["cap_per_minute"] == 5
    assert apply(evaluators=["no_hallucinated_items", "tool_call_protocol"])["evaluators"] == [
        {"name": "no_hallucinated_items"},
        {"name": "tool_call_protocol"},
    ]
    assert apply(prompt_version="v2")["filters"] == CURRENT["filters"] | {"prompt_version": "v2"}
    assert apply(finalized=False)["filters"]["finalized"] is False
    assert before == CURRENT  # the current config is not modified in place


@pytest.mark.unit
def test_no_cap_wins_over_cap() -> None:
    assert apply(no_cap=True)["cap_per_minute"] is None
    assert apply(no_cap=True, cap=7)["cap_per_minute"] is None


@pytest.mark.unit
def test_clear_filters_drops_them_before_applying_new_ones() -> None:
    assert apply(clear_filters=True)["filters"] == {}
    assert apply(clear_filters=True, model="offline:v2", metadata=["lane=2"])["filters"] == {
        "model": "offline:v2",
        "metadata": {"lane": "2"},
    }


@pytest.mark.unit
def test_metadata_pairs_merge_into_the_existing_ones() -> None:
    merged = apply(metadata=["store=18", "region=eu-west", "note=a=b"])["filters"]["metadata"]
    assert merged == {"store": "18", "region": "eu-west", "note": "a=b"}
    assert CURRENT["filters"]["metadata"] == {"store": "17"}


@pytest.mark.unit
@pytest.mark.parametrize("pair", ["store", "=17"])
def test_a_metadata_pair_without_key_or_equals_is_a_bad_parameter(pair: str) -> None:
    with pytest.raises(typer.BadParameter, match=f"--metadata '{pair}': use KEY=VALUE"):
        apply(metadata=[pair])


# --- the commands against a real coordinator ---------------------------------------------------


def run(api: Api, *args: str) -> Result:
    return CliRunner().invoke(cli, ["online", *args], env=api.env)


async def run_async(api: Api, *args: str) -> Result:
    """The command in a thread: it is synchronous and must not block the test's event loop."""
    return await asyncio.to_thread(run, api, *args)


@pytest.mark.integration
def test_config_changes_round_trip_through_the_api(api: Api) -> None:
    shown = run(api, "config")
    assert shown.exit_code == 0, shown.output
    default = json.loads(shown.stdout)
    assert default["rate"] == 0.1 and default["cap_per_minute"] is None
    assert [e["name"] for e in default["evaluators"]] == list(DEFAULT_EVALUATORS)

    changed = run(api, "config", "--rate", "0.25", "--model", "offline:ask", "--metadata", "store=17")
    assert changed.exit_code == 0, changed.output
    saved = json.loads(changed.stdout)
    assert saved["rate"] == 0.25 and saved["updated_at"]
    assert saved["filters"]["model"] == "offline:ask" and saved["filters"]["metadata"] == {"store": "17"}

    again = json.loads(run(api, "config").stdout)
    assert again == saved

    capped = json.loads(
        run(api, "config", "--cap", "40", "--open", "--evaluator", "tool_call_protocol").stdout
    )
    assert capped["rate"] == 0.25 and capped["cap_per_minute"] == 40
    assert capped["filters"]["model"] == "offline:ask" and capped["filters"]["finalized"] is False
    assert [e["name"] for e in capped["evaluators"]] == ["tool_call_protocol"]
    cleared = json.loads(run(api, "config", "--no-cap", "--clear-filters").stdout)
    assert cleared["cap_per_minute"] is None and cleared["filters"]["model"] is None
    assert cleared["filters"]["metadata"] == {} and cleared["rate"] == 0.25


@pytest.mark.integration
def test_config_errors_exit_2_and_change_nothing(api: Api) -> None:
    too_high = run(api, "config", "--rate", "1.5")
    assert too_high.exit_code == 2
    assert "PUT /online/config → 422" in too_high.stderr and "rate" in too_high.stderr
    not_reference_free = run(api, "config", "--evaluator", "order_correctness")
    assert not_reference_free.exit_code == 2
    assert "needs an expected output" in not_reference_free.stderr
    bad_pair = run(api, "config", "--metadata", "store")
    assert bad_pair.exit_code == 2 and "use KEY=VALUE" in bad_pair.output
    assert json.loads(run(api, "config").stdout)["rate"] == 0.1


@pytest.mark.unit
def test_an_unreachable_coordinator_is_reported(unused_tcp_port: int) -> None:
    nowhere = Api(f"http://127.0.0.1:{unused_tcp_port}", "key")
    result = run(nowhere, "alerts")
    assert result.exit_code == 2
    assert "cannot reach the coordinator at http://127.0.0.1" in result.stderr


@pytest.mark.integration
async def test_metrics_and_alerts_of_sampled_traces(api: Api, session_factory: Sessions) -> None:
    empty = await run_async(api, "metrics")
    assert empty.exit_code == 0 and "no online scores in the last 1h" in empty.stderr

    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as c:
        assert (await c.put("/online/config", json=TOOL_CALLED)).status_code == 200
    now = datetime.now(UTC)
    for i in range(5):
        await store(session_factory, i, service="drive-thru", at=now - timedelta(minutes=i))
    async with session_factory() as session:
        session.add(
            DriftAlertRow(  # raised on the agent's turns before traces: still listed, as model@prompt
                evaluator="no_hallucinated_items",
                model="offline:ask",
                prompt_version="v1",
                reference="offline",
                detail={"reference_mean": 0.95, "window_mean": 0.7, "delta": -0.25, "p_value": 0.0012},
            )
        )
        await session.commit()

    metrics = await run_async(api, "metrics", "--window", "2h", "--bucket", "10m")
    assert metrics.exit_code == 0, metrics.output
    assert "last 2h (10m buckets)" in metrics.stdout
    row = next(line for line in metrics.stdout.splitlines() if "tool_called" in line)
    assert "drive-thru" in row and " 5 " in row  # five sampled traces, each scored
    bad_window = await run_async(api, "metrics", "--window", "soon")
    assert bad_window.exit_code == 2 and "invalid duration 'soon'" in bad_window.stderr

    alerts = await run_async(api, "alerts")
    assert alerts.exit_code == 0, alerts.output
    alert_row = next(line for line in alerts.stdout.splitlines() if "no_hallucinated_items" in line)
    assert alert_row.split()[2:] == ["offline:ask@v1", "offline", "0.950", "0.700", "-0.250", "0.0012"]


@pytest.mark.integration
async def test_traces_lists_an_applications_sampled_traces_with_scores(
    api: Api, session_factory: Sessions
) -> None:
    assert run(api, "config", "--rate", "1").exit_code == 0
    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as c:
        assert (await c.put("/online/config", json=TOOL_CALLED)).status_code == 200
    for n in range(2):
        await store(session_factory, n, service="drive-thru")
    await store(session_factory, 2, service="another-app")

    listed = await run_async(api, "traces", "--service", "drive-thru")
    assert listed.exit_code == 0, listed.output
    assert "Sampled traces (2 in all)" in listed.stdout
    rows = [line for line in listed.stdout.splitlines() if "gpt-test" in line]
    assert len(rows) == 2 and all("drive-thru" in r and "tool_called=1.000" in r for r in rows), rows
    bad = await run_async(api, "traces", "--limit", "0")
    assert bad.exit_code == 2
