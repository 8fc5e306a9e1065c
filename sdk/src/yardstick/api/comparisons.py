"""HTTP bodies of ``/comparisons``: compare a candidate run with its baseline, read the verdict."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from yardstick.api.comparison_config import Multiplicity, threshold_forms
from yardstick.api.comparison_report import ComparisonReport
from yardstick.api.gates import Gate
from yardstick.api.pairwise import PairwiseJudgeSpec, PairwiseJudging


class ComparisonCreate(BaseModel):
    baseline_id: str
    candidate_id: str
    metrics: list[str] | None = None
    thresholds: dict[str, float | str] = Field(
        default_factory=dict,
        description="metric -> a signed delta in the bad direction (-0.05, +100) or a margin relative to "
        "the baseline's mean ('+20%')",
    )
    primary: list[str] | None = Field(
        default=None, description="The metrics that gate; None: those their evaluators declare primary"
    )
    multiplicity: Multiplicity = Field(
        default="westfall_young", description="westfall_young (default) or holm, over the primary metrics"
    )
    must_pass_categories: list[str] = Field(
        default_factory=list, description="Categories whose items are must-pass in this comparison"
    )
    alpha: float = Field(default=0.05, gt=0, lt=1)
    gates: list[Gate] = Field(default_factory=list, description="Absolute gates on the candidate's means")
    gate: Literal["point", "ci"] = Field(
        default="point", description="point: the delta passes the threshold; ci: the whole interval does"
    )

    @field_validator("thresholds")
    @classmethod
    def _threshold_forms(cls, value: dict[str, float | str]) -> dict[str, float | str]:
        return threshold_forms(value)

    judge: PairwiseJudgeSpec | None = Field(
        default=None,
        description="Also judge every matched pair with llm_pairwise (both orders; disagreement is a "
        "tie), in the background: the answer is 202 with judging.status 'judging'; GET the comparison "
        "until it is 'done' (report.pairwise) or 'failed' (judging.error)",
    )


class ComparisonOut(BaseModel):
    id: str
    baseline_id: str
    candidate_id: str
    regression: bool
    report: ComparisonReport
    judging: PairwiseJudging | None = Field(
        default=None, description="The pairwise judging and its progress; None: no judge asked"
    )
    created_at: datetime
