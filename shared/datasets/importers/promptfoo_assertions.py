"""promptfoo assertions → :class:`~shared.contracts.item_checks.ItemCheck` of the same meaning.

Mapped (``not-`` forms too, as negated checks; the metric is the assertion's ``metric`` or its
type with ``-`` as ``_``):

============================  ===========================================================
equals                        ``exact_match`` (no stripping, case counts); an object or list
                              value: ``json_schema`` with ``const`` (deep equality of JSON)
contains / icontains          ``contains`` (case-sensitive / not)
contains-any / -all (and i-)  ``contains`` once per value, any / all must pass
starts-with                   ``regex_match`` anchored at the start, the value escaped
regex                         ``regex_match`` (refused when Python cannot compile it)
is-json [schema]              ``json_valid`` / ``json_schema``
contains-json [schema]        the same with ``embedded`` (JSON found inside the text)
similar (threshold 0.75)      ``string_similarity`` at the threshold, any value; promptfoo
                              compares embeddings, this compares characters (a warning says so)
llm-rubric (threshold 0.5)    ``llm_rubric`` on the scale [0, 1] with the rubric as criteria
============================  ===========================================================

Everything else (``javascript``, ``python``, ``webhook``, model-graded types other than
``llm-rubric``, ``assert-set``, an assertion ``transform``) is :class:`Unsupported` with the reason.
Values are rendered with the test's vars where they are plain ``{{ name }}`` references; any other
Nunjucks template is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jsonschema

from shared.contracts.item_checks import ItemCheck
from shared.datasets.files import DatasetFileError
from shared.datasets.importers.imported import Unsupported

SIMILAR_THRESHOLD = 0.75
RUBRIC_THRESHOLD = 0.5
SIMILARITY_WARNING = (
    "`similar` compares embeddings in promptfoo; Yardstick's string_similarity compares characters "
    "(rapidfuzz ratio): a paraphrase promptfoo passes can fail here. Review those thresholds"
)
SCRIPTED = {
    "javascript": "runs JavaScript",
    "python": "runs Python code from the config",
    "ruby": "runs Ruby",
    "webhook": "calls a web service to grade",
}
_VAR = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}")
_METRIC_CHARS = re.compile(r"[^A-Za-z0-9_.@-]+")


class _Refused(Exception):
    """An assertion that cannot be brought over: its type and the reason."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def render(value: Any, variables: Mapping[str, Any], kind: str) -> Any:
    """``value`` with its ``{{ name }}`` references replaced by the vars (strings, recursively)."""
    if isinstance(value, list):
        return [render(v, variables, kind) for v in value]
    if isinstance(value, dict):
        return {k: render(v, variables, kind) for k, v in value.items()}
    if not isinstance(value, str):
        return value

    def var(match: re.Match[str]) -> str:
        current: Any = variables
        for part in match.group(1).split("."):
            if not isinstance(current, Mapping) or part not in current:
                raise _Refused(
                    kind, f"its value refers to {{{{{match.group(1)}}}}}, which the test's vars lack"
                )
            current = current[part]
        return current if isinstance(current, str) else str(current)

    rendered = _VAR.sub(var, value)
    if "{{" in rendered or "{%" in rendered:
        raise _Refused(kind, "its value is a Nunjucks template beyond {{ var }}: write the value out")
    return rendered


def metric_name(assertion: Mapping[str, Any], kind: str) -> str:
    """The assertion's ``metric`` (made a valid metric name) or its type with ``_`` for ``-``."""
    raw = assertion.get("metric")
    name = raw if isinstance(raw, str) and raw.strip() else kind
    name = _METRIC_CHARS.sub("_", name.replace("-", "_").replace(":", "_")).strip("_") or "check"
    return (name if name[0].isalpha() else f"m_{name}")[:64]


def _text_values(value: Any, kind: str) -> list[str]:
    if isinstance(value, str):
        values = [v.strip() for v in value.split(",")]
    elif isinstance(value, list):
        values = [str(v) for v in value]
    else:
        raise _Refused(kind, "needs a list of strings (or one comma-separated string)")
    if not values or not all(values):
        raise _Refused(kind, "needs at least one non-empty value")
    return values


