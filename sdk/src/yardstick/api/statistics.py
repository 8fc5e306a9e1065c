"""The statistics results that are stored and sent (summaries, paired comparisons): pure models,
so that a stored report loads without NumPy or SciPy. Computed by ``shared.analysis.stats``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

CiMethod = Literal["auto", "t", "wilson", "bootstrap", "t_clipped", "none"]


class Percentiles(BaseModel, frozen=True):
    """p50 / p95 / p99 of the finite values (``None`` when there are none)."""

    n: int = Field(description="Finite values used")
    p50: float | None = None
    p95: float | None = None
    p99: float | None = None


class Summary(BaseModel, frozen=True):
    """Descriptive statistics of one sample after dropping ``None`` / NaN."""

    n: int = Field(description="Finite values used")
    n_dropped: int = Field(default=0, description="None / NaN values dropped")
    mean: float | None = None
    sd: float | None = Field(default=None, description="Sample standard deviation (ddof=1); None if n < 2")
    median: float | None = None
    p95: float | None = None
    ci_low: float | None = Field(default=None, description="Lower bound of the CI of the mean; None if n < 2")
    ci_high: float | None = Field(default=None, description="Upper bound of the CI of the mean")
    confidence: float = 0.95
    ci_method: CiMethod = Field(default="t", description="The method used (``auto`` is resolved)")


class McNemarResult(BaseModel, frozen=True):
    """Discordant-pair counts and the exact two-sided p-value.

    ``p_value = binomtest(b, b + c, 0.5).pvalue``; 1.0 when there are no discordant pairs.
    """

    n_pairs: int = Field(description="Complete pairs used")
    n_dropped: int = Field(description="Pairs dropped because a value was missing on either side")
    baseline_only: int = Field(description="b: pairs where baseline passed (1) and candidate failed (0)")
    candidate_only: int = Field(description="c: pairs where baseline failed (0) and candidate passed (1)")
    p_value: float = Field(description="Exact two-sided binomial p-value on the discordant pairs")


class PairedBootstrapResult(BaseModel, frozen=True):
    """Paired bootstrap over per-item differences (candidate - baseline).

    ``p_value`` is two-sided: with d̄ the observed mean difference and m_b the mean of
    bootstrap resample b of the differences, the resampled means are centred on the null
    (m_b - d̄) and ``p = (1 + #{b : |m_b - d̄| ≥ |d̄|}) / (B + 1)``. It is never 0, equals 1
    when d̄ = 0, and is ``None`` below two pairs (a single pair carries no variance estimate).
    ``ci_low``/``ci_high`` are the percentile interval of m_b.
    """

    n_pairs: int = Field(description="Complete pairs used")
    n_dropped: int = Field(description="Pairs dropped because a value was missing on either side")
    mean_difference: float | None = Field(description="Observed mean of candidate - baseline")
    ci_low: float | None = Field(description="Lower bound of the percentile CI of the mean difference")
    ci_high: float | None = Field(description="Upper bound of the percentile CI of the mean difference")
    p_value: float | None = Field(description="Two-sided centred bootstrap p-value, (k+1)/(B+1)")
    confidence: float = Field(description="Confidence level of the interval")
    resamples: int = Field(description="Number of bootstrap resamples B")
    seed: int = Field(description="Seed of numpy.random.default_rng")


TestName = Literal["paired_bootstrap", "mcnemar_exact", "sign_flip_exact", "sign_flip_monte_carlo"]


class PairedComparison(BaseModel, frozen=True):
    """Baseline vs candidate on complete pairs; ``delta`` = candidate mean - baseline mean."""

    n_pairs: int = Field(description="Complete pairs used")
    n_dropped: int = Field(description="Pairs dropped because a value was missing on either side")
    baseline: Summary
    candidate: Summary
    delta: float | None = Field(description="Mean of candidate - baseline over the pairs")
    delta_pct: float | None = Field(description="delta / |baseline mean| x 100; None if baseline mean is 0")
    delta_ci_low: float | None = Field(description="Percentile bootstrap CI of delta (lower)")
    delta_ci_high: float | None = Field(description="Percentile bootstrap CI of delta (upper)")
    bootstrap: PairedBootstrapResult
    mcnemar: McNemarResult | None = Field(description="Set when every paired value is 0/1")
    cohens_d: float | None = Field(description="Pooled Cohen's d with sample SDs")
    cohens_dz: float | None = Field(description="Paired d_z = mean(diff) / sd(diff)")
    test: TestName | None = Field(description="The test whose p-value is reported; None if untestable")
    p_value: float | None = Field(description="Unadjusted two-sided p-value of ``test``")
    differences_sd: float | None = Field(
        default=None, description="Sample SD (ddof=1) of the paired differences; None below 2 pairs"
    )
    min_p_value: float | None = Field(
        default=None,
        description="The smallest p-value ``test`` could have given on these pairs whatever the signs "
        "of their changes: 2·0.5^k for k discordant pairs (McNemar) or k non-zero differences (exact "
        "sign flip); for the Monte Carlo sign flip under its fixed sign patterns. Tarone's refinement "
        "of Holm leaves a metric out of the family when this exceeds the level it would need",
    )
