"""The price table named by ``LLM_PRICES`` (a small YAML or JSON file; see
``deploy/llm-prices.sample.yaml``), and spend computed from token counts with it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from yardstick.api.evaluation import Evaluation
from yardstick.api.spend import CallRole, ModelSpend, PriceTable, Spend

MAX_FILE_BYTES = 1_000_000


class PriceSettings(BaseSettings):
    # LLM_PRICES= (empty, as docker-compose passes an unset ${LLM_PRICES:-}) is the same as unset
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", env_ignore_empty=True)

    llm_prices: Path | None = Field(
        default=None, description="LLM_PRICES: the price table file; unset, every cost is 'no price'"
    )


class PriceTableInvalid(ValueError):
    """The ``LLM_PRICES`` file is missing, too large or not a price table."""


def load_prices(path: Path | None) -> PriceTable:
    """The table in ``path`` (YAML or JSON); an empty table without a path."""
    if path is None:
        return PriceTable()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PriceTableInvalid(f"LLM_PRICES={path}: {exc}") from exc
    if len(raw) > MAX_FILE_BYTES:
        raise PriceTableInvalid(f"LLM_PRICES={path}: larger than {MAX_FILE_BYTES} bytes")
    text = raw.decode("utf-8")
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        return PriceTable.model_validate(data)
    except (ValueError, yaml.YAMLError) as exc:
        raise PriceTableInvalid(f"LLM_PRICES={path} is not a price table: {exc}") from exc


def configured_prices() -> PriceTable:
    """The table ``LLM_PRICES`` names now."""
    return load_prices(PriceSettings().llm_prices)


@dataclass(frozen=True)
class UsageRow:
    """Tokens of one model in one role, summed over some calls."""

    role: CallRole
    model: str | None
    calls: int
    input_tokens: int
    output_tokens: int


def item_usage_rows(
    target_usage: Mapping[str, Any] | None, target_called: bool, scores: Iterable[Evaluation]
) -> list[UsageRow]:
    """The usage rows of one item: its target's usage (when this run called it) and each judge
    score's. The same rule as the per-experiment SQL of ``services.coordinator.experiments.store.spend``."""
    rows: list[UsageRow] = []
    if target_usage and target_called:
        model = target_usage.get("model")
        rows.append(
            UsageRow(
                "target",
                str(model) if model else None,
                1,
                int(target_usage.get("input_tokens") or 0),
                int(target_usage.get("output_tokens") or 0),
            )
        )
    for score in scores:
        meta = score.metadata or {}
        usage = meta.get("usage")
        if "judge_model" in meta and isinstance(usage, dict):
            rows.append(
                UsageRow(
                    "judge",
                    str(meta["judge_model"]),
                    int(meta.get("llm_requests") or 0),
                    int(usage.get("input_tokens") or 0),
                    int(usage.get("output_tokens") or 0),
                )
            )
    merged: dict[tuple[str, str | None], UsageRow] = {}
    for row in rows:
        seen = merged.get((row.role, row.model))
        merged[(row.role, row.model)] = (
            row
            if seen is None
            else UsageRow(
                row.role,
                row.model,
                seen.calls + row.calls,
                seen.input_tokens + row.input_tokens,
                seen.output_tokens + row.output_tokens,
            )
        )
    return list(merged.values())


def spend_of(rows: Iterable[UsageRow], prices: PriceTable) -> Spend:
    """Tokens and cost of ``rows`` priced with ``prices`` (unpriced models: tokens, no cost)."""
    by_model: list[ModelSpend] = []
    unpriced: set[str] = set()
    for row in rows:
        price = prices.price(row.model)
        cost = None if price is None else round(price.cost(row.input_tokens, row.output_tokens), 8)
        if cost is None and (row.input_tokens or row.output_tokens):
            unpriced.add(row.model or f"({row.role} model not reported)")
        by_model.append(
            ModelSpend(
                role=row.role,
                model=row.model,
                calls=row.calls,
                input_tokens=row.input_tokens,
                output_tokens=row.output_tokens,
                cost=cost,
            )
        )
    priced = [m.cost for m in by_model if m.cost is not None]
    return Spend(
        input_tokens=sum(m.input_tokens for m in by_model),
        output_tokens=sum(m.output_tokens for m in by_model),
        cost=round(sum(priced), 8) if priced else None,
        currency=prices.currency,
        complete=not unpriced,
        unpriced_models=sorted(unpriced),
        prices_as_of=prices.as_of,
        by_model=sorted(by_model, key=lambda m: (m.role, m.model or "")),
    )