def _one_text(value: Any, kind: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or value == "":
        raise _Refused(kind, "needs a string or number value")
    return str(value)


def _schema(value: Any, kind: str, base: Path, load: Callable[[Path], Any]) -> dict[str, Any] | None:
    if value in (None, ""):
        return None
    if isinstance(value, str):
        value = load(base / value[len("file://") :]) if value.startswith("file://") else _yaml_value(value)
    if value is True:
        return None
    if not isinstance(value, dict):
        raise _Refused(kind, "its value must be a JSON Schema (an object)")
    try:
        jsonschema.Draft202012Validator.check_schema(value)
    except jsonschema.SchemaError as exc:
        raise _Refused(kind, f"its value is not a JSON Schema: {exc.message}") from exc
    return value


def _yaml_value(text: str) -> Any:
    from shared.datasets.files import load_yaml

    try:
        return load_yaml(text)
    except Exception as exc:  # a schema written as text that is not YAML
        raise _Refused("schema", f"its schema is not YAML/JSON: {exc}") from exc


def _threshold(assertion: Mapping[str, Any], default: float, kind: str) -> float:
    value = assertion.get("threshold", default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise _Refused(kind, f"threshold {value!r} is not a number between 0 and 1")
    return float(value)


def _checks_of(
    kind: str, value: Any, assertion: Mapping[str, Any], base: Path, load: Callable[[Path], Any]
) -> list[dict[str, Any]]:
    """The checks (without metric/negate/label) of one positive assertion type."""
    if kind == "equals":
        if isinstance(value, (dict, list)):
            return [{"evaluator": "json_schema", "args": {"schema": {"const": value}}}]
        return [{"evaluator": "exact_match", "args": {"expected": _one_text(value, kind), "strip": False}}]
    if kind in ("contains", "icontains"):
        text = _one_text(value, kind)
        return [{"evaluator": "contains", "args": {"expected": text, "case_sensitive": kind == "contains"}}]
    if kind in ("contains-any", "contains-all", "icontains-any", "icontains-all"):
        return [
            {
                "evaluator": "contains",
                "args": {"case_sensitive": not kind.startswith("i")},
                "values": _text_values(value, kind),
                "match": kind.rsplit("-", 1)[1],
            }
        ]
    if kind == "starts-with":
        return [{"evaluator": "regex_match", "args": {"pattern": r"\A" + re.escape(_one_text(value, kind))}}]
    if kind == "regex":
        pattern = _one_text(value, kind)
        try:
            re.compile(pattern)
        except re.error as exc:
            raise _Refused(
                kind, f"Python cannot compile /{pattern}/ ({exc}): rewrite it in Python syntax"
            ) from exc
        return [{"evaluator": "regex_match", "args": {"pattern": pattern}}]
    if kind in ("is-json", "contains-json"):
        schema = _schema(value, kind, base, load)
        embedded = {"embedded": True} if kind == "contains-json" else {}
        if schema is None:
            return [{"evaluator": "json_valid", "args": embedded}]
        return [{"evaluator": "json_schema", "args": {"schema": schema, **embedded}}]
    if kind == "similar" or kind.startswith("similar:"):
        values = [value] if isinstance(value, str) and value else value
        if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
            raise _Refused(kind, "needs a string or a list of strings")
        return [
            {
                "evaluator": "string_similarity",
                "values": values,
                "threshold": _threshold(assertion, SIMILAR_THRESHOLD, kind),
            }
        ]
    if kind == "llm-rubric":
        if not isinstance(value, str) or not value.strip():
            raise _Refused(kind, "needs the rubric as text")
        return [
            {
                "evaluator": "llm_rubric",
                "args": {"criteria": value.strip()[:4000], "scale": [0, 1]},
                "threshold": _threshold(assertion, RUBRIC_THRESHOLD, kind),
            }
        ]
    if kind in SCRIPTED:
        raise _Refused(
            kind,
            f"it {SCRIPTED[kind]}; Yardstick runs no code from a dataset: write the check as an "
            "evaluator plugin (YARDSTICK_EVALUATOR_MODULES) and add it with -e",
        )
    if kind == "assert-set":
        raise _Refused(kind, "a group of assertions with its own threshold: list its assertions one by one")
    raise _Refused(kind, "no Yardstick evaluator has the same meaning")


def map_assertion(
    assertion: Any,
    variables: Mapping[str, Any],
    where: str,
    base: Path,
    load: Callable[[Path], Any],
    templates: Mapping[str, Any],
) -> list[ItemCheck] | Unsupported:
    """One promptfoo assertion as checks, or why it cannot be."""
    if isinstance(assertion, Mapping) and isinstance(assertion.get("$ref"), str):
        ref = assertion["$ref"]
        name = ref.removeprefix("#/assertionTemplates/")
        if name == ref or name not in templates:
            return Unsupported(where, "$ref", f"{ref!r} names no entry of assertionTemplates")
        assertion = templates[name]
    if not isinstance(assertion, Mapping) or not isinstance(assertion.get("type"), str):
        return Unsupported(where, "?", "an assertion is a mapping with a `type`")
    kind = str(assertion["type"])
    negate = kind.startswith("not-")
    base_kind = kind.removeprefix("not-")
    try:
        if "transform" in assertion:
            raise _Refused(kind, "its `transform` runs JavaScript on the output first")
        value = render(assertion.get("value"), variables, kind)
        raw = _checks_of(base_kind, value, assertion, base, load)
    except _Refused as refused:
        return Unsupported(where, kind, refused.reason)
    except DatasetFileError as exc:  # a schema file: missing or unreadable
        return Unsupported(where, kind, str(exc))
    metric = metric_name(assertion, kind)
    return [
        ItemCheck.model_validate({**c, "negate": negate, "metric": metric, "label": f"{where} {kind}"})
        for c in raw
    ]
