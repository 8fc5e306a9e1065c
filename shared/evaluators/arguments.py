"""Each evaluator's arguments as a pydantic model, read from its signature.

An evaluator's keyword parameters (other than the values it is given per item or per run) are
its arguments: ``retrieval(*, output, expected_output, ks: list[int] | None = None, ...)`` accepts
``{"ks": [5, 10]}``. The model forbids unknown names, so ``{"ks": "five"}`` or ``{"kz": [5]}``
is refused when an experiment is submitted, naming the evaluator and the field, instead of
silently scoring nothing at run time.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic_core import ErrorDetails

from yardstick.api.validation_messages import did_you_mean_each, phrase

GIVEN = frozenset({"input", "output", "expected_output", "metadata", "item_results", "columns"})
"""Parameters filled by the caller per item (or per run), never by an experiment's ``args``."""


class EvaluatorArgumentsError(ValueError):
    """An evaluator's ``args`` do not fit its arguments model; an unknown argument names the closest
    accepted one (``kz: unknown argument (accepted arguments: ks, …); did you mean 'ks'?``)."""

    def __init__(self, evaluator: str, error: ValidationError, accepted: list[str]) -> None:
        errors = error.errors(include_url=False)
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'args'}: {_message(e)}" for e in errors)
        known = ", ".join(accepted) if accepted else "none"
        unknown = [str(e["loc"][-1]) for e in errors if e["type"] == "extra_forbidden" and e["loc"]]
        hint = did_you_mean_each(unknown, accepted)
        super().__init__(f"evaluator {evaluator!r}: {problems} (accepted arguments: {known}){hint}")
        self.evaluator = evaluator


def _message(error: ErrorDetails) -> str:
    if error["type"] == "extra_forbidden":
        return "unknown argument"
    if error["type"] in ("literal_error", "enum"):
        return phrase(error)[1]
    return str(error["msg"])


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, populate_by_name=True)


def arguments_model(name: str, fn: Callable[..., Any]) -> type[BaseModel]:
    """A model of ``fn``'s keyword arguments (``**kwargs`` excluded: unknown names are refused)."""
    signature = inspect.signature(fn, follow_wrapped=False)
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except (NameError, TypeError):
        hints = {}
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.name in GIVEN or param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            continue
        if param.kind == param.POSITIONAL_ONLY:
            continue
        annotation = hints.get(param.name, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        if hasattr(BaseModel, param.name):  # e.g. `schema`: kept under another name, same alias
            fields[f"{param.name}_"] = (annotation, Field(default, alias=param.name))
        else:
            fields[param.name] = (annotation, default)
    return create_model(f"{name}_arguments", __base__=_Arguments, **fields)


def validate_arguments(name: str, model: type[BaseModel], args: dict[str, Any]) -> dict[str, Any]:
    """``args`` checked against ``model``; the validated values (only those given)."""
    try:
        validated = model.model_validate(args)
    except ValidationError as exc:
        accepted = [info.alias or field for field, info in model.model_fields.items()]
        raise EvaluatorArgumentsError(name, exc, accepted) from None
    given = {field for field, info in model.model_fields.items() if (info.alias or field) in args}
    return validated.model_dump(include=given, by_alias=True)
