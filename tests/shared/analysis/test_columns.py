"""A group column built from JSON text is the one built from decoded values."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shared.analysis.columns import ABSENT, NULL, GroupCoder

pytestmark = pytest.mark.unit

VALUES: list[tuple[bool, Any]] = [
    (True, "easy"),
    (True, 3),
    (True, 1.5),
    (True, True),
    (False, None),  # the key is absent
    (True, None),  # the key holds null
    (True, [1, "a"]),
    (True, {"x": 1}),
    (True, "easy"),
    (True, "3"),  # a string "3" and the number 3 share a label, as str() makes them
]


def test_set_json_codes_and_labels_equal_set_on_decoded_values() -> None:
    decoded, from_json = GroupCoder(len(VALUES)), GroupCoder(len(VALUES))
    for row, (present, value) in enumerate(VALUES):
        decoded.set(row, present, value)
        from_json.set_json(row, present, json.dumps(value) if present else None)
    assert from_json.codes.tolist() == decoded.codes.tolist()
    assert from_json.labels == decoded.labels == ["easy", "3", "1.5", "True", "[1, 'a']", "{'x': 1}"]
    assert from_json.codes[4] == ABSENT and from_json.codes[5] == NULL
