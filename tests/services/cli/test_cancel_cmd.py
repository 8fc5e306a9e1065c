"""``yardstick cancel ID`` against a real coordinator with no eval workers: items stay in flight."""

from __future__ import annotations

import re

import httpx
import pytest
from typer.testing import CliRunner, Result

from services.cli.app import app as cli
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import synthetic_items
from tests.services.live_api import Api

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


def cancel(api: Api, experiment_id: str) -> Result:
    return CliRunner().invoke(cli, ["cancel", experiment_id], env=api.env)


def test_cancel_reports_progress_and_unknown_ids_exit_2(api: Api) -> None:
    with httpx.Client(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as client:
        client.post("/datasets", json={"name": "syn", "kind": "drive_thru"}).raise_for_status()
        client.post(
            "/datasets/syn/items", json={"items": synthetic_items(6), "replace": True}
        ).raise_for_status()
        accepted = client.post("/experiments", json=experiment_body(concurrency=2))
        accepted.raise_for_status()
        experiment_id = accepted.json()["id"]

        result = cancel(api, experiment_id)
        assert result.exit_code == 0, result.output
        assert re.search(
            rf"experiment {experiment_id} cancelled: 0 of 6 items done, [0-2] still running", result.stderr
        ), result.stderr
        shown = client.get(f"/experiments/{experiment_id}").json()
        assert shown["status"] == "cancelled" and shown["progress"]["done"] == 0

    assert cancel(api, experiment_id).exit_code == 0  # cancelling twice is harmless

    unknown = cancel(api, "no-such-experiment")
    assert unknown.exit_code == 2
    assert "no experiment named 'no-such-experiment'" in unknown.stderr
    missing_id = "00000000-0000-4000-8000-000000000000"
    unknown = cancel(api, missing_id)
    assert unknown.exit_code == 2
    assert "404" in unknown.stderr and f"experiment '{missing_id}' not found" in unknown.stderr
