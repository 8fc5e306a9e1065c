"""Evaluator plugins: entry points of a really installed package, module paths, broken plugins, and
what a worker advertises."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.contracts.evaluation import EvaluatorSpec
from shared.contracts.evaluator_catalog import EvaluatorDescriptor, WorkerEvaluators
from shared.evaluators import REGISTRY, EvaluatorArgumentsError, run_item_evaluators
from shared.evaluators.catalog import EvaluatorUnavailable, check_on_fleet, describe_loaded
from shared.evaluators.plugins import (
    PLUGIN_ERRORS,
    PluginLoadError,
    PluginSettings,
    import_modules,
    load_entry_points,
    load_plugins,
)
from tests.shared.evaluators.plugin_install import installed_plugin

__all__ = ["installed_plugin"]

pytestmark = pytest.mark.unit


async def test_entry_points_of_an_installed_package_register_its_evaluators(installed_plugin: Path) -> None:
    assert "demo_length" not in REGISTRY
    loaded = load_entry_points()
    assert {"demo_length", "demo_keywords"} <= set(loaded)
    assert REGISTRY["demo_length"].level == "item" and "demo_said_ok" in REGISTRY
    assert load_entry_points() == loaded, "loading twice registers nothing twice"

    scores = await run_item_evaluators(
        [EvaluatorSpec(name="demo_length", args={"max_chars": 5}), EvaluatorSpec(name="demo_said_ok")],
        input={},
        output={"response": "ok"},
        expected_output=None,
        metadata={},
    )
    assert [(s.name, s.value) for s in scores] == [("demo_length", 0.0), ("demo_said_ok", 1.0)]

    advertised = {d.name: d for d in describe_loaded()}
    assert advertised["demo_length"].arguments_schema["properties"]["max_chars"]["type"] == "integer"
    assert advertised["order_correctness"].level == "item"
    assert advertised["avg_order_correctness"].level == "run"


def test_module_paths_load_and_a_bad_one_says_which(
    installed_plugin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YARDSTICK_EVALUATOR_MODULES", " yardstick_demo_evaluators.keywords , ")
    assert PluginSettings().modules == ["yardstick_demo_evaluators.keywords"]
    load_plugins()
    assert "demo_said_ok" in REGISTRY
    with pytest.raises(PluginLoadError, match=r"'no_such_pkg\.evals'.*YARDSTICK_EVALUATOR_MODULES"):
        import_modules(["no_such_pkg.evals"])


def test_a_broken_entry_point_is_reported_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist = tmp_path / "broken_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[yardstick.evaluators]\nbroken = no_such_module_here\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert "broken" not in load_entry_points()
        assert any(e.startswith("broken (no_such_module_here): ModuleNotFoundError") for e in PLUGIN_ERRORS)
    finally:
        PLUGIN_ERRORS.clear()


def _worker(worker_id: str, *names: str, schema: dict[str, object] | None = None) -> WorkerEvaluators:
    return WorkerEvaluators(
        worker_id=worker_id,
        evaluators=[EvaluatorDescriptor(name=n, level="item", arguments_schema=schema or {}) for n in names],
    )


def test_fleet_check_names_the_evaluator_the_known_ones_and_the_workers_lacking_it() -> None:
    fleet = [_worker("w0", "order_correctness", "plug"), _worker("w1", "order_correctness")]
    check_on_fleet([EvaluatorSpec(name="order_correctness")], fleet)
    with pytest.raises(EvaluatorUnavailable, match=r"'nope'.*\(w0, w1\).*known: order_correctness, plug"):
        check_on_fleet([EvaluatorSpec(name="nope")], fleet)
    with pytest.raises(EvaluatorUnavailable, match=r"'plug' is loaded on eval worker\(s\) w0 but not on w1"):
        check_on_fleet([EvaluatorSpec(name="plug")], fleet)


def test_fleet_check_validates_arguments_against_the_advertised_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"k": {"type": "integer"}},
        "additionalProperties": False,
    }
    fleet = [_worker("w0", "remote_only", schema=schema)]
    check_on_fleet([EvaluatorSpec(name="remote_only", args={"k": 3})], fleet)
    with pytest.raises(EvaluatorUnavailable, match=r"'remote_only': k: 'x' is not of type 'integer'"):
        check_on_fleet([EvaluatorSpec(name="remote_only", args={"k": "x"})], fleet)
    with pytest.raises(EvaluatorUnavailable, match=r"accepted arguments: k"):
        check_on_fleet([EvaluatorSpec(name="remote_only", args={"kk": 1})], fleet)
    # a locally known evaluator is checked with its own model (the one the worker uses)
    local = [_worker("w0", "retrieval", schema=schema)]
    with pytest.raises(EvaluatorArgumentsError, match="evaluator 'retrieval': kz: unknown argument"):
        check_on_fleet([EvaluatorSpec(name="retrieval", args={"kz": [5]})], local)
