"""Benchmark: coverage of the 95 % prediction-powered interval of the people's mean, beside the
labels-only and judge-only intervals, by simulation.

Each simulated run has ``--items`` items (default 1,000), every one scored by a biased judge; a
uniform random sample of n of them (50, 100, 200) is labelled by people, the rest are the unlabelled
set. The three estimates are ``shared.analysis.stats.prediction_powered_mean``'s, exactly as calibration
reports them. The truth is the people's mean of the population the items are drawn from (i.i.d., as in
the paper). Two judges:

- pass/fail: people pass 60 % of items; the judge passes 95 % of those and 35 % of the others (its
  pass rate is 71 %: 11 points too generous, agreeing with people on 83 % of items);
- a [0, 1] score: item quality q ~ Beta(4, 2); people's score q + N(0, 0.1), the judge's
  q + 0.08 + N(0, 0.05), both clipped to [0, 1] (the truth, E[people's score], from 4 million draws).

Prints, per judge and n, each interval's coverage ± its Monte Carlo standard error
sqrt(c (1 - c) / runs) and its mean width. Asserts nothing. Run:
`.venv/bin/python bench/prediction_powered.py [--runs 2000] [--items 1000] [--seed 0]`.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.analysis import prediction_powered_mean  # noqa: E402
from yardstick.api.prediction_powered import MeanEstimate  # noqa: E402

Draw = Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]
"""(people's scores, judge's scores) of ``items`` items."""


def pass_fail(rng: np.random.Generator, items: int) -> tuple[np.ndarray, np.ndarray]:
    human = rng.random(items) < 0.6
    judge = np.where(human, rng.random(items) < 0.95, rng.random(items) < 0.35)
    return human.astype(float), judge.astype(float)


def score(rng: np.random.Generator, items: int) -> tuple[np.ndarray, np.ndarray]:
    quality = rng.beta(4, 2, items)
    human = np.clip(quality + rng.normal(0.0, 0.1, items), 0.0, 1.0)
    judge = np.clip(quality + 0.08 + rng.normal(0.0, 0.05, items), 0.0, 1.0)
    return human, judge


def _covers(estimate: MeanEstimate | None, truth: float) -> tuple[bool, float]:
    assert estimate is not None and estimate.ci_low is not None and estimate.ci_high is not None
    return estimate.ci_low <= truth <= estimate.ci_high, estimate.ci_high - estimate.ci_low


def simulate(
    draw: Draw, truth: float, labelled: int, items: int, runs: int, seed: int
) -> dict[str, list[float]]:
    """Per estimate: [hits, total width] over ``runs`` simulated runs."""
    rng = np.random.default_rng(seed)
    tally = {"PPI": [0.0, 0.0], "labels only": [0.0, 0.0], "judge only": [0.0, 0.0]}
    for _ in range(runs):
        human, judge = draw(rng, items)
        chosen = np.zeros(items, dtype=bool)
        chosen[rng.choice(items, labelled, replace=False)] = True
        result = prediction_powered_mean(human[chosen], judge[chosen], judge[~chosen], scale=(0.0, 1.0))
        for name, estimate in (
            ("PPI", result.estimate),
            ("labels only", result.labels_only),
            ("judge only", result.judge_only),
        ):
            hit, width = _covers(estimate, truth)
            tally[name][0] += hit
            tally[name][1] += width
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    score_truth = float(score(np.random.default_rng(args.seed + 99), 4_000_000)[0].mean())
    judges: list[tuple[str, Draw, float]] = [("pass/fail", pass_fail, 0.6), ("score", score, score_truth)]
    print(f"{args.runs} runs of {args.items} items per row; coverage ± Monte Carlo SE, mean width")
    print(f"{'judge':<10} {'n':>4}  {'PPI':>22}  {'labels only':>22}  {'judge only':>22}  seconds")
    for name, draw, truth in judges:
        for labelled in (50, 100, 200):
            started = time.perf_counter()
            tally = simulate(draw, truth, labelled, args.items, args.runs, args.seed + labelled)
            cells = []
            for hits, widths in tally.values():
                c, se = hits / args.runs, math.sqrt(hits / args.runs * (1 - hits / args.runs) / args.runs)
                cells.append(f"{c:.3f} ± {se:.3f}  w {widths / args.runs:.3f}")
            print(f"{name:<10} {labelled:>4}  " + "  ".join(f"{c:>22}" for c in cells), end="")
            print(f"  {time.perf_counter() - started:.1f}")
    print(f"truth: pass/fail 0.600, score {score_truth:.4f}")


if __name__ == "__main__":
    main()
