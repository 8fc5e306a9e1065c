"""GroupCoder: metadata values given as JSON text get the codes and labels of the decoded values."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from shared.analysis.columns import ABSENT, NULL, GroupCoder

pytestmark = pytest.mark.unit

CELLS: list[tuple[bool, Any]] = [
    (True, "easy"),
    (True, 3),
    (False, None),
    (True, None),
    (True, "easy"),
    (True, 1.5),
    (True, True),
    (True, [1, "a"]),
    (True, {"b": 2}),
    (True, 3),
    (True, "3"),
]


def test_json_text_codes_like_the_decoded_values() -> None:
    decoded, encoded = GroupCoder(len(CELLS)), GroupCoder(len(CELLS))
    for row, (present, value) in enumerate(CELLS):
        decoded.set(row, present, value)
        encoded.set_json(row, present, json.dumps(value) if present else None)
    np.testing.assert_array_equal(encoded.codes, decoded.codes)
    assert encoded.labels == decoded.labels
    assert encoded.codes[2] == ABSENT and encoded.codes[3] == NULL
    assert encoded.codes[1] == encoded.codes[10]  # 3 and "3": one label "3", as str() of each gives
    assert encoded.labels == ["easy", "3", "1.5", "True", "[1, 'a']", "{'b': 2}"]


def test_a_json_column_codes_like_its_rows_one_by_one() -> None:
    texts = [json.dumps(value) if present else None for present, value in CELLS]
    present = np.array([p for p, _ in CELLS])
    rows, column = GroupCoder(len(CELLS) + 2), GroupCoder(len(CELLS) + 2)
    for row, (has, text) in enumerate(zip(present, texts, strict=True)):
        rows.set_json(row, bool(has), text)
    column.set_json_column(present, texts)
    np.testing.assert_array_equal(column.codes, rows.codes)
    assert column.labels == rows.labels  # numbered in order of first appearance
    assert list(column.codes[-2:]) == [ABSENT, ABSENT]  # rows past the column are left as they were
