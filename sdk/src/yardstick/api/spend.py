"""What LLM calls cost: the price table (``LLM_PRICES``) and the spend of an item, an experiment
or the two runs of a comparison.

Tokens are always shown; money only where the table prices the model. A model without a price is
listed in ``unpriced_models`` and its cost is None ("no price"), never a guess; the total ``cost``
is the sum over priced models (None when none is priced) and ``complete`` says whether it covers
every token. The agent's offline model (its name starts ``offline:``) calls nothing and reports no
tokens: its spend reads "offline, not billed", never a cost.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

SPEND_SCHEMA_VERSION = 1

CallRole = Literal["target", "judge"]
OFFLINE_MODEL_PREFIX = "offline:"
"""How the offline model's name starts (``offline:ask``): the marker that its usage was not billed."""
NOT_BILLED = "offline, not billed"


def is_offline_model(model: str | None) -> bool:
    return bool(model) and str(model).startswith(OFFLINE_MODEL_PREFIX)


class ModelPrice(BaseModel, frozen=True):
    input_per_million: float = Field(ge=0, allow_inf_nan=False, description="Price of 1M input tokens")
    output_per_million: float = Field(ge=0, allow_inf_nan=False, description="Price of 1M output tokens")

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_million + output_tokens * self.output_per_million) / 1_000_000


class PriceTable(BaseModel, frozen=True):
    """The file ``LLM_PRICES`` names (YAML or JSON): model name → price per million tokens."""

    as_of: date | None = Field(default=None, description="When these prices were read off the price lists")
    currency: str = Field(default="USD", min_length=1, max_length=8)
    models: dict[str, ModelPrice] = Field(default_factory=dict, description="Model name as calls report it")

    def price(self, model: str | None) -> ModelPrice | None:
        """The model's price; a ``provider:model`` or ``org/model`` name also matches its last part."""
        if not model:
            return None
        for name in (model, model.split(":", 1)[-1], model.rsplit("/", 1)[-1]):
            if name in self.models:
                return self.models[name]
        return None


class ModelSpend(BaseModel):
    """The tokens one model used in one role, and their cost when the model has a price."""

    role: CallRole = Field(description="target: the system under test; judge: an LLM judge")
    model: str | None = Field(description="The model's name; None when the target did not say")
    calls: int = Field(description="Target: items that reported usage; judge: LLM requests")
    input_tokens: int
    output_tokens: int
    cost: float | None = Field(description="None: the price table has no price for this model")

    @property
    def offline(self) -> bool:
        """The offline model: nothing was called or billed."""
        return is_offline_model(self.model)


class Spend(BaseModel):
    """Tokens and cost of a set of LLM calls (one item, one experiment)."""

    schema_version: int = SPEND_SCHEMA_VERSION
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = Field(default=None, description="Sum over priced models; None when none is priced")
    currency: str = "USD"
    complete: bool = Field(
        default=True, description="False when some tokens belong to a model without a price"
    )
    unpriced_models: list[str] = Field(default_factory=list)
    prices_as_of: date | None = None
    by_model: list[ModelSpend] = Field(default_factory=list)

    @property
    def offline_only(self) -> bool:
        """Every call was the offline model's (nothing billed)."""
        return bool(self.by_model) and all(m.offline for m in self.by_model)

    @property
    def cost_text(self) -> str:
        """The cost as people read it: ``0.0123 USD``, ``no price``, ``offline, not billed``, or a
        partial sum said plainly."""
        offline = any(m.offline for m in self.by_model)
        if self.cost is None:
            if self.input_tokens or self.output_tokens:
                return "no price"
            return NOT_BILLED if offline else "0"
        text = f"{self.cost:.4f} {self.currency}"
        if not self.complete:
            text += f" + unpriced ({', '.join(self.unpriced_models)})"
        return text + (f" (target: {NOT_BILLED})" if offline else "")
