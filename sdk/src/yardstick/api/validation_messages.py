"""Plain sentences for what a pydantic model refused, with the closest known name ("did you mean").

:func:`explain` turns one error of a ``ValidationError`` into one sentence, ``where: what``:

- ``where`` names the place: a list index counts from 1 and follows the singular of the list's
  name (``("items", 2, "input")`` reads ``item 3, input``); other parts are dotted;
- an unknown field (``extra_forbidden``) reads ``unknown field 'expected_ouput'; did you mean
  'expected_output'?``, the known names read from the model at that place (pass the validated
  model); where that model has a ``metadata`` field, ``Put extra data under 'metadata'.`` follows;
- a value outside a fixed set (``literal_error``, ``enum``, ``union_tag_invalid``) reads
  ``'pyhton' is not one of 'agent', 'python'; did you mean 'python'?``;
- a missing field reads ``missing field 'id'``;
- any other error keeps pydantic's message, without its ``Value error, `` prefix.

A suggestion is offered only when the closest known name is at least ``SUGGESTION_CUTOFF`` similar
(:mod:`difflib`'s ratio: twice the letters in matching runs over both names' length; case and
punctuation ignored): a name far from every known one gets no guess. Only the standard library is
used, so the SDK (which ships this module) stays light.
:func:`unknown_name` is the same sentence for a name checked outside a model (a target kind, an
evaluator).
"""

from __future__ import annotations

import difflib
import re
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

__all__ = [
    "EXTRA_DATA_FIELD",
    "SUGGESTION_CUTOFF",
    "Loc",
    "closest",
    "describe_errors",
    "did_you_mean",
    "did_you_mean_each",
    "explain",
    "location",
    "model_at",
    "phrase",
    "unknown_name",
]

SUGGESTION_CUTOFF = 0.75
"""The least similarity (0-1, :class:`difflib.SequenceMatcher`'s ratio) at which a known name is
offered as "did you mean": ``pyhton`` for ``python`` (0.83), ``metdata`` for ``metadata`` (0.93)."""
EXTRA_DATA_FIELD = "metadata"
"""A model with this field takes free-form data there: an unknown field's sentence says so."""
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")
_CHOICE_ERRORS = ("literal_error", "enum")
Loc = Sequence[str | int]


