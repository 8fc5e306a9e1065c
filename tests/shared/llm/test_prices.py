"""The price table (``LLM_PRICES``) and spend: unpriced models show tokens and no cost."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.llm.prices import PriceTableInvalid, UsageRow, configured_prices, load_prices, spend_of
from yardstick.api.spend import ModelPrice, PriceTable

pytestmark = pytest.mark.unit

SAMPLE = Path(__file__).resolve().parents[3] / "deploy" / "llm-prices.sample.yaml"
TABLE = PriceTable(models={"gpt-4o-mini": ModelPrice(input_per_million=0.15, output_per_million=0.6)})


def test_the_sample_file_loads_and_is_dated() -> None:
    table = load_prices(SAMPLE)
    assert table.as_of is not None and table.currency == "USD"
    assert {"gpt-4o-mini", "mistral-small-latest"} <= set(table.models)


def test_no_file_means_no_prices() -> None:
    assert load_prices(None).models == {}


@pytest.mark.parametrize(
    "text", ["models: {m: {input_per_million: -1, output_per_million: 1}}", "models: [1, 2]", "- a"]
)
def test_a_bad_table_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text(text)
    with pytest.raises(PriceTableInvalid):
        load_prices(path)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PriceTableInvalid, match="LLM_PRICES"):
        load_prices(tmp_path / "absent.json")


def test_provider_or_org_prefixes_match_the_model() -> None:
    assert (
        TABLE.price("openai:gpt-4o-mini") == TABLE.price("openai/gpt-4o-mini") == TABLE.models["gpt-4o-mini"]
    )
    assert TABLE.price("gpt-4o") is None and TABLE.price(None) is None


def test_spend_prices_what_it_can_and_says_what_it_cannot() -> None:
    spend = spend_of(
        [
            UsageRow("judge", "gpt-4o-mini", 3, 1_000_000, 100_000),
            UsageRow("target", None, 2, 10, 5),
            UsageRow("judge", "local-llm", 1, 7, 3),
        ],
        TABLE,
    )
    assert spend.input_tokens == 1_000_017 and spend.output_tokens == 100_008
    assert spend.cost == pytest.approx(0.15 + 0.06)
    assert not spend.complete
    assert spend.unpriced_models == ["(target model not reported)", "local-llm"]
    assert [(m.role, m.cost) for m in spend.by_model] == [
        ("judge", pytest.approx(0.21)),
        ("judge", None),
        ("target", None),
    ]
    assert spend.cost_text.startswith("0.2100 USD + unpriced")


def test_nothing_priced_is_no_price_not_zero() -> None:
    spend = spend_of([UsageRow("judge", "local-llm", 1, 7, 3)], TABLE)
    assert spend.cost is None and spend.cost_text == "no price"
    assert spend_of([], TABLE).cost_text == "0"


def test_an_empty_llm_prices_variable_means_no_prices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_PRICES", "")  # what docker-compose passes for an unset ${LLM_PRICES:-}
    assert configured_prices().models == {}
