"""Run names and the baseline search, against a recorded transport (no server)."""

from __future__ import annotations

import httpx
import pytest

from tests.yardstick.ci.test_verdict import experiment
from yardstick import Client
from yardstick.ci.baseline import SEARCH_PAGE, baseline_pattern, find_baseline, run_name

pytestmark = pytest.mark.unit

SHA = "0123456789ABCDEF0123456789abcdef01234567"


def test_runs_are_named_after_branch_and_commit() -> None:
    assert run_name("ci", "main", SHA) == "ci-main-0123456789ab"
    assert run_name("nightly", "feature/new menu!", SHA) == "nightly-feature-new-menu-0123456789ab"
    assert len(run_name("ci", "b" * 500, SHA)) <= 200


def test_only_the_default_branch_own_runs_are_baselines() -> None:
    pattern = baseline_pattern("ci", "main")
    assert pattern.fullmatch("ci-main-0123456789ab")
    for other in (
        "ci-main-x-0123456789ab",  # the branch main-x
        "ci-main-0123456",  # too short: not a run this gate named
        "ci-feature-0123456789ab",
        "nightly-main-0123456789ab",
        "ci-main-0123456789ab-rescored",
    ):
        assert not pattern.fullmatch(other), other


def test_the_search_reads_completed_runs_of_the_dataset_newest_first_page_by_page() -> None:
    seen: list[httpx.Request] = []
    pages = {
        0: [
            experiment("completed", None).model_copy(update={"name": f"ci-pr-{i:012x}"})
            for i in range(SEARCH_PAGE)
        ],
        SEARCH_PAGE: [
            experiment("completed", None).model_copy(update={"id": "old", "name": "ci-main-aaaaaaaaaaaa"}),
            experiment("completed", None).model_copy(update={"id": "older", "name": "ci-main-bbbbbbbbbbbb"}),
        ],
    }

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        page = pages.get(int(request.url.params["offset"]), [])
        return httpx.Response(200, json=[e.model_dump(mode="json") for e in page])

    with Client("http://coordinator.test", "k", transport=httpx.MockTransport(answer)) as client:
        found = find_baseline(client, "ci", "main", "qa")
        assert found is not None and found.id == "old"
        assert find_baseline(client, "ci", "release", "qa") is None
    first = seen[0].url.params
    assert (first["dataset"], first["status"], first["limit"]) == ("qa", "completed", str(SEARCH_PAGE))
    assert [int(r.url.params["offset"]) for r in seen] == [0, SEARCH_PAGE, 0, SEARCH_PAGE]
