"""The metrics reference: every ``yardstick_*`` metric registered by :mod:`shared.metrics`, with its
type, labels and help text, read from the Prometheus registry (the same one ``/metrics`` serves)."""

from __future__ import annotations

from docs.gen.json_schema import cell
from shared.metrics import yardstick_metrics

INTRO = """# Metrics

Every service serves Prometheus metrics at `GET /metrics` on its HTTP port (no key, like
`/healthz`): the coordinator, the eval workers, the agent, the search-proxy, the sampler and ingest.
Each service is one process, so one scrape per process is the whole story (Prometheus adds the
`instance` label); besides the `yardstick_*` metrics below, each serves prometheus-client's
`process_*` and `python_*` metrics. A metric appears once the service that moves it has moved it
(a labelled one, once it has that label's value). Consumer lag and the connection state are read
when the scrape arrives. Which service moves what, and what to watch:
[Running at scale](../operations/scale.md#what-to-watch).

This page is generated from the registry, so it lists exactly what the code registers.

| metric | type | labels | meaning |
|---|---|---|---|
"""


def metrics_page() -> str:
    rows = [
        f"| `{doc.name}` | {doc.type} | {', '.join(f'`{label}`' for label in doc.labels) or '—'} | "
        f"{cell(doc.help)} |"
        for doc in yardstick_metrics()
    ]
    return INTRO + "\n".join(rows) + "\n"
