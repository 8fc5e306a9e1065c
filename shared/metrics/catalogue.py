"""Every registered ``yardstick_*`` metric with its type, labels and help text, read from the
registry itself (the docs page and the tests use it, so neither can drift from the code)."""

from __future__ import annotations

from prometheus_client import REGISTRY
from prometheus_client.registry import CollectorRegistry
from pydantic import BaseModel, Field

PREFIX = "yardstick_"


class MetricDoc(BaseModel):
    name: str = Field(description="As exposed (counters with their _total suffix)")
    type: str = Field(description="counter, gauge, histogram, …")
    labels: list[str] = Field(description="Label names")
    help: str


def yardstick_metrics(registry: CollectorRegistry = REGISTRY) -> list[MetricDoc]:
    """Sorted by name. Labels come from the collector's declaration (a labelled metric that has no
    series yet still lists them)."""
    docs: list[MetricDoc] = []
    for collector in list(registry._collector_to_names):  # no public iterator over collectors
        describe = getattr(collector, "describe", None)
        families = describe() if describe is not None else []
        labels = list(getattr(collector, "_labelnames", ()))
        for family in families:
            if not family.name.startswith(PREFIX):
                continue
            name = f"{family.name}_total" if family.type == "counter" else family.name
            docs.append(MetricDoc(name=name, type=family.type, labels=labels, help=family.documentation))
    return sorted(docs, key=lambda doc: doc.name)
