"""Simulation: Westfall-Young (joint sign flips, step-down min-P) against Holm across the metrics of
one comparison. Prints figures; asserts nothing.

Run: `.venv/bin/python bench/multiplicity.py [--reps 1000] [--only fwer|power|speed]`.

Each item has a difficulty a ~ N(0, 1) shared by both runs; run r's latent for metric j is
a + sqrt(rho)·z_r + sqrt(1 - rho)·e_rj (z_r shared by the metrics, the e independent), so the
metrics' differences are correlated through rho. Even-numbered metrics are 0/1 (latent > 0), the
others continuous (logistic of the latent). The per-metric p-values are those a comparison reports:
exact McNemar for 0/1 metrics, the sign-flip test (exact up to 16 pairs, 10,000 random patterns
beyond) for the others; Holm and Holm-Tarone (today's comparison: the attainable minimum of each
test leaves unreachable metrics out) adjust them. Westfall-Young takes the same differences with
its defaults (exact up to 16 changed pairs, else 10,000 patterns).

- ``fwer``: A/A (no difference anywhere): the share of data sets where any metric's adjusted
  p < 0.05, for m = 3 and 6 metrics, n = 25 and 100 pairs, rho = 0, 0.5, 0.9.
- ``power``: the candidate's latent is lower by delta on every item (every metric measures that one
  effect); k = 1, 3, 6 near-copies of it (rho = 0.98); power = the share of data sets where metric 0
  (0/1, the one measured alone at k = 1) has adjusted p < 0.05, and where any of them has.
- ``speed``: one call on 20 metrics x 10,000 pairs x 2,000 patterns (best of 3).

Every share comes with its Monte Carlo standard error sqrt(p(1 - p) / reps).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.analysis import (  # noqa: E402
    EXACT_MAX_PAIRS,
    holm_adjust,
    holm_tarone_adjust,
    mcnemar_exact,
    min_p_given,
    monte_carlo_sign_flip_p_value,
    pair_values,
    sign_flip_p_value,
    westfall_young,
)

ALPHA = 0.05
NEAR_COPIES = 0.98  # rho of the power rows: the copies differ by a latent noise of sd 0.14
Scores = tuple[np.ndarray, np.ndarray]


def simulate(rng: np.random.Generator, n: int, m: int, rho: float, delta: float = 0.0) -> Scores:
    """Baseline and candidate scores, (m metrics x n items)."""
    difficulty = rng.normal(size=(1, n))
    runs = []
    for shift in (0.0, -delta):
        shared = rng.normal(size=(1, n))
        latent = difficulty + shift + math.sqrt(rho) * shared + math.sqrt(1.0 - rho) * rng.normal(size=(m, n))
        binary = np.arange(m)[:, None] % 2 == 0
        runs.append(np.where(binary, (latent > 0.0).astype(float), 1.0 / (1.0 + np.exp(-latent))))
    return runs[0], runs[1]


def reported_tests(base: np.ndarray, cand: np.ndarray) -> tuple[list[float | None], list[float | None]]:
    """Each metric's p-value as a comparison reports it, and its attainable minimum (Tarone)."""
    p_values: list[float | None] = []
    floors: list[float | None] = []
    for b, c in zip(base, cand, strict=True):
        pairs = pair_values(b, c)
        if np.all(np.isin(b, (0.0, 1.0))) and np.all(np.isin(c, (0.0, 1.0))):
            test, p = "mcnemar_exact", mcnemar_exact(b, c).p_value
        elif pairs.n <= EXACT_MAX_PAIRS:
            test, p = "sign_flip_exact", sign_flip_p_value(pairs.differences)
        else:
            test, p = "sign_flip_monte_carlo", monte_carlo_sign_flip_p_value(pairs.differences)
        p_values.append(p)
        floors.append(min_p_given(pairs, test))
    return p_values, floors


PROCEDURES = ("Westfall-Young", "Holm", "Holm-Tarone")


