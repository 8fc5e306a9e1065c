"""An experiment's concurrency: 1 to 10,000, and the refusal above it names the bound."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from yardstick.api.eval_messages import AgentTarget
from yardstick.api.experiment_config import MAX_CONCURRENCY, ExperimentSettings

pytestmark = pytest.mark.unit


def test_concurrency_up_to_the_bound_is_accepted() -> None:
    assert MAX_CONCURRENCY == 10_000
    for concurrency in (1, 1_001, 2_000, MAX_CONCURRENCY):
        assert ExperimentSettings(target=AgentTarget(), concurrency=concurrency).concurrency == concurrency


@pytest.mark.parametrize("concurrency", [0, MAX_CONCURRENCY + 1])
def test_concurrency_out_of_bounds_names_the_field_and_bound(concurrency: int) -> None:
    with pytest.raises(ValidationError) as refused:
        ExperimentSettings(target=AgentTarget(), concurrency=concurrency)
    [error] = refused.value.errors()
    assert error["loc"] == ("concurrency",)
    bound = "greater than or equal to 1" if concurrency < 1 else "less than or equal to 10000"
    assert bound in error["msg"]