def _compared(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", " ", name.lower()).strip()


def closest(given: str, known: Iterable[str]) -> str | None:
    """The known name nearest to ``given`` (case and punctuation ignored), or None when none is near
    enough."""
    by_form: dict[str, str] = {}
    for name in known:
        if name != given:
            by_form.setdefault(_compared(name), name)
    found = difflib.get_close_matches(_compared(given), list(by_form), n=1, cutoff=SUGGESTION_CUTOFF)
    return by_form[found[0]] if found else None


def did_you_mean(given: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the nearest known name, or ``""`` when none is near enough."""
    suggestion = closest(given, known)
    return f"; did you mean {suggestion!r}?" if suggestion is not None else ""


def did_you_mean_each(unknown: Sequence[str], known: Sequence[str]) -> str:
    """:func:`did_you_mean` for several unknown names: ``; did you mean 'ks'?`` for one,
    ``; did you mean 'ks' for 'kz', 'mode' for 'mdoe'?`` for several (``""`` when none is near)."""
    if len(unknown) == 1:
        return did_you_mean(unknown[0], known)
    near = [(name, closest(name, known)) for name in unknown]
    found = ", ".join(f"{suggestion!r} for {name!r}" for name, suggestion in near if suggestion is not None)
    return f"; did you mean {found}?" if found else ""


def unknown_name(what: str, given: str, known: Sequence[str], listed: str = "known") -> str:
    """``unknown target kind 'pyhton'; did you mean 'python'? Known kinds: agent, python`` (with
    ``listed="known kinds"``); without a near name, ``unknown … 'x'; known kinds: agent, python``."""
    names = ", ".join(known) if known else "none"
    hint = did_you_mean(given, known)
    if hint:
        return f"unknown {what} {given!r}{hint} {listed[:1].upper()}{listed[1:]}: {names}"
    return f"unknown {what} {given!r}; {listed}: {names}"


def _singular(name: str) -> str:
    words = name.replace("_", " ")
    return words[:-1] if words.endswith("s") and len(words) > 3 else f"{words} entry"


def location(loc: Loc) -> str:
    """``("items", 2, "input", "messages", 0)`` → ``item 3, input, message 1`` (indexes from 1)."""
    tokens: list[str] = []
    dotted: list[str] = []
    for position, part in enumerate(loc):
        if isinstance(part, int):
            continue
        if position + 1 < len(loc) and isinstance(loc[position + 1], int):
            if dotted:
                tokens.append(".".join(dotted))
                dotted = []
            index = loc[position + 1]
            assert isinstance(index, int)
            tokens.append(f"{_singular(part)} {index + 1}")
        else:
            dotted.append(part)
    if dotted:
        tokens.append(".".join(dotted))
    leading = [f"entry {part + 1}" for part in loc[:1] if isinstance(part, int)]
    return ", ".join(leading + tokens)


def _members(annotation: Any) -> list[Any]:
    """The types an annotation may hold: ``Annotated``, ``Optional`` and unions unwrapped."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _members(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return [m for arg in get_args(annotation) if arg is not type(None) for m in _members(arg)]
    return [annotation]


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _field_names(model: type[BaseModel]) -> list[str]:
    """The names a model accepts: each field's alias (as documented) and, when allowed, its name."""
    by_name = bool(model.model_config.get("populate_by_name") or model.model_config.get("validate_by_name"))
    names: list[str] = []
    for name, info in model.model_fields.items():
        names.append(info.alias or name)
        if info.alias and by_name:
            names.append(name)
    return names


def _step(annotation: Any, part: str | int) -> list[Any]:
    found: list[Any] = []
    for member in _members(annotation):
        origin, args = get_origin(member), get_args(member)
        if isinstance(part, int):
            if origin in (list, tuple, set, frozenset, Sequence) and args:
                found.append(args[0])
        elif _is_model(member):
            for name, info in member.model_fields.items():
                if part in (name, info.alias):
                    found.append(info.annotation)
        elif origin in (dict, Mapping) and len(args) == 2:
            found.append(args[1])
    return found


def model_at(model: type[BaseModel] | None, loc: Loc) -> type[BaseModel] | None:
    """The model that validates the value at ``loc`` inside ``model`` (None when not a model)."""
    candidates: list[Any] = [model] if model is not None else []
    for part in loc:
        candidates = [found for candidate in candidates for found in _step(candidate, part)]
    models = [m for candidate in candidates for m in _members(candidate) if _is_model(m)]
    return models[0] if models else None


def _choices(expected: Any) -> list[str]:
    return _QUOTED.findall(str(expected or ""))


def phrase(error: ErrorDetails, model: type[BaseModel] | None = None, noun: str = "field") -> tuple[Loc, str]:
    """Where the problem is (a location) and what it is, for one error (see the module docstring)."""
    loc, kind = tuple(error.get("loc", ())), error.get("type", "")
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    if kind == "extra_forbidden" and loc:
        field = str(loc[-1])
        parent = model_at(model, loc[:-1])
        known = _field_names(parent) if parent is not None else []
        suggestion = closest(field, known)
        hint = f"; did you mean {suggestion!r}?" if suggestion is not None else ""
        if EXTRA_DATA_FIELD in known and suggestion != EXTRA_DATA_FIELD:
            hint += f"{'' if hint else '.'} Put extra data under {EXTRA_DATA_FIELD!r}."
        return loc[:-1], f"unknown {noun} {field!r}{hint}"
    if kind == "missing" and loc:
        return loc[:-1], f"missing {noun} {str(loc[-1])!r}"
    if kind in _CHOICE_ERRORS or kind == "union_tag_invalid":
        given = error.get("input") if kind != "union_tag_invalid" else ctx.get("tag")
        options = _choices(ctx.get("expected") or ctx.get("expected_tags"))
        if kind == "union_tag_invalid":
            loc = (*loc, *_choices(ctx.get("discriminator"))[:1])
        hint = did_you_mean(given, options) if isinstance(given, str) else ""
        listed = ", ".join(repr(option) for option in options)
        return loc, f"{given!r} is not one of {listed}{hint}"
    return loc, str(error.get("msg", "")).removeprefix("Value error, ")


def explain(
    error: ErrorDetails,
    model: type[BaseModel] | None = None,
    *,
    noun: str = "field",
    locate: Callable[[Loc], str] = location,
) -> str:
    """One error as one sentence (see the module docstring); ``model`` is the model that was
    validated (it names the known fields), ``locate`` phrases a location."""
    loc, what = phrase(error, model, noun)
    where = locate(loc)
    return f"{where}: {what}" if where else what


def describe_errors(
    errors: ValidationError | Sequence[ErrorDetails],
    model: type[BaseModel] | None = None,
    *,
    limit: int = 5,
    locate: Callable[[Loc], str] = location,
) -> list[str]:
    """The first ``limit`` errors as sentences, and ``(and N more)`` when some were left out."""
    details = errors.errors(include_url=False) if isinstance(errors, ValidationError) else list(errors)
    sentences = [explain(error, model, locate=locate) for error in details[:limit]]
    if len(details) > limit:
        sentences.append(f"(and {len(details) - limit} more)")
    return sentences
