"""Trajectory normalisation and match modes, plus a partial-credit similarity.

Normalisation (applied to the actual and the reference trajectory alike):
keep the first human message; keep only AI messages that call tools; split multi-tool AI
messages into one call per message; optionally keep only the mandatory tools; canonicalise
arguments to ``{}`` (argument mode ``ignore``), call ids to ``call_1..N`` and tool outputs to
``TOOL_RESULT``.

Trajectory modes (as agentevals): ``strict`` same calls in the same order; ``unordered`` the same
calls in any order; ``subset`` the agent made no call beyond the reference; ``superset`` the agent
made at least the reference calls. Argument modes compare the actual call's args with the
reference's: ``exact`` equal, ``ignore`` always, ``subset`` actual ⊆ reference,
``superset`` actual ⊇ reference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from shared.evaluators.payload import MalformedPayload, as_dict, as_list

TrajectoryMode = Literal["strict", "unordered", "subset", "superset"]
ArgsMode = Literal["exact", "ignore", "subset", "superset"]
TOOL_RESULT = "TOOL_RESULT"


class ToolCall(BaseModel, frozen=True):
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class NormalisedTrajectory(BaseModel):
    first_human: str | None = None
    calls: list[ToolCall] = Field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.calls]

    def to_messages(self) -> list[dict[str, Any]]:
        """The canonical message list (human, then ai call / tool result pairs)."""
        messages: list[dict[str, Any]] = []
        if self.first_human is not None:
            messages.append({"type": "human", "content": self.first_human})
        for i, call in enumerate(self.calls, start=1):
            call_id = f"call_{i}"
            messages.append(
                {
                    "type": "ai",
                    "content": "",
                    "tool_calls": [{"id": call_id, "name": call.name, "args": call.args}],
                }
            )
            messages.append({"type": "tool", "content": TOOL_RESULT, "tool_call_id": call_id})
        return messages


def _message_type(message: dict[str, Any]) -> str:
    kind = message.get("type") or message.get("role") or ""
    return {"user": "human", "assistant": "ai"}.get(str(kind), str(kind))


def normalise(
    messages: Any,
    *,
    args_mode: ArgsMode = "ignore",
    only_tools: list[str] | None = None,
) -> NormalisedTrajectory:
    """Normalise a trajectory given as message dicts (or pydantic ``TrajectoryMessage`` objects)."""
    first_human: str | None = None
    calls: list[ToolCall] = []
    for raw in as_list(messages, "trajectory"):
        message = as_dict(raw, "trajectory message")
        kind = _message_type(message)
        if kind == "human" and first_human is None:
            first_human = str(message.get("content") or "")
        elif kind == "ai":
            for raw_call in message.get("tool_calls") or []:
                call = as_dict(raw_call, "tool call")
                if "name" not in call:
                    raise MalformedPayload(f"tool call without a name: {call!r}")
                name = str(call["name"])
                if only_tools is not None and name not in only_tools:
                    continue
                args = {} if args_mode == "ignore" else as_dict(call.get("args"), f"args of {name}")
                calls.append(ToolCall(name=name, args=args))
    return NormalisedTrajectory(first_human=first_human, calls=calls)


def _args_matcher(mode: ArgsMode) -> Callable[[dict[str, Any], dict[str, Any]], bool]:
    if mode == "exact":
        return lambda actual, ref: actual == ref
    if mode == "subset":
        return lambda actual, ref: all(k in ref and ref[k] == v for k, v in actual.items())
    if mode == "superset":
        return lambda actual, ref: all(k in actual and actual[k] == v for k, v in ref.items())
    return lambda actual, ref: True


def _max_matching(actual: list[ToolCall], reference: list[ToolCall], args_mode: ArgsMode) -> int:
    """Size of a maximum one-to-one matching between actual and reference calls (Kuhn's algorithm)."""
    same_args = _args_matcher(args_mode)
    edges = [
        [j for j, r in enumerate(reference) if r.name == a.name and same_args(a.args, r.args)] for a in actual
    ]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    return sum(augment(i, set()) for i in range(len(actual)))


def trajectories_match(
    actual: NormalisedTrajectory,
    reference: NormalisedTrajectory,
    mode: TrajectoryMode,
    args_mode: ArgsMode = "ignore",
) -> bool:
    a, r = actual.calls, reference.calls
    if mode == "strict":
        same_args = _args_matcher(args_mode)
        return len(a) == len(r) and all(
            x.name == y.name and same_args(x.args, y.args) for x, y in zip(a, r, strict=True)
        )
    matched = _max_matching(a, r, args_mode)
    if mode == "unordered":
        return len(a) == len(r) == matched
    if mode == "subset":
        return matched == len(a)
    if mode == "superset":
        return matched == len(r)
    raise ValueError(f"unknown trajectory_mode {mode!r}; use strict, unordered, subset or superset")


def lcs_length(a: list[str], b: list[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def edit_distance(a: list[str], b: list[str]) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def similarity(a: list[str], b: list[str], method: Literal["lcs", "edit"] = "lcs") -> float:
    """Similarity of two tool-name sequences in [0, 1]; 1.0 when both are empty.

    ``lcs``: 2·LCS / (|a| + |b|). ``edit``: 1 - Levenshtein / max(|a|, |b|).
    """
    if not a and not b:
        return 1.0
    if method == "lcs":
        return 2 * lcs_length(a, b) / (len(a) + len(b))
    if method == "edit":
        return 1 - edit_distance(a, b) / max(len(a), len(b))
    raise ValueError(f"unknown similarity method {method!r}; use 'lcs' or 'edit'")
