"""Retired setting names: a variable that was renamed stops start-up with a sentence naming the new one.

A renamed environment variable that is still set (in the environment or in ``.env``) would otherwise
be ignored without a word, and the service would run on the default. :data:`RETIRED_NAMES` maps each
retired name to the name that replaced it; every settings class built on :class:`RefusesRetiredNames`
(:class:`~shared.settings.CommonSettings`, so every service, and :class:`~shared.llm.LlmSettings`)
fails validation when one of them is set: ``YARDSTICK_JUDGE_MODEL was renamed JUDGE_MODEL: set
JUDGE_MODEL instead``. Names are compared as pydantic-settings compares them: case-insensitively.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dotenv import dotenv_values
from pydantic import model_validator
from pydantic_settings import BaseSettings

RETIRED_NAMES: Mapping[str, str] = MappingProxyType(
    {
        "YARDSTICK_JUDGE_MODEL": "JUDGE_MODEL",
    }
)
"""Retired environment variable → the variable that replaced it."""


def retired_names_problem(names: Iterable[str], retired: Mapping[str, str] = RETIRED_NAMES) -> str | None:
    """The sentence saying which of ``names`` (variables that are set) are retired, or None."""
    present = {name.upper() for name in names}
    found = sorted(old for old in retired if old.upper() in present)
    if not found:
        return None
    return "; ".join(f"{old} was renamed {retired[old]}: set {retired[old]} instead" for old in found)


def _env_files(env_file: object) -> list[Path]:
    if env_file is None:
        return []
    if isinstance(env_file, str | Path):
        return [Path(env_file)]
    if isinstance(env_file, list | tuple):
        return [Path(str(f)) for f in env_file]
    return []


def names_set(environ: Mapping[str, str], env_file: object) -> set[str]:
    """The variables set in ``environ`` and in the dotenv file(s) ``env_file`` (missing files: none)."""
    names = set(environ)
    for path in _env_files(env_file):
        if path.is_file():
            names.update(dotenv_values(path))
    return names


class RefusesRetiredNames(BaseSettings):
    """A settings class whose construction fails while a retired name (:data:`RETIRED_NAMES`) is set."""

    @model_validator(mode="before")
    @classmethod
    def _no_retired_names(cls, data: Any) -> Any:
        problem = retired_names_problem(names_set(os.environ, cls.model_config.get("env_file")))
        if problem:
            raise ValueError(problem)
        return data


__all__ = ["RETIRED_NAMES", "RefusesRetiredNames", "names_set", "retired_names_problem"]
