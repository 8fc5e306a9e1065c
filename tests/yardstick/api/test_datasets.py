"""Items given in code are checked as a dataset file's items are (``yardstick.api.datasets``)."""

import pytest

from yardstick.api.datasets import DatasetItemIn, InvalidItems, validate_items

pytestmark = pytest.mark.unit


def test_items_given_in_code_are_checked_the_same_way() -> None:
    good = DatasetItemIn(id="a", input={})
    assert validate_items([good, {"id": "b", "input": {}, "metadata": {"k": 1}}])[1].metadata == {"k": 1}
    with pytest.raises(InvalidItems) as caught:
        validate_items([good, {"id": "b", "input": {}, "metdata": {}}], "push_dataset('x')")
    assert str(caught.value) == (
        "push_dataset('x'): invalid dataset items\n"
        "  - item 2 (id 'b'): unknown field 'metdata'; did you mean 'metadata'?"
    )
