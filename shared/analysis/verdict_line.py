"""The verdict of a comparison in words: one sentence saying what happened and what to do, then the
details, e.g.

    FAIL: 2 must-pass items broke (order-correctness-007, -019); fix them before shipping.
    order_correctness -0.08, not significant at n = 25 (detectable: -0.20); 2 broke, 0 fixed.

What fails a comparison, in this order: a broken must-pass item (no statistics needed; with trials,
a significant fall of its pass rate), a significant regression of a primary metric, a missed gate
and a breakdown regression when ``fail_on_breakdown`` asks for it. With
none of them, a comparison is INCONCLUSIVE when a primary metric could not have detected any change,
PASS otherwise; a PASS still names the items that broke.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shared.analysis.broken_items import ItemChanges
from shared.analysis.detectability import unconfirmed
from yardstick.api.comparison_report import MetricResult

_MAX_IDS = 5


def short_ids(ids: Sequence[str]) -> str:
    """'order-correctness-007, -019, -021': later ids that share the first one's prefix up to its last
    '-' are shortened to what differs; at most five, then how many more."""
    if not ids:
        return ""
    first = ids[0]
    prefix = first[: first.rfind("-")] if "-" in first else ""
    shown = [first] + [
        i[len(prefix) :] if prefix and i.startswith(prefix + "-") else i for i in ids[1:_MAX_IDS]
    ]
    more = f" and {len(ids) - _MAX_IDS} more" if len(ids) > _MAX_IDS else ""
    return ", ".join(shown) + more


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def metric_phrase(r: MetricResult) -> str:
    """'order_correctness -0.08, not significant at n = 25 (detectable: -0.20)'."""
    c = r.comparison
    if c.delta is None:
        return f"{r.metric}: too few complete pairs to compare"
    n = c.n_pairs
    if r.status == "regression":
        how = f"a significant regression at n = {n}"
    elif r.status == "improvement":
        how = f"a significant improvement at n = {n}"
    elif r.status == "insufficient_data":
        how = f"no change detectable at n = {n}"
    elif r.status == "informational":
        how = f"not gating, n = {n}"
    else:
        how = f"not significant at n = {n}"
    detectable = ""
    if r.mde is not None and r.mde.effect is not None and r.status in ("no_significant_change",):
        sign = 1.0 if r.direction == "lower_is_better" else -1.0
        detectable = f" (detectable: {sign * r.mde.effect:+.3g})"
    return f"{r.metric} {c.delta:+.3g}, {how}{detectable}"


@dataclass
class VerdictInputs:
    n_pairs: int
    metrics: list[MetricResult]
    changes: ItemChanges
    breakdown_regressions: list[str]
    fail_on_breakdown: bool
    underpowered: list[str]
    gates_missed: list[str]


def _head(v: VerdictInputs, regressions: list[MetricResult]) -> str:
    broken_must = v.changes.must_pass_broken
    fails = []
    if broken_must:
        fails.append(f"{_plural(len(broken_must), 'must-pass item')} broke ({short_ids(broken_must)})")
    if regressions:
        what = ", ".join(f"{r.metric} {r.comparison.delta:+.3g}" for r in regressions[:3])
        fails.append(f"{_plural(len(regressions), 'primary metric')} regressed ({what})")
    if v.gates_missed:
        fails.append(f"{_plural(len(v.gates_missed), 'gate')} missed ({', '.join(v.gates_missed)})")
    if v.fail_on_breakdown and v.breakdown_regressions:
        fails.append(f"breakdown regressions ({', '.join(v.breakdown_regressions[:3])})")
    if fails:
        return f"FAIL: {' and '.join(fails)}; fix them before shipping (broken items are listed first)."
    if v.underpowered:
        few = ", ".join(v.underpowered[:3]) + (", …" if len(v.underpowered) > 3 else "")
        return (
            f"INCONCLUSIVE: too few items to detect any change in {few}; add items "
            "(`yardstick plan` says how many)."
        )
    broken_ids = list(dict.fromkeys(c.item_id for c in v.changes.broken))
    checked = "no must-pass item broke and " if v.changes.must_pass_items else ""
    head = f"PASS: {checked}no primary metric regressed on {v.n_pairs} paired items."
    if broken_ids:
        head += f" Look at the {_plural(len(broken_ids), 'item')} that broke ({short_ids(broken_ids)})."
    return head


def verdict_line(v: VerdictInputs) -> tuple[str, str]:
    """The comparison's verdict: the headline (what happened and what to do), and the details: the
    primary metrics and what else moved."""
    if v.n_pairs == 0:
        return (
            "INCONCLUSIVE: no (item_id, trial) pairs match between baseline and candidate; compare runs "
            "of the same dataset.",
            "",
        )
    primary = [r for r in v.metrics if r.role == "primary"]
    regressions = [r for r in primary if r.status == "regression"]
    details = [metric_phrase(r) for r in primary]
    if v.changes.broken_total or v.changes.fixed_total:
        flaky = sum(not c.significant for c in v.changes.broken)
        details.append(
            f"{v.changes.broken_total} broke, {v.changes.fixed_total} fixed"
            + (f" ({flaky} within chance over the trials: flaky)" if v.changes.trials and flaky else "")
        )
    unsure = [u for r in primary if (u := unconfirmed(r)) is not None]
    if unsure:
        details.append(f"past the threshold but not significant: {', '.join(unsure)}")
    secondary = [r.metric for r in v.metrics if r.role == "secondary" and r.status == "regression"]
    if secondary:
        details.append(f"secondary (exploratory, not gating) regressions: {', '.join(secondary)}")
    if v.breakdown_regressions and not v.fail_on_breakdown:
        details.append(f"breakdown regressions: {', '.join(v.breakdown_regressions)}")
    return _head(v, regressions), "; ".join(details)
