"""The texts judges read, pulled out of evaluator arguments.

The answer is ``output["answer"]`` or ``output["response"]`` (or ``output`` itself if a string);
the query ``input["query"]`` / ``input["question"]`` / ``input["customer_utterance"]``; the
retrieved context ``output["contexts"]`` (strings) or the ``title``/``snippet`` of
``output["results"]``; citation sources ``output["citations"]`` (``[{id, text}]``) or the results.
"""

from __future__ import annotations

import json
from typing import Any

from shared.evaluators.payload import as_dict, as_list


def answer_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    out = as_dict(output, "output")
    return str(out.get("answer") or out.get("response") or "")


def query_text(input: Any) -> str:
    if isinstance(input, str):
        return input
    data = as_dict(input, "input")
    return str(data.get("query") or data.get("question") or data.get("customer_utterance") or "")


def context_texts(output: Any) -> list[str]:
    out = as_dict(output, "output") if not isinstance(output, str) else {}
    if out.get("contexts") is not None:
        return [str(c) for c in as_list(out["contexts"], "output.contexts")]
    hits = [as_dict(h, "search hit") for h in as_list(out.get("results"), "output.results")]
    return [f"{h.get('title', '')}\n{h.get('snippet', '')}".strip() for h in hits]


def citation_sources(output: Any) -> list[str]:
    out = as_dict(output, "output") if not isinstance(output, str) else {}
    if out.get("citations") is not None:
        sources = as_list(out["citations"], "output.citations")
        return [str(as_dict(c, "citation").get("text", "")) if not isinstance(c, str) else c for c in sources]
    return context_texts(output)


def render_trajectory(messages: list[Any]) -> str:
    lines = []
    for raw in messages:
        message = as_dict(raw, "trajectory message")
        kind = message.get("type") or message.get("role")
        if message.get("content"):
            lines.append(f"{kind}: {message['content']}")
        for call in message.get("tool_calls") or []:
            call = as_dict(call, "tool call")
            lines.append(
                f"{kind} calls {call.get('name')}({json.dumps(call.get('args') or {}, sort_keys=True)})"
            )
    return "\n".join(lines) or "(empty)"
