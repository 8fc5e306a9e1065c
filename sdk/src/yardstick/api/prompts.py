"""Prompt references and the prompt registry's shapes.

A reference names a prompt and which version to use: ``drive-thru/orchestrator@staging`` (a label),
``drive-thru/orchestrator@3`` (a version) or ``drive-thru/orchestrator`` (its ``production`` label).
The same semantics hold whether the prompt comes from Yardstick's registry or from Langfuse.
"""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import BaseModel, Field, model_validator

from yardstick.api.limits import INT4_MAX

DEFAULT_LABEL = "production"
DEFAULT_PROMPT_NAME = "drive-thru/orchestrator"  # what the agent uses when nothing is named
_NAME = r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}"
_LABEL = r"[A-Za-z][A-Za-z0-9._-]{0,49}"
NAME_RE = re.compile(rf"^{_NAME}$")
LABEL_RE = re.compile(rf"^{_LABEL}$")
_REF = re.compile(rf"^(?P<name>{_NAME})(?:@(?:(?P<version>\d+)|(?P<label>{_LABEL})))?$")


class PromptRef(BaseModel, frozen=True):
    """Which prompt, and which of its versions (a version number or a label)."""

    name: str
    version: int | None = Field(default=None, ge=1, le=2**31 - 1)
    label: str | None = None

    @model_validator(mode="after")
    def _one_selector(self) -> PromptRef:
        if self.version is not None and self.label is not None:
            raise ValueError("name a version or a label, not both")
        return self

    @classmethod
    def parse(cls, text: str) -> PromptRef:
        match = _REF.match(text.strip())
        if match is None:
            raise ValueError(
                f"{text!r} is not a prompt reference: write NAME, NAME@LABEL or NAME@VERSION, "
                "e.g. drive-thru/orchestrator@staging"
            )
        version = match.group("version")
        if version and not 1 <= int(version) <= 2**31 - 1:
            raise ValueError(f"{text!r}: version {int(version)} is out of range (1 to {2**31 - 1})")
        return cls(
            name=match.group("name"), version=int(version) if version else None, label=match.group("label")
        )

    @property
    def selector(self) -> str:
        """The label or version asked for (the production label by default)."""
        return str(self.version) if self.version is not None else (self.label or DEFAULT_LABEL)

    def __str__(self) -> str:
        return f"{self.name}@{self.selector}"


class PromptPush(BaseModel):
    """``POST /prompts``: a new version of ``name`` (none when the template is unchanged)."""

    name: str = Field(pattern=NAME_RE.pattern, description="e.g. drive-thru/orchestrator")
    template: str = Field(min_length=1, max_length=100_000)
    labels: list[str] = Field(default_factory=list, description="Labels to point at the pushed version")
    source: str = Field(default="api", max_length=500)

    @model_validator(mode="after")
    def _labels(self) -> PromptPush:
        for label in self.labels:
            if not LABEL_RE.match(label):
                raise ValueError(f"label {label!r}: letters, digits, '.', '_', '-', starting with a letter")
        return self


class PromptVersionOut(BaseModel):
    name: str
    version: int
    labels: list[str] = Field(description="Labels pointing at this version now")
    template: str
    source: str
    created_at: datetime
    created_new_version: bool = Field(default=False, description="False when the template was unchanged")


class PromptSummary(BaseModel):
    name: str
    latest_version: int
    labels: dict[str, int] = Field(description="label -> version")


class LabelMove(BaseModel):
    version: int = Field(ge=1, le=INT4_MAX, description="The version the label points at from now on")
