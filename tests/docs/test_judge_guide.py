"""The Python judge of docs/guides/write-a-judge.md runs as written, against the bad-day server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from shared.evaluators.registry import marked
from tests.llm_provider import BadDayProvider, Reply

pytestmark = pytest.mark.integration

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "write-a-judge.md"


def guide_judge() -> Any:
    [code] = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.DOTALL)
    namespace: dict[str, Any] = {"__name__": "write_a_judge_example"}
    exec(compile(code, str(GUIDE), "exec"), namespace)
    return namespace["conciseness"]


async def test_the_guide_judge_scores_and_refuses_out_of_scale(provider: BadDayProvider) -> None:
    conciseness = guide_judge()
    entry = marked(conciseness)
    assert entry is not None and entry.version == "conciseness-v1" and entry.reference_free
    provider.refuse = {"json_schema"}
    provider.then(
        Reply(content='```json\n{"reason": "short", "score": 5}\n```'),
        Reply.json({"reason": "?", "score": 7}),
    )
    ev = await conciseness(output="Sure, anything else?")
    assert (ev.value, ev.comment, ev.metadata["score"]) == (1.0, "short", 5)
    assert ev.metadata["prompt_version"] == "conciseness-v1" and ev.metadata["format_fallbacks"] == 1
    refused = await conciseness(output="Sure, anything else?")
    assert refused.value is None and refused.comment == "not measured: score 7 is outside the scale 1-5"