def adjusted(base: np.ndarray, cand: np.ndarray) -> dict[str, list[float | None]]:
    """Every procedure's adjusted p-values of one data set."""
    p_values, floors = reported_tests(base, cand)
    return {
        "Westfall-Young": westfall_young(cand - base).adjusted,
        "Holm": holm_adjust(p_values),
        "Holm-Tarone": holm_tarone_adjust(p_values, floors, ALPHA),
    }


def rejection_shares(reps: int, seed: int, **cell: float) -> dict[str, tuple[float, float]]:
    """Per procedure, the shares of ``reps`` data sets where metric 0 and where any metric is
    rejected at ALPHA."""
    rng = np.random.default_rng(seed)
    first = dict.fromkeys(PROCEDURES, 0)
    some = dict.fromkeys(PROCEDURES, 0)
    n, m = int(cell["n"]), int(cell["m"])
    for _ in range(reps):
        base, cand = simulate(rng, n, m, cell["rho"], cell.get("delta", 0.0))
        for name, values in adjusted(base, cand).items():
            rejected = [p is not None and p < ALPHA for p in values]
            first[name] += rejected[0]
            some[name] += any(rejected)
    return {name: (first[name] / reps, some[name] / reps) for name in PROCEDURES}


def _cell(share: float, reps: int) -> str:
    return f"{share:.3f} ± {math.sqrt(share * (1.0 - share) / reps):.3f}"


def _table(header: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def fwer(reps: int) -> None:
    print(f"\nA/A family-wise error rate (any adjusted p < {ALPHA}), {reps} data sets a row\n")
    rows = []
    for seed, (m, n, rho) in enumerate(
        (m, n, rho) for m in (3, 6) for n in (25, 100) for rho in (0.0, 0.5, 0.9)
    ):
        shares = rejection_shares(reps, seed, n=n, m=m, rho=rho)
        rows.append([str(m), str(n), f"{rho:g}", *(_cell(s[1], reps) for s in shares.values())])
        print("  ", rows[-1], flush=True, file=sys.stderr)
    _table(["metrics", "pairs", "rho", *PROCEDURES], rows)


def power(reps: int) -> None:
    print(
        f"\nPower: one effect (delta) measured by k near-copies (rho {NEAR_COPIES}), {reps} data sets a row\n"
    )
    rows = []
    for seed, (n, delta, k) in enumerate(
        (n, delta, k) for n, delta in ((25, 1.1), (100, 0.5)) for k in (1, 3, 6)
    ):
        shares = rejection_shares(reps, 100 + seed, n=n, m=k, rho=NEAR_COPIES, delta=delta)
        cells = [_cell(s[0], reps) for s in shares.values()] + [_cell(s[1], reps) for s in shares.values()]
        rows.append([str(k), str(n), f"{delta:g}", *cells])
        print("  ", rows[-1], flush=True, file=sys.stderr)
    header = [f"{name}, metric 0" for name in PROCEDURES] + [f"{name}, any" for name in PROCEDURES]
    _table(["copies k", "pairs", "delta", *header], rows)


def speed() -> None:
    differences = np.random.default_rng(0).normal(0.0, 1.0, (20, 10_000))
    timings = []
    for _ in range(3):
        start = time.perf_counter()
        westfall_young(differences, resamples=2_000)
        timings.append(time.perf_counter() - start)
    print(f"\nwestfall_young, 20 metrics x 10,000 pairs x 2,000 patterns: best of 3 {min(timings):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--reps", type=int, default=1_000, help="simulated data sets per row")
    parser.add_argument("--only", choices=("fwer", "power", "speed"))
    args = parser.parse_args()
    started = time.perf_counter()
    if args.only in (None, "fwer"):
        fwer(args.reps)
    if args.only in (None, "power"):
        power(args.reps)
    if args.only in (None, "speed"):
        speed()
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
