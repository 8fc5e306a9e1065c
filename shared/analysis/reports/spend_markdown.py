"""The spend of a run (or of both runs of a comparison) as markdown: tokens always, money only for
priced models ("no price" otherwise; "offline, not billed" for the offline model)."""

from __future__ import annotations

from yardstick.api.spend import NOT_BILLED, ModelSpend, Spend


def _money(m: ModelSpend, currency: str) -> str:
    if m.offline:
        return NOT_BILLED
    return "no price" if m.cost is None else f"{m.cost:.4f} {currency}"


def _row(label: str, m: ModelSpend, currency: str) -> str:
    model = (m.model or "(not reported)").replace("|", "\\|")
    return (
        f"| {label}{m.role} | {model} | {m.calls} | {m.input_tokens} | {m.output_tokens} | "
        f"{_money(m, currency)} |"
    )


def spend_lines(spends: list[tuple[str, Spend | None]]) -> list[str]:
    """A ``## Spend`` section for one or more labelled runs (label "" for a single run)."""
    present = [(label, s) for label, s in spends if s is not None]
    if not present:
        return []
    out = ["", "## Spend", ""]
    for label, s in present:
        prefix = f"{label}: " if label else ""
        out.append(
            f"- {prefix}{s.input_tokens} input + {s.output_tokens} output tokens; cost {s.cost_text}"
            + (f" (prices as of {s.prices_as_of})" if s.prices_as_of else "")
        )
    rows = [_row(f"{label} " if label else "", m, s.currency) for label, s in present for m in s.by_model]
    if rows:
        out += [
            "",
            "| Role | Model | Calls | Input tokens | Output tokens | Cost |",
            "|---|---|---|---|---|---|",
        ]
        out += rows
    return out
