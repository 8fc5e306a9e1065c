"""Reading a structured answer out of what a model wrote, tolerantly.

Real models wrap JSON in prose or code fences, or write it after a preamble. :func:`parse_reply`
tries, in order: the whole text as JSON; each fenced block (```json … ```); the first decodable
JSON object (or array) starting at any ``{`` (or ``[``). The first candidate that validates against
the schema wins; when none does, the reason names what was wrong with the best candidate.
Control characters inside strings (a raw line break in a ``reason``) are accepted: llama-cpp-python's
grammar for a JSON string lets a model write them, and they change nothing the judge reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder(strict=False)
MAX_SCANNED_STARTS = 200
"""At most this many ``{`` positions are tried in a long reply."""


class ReplyUnparsable(ValueError):
    """No JSON in the reply validates against the schema; the message says why."""


_NOT_JSON = object()


def _loads(text: str) -> Any:
    try:
        return _DECODER.decode(text.strip())
    except json.JSONDecodeError:
        return _NOT_JSON


def _candidates(text: str) -> Iterator[Any]:
    for chunk in [text, *_FENCE.findall(text)]:
        value = _loads(chunk)
        if value is not _NOT_JSON:
            yield value
    starts = [i for i, ch in enumerate(text) if ch in "{["][:MAX_SCANNED_STARTS]
    for start in starts:
        try:
            value, _end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        yield value


def _short(errors: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}" for e in errors.errors()[:3]
    )


def parse_reply(text: str, schema: type[T]) -> T:
    """The first JSON value in ``text`` that validates as ``schema``; :class:`ReplyUnparsable` else."""
    problem = "no JSON object found in the reply"
    for candidate in _candidates(text):
        try:
            return schema.model_validate(candidate)
        except ValidationError as exc:
            problem = f"JSON does not match {schema.__name__}: {_short(exc)}"
    raise ReplyUnparsable(problem)
