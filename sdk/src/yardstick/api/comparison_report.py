"""The JSON-serialisable result of a comparison (stored in ``comparisons.report``); computed by
``shared.analysis.comparison``. Pure models: a stored report loads without the statistics stack."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.gates import GateResult
from yardstick.api.metric_spec import MetricDirection, MetricSpec
from yardstick.api.pairwise import PairwiseResult
from yardstick.api.spend import Spend
from yardstick.api.statistics import PairedComparison, TestName


class ItemKey(BaseModel, frozen=True):
    """Identity of one executed item: dataset item id plus trial number."""

    item_id: str
    trial: int = 0


class ItemChange(BaseModel):
    """One item whose verdict on a gating metric changed between the runs: it passed in the baseline
    and fails in the candidate (``broken``), or the reverse (``fixed``).

    Without repetitions an item has one trial per run and a change is a fact, no statistics needed.
    With trials, ``baseline_passes`` of ``trials`` against ``candidate_passes`` of ``trials`` is
    tested (one-sided Fisher's exact test, Holm-Tarone over the items): a *significant item
    regression* fell beyond chance; one that did not may be a flaky item."""

    item_id: str
    metric: str = Field(description="The gating metric whose pass verdict changed")
    change: Literal["broken", "fixed"]
    must_pass: bool = Field(description="The item is must-pass (dataset mark or a must-pass category)")
    trials: int = Field(description="Paired trials of the item (1 without repetitions)")
    baseline_passes: int = Field(description="Trials that passed in the baseline")
    candidate_passes: int = Field(description="Trials that passed in the candidate")
    baseline: float | None = Field(
        description="The baseline's mean value over its trials (None: not measured)"
    )
    candidate: float | None = Field(description="The candidate's mean value over its trials")
    p_value: float | None = Field(
        default=None, description="With trials: one-sided Fisher's exact p of the change; None without"
    )
    p_adjusted: float | None = Field(
        default=None,
        description="With trials: Holm-Tarone adjusted over the items (over the must-pass items for a "
        "must-pass item); None without trials",
    )
    significant: bool = Field(
        description="Without trials: always True (the verdict flipped). With trials: p_adjusted < alpha; "
        "False means the pass count moved within chance (a flaky item)"
    )
    reason: str | None = Field(
        default=None,
        description="Why the candidate failed it (broken) or the baseline did (fixed): the evaluator's "
        "comment, its error, or the item's error",
    )

    @property
    def gates(self) -> bool:
        """A broken must-pass item fails the comparison's gate."""
        return self.change == "broken" and self.must_pass and self.significant


MetricStatus = Literal[
    "regression", "improvement", "no_significant_change", "insufficient_data", "informational"
]


class MinimumDetectableEffect(BaseModel):
    """What this comparison could have seen on one metric: the minimum detectable effect (MDE).

    Formulas in ``shared.analysis.stats.power``: the noncentral-t approximation of the sign-flip test for
    scores, the exact power of McNemar's test for 0/1 values."""

    effect: float | None = Field(
        description="Smallest true change of the mean (absolute, in the metric's units, either "
        "direction) that `test` would find significant at level `alpha` with probability `power` "
        "on these pairs; None when no change could be (too few pairs, or no spread to estimate from)"
    )
    alpha: float = Field(
        description="Level the MDE is computed at: the comparison's alpha divided by the size of this "
        "metric's Holm-Tarone family (counting this metric). That is the level a change must reach "
        "when it is the only one in its family (Holm's first step), so the MDE is conservative when "
        "other metrics change too (later Holm steps need less); the unadjusted alpha would promise "
        "more than the Holm-corrected verdict delivers"
    )
    power: float = Field(description="Probability of detecting a change of `effect` (0.8)")
    n_pairs: int = Field(description="Complete pairs the test used")
    test: TestName = Field(description="The test the MDE is for (the one whose p-value is reported)")
    basis: Literal["paired_differences", "baseline_spread", "discordance"] = Field(
        description="What the noise comes from: the SD of the paired differences; the baseline's SD "
        "(when every difference was equal: assumes a correlation of 0.5 between the runs); or, for "
        "0/1 values, the discordance (churn 2·min(b, c)/n: flips that cancel out)"
    )
    spread: float = Field(description="The noise used: SD of the differences, or the churn rate")
    min_p: float = Field(description="Smallest p-value any outcome of `test` can give with n_pairs")
    pairs_needed: int = Field(description="Fewest pairs with which some outcome of `test` reaches `alpha`")


MAX_LISTED_CHANGES = 200
"""Broken (and fixed) items listed in a report; the totals count every one."""


class MetricResult(BaseModel):
    """One metric's paired comparison and what it means against its threshold."""

    metric: str
    direction: MetricDirection = Field(
        description="From the metric's spec; informational: never a regression"
    )
    threshold: float | None = Field(
        description="Signed delta beyond which (in the bad direction) it regresses; None if informational"
    )
    spec: MetricSpec | None = Field(
        default=None, description="The metric's resolved spec this comparison used (None in older reports)"
    )
    comparison: PairedComparison = Field(description="Summaries, delta + CI, effect sizes, raw p-value")
    p_adjusted: float | None = Field(
        description="p-value adjusted within this metric's family (the primary or the secondary "
        "metrics; each breakdown key's groups): Westfall-Young step-down min-P over joint sign-flip "
        "resamples, or Holm with Tarone's family sizes at the comparison's alpha (config.multiplicity; "
        "breakdowns always Holm-Tarone)"
    )
    significant: bool = Field(description="p_adjusted < alpha")
    status: MetricStatus
    role: Literal["primary", "secondary"] = Field(
        default="primary",
        description="primary: in the gating family, a regression fails the comparison; secondary: "
        "reported, adjusted within the secondary metrics, exploratory (never fails it)",
    )
    reason: str = Field(default="", description="Why this status, in words (threshold, test, p, interval)")
    mde: MinimumDetectableEffect | None = Field(
        default=None, description="The smallest change this comparison could have detected (None if untested)"
    )
    family_size: int | None = Field(
        default=None,
        description="Tarone's size of this metric's Holm family at alpha: metrics that cannot be "
        "significant whatever the signs of their changes (e.g. no discordant pair) are not counted, "
        "so the rest keep their power. None for reports from before it was computed",
    )
    in_family: bool | None = Field(
        default=None,
        description="Whether this metric counted in its family (False: its smallest attainable "
        "p-value, comparison.min_p_value, exceeds alpha / family size, so it cannot be significant)",
    )


class BreakdownResult(BaseModel):
    """The metric family restricted to items whose metadata[key] == value."""

    key: str = Field(description="Metadata key, e.g. 'category'")
    value: str = Field(description="Metadata value (as a string)")
    n_pairs: int = Field(description="Matched pairs in this group")
    metrics: list[MetricResult]


class ErrorCounts(BaseModel):
    """Items with status 'error' in each whole run (matched or not)."""

    baseline: int
    candidate: int


class RunScoreDelta(BaseModel):
    """A run-level score: one value per run, so described, never tested."""

    name: str
    baseline: float | None
    candidate: float | None
    delta: float | None


class ComparisonReport(BaseModel):
    """Baseline vs candidate. ``report.model_dump(mode="json")`` is the JSON report."""

    schema_version: Literal[1] = 1
    baseline_id: str
    baseline_name: str
    candidate_id: str
    candidate_name: str
    config: ComparisonConfig = Field(description="The configuration the comparison ran with")
    n_pairs: int = Field(description="Items matched by (item_id, trial)")
    unmatched_baseline: list[ItemKey] = Field(description="Baseline items missing from the candidate")
    unmatched_candidate: list[ItemKey] = Field(description="Candidate items missing from the baseline")
    metrics_only_in_baseline: list[str]
    metrics_only_in_candidate: list[str]
    errors: ErrorCounts
    metrics: list[MetricResult] = Field(
        description="Every compared metric on all pairs: the primary ones first, then the secondary ones"
    )
    broken_items: list[ItemChange] = Field(
        default_factory=list,
        description="Items that passed in the baseline and fail in the candidate on a gating metric, "
        "must-pass ones first (at most MAX_LISTED_CHANGES; broken_total counts all)",
    )
    fixed_items: list[ItemChange] = Field(
        default_factory=list, description="Items that failed in the baseline and pass in the candidate"
    )
    broken_total: int = Field(default=0, description="How many (item, metric) changes broke")
    fixed_total: int = Field(default=0, description="How many (item, metric) changes were fixed")
    must_pass_broken: list[str] = Field(
        default_factory=list,
        description="Ids of must-pass items that broke (with trials: significantly); any fails the gate",
    )
    must_pass_items: int = Field(default=0, description="Paired must-pass items")
    trials: bool = Field(default=False, description="Some item ran more than one trial in both runs")
    breakdowns: list[BreakdownResult] = Field(description="Per metadata value; one Holm family per key")
    run_scores: list[RunScoreDelta]
    regressions: list[str] = Field(description="Primary metrics with status 'regression'")
    secondary_regressions: list[str] = Field(
        default_factory=list,
        description="Secondary metrics whose exploratory comparison says regression (they do not gate)",
    )
    improvements: list[str] = Field(description="Metrics with status 'improvement'")
    breakdown_regressions: list[str] = Field(description="'key=value:metric' entries that regressed")
    regression: bool = Field(
        description="The comparison fails: a must-pass item broke, a primary metric regressed "
        "significantly (or a breakdown one, if asked)"
    )
    underpowered: list[str] = Field(
        default_factory=list,
        description="Overall metrics with too few items to detect any change: no outcome of their "
        "test could reach alpha (status insufficient_data). A regression gate cannot fail on them",
    )
    inconclusive: bool = Field(
        default=False,
        description="No regression, but some overall metric could not have detected any change "
        "(`underpowered`): the CLI's --fail-on-regression exits 3 instead of passing",
    )
    gates: list[GateResult] = Field(default_factory=list, description="Absolute gates on the candidate")
    gates_passed: bool = Field(default=True, description="Every absolute gate met (True without gates)")
    spec_differences: dict[str, list[str]] = Field(
        default_factory=dict,
        description="metric -> how the baseline's spec of it differs from the candidate's (direction, "
        "criterion, threshold, evaluator version); such a metric's comparison may compare unlike things",
    )
    verdict: str = Field(
        description="One sentence saying what happened and what to do (FAIL, PASS or INCONCLUSIVE), "
        "then the details"
    )
    headline: str = Field(
        default="",
        description="The verdict's opening: FAIL, PASS or INCONCLUSIVE, what happened and what to do "
        "('' in reports from before it existed)",
    )
    latency_interleaved: bool | None = Field(
        default=None,
        description="True: both runs ran interleaved in one time window, so their latencies compare "
        "fairly; False: they ran apart (latency differences may be the machine's); None: unknown",
    )
    baseline_spend: Spend | None = Field(default=None, description="Tokens and cost of the baseline run")
    candidate_spend: Spend | None = Field(default=None, description="Tokens and cost of the candidate run")
    pairwise: PairwiseResult | None = Field(
        default=None, description="llm_pairwise: win/tie/loss of the candidate, when a judge was asked"
    )
    baseline_code: list[str] = Field(
        default_factory=list,
        description="Python targets: the code fingerprints of the baseline's outputs ([]: not known)",
    )
    candidate_code: list[str] = Field(
        default_factory=list,
        description="The code fingerprints of the candidate's outputs; more than one: the run mixes code",
    )
