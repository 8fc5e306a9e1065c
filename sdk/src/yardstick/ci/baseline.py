"""How CI runs are named and how a pull request finds its baseline.

Every run is named ``PREFIX-BRANCH-SHA12``: the gate's prefix (default ``ci``), the branch with every
run of characters other than letters, digits, ``.``, ``_`` and ``-`` replaced by one ``-`` (none at
either end), and the commit's first 12 hex digits, lower-case. The baseline of a run is the newest
**completed** experiment on the same dataset whose name is exactly
``PREFIX-DEFAULT_BRANCH-<12 hex digits>``: the last run recorded by a push to the default branch.
A branch called ``main-x`` cannot be taken for ``main`` (its runs are ``ci-main-x-<sha>``, and what
follows ``ci-main-`` must be the 12 hex digits alone).

Failed or cancelled runs are never baselines. The search reads the dataset's completed experiments
newest first, at most ``SEARCH_LIMIT`` of them; a baseline older than that is not found (the run
then has nothing to compare with and says so).
"""

from __future__ import annotations

import re

from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.experiments import ExperimentOut
from yardstick.client import Client

SHA_DIGITS = 12
MAX_BRANCH = 150
"""Names are at most 200 characters: room for the prefix and the commit."""
SEARCH_PAGE = 200
SEARCH_LIMIT = 2000
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def branch_slug(branch: str) -> str:
    return _UNSAFE.sub("-", branch).strip("-")[:MAX_BRANCH]


def run_name(prefix: str, branch: str, sha: str) -> str:
    """``run_name("ci", "feature/x", "0123456789abcdef…")`` → ``"ci-feature-x-0123456789ab"``."""
    return f"{prefix}-{branch_slug(branch)}-{sha[:SHA_DIGITS].lower()}"


def baseline_pattern(prefix: str, branch: str) -> re.Pattern[str]:
    """Names of the runs recorded on ``branch`` under ``prefix``."""
    return re.compile(rf"{re.escape(prefix)}-{re.escape(branch_slug(branch))}-[0-9a-f]{{{SHA_DIGITS}}}")


def find_baseline(client: Client, prefix: str, branch: str, dataset: str) -> ExperimentOut | None:
    """The newest completed run of ``dataset`` recorded on ``branch`` under ``prefix``, if any."""
    pattern = baseline_pattern(prefix, branch)
    for offset in range(0, SEARCH_LIMIT, SEARCH_PAGE):
        page = client.list_experiments(
            dataset=dataset, status=ExperimentStatus.COMPLETED, limit=SEARCH_PAGE, offset=offset
        )
        for experiment in page:
            if pattern.fullmatch(experiment.name):
                return experiment
        if len(page) < SEARCH_PAGE:
            return None
    return None
