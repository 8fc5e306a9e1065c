"""The gate's options: command-line flags, each with an environment variable ``YARDSTICK_CI_<NAME>``
(``--max-error-rate`` ↔ ``YARDSTICK_CI_MAX_ERROR_RATE``) read when the flag is not given.

The GitHub Action passes its inputs through these variables (never pasted into a shell line); a GitLab
job sets them under ``variables:``. Options that repeat (``--set``, ``--evaluator``, ``--gate``,
``--primary``) take one value per line in their variable. An empty variable counts as unset (GitHub
gives every undeclared input as ``""``). Every value is checked here; a bad one is a usage error
(exit 2) that names the option.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from yardstick.target_settings import TargetSettingError, apply_settings

ENV_PREFIX = "YARDSTICK_CI_"
REPEATED = {"set": "set_", "evaluator": "evaluators", "gate": "gates", "primary": "primary"}
"""flag → field for the options that repeat; their variables are ``YARDSTICK_CI_<FIELD>``."""


class GateOptions(BaseModel):
    mode: Literal["server", "local"] = Field(
        default="server", description="server: YARDSTICK_API_URL/KEY; local: a throwaway `yardstick stack up`"
    )
    dataset: str | None = Field(default=None, min_length=1, description="Default: the dataset file's name")
    dataset_file: Path | None = Field(default=None, description="Pushed as the dataset's next version first")
    target: str | None = Field(default=None, description="A target kind, or a target as a JSON object")
    set_: list[str] = Field(default_factory=list, description="A target setting, dotted.key=value")
    task: str | None = Field(default=None, description="module:function, served by the gate")
    evaluators: list[str] = Field(default_factory=list, description="NAME[:JSON_ARGS]; default per dataset")
    gates: list[str] = Field(default_factory=list, description="An absolute gate: 'metric>=0.9'")
    primary: list[str] = Field(default_factory=list, description="A metric that gates the comparison")
    max_error_rate: float = Field(default=0.0, ge=0.0, le=1.0, description="Share of items allowed to error")
    concurrency: int = Field(default=10, ge=1, le=1000, description="Tasks in flight")
    timeout: float = Field(default=30.0, gt=0, description="Per-item timeout in seconds")
    name_prefix: str = Field(
        default="ci", pattern=r"^[A-Za-z0-9._-]{1,40}$", description="Runs are named PREFIX-BRANCH-SHA12"
    )
    baseline_branch: str | None = Field(default=None, description="Default: the default branch")
    baseline_file: Path | None = Field(
        default=None, description="An exported run: the baseline (written by a push to the default branch)"
    )
    fail_on_regression: bool = Field(default=True, description="Exit 1 on a failed comparison")
    comment: bool = Field(default=True, description="Keep one comment on the pull request")
    out_dir: Path = Field(default=Path("yardstick-ci"), description="Gets report.md, junit.xml, run.json")
    branch: str | None = Field(default=None, description="Default: from the CI environment")
    sha: str | None = Field(
        default=None, pattern=r"^[0-9a-fA-F]{7,64}$", description="Default: from the CI environment"
    )
    default_branch: str | None = Field(default=None, description="Default: from the CI environment")

    @model_validator(mode="after")
    def _what_to_run(self) -> GateOptions:
        if self.dataset is None and self.dataset_file is None:
            raise ValueError("give --dataset (a dataset on the server) or --dataset-file (pushed first)")
        if self.task and self.target and self.target != "python":
            raise ValueError("give --target or --task (a python task is its own target), not both")
        return self


class OptionsError(ValueError):
    """A bad option, in one sentence naming it."""


def _help(field: str) -> str:
    description = GateOptions.model_fields[field].description
    return f"{description} (env {ENV_PREFIX}{field.rstrip('_').upper()})"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m yardstick.ci",
        description="Run a dataset through a target, compare it with the default branch's baseline, "
        "report to the CI system and exit like `yardstick run --fail-on-regression`.",
        argument_default=argparse.SUPPRESS,
    )
    for name in GateOptions.model_fields:
        flag = f"--{name.rstrip('_').replace('_', '-')}"
        if name in ("fail_on_regression", "comment"):
            parser.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, help=_help(name))
        elif name not in REPEATED.values():
            parser.add_argument(flag, dest=name, help=_help(name))
    for flag, field in REPEATED.items():
        parser.add_argument(f"--{flag}", dest=field, action="append", help=f"Repeatable. {_help(field)}")
    return parser


def _sentence(exc: ValidationError) -> str:
    return "; ".join(
        f"--{'.'.join(str(p) for p in e['loc']).replace('_', '-').rstrip('-')}: {e['msg']}"
        if e["loc"]
        else e["msg"].removeprefix("Value error, ")
        for e in exc.errors()
    )


def parse_options(argv: Sequence[str], env: Mapping[str, str]) -> GateOptions:
    """Flags first, then ``YARDSTICK_CI_*`` variables; :class:`OptionsError` on a bad value."""
    given: dict[str, Any] = vars(_parser().parse_args(list(argv)))
    for name in GateOptions.model_fields:
        raw = env.get(f"{ENV_PREFIX}{name.rstrip('_').upper()}", "").strip()
        if name in given or not raw:
            continue
        lines = [line.strip() for line in raw.splitlines() if line.strip()]
        given[name] = lines if name in REPEATED.values() else raw
    try:
        return GateOptions.model_validate(given)
    except ValidationError as exc:
        raise OptionsError(_sentence(exc)) from exc


def target_dict(target: str, settings: Sequence[str]) -> dict[str, Any]:
    """``target_dict("http", ["url=https://app/answer"])`` → ``{"kind": "http", "url": …}``: a kind
    (or a JSON object) with ``dotted.key=value`` settings on top, as ``yardstick run --target --set``
    takes them. Checked by the API's own target models when the run starts."""
    if target.lstrip().startswith("{"):
        try:
            spec = json.loads(target)
        except json.JSONDecodeError as exc:
            raise OptionsError(f"--target: not a JSON object: {exc}") from exc
        if not isinstance(spec, dict):
            raise OptionsError("--target: not a JSON object")
    else:
        spec = {"kind": target.strip()}
    try:
        return apply_settings(spec, settings)
    except TargetSettingError as exc:
        raise OptionsError(str(exc)) from exc
