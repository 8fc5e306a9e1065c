"""Prompt references: what each form names, and a clear error for what is not one."""

from __future__ import annotations

import pytest

from yardstick.api.prompts import PromptRef

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "version", "label", "shown"),
    [
        ("drive-thru/orchestrator", None, None, "drive-thru/orchestrator@production"),
        ("drive-thru/orchestrator@staging", None, "staging", "drive-thru/orchestrator@staging"),
        ("drive-thru/orchestrator@3", 3, None, "drive-thru/orchestrator@3"),
    ],
)
def test_each_form_names_a_version_or_a_label(
    text: str, version: int | None, label: str | None, shown: str
) -> None:
    ref = PromptRef.parse(text)
    assert (ref.name, ref.version, ref.label, str(ref)) == ("drive-thru/orchestrator", version, label, shown)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("@@", "is not a prompt reference: write NAME, NAME@LABEL or NAME@VERSION"),
        ("p@0", "version 0 is out of range"),
        ("p@99999999999", "version 99999999999 is out of range"),
    ],
)
def test_what_is_not_a_reference_says_how_to_write_one(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PromptRef.parse(text)
