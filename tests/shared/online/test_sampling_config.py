from __future__ import annotations

import pytest

from shared.online.sampling_config import SamplingSettings

pytestmark = pytest.mark.unit


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="rate"):
        SamplingSettings(rate=1.5)
    with pytest.raises(ValueError, match="unknown item-level evaluator 'nope'"):
        SamplingSettings.model_validate({"evaluators": [{"name": "nope"}]})
    with pytest.raises(ValueError, match="needs an expected output"):
        SamplingSettings.model_validate({"evaluators": [{"name": "order_correctness"}]})
