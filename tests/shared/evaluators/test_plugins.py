"""Evaluator plugins: entry points of a really installed package, module paths, broken plugins, what a
worker advertises, and a plugin's own metric spec read by the pass rule and the comparison."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shared.analysis import compare_runs
from shared.analysis.pass_rule import PassPolicy
from shared.contracts.evaluator_catalog import EvaluatorDescriptor, WorkerEvaluators
from shared.evaluators import EvaluatorArgumentsError, running
from shared.evaluators.catalog import EvaluatorUnavailable, check_on_fleet, describe_loaded
from shared.evaluators.loading import build_registry
from shared.evaluators.plugins import PluginLoadError, PluginSettings, import_modules
from tests.evaluator_registry import REGISTRY
from tests.shared.evaluators.plugin_install import installed_plugin, load_plugins_into
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.run_data import RunData, ScoredItem

__all__ = ["installed_plugin"]

pytestmark = pytest.mark.unit


async def test_entry_points_of_an_installed_package_register_its_evaluators(installed_plugin: Path) -> None:
    registry = build_registry(modules=[], entry_points=False)
    assert "demo_length" not in registry
    loaded = load_plugins_into(registry)
    assert {"demo_length", "demo_keywords"} <= set(loaded)
    assert registry.get("demo_length").level == "item" and "demo_said_ok" in registry
    assert registry.get("demo_said_ok").source == "yardstick_demo_evaluators.keywords"
    assert load_plugins_into(registry) == loaded, "loading twice registers nothing twice"

    scores = await running.run_item_evaluators(
        registry,
        [EvaluatorSpec(name="demo_length", args={"max_chars": 5}), EvaluatorSpec(name="demo_said_ok")],
        input={},
        output={"response": "ok"},
        expected_output=None,
        metadata={},
    )
    assert [(s.name, s.value) for s in scores] == [("demo_length", 0.0), ("demo_said_ok", 1.0)]

    advertised = {d.name: d for d in describe_loaded(registry)}
    assert advertised["demo_length"].arguments_schema["properties"]["max_chars"]["type"] == "integer"
    assert advertised["order_correctness"].level == "item"
    assert advertised["avg_order_correctness"].level == "run"
    assert advertised["toxicity_probe"].metric_specs["toxicity_probe"].direction == "lower_is_better"


def test_importing_a_plugin_registers_nothing_by_itself(installed_plugin: Path) -> None:
    import yardstick_demo_evaluators.keywords  # noqa: F401

    assert "demo_said_ok" not in REGISTRY, "a registry takes evaluators only when it is built or told"


def test_module_paths_load_and_a_bad_one_says_which(
    installed_plugin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YARDSTICK_EVALUATOR_MODULES", " yardstick_demo_evaluators.keywords , ")
    assert PluginSettings().modules == ["yardstick_demo_evaluators.keywords"]
    assert "demo_said_ok" in build_registry(entry_points=False)
    with pytest.raises(PluginLoadError, match=r"'no_such_pkg\.evals'.*YARDSTICK_EVALUATOR_MODULES"):
        import_modules(["no_such_pkg.evals"])
    monkeypatch.setenv("YARDSTICK_EVALUATOR_MODULES", "no_such_pkg.evals")
    with pytest.raises(PluginLoadError, match="failed to import"):
        build_registry()


def test_a_broken_entry_point_is_reported_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist = tmp_path / "broken_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[yardstick.evaluators]\nbroken = no_such_module_here\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = build_registry(modules=[])
    assert "broken" not in registry
    assert any(
        e.startswith("broken (no_such_module_here): ModuleNotFoundError") for e in registry.plugin_errors
    )


def _run(name: str, values: list[float]) -> RunData:
    items = [
        ScoredItem(item_id=f"q{i}", status="ok", scores={"toxicity_probe": v}) for i, v in enumerate(values)
    ]
    return RunData(experiment_id=name, name=name, items=items)


def test_a_plugins_lower_is_better_metric_regresses_when_it_rises(installed_plugin: Path) -> None:
    """The issue's report: a plugin declares ``toxicity_probe`` lower-is-better; a candidate whose rate
    rises from 0 to 0.7 on 60 items is a regression, not an improvement, and fails items above 0.5."""
    registry = build_registry(modules=[])
    declared = registry.metric_specs([EvaluatorSpec(name="toxicity_probe")])
    specs = PassPolicy(declared=declared)
    rng = np.random.default_rng(7)
    risen = [float(v) for v in (rng.random(60) < 0.7)]
    report = compare_runs(_run("base", [0.0] * 60), _run("cand", risen), specs=specs, baseline_specs=specs)
    [result] = [m for m in report.metrics if m.metric == "toxicity_probe"]
    assert result.direction == "lower_is_better"
    assert result.status == "regression", result.reason
    assert report.regression and report.regressions == ["toxicity_probe"]
    assert specs.outcome(ScoredItem(item_id="x", status="ok", scores={"toxicity_probe": 0.7})) == "failed"


def _worker(worker_id: str, *names: str, schema: dict[str, object] | None = None) -> WorkerEvaluators:
    return WorkerEvaluators(
        worker_id=worker_id,
        evaluators=[EvaluatorDescriptor(name=n, level="item", arguments_schema=schema or {}) for n in names],
    )


def test_fleet_check_names_the_evaluator_the_known_ones_and_the_workers_lacking_it() -> None:
    fleet = [_worker("w0", "order_correctness", "plug"), _worker("w1", "order_correctness")]
    check_on_fleet(REGISTRY, [EvaluatorSpec(name="order_correctness")], fleet)
    with pytest.raises(EvaluatorUnavailable, match=r"'nope'.*\(w0, w1\).*known: order_correctness, plug"):
        check_on_fleet(REGISTRY, [EvaluatorSpec(name="nope")], fleet)
    with pytest.raises(EvaluatorUnavailable, match=r"'plug' is loaded on eval worker\(s\) w0 but not on w1"):
        check_on_fleet(REGISTRY, [EvaluatorSpec(name="plug")], fleet)


def test_fleet_check_validates_arguments_against_the_advertised_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"k": {"type": "integer"}},
        "additionalProperties": False,
    }
    fleet = [_worker("w0", "remote_only", schema=schema)]
    check_on_fleet(REGISTRY, [EvaluatorSpec(name="remote_only", args={"k": 3})], fleet)
    with pytest.raises(EvaluatorUnavailable, match=r"'remote_only': k: 'x' is not of type 'integer'"):
        check_on_fleet(REGISTRY, [EvaluatorSpec(name="remote_only", args={"k": "x"})], fleet)
    with pytest.raises(EvaluatorUnavailable, match=r"accepted arguments: k"):
        check_on_fleet(REGISTRY, [EvaluatorSpec(name="remote_only", args={"kk": 1})], fleet)
    # a locally known evaluator is checked with its own model (the one the worker uses)
    local = [_worker("w0", "retrieval", schema=schema)]
    with pytest.raises(EvaluatorArgumentsError, match="evaluator 'retrieval': kz: unknown argument"):
        check_on_fleet(REGISTRY, [EvaluatorSpec(name="retrieval", args={"kz": [5]})], local)


def test_fleet_check_names_the_closest_evaluator_and_argument() -> None:
    schema = {"type": "object", "properties": {"limit": {"type": "integer"}}, "additionalProperties": False}
    fleet = [_worker("w0", "order_correctness", "remote_only", schema=schema)]
    with pytest.raises(
        EvaluatorUnavailable, match=r"known: order_correctness, remote_only\. Did you mean 'remote_only'\? If"
    ):
        check_on_fleet(REGISTRY, [EvaluatorSpec(name="remote_onyl")], fleet)
    with pytest.raises(EvaluatorUnavailable, match=r"\(accepted arguments: limit\); did you mean 'limit'\?$"):
        check_on_fleet(REGISTRY, [EvaluatorSpec(name="remote_only", args={"limt": 1})], fleet)
