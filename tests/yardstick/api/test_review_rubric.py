"""A rubric field's label as a score: its normalised value and its value in words (the comment)."""

from __future__ import annotations

import pytest

from yardstick.api.review import RubricField

pytestmark = pytest.mark.unit


def test_a_binary_label_is_pass_or_fail_and_an_ordinal_one_its_number() -> None:
    binary = RubricField(name="correct", kind="binary")
    assert [(binary.normalised(v), binary.said(v)) for v in (True, False)] == [(1.0, "pass"), (0.0, "fail")]
    ordinal = RubricField(name="helpfulness", kind="ordinal", scale=(1, 5))
    assert (ordinal.normalised(4), ordinal.said(4)) == (0.75, "4")
