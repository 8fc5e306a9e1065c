"""``yardstick experiments list`` and ``yardstick items`` against a real coordinator (no workers:
the experiments stay pending), names resolved like ``compare`` does."""

from __future__ import annotations

import json

import httpx
import pytest
from typer.testing import CliRunner

from services.cli.app import app as cli
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import synthetic_items
from tests.services.live_api import Api

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


def test_list_filters_and_items_by_name(api: Api) -> None:
    with httpx.Client(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as client:
        client.post("/datasets", json={"name": "syn", "kind": "drive_thru"}).raise_for_status()
        client.post("/datasets/syn/items", json={"items": synthetic_items(3)}).raise_for_status()
        first = client.post("/experiments", json=experiment_body(name="nightly")).json()["id"]
        second = client.post("/experiments", json=experiment_body(name="other")).json()["id"]

    runner = CliRunner()
    listed = runner.invoke(cli, ["experiments", "list", "--json"], env=api.env)
    assert listed.exit_code == 0, listed.output
    assert [r["id"] for r in json.loads(listed.stdout)] == [second, first]  # newest first

    named = runner.invoke(cli, ["experiments", "list", "--name", "nightly", "--json"], env=api.env)
    assert [r["id"] for r in json.loads(named.stdout)] == [first]
    none = runner.invoke(cli, ["experiments", "list", "--dataset", "elsewhere", "--json"], env=api.env)
    assert json.loads(none.stdout) == []
    table = runner.invoke(cli, ["experiments", "list"], env=api.env)
    assert table.exit_code == 0 and "nightly" in table.stdout and "syn@1" in table.stdout
    bad = runner.invoke(cli, ["experiments", "list", "--status", "done"], env=api.env)
    assert bad.exit_code == 2 and "choose one of" in bad.output

    items = runner.invoke(cli, ["items", "nightly", "--json"], env=api.env)
    assert items.exit_code == 0, items.output
    page = json.loads(items.stdout)
    assert page["total"] == 3 and {i["status"] for i in page["items"]} <= {"pending", "dispatched"}
    unknown = runner.invoke(cli, ["items", "never-ran"], env=api.env)
    assert unknown.exit_code == 2 and "no experiment named 'never-ran'" in unknown.stderr
