"""The demo's steps without the stack: each run is followed, compared compactly, and each step ends
with where its full detail is (the compact comparison names its command; a lone run, its report); the
summary has one line per step (a comparison's verdict, a lone run's pass rate, never a baseline's own)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console

from services.cli import demo_cmd
from shared.analysis import ComparisonConfig, compare_runs
from yardstick.api.run_data import RunData, ScoredItem

pytestmark = pytest.mark.unit


def _run(name: str, values: list[float]) -> RunData:
    items = [ScoredItem(item_id=str(i), status="ok", scores={"m": v}) for i, v in enumerate(values)]
    return RunData(experiment_id=f"id-{name}", name=name, items=items)


class FakeClient:
    """Runs every experiment at once: a candidate (one with a baseline) drops four of 25 items."""

    def __init__(self) -> None:
        self.comparisons: dict[str, Any] = {}
        self.compact: list[bool] = []

    def follow(self, client: Any, body: dict[str, Any], console: Any) -> dict[str, Any]:
        name = body["name"]
        experiment: dict[str, Any] = {
            "id": f"id-{name}",
            "name": name,
            "status": "completed",
            "progress": {"total": 25, "errors": 0},
            "aggregates": {"pass_rate": 1.0, "metrics": {}},
            "baseline_id": body.get("baseline_id"),
            "comparison_id": None,
        }
        if body.get("baseline_id"):
            baseline = body["baseline_id"].removeprefix("id-")
            report = compare_runs(
                _run(baseline, [1.0] * 25), _run(name, [0.0] * 4 + [1.0] * 21), ComparisonConfig()
            )
            experiment["comparison_id"] = f"cmp-{name}"
            self.comparisons[f"cmp-{name}"] = SimpleNamespace(report=report)
        return experiment

    def get_comparison(self, comparison_id: str) -> Any:
        return self.comparisons[comparison_id]


def test_the_drive_thru_steps_end_with_their_detail_and_the_summary_lists_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = FakeClient()
    screen = Console(width=400, record=True, color_system=None)
    monkeypatch.setattr(demo_cmd, "out", screen)
    monkeypatch.setattr(demo_cmd, "start_and_follow", client.follow)
    monkeypatch.setattr(demo_cmd, "push_file", lambda *args, **kwargs: None)
    monkeypatch.setattr(
        demo_cmd, "print_comparison", lambda c, e, console, compact=False: client.compact.append(compact)
    )
    monkeypatch.setattr(demo_cmd, "summary_line", lambda experiment: experiment["name"])
    runs = demo_cmd.Runs()
    demo_cmd._drive_thru(client, runs)  # type: ignore[arg-type]
    text = screen.export_text()
    assert client.compact == [True] * 4  # baseline, candidate, trajectories, conversations
    detail = [line for line in text.splitlines() if line.startswith(("full detail: ", "in the browser: "))]
    assert detail == [  # a comparison's compact view names its command itself
        "in the browser: `yardstick ui "
        "'/ui/compare?baseline=demo-drive-thru-baseline&candidate=demo-drive-thru-candidate'`",
        "full detail: `yardstick report demo-trajectories`",
        "full detail: `yardstick report demo-conversations`",
    ]
    verdict = client.comparisons["cmp-demo-drive-thru-candidate"].report
    assert runs.summary() == [
        ("demo-drive-thru-candidate vs its baseline", verdict.headline or verdict.verdict),
        ("demo-trajectories", "pass rate 1.000 on 25 items"),
        ("demo-conversations", "pass rate 1.000 on 25 items"),
    ]
