"""Turning score lists (with ``None`` / NaN gaps) into float arrays, singly or pairwise."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from shared.analysis.stats.errors import StatsInputError

FloatArray = npt.NDArray[np.float64]
Values = Sequence[float | bool | None] | FloatArray
"""Accepted input: a sequence of numbers (bools count as 0/1, ``None`` means missing) or a float array."""


def to_float_array(values: Values) -> FloatArray:
    """``values`` as a 1-D float64 array; ``None`` becomes NaN."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise StatsInputError(f"expected a 1-D sequence of numbers, got an array of shape {arr.shape}")
    return arr


def drop_missing(values: Values) -> tuple[FloatArray, int]:
    """The finite values and how many ``None`` / NaN / inf entries were dropped."""
    arr = to_float_array(values)
    keep = np.isfinite(arr)
    return arr[keep], int(arr.size - np.count_nonzero(keep))


class PairedArrays(BaseModel):
    """Two aligned samples after dropping every pair with a missing value on either side."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    baseline: FloatArray = Field(description="Baseline values of the complete pairs")
    candidate: FloatArray = Field(description="Candidate values of the complete pairs")
    dropped_baseline_missing: int = Field(description="Pairs dropped because only the baseline was missing")
    dropped_candidate_missing: int = Field(description="Pairs dropped because only the candidate was missing")
    dropped_both_missing: int = Field(description="Pairs dropped because both sides were missing")

    @property
    def n(self) -> int:
        return int(self.baseline.size)

    @property
    def n_dropped(self) -> int:
        return self.dropped_baseline_missing + self.dropped_candidate_missing + self.dropped_both_missing

    @property
    def differences(self) -> FloatArray:
        """candidate - baseline, per pair."""
        return self.candidate - self.baseline


def pair_values(baseline: Values, candidate: Values) -> PairedArrays:
    """Align two equally long samples and drop pairs where either side is ``None`` / NaN."""
    b = to_float_array(baseline)
    c = to_float_array(candidate)
    if b.size != c.size:
        raise StatsInputError(
            f"paired samples must have equal length: baseline has {b.size} values, candidate {c.size}; "
            "pair the items by (item_id, trial) first"
        )
    b_ok = np.isfinite(b)
    c_ok = np.isfinite(c)
    keep = b_ok & c_ok
    return PairedArrays(
        baseline=b[keep],
        candidate=c[keep],
        dropped_baseline_missing=int(np.count_nonzero(~b_ok & c_ok)),
        dropped_candidate_missing=int(np.count_nonzero(b_ok & ~c_ok)),
        dropped_both_missing=int(np.count_nonzero(~b_ok & ~c_ok)),
    )


def is_binary(values: FloatArray) -> bool:
    """True when every value is exactly 0 or 1 (and there is at least one value)."""
    return bool(values.size > 0 and np.all((values == 0.0) | (values == 1.0)))
