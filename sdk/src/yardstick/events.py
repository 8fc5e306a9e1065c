"""Server-sent events of ``GET /experiments/{id}/events`` read into :class:`ExperimentEvent`\\ s."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from yardstick.api.experiment_events import ExperimentEvent


def parse_sse(lines: Iterable[str]) -> Iterator[ExperimentEvent]:
    """Each ``data:`` block up to its blank line as one event; comments (keep-alives) are skipped."""
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                yield ExperimentEvent.model_validate_json("\n".join(data))
                data = []
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
    if data:
        yield ExperimentEvent.model_validate_json("\n".join(data))
