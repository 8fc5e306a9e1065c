"""TEMPORARY stand-in until the real module lands (replaced at merge)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shared.stats.cleaning import FloatArray
from shared.stats.sign_flip import random_sign_bits


@dataclass(frozen=True)
class WestfallYoungResult:
    raw: list[float | None]
    adjusted: list[float | None]
    exact: bool
    resamples: int


def westfall_young(
    differences: FloatArray, *, resamples: int = 10_000, seed: int = 0, exact_max_pairs: int = 16
) -> WestfallYoungResult:
    d = np.atleast_2d(differences)
    m, n = d.shape
    complete = np.isfinite(d)
    sizes = complete.sum(axis=1)
    z = np.where(complete, d, 0.0)
    tested = [j for j in range(m) if sizes[j] >= 2 and np.any(z[j])]
    raw: list[float | None] = [None] * m
    adj: list[float | None] = [None] * m
    if not tested:
        return WestfallYoungResult(raw, adj, False, resamples)
    signs = random_sign_bits(n, resamples, seed).astype(np.float64) * 2 - 1
    zt = z[tested]
    obs = np.abs(zt.sum(axis=1))
    t = np.abs(signs @ zt.T)  # (B, k)
    tol = 1e-12 * np.maximum(1.0, obs)
    p_obs = (1 + (t >= (obs - tol)).sum(axis=0)) / (resamples + 1)
    srt = np.sort(t, axis=0)
    pstar = np.empty_like(t)
    for k in range(t.shape[1]):
        below = np.searchsorted(srt[:, k], t[:, k] - 1e-12 * np.maximum(1.0, t[:, k]), side="left")
        pstar[:, k] = (resamples - below + 1) / (resamples + 1)
    order = np.argsort(p_obs, kind="stable")
    q = np.full(resamples, np.inf)
    out = np.empty(len(tested))
    for step in range(len(tested) - 1, -1, -1):
        k = order[step]
        q = np.minimum(q, pstar[:, k])
        out[k] = (1 + np.count_nonzero(q <= p_obs[k])) / (resamples + 1)
    running = 0.0
    for k in order:
        running = max(running, out[k])
        out[k] = min(1.0, running)
    for pos, j in enumerate(tested):
        raw[j] = float(p_obs[pos])
        adj[j] = float(out[pos])
    return WestfallYoungResult(raw, adj, False, resamples)
