"""Generic evaluators for any application: text, JSON, numbers, tools, latency.

Where the values come from:
- ``field`` (a dotted path, ``answer`` or ``data.items.0.name``) picks the value out of the output;
  without it the whole output is used (a string output as is; a dict with exactly one key, that
  key's value; anything else, its JSON);
- the reference is ``expected`` when given as an argument, else ``expected_output`` at
  ``expected_field`` (default: the same path as ``field``).
Every evaluator declares how it passes: 0/1 results pass at 1, similarity at ``>= min_ratio`` set
at registration to 0.8. A missing value is a recorded error ("no value at path …"), never a score.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Mapping
from typing import Annotated, Any, Literal

import jsonschema
from pydantic import AfterValidator, Field
from rapidfuzz import fuzz

from shared.evaluators.payload import MalformedPayload, tool_call_names
from shared.evaluators.registry import register
from yardstick.api.evaluation import Evaluation
from yardstick.api.pass_criteria import higher_is_better

PASS_AT_ONE = higher_is_better(1.0)
SIMILARITY_TO_PASS = 0.8


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from exc
    return pattern


def _is_a_schema(schema: dict[str, Any]) -> dict[str, Any]:
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ValueError(f"not a JSON Schema (draft 2020-12): {exc.message}") from exc
    return schema


# Checked when an experiment is submitted (argument validation), not at every item's scoring.
RegexPattern = Annotated[str, Field(min_length=1, max_length=2000), AfterValidator(_compiles)]
JsonSchema = Annotated[dict[str, Any], AfterValidator(_is_a_schema)]


def _at(value: Any, path: str | None, what: str) -> Any:
    if not path:
        return value
    current = value
    for part in path.split("."):
        if isinstance(current, Mapping) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            raise MalformedPayload(f"no value at {what} path {path!r}")
    return current


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and len(value) == 1:
        return _text(next(iter(value.values())))
    return json.dumps(value, sort_keys=True, default=str)


def _actual(output: Any, field: str | None) -> Any:
    return _at(output, field, "output")


def _reference(expected_output: Any, expected: Any, field: str | None, expected_field: str | None) -> Any:
    if expected is not None:
        return expected
    if expected_output is None:
        raise MalformedPayload("no reference: give 'expected' or an item expected_output")
    return _at(expected_output, expected_field or field, "expected_output")


EMBEDDED_JSON_STARTS = 200
"""At most this many ``{`` / ``[`` are tried as the start of a JSON value in one text."""


def embedded_json(text: str) -> list[Any]:
    """The JSON objects and arrays found in ``text``, left to right (each decoded from a ``{`` or
    ``[`` onwards; a value found is skipped over; at most ``EMBEDDED_JSON_STARTS`` starts tried)."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    position, tried = 0, 0
    while tried < EMBEDDED_JSON_STARTS:
        starts = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        tried += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            position = start + 1
            continue
        found.append(value)
        position = end
    return found


_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalized(text: str) -> str:
    """Lower case, no punctuation, no articles (a, an, the), single spaces (the SQuAD normalisation)."""
    text = "".join(char for char in text.lower() if char not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _binary(name: str, passed: bool, comment: str) -> Evaluation:
    return Evaluation(name=name, value=1.0 if passed else 0.0, comment=comment)


@register("exact_match", inline=True, passes={"exact_match": PASS_AT_ONE})
def exact_match(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    field: str | None = None,
    expected_field: str | None = None,
    expected: Any = None,
    case_sensitive: bool = True,
    strip: bool = True,
    **kwargs: Any,
) -> Evaluation:
    """1 when the output text equals the reference (optionally ignoring case and outer spaces)."""
    actual = _text(_actual(output, field))
    reference = _text(_reference(expected_output, expected, field, expected_field))
    a, r = (actual.strip(), reference.strip()) if strip else (actual, reference)
    if not case_sensitive:
        a, r = a.casefold(), r.casefold()
    return _binary("exact_match", a == r, "equal" if a == r else f"{a[:80]!r} != {r[:80]!r}")


@register("contains", inline=True, passes={"contains": PASS_AT_ONE})
def contains(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    field: str | None = None,
    expected_field: str | None = None,
    expected: Any = None,
    case_sensitive: bool = False,
    **kwargs: Any,
) -> Evaluation:
    """1 when the output text contains the reference (case-insensitive by default)."""
    actual = _text(_actual(output, field))
    needle = _text(_reference(expected_output, expected, field, expected_field))
    found = needle in actual if case_sensitive else needle.casefold() in actual.casefold()
    return _binary("contains", found, f"{'contains' if found else 'does not contain'} {needle[:80]!r}")


@register("regex_match", passes={"regex_match": PASS_AT_ONE})
def regex_match(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    pattern: RegexPattern,
    field: str | None = None,
    full: bool = False,
    **kwargs: Any,
) -> Evaluation:
    """1 when the output text matches ``pattern`` (anywhere, or in full with ``full``)."""
    compiled = re.compile(_compiles(pattern))
    text = _text(_actual(output, field))
    matched = bool(compiled.fullmatch(text) if full else compiled.search(text))
    return _binary("regex_match", matched, f"{'matches' if matched else 'does not match'} /{pattern}/")


@register("json_valid", inline=True, passes={"json_valid": PASS_AT_ONE}, reference_free=True)
def json_valid(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    field: str | None = None,
    embedded: bool = False,
    **kwargs: Any,
) -> Evaluation:
    """1 when the output (a string) parses as JSON; structured outputs already are JSON. With
    ``embedded``, 1 when the text contains a JSON object or array anywhere ("Here it is: {…}")."""
    value = _actual(output, field)
    if not isinstance(value, str):
        return _binary("json_valid", True, "structured output")
    if embedded:
        found = embedded_json(value)
        return _binary("json_valid", bool(found), f"{len(found)} JSON value(s) in the text")
    try:
        json.loads(value)
    except json.JSONDecodeError as exc:
        return _binary("json_valid", False, f"not JSON: {exc.msg} at {exc.pos}")
    return _binary("json_valid", True, "parses as JSON")


@register("json_schema", passes={"json_schema": PASS_AT_ONE}, reference_free=True)
def json_schema(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    schema: JsonSchema,
    field: str | None = None,
    embedded: bool = False,
    **kwargs: Any,
) -> Evaluation:
    """1 when the output (parsed if it is a JSON string) validates against the JSON Schema ``schema``;
    with ``embedded``, when one of the JSON objects or arrays found in the text does."""
    value = _actual(output, field)
    if embedded and isinstance(value, str):
        found = embedded_json(value)
        validator = jsonschema.Draft202012Validator(schema)
        valid = any(validator.is_valid(candidate) for candidate in found)
        comment = f"{'one' if valid else 'none'} of {len(found)} JSON value(s) in the text is valid"
        return _binary("json_schema", valid, comment)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            return _binary("json_schema", False, f"not JSON: {exc.msg}")
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.path) or "(root)"
        return _binary("json_schema", False, f"{len(errors)} violation(s); {where}: {first.message[:160]}")
    return _binary("json_schema", True, "valid")


@register("numeric_tolerance", inline=True, passes={"numeric_tolerance": PASS_AT_ONE})
def numeric_tolerance(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    field: str | None = None,
    expected_field: str | None = None,
    expected: float | None = None,
    abs_tol: Annotated[float, Field(ge=0)] = 0.0,
    rel_tol: Annotated[float, Field(ge=0)] = 0.0,
    **kwargs: Any,
) -> Evaluation:
    """1 when |output - reference| <= max(abs_tol, rel_tol x |reference|)."""
    try:
        actual = float(_actual(output, field))
        reference = float(_reference(expected_output, expected, field, expected_field))
    except (TypeError, ValueError) as exc:
        raise MalformedPayload(f"numeric_tolerance: not a number ({exc})") from exc
    allowed = max(abs_tol, rel_tol * abs(reference))
    diff = abs(actual - reference)
    return _binary(
        "numeric_tolerance", diff <= allowed, f"|{actual:g} - {reference:g}| = {diff:g} (allowed {allowed:g})"
    )


@register("string_similarity", passes={"string_similarity": higher_is_better(SIMILARITY_TO_PASS)})
def string_similarity(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    field: str | None = None,
    expected_field: str | None = None,
    expected: Any = None,
    method: Literal["ratio", "partial_ratio", "token_sort_ratio", "token_set_ratio"] = "ratio",
    **kwargs: Any,
) -> Evaluation:
    """rapidfuzz similarity of output and reference, in [0, 1], by ``method``."""
    scorer = {
        "ratio": fuzz.ratio,
        "partial_ratio": fuzz.partial_ratio,
        "token_sort_ratio": fuzz.token_sort_ratio,
        "token_set_ratio": fuzz.token_set_ratio,
    }[method]
    actual = _text(_actual(output, field))
    reference = _text(_reference(expected_output, expected, field, expected_field))
    value = scorer(actual, reference) / 100.0
    return Evaluation(name="string_similarity", value=value, comment=f"{method} {value:.3f}")


@register("fuzzy_match", passes={"fuzzy_match": PASS_AT_ONE})
def fuzzy_match(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    field: str | None = None,
    expected_field: str | None = None,
    expected: Any = None,
    **kwargs: Any,
) -> Evaluation:
    """1 when output and reference, normalised (lower case, no punctuation or articles), contain one
    another; a list reference passes when any of its answers does (OpenAI Evals' FuzzyMatch)."""
    reference = _reference(expected_output, expected, field, expected_field)
    answers = reference if isinstance(reference, list) else [reference]
    actual = normalized(_text(_actual(output, field)))
    for answer in answers:
        wanted = normalized(_text(answer))
        if (wanted in actual or actual in wanted) if wanted and actual else wanted == actual:
            return _binary("fuzzy_match", True, f"matches {_text(answer)[:80]!r}")
    return _binary("fuzzy_match", False, f"matches none of {len(answers)} answer(s)")


@register("tool_called", inline=True, passes={"tool_called": PASS_AT_ONE}, reference_free=True)
def tool_called(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    tool: Annotated[str, Field(min_length=1)],
    **kwargs: Any,
) -> Evaluation:
    """1 when the output's tool calls (``tool_calls`` or the trajectory) include ``tool``."""
    names = tool_call_names(output if isinstance(output, Mapping) else {})
    return _binary("tool_called", tool in names, f"called {names}" if names else "no tool calls")


@register("tool_sequence", inline=True, passes={"tool_sequence": PASS_AT_ONE}, reference_free=True)
def tool_sequence(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    tools: list[str],
    exact: bool = False,
    **kwargs: Any,
) -> Evaluation:
    """1 when ``tools`` were called in this order (as a subsequence; the whole sequence with ``exact``)."""
    names = tool_call_names(output if isinstance(output, Mapping) else {})
    if exact:
        ok = names == tools
    else:
        remaining = iter(names)
        ok = all(any(name == wanted for name in remaining) for wanted in tools)
    return _binary("tool_sequence", ok, f"called {names}, wanted {'exactly ' if exact else ''}{tools}")


@register("latency_budget", inline=True, passes={"latency_budget": PASS_AT_ONE}, reference_free=True)
def latency_budget(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    max_ms: Annotated[float, Field(gt=0)],
    field: str = "latency_ms",
    **kwargs: Any,
) -> Evaluation:
    """1 when the target's reported latency (``output.latency_ms`` by default) is within ``max_ms``."""
    try:
        latency = float(_actual(output, field))
    except (TypeError, ValueError) as exc:
        raise MalformedPayload(f"latency_budget: {field!r} is not a number of milliseconds") from exc
    return _binary("latency_budget", latency <= max_ms, f"{latency:.1f} ms (budget {max_ms:g} ms)")
