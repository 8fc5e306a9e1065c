"""The registry holds every metric an operator is promised, named by Prometheus' conventions."""

from __future__ import annotations

import re

import pytest
from prometheus_client import REGISTRY, CollectorRegistry, Counter, generate_latest

from shared.metrics import TASKS_SETTLED, yardstick_metrics

pytestmark = pytest.mark.unit

PROMISED = {
    "yardstick_eval_tasks_published_total",
    "yardstick_eval_tasks_in_flight",
    "yardstick_eval_tasks_settled_total",
    "yardstick_eval_results_stored_total",
    "yardstick_jetstream_consumer_pending_messages",
    "yardstick_jetstream_consumer_ack_pending_messages",
    "yardstick_target_errors_total",
    "yardstick_target_throttles_total",
    "yardstick_target_concurrency",
    "yardstick_ingest_spans_total",
    "yardstick_sampler_decisions_total",
    "yardstick_connection_up",
}


def test_every_promised_metric_is_registered_with_help_text() -> None:
    docs = {doc.name: doc for doc in yardstick_metrics()}
    assert set(docs) >= PROMISED, PROMISED - set(docs)
    for doc in docs.values():
        assert len(doc.help) > 20, f"{doc.name} needs help text that says what it means"


def test_names_follow_the_prometheus_conventions() -> None:
    for doc in yardstick_metrics():
        assert re.fullmatch(r"yardstick_[a-z0-9_]+", doc.name), doc.name
        assert doc.name.endswith("_total") == (doc.type == "counter"), doc.name
        assert not doc.name.endswith("_ms"), f"{doc.name}: base units (seconds)"
        assert "instance" not in doc.labels and "worker_id" not in doc.labels, "Prometheus adds the instance"


def test_the_labels_listed_are_the_declared_ones() -> None:
    docs = {doc.name: doc for doc in yardstick_metrics()}
    assert docs["yardstick_jetstream_consumer_pending_messages"].labels == ["stream", "consumer"]
    assert docs["yardstick_sampler_decisions_total"].labels == ["application", "decision"]
    assert docs["yardstick_eval_tasks_in_flight"].labels == []


def test_only_yardstick_metrics_of_the_given_registry_are_listed() -> None:
    registry = CollectorRegistry()
    Counter("yardstick_example_total", "An example counter for this test only.", registry=registry)
    Counter("other_total", "Not ours.", registry=registry)
    assert [doc.name for doc in yardstick_metrics(registry)] == ["yardstick_example_total"]


def test_the_exposition_carries_a_series_once_it_moved() -> None:
    TASKS_SETTLED.labels("ok").inc(0)
    text = generate_latest(REGISTRY).decode()
    assert "# HELP yardstick_eval_tasks_settled_total" in text
    assert 'yardstick_eval_tasks_settled_total{outcome="ok"}' in text
