"""Regression detection through the API and the CLI: a synthetic regression is flagged, A/A is not."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli.app import app as cli
from services.evaluator.worker import EvalWorker
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


async def _run(coordinator: Coordinator, **overrides: object) -> dict[str, object]:
    accepted = (await coordinator.client.post("/experiments", json=experiment_body(**overrides))).json()
    return await coordinator.finished(str(accepted["id"]))


async def _export(coordinator: Coordinator, experiment_id: str, path: Path) -> Path:
    response = await coordinator.client.get(f"/experiments/{experiment_id}/report", params={"format": "json"})
    response.raise_for_status()
    path.write_text(response.text)
    return path


async def test_synthetic_regression_is_flagged_and_a_a_is_not(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent, tmp_path: Path
) -> None:
    await coordinator.push("syn", synthetic_items(60))
    baseline = await _run(coordinator, name="base", concurrency=20)
    same = await _run(coordinator, name="same", concurrency=20, baseline_id=baseline["id"])
    agent.drop_fraction = 0.3  # the candidate returns nothing for ~30% of items
    worse = await _run(coordinator, name="worse", concurrency=20, baseline_id=baseline["id"])

    assert same["regression"] is False
    assert worse["regression"] is True
    report = (await coordinator.client.get(f"/comparisons/{worse['comparison_id']}")).json()["report"]
    assert "order_correctness" in report["regressions"]
    markdown = (
        await coordinator.client.get(f"/comparisons/{worse['comparison_id']}", params={"format": "md"})
    ).text
    assert "order_correctness" in markdown

    base_file = await _export(coordinator, str(baseline["id"]), tmp_path / "base.json")
    same_file = await _export(coordinator, str(same["id"]), tmp_path / "same.json")
    worse_file = await _export(coordinator, str(worse["id"]), tmp_path / "worse.json")
    runner = CliRunner()
    flagged = runner.invoke(cli, ["compare", str(base_file), str(worse_file), "--fail-on-regression"])
    assert flagged.exit_code == 1, flagged.output
    quiet = runner.invoke(cli, ["compare", str(base_file), str(same_file), "--fail-on-regression"])
    assert quiet.exit_code == 0, quiet.output


async def test_an_interleaved_run_is_compared_with_its_baseline_run_again_beside_it(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    """``interleave``: the baseline's configuration runs again in the same minutes as the candidate,
    the candidate is finalized only once that run has finished, and compared with it."""
    await coordinator.push("syn", synthetic_items(30))
    baseline = await _run(coordinator, name="base", concurrency=10)
    refused = await coordinator.client.post("/experiments", json=experiment_body(name="x", interleave=True))
    assert refused.status_code == 422 and "give a baseline too" in refused.text
    candidate = await _run(
        coordinator, name="cand", concurrency=10, baseline_id=baseline["id"], interleave=True
    )
    twin_id = str(candidate["baseline_id"])
    assert twin_id != baseline["id"]
    twin = (await coordinator.client.get(f"/experiments/{twin_id}")).json()
    assert twin["name"] == "base~cand" and twin["status"] == "completed"
    assert twin["progress"]["total"] == candidate["progress"]["total"] == 30
    # side by side: each started before the other was done
    assert twin["started_at"] < candidate["completed_at"] and candidate["started_at"] < twin["completed_at"]
    report = (await coordinator.client.get(f"/comparisons/{candidate['comparison_id']}")).json()["report"]
    assert report["baseline_id"] == twin_id and report["latency_interleaved"] is True
    plain = await _run(coordinator, name="apart", concurrency=10, baseline_id=baseline["id"])
    apart = (await coordinator.client.get(f"/comparisons/{plain['comparison_id']}")).json()["report"]
    assert apart["latency_interleaved"] is False
