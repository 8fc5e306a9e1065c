"""How reports show the task code of two runs side by side, and warn when one mixes code."""

from __future__ import annotations

import pytest

from shared.analysis.reports.code_fingerprints import code_header, mixed_code_warnings, shown

pytestmark = pytest.mark.unit

A, B, C = "a" * 64, "b" * 64, "c" * 64


def test_both_runs_code_side_by_side() -> None:
    assert code_header([A], [B]) == f"Task code: baseline {A[:12]} · candidate {B[:12]}"
    assert code_header([A], [A]) == f"Task code: baseline {A[:12]} · candidate {A[:12]} (the same code)"
    assert code_header([], [B]) == f"Task code: baseline unknown · candidate {B[:12]}"
    assert code_header([], []) is None


def test_a_run_mixing_code_is_warned_about_and_the_expected_difference_is_not() -> None:
    assert mixed_code_warnings([A], [B]) == []
    (warning,) = mixed_code_warnings([A], [B, C])
    assert warning.startswith(
        f"the candidate's results came from 2 versions of the task code ({shown([B, C])})"
    )
