"""The pull request's one comment, the step outputs and the summary, against a recorded transport."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from yardstick.ci.github import (
    COMMENT_LIMIT,
    PAGE,
    GithubApiError,
    PullRequestComments,
    append_summary,
    comment_marker,
    write_outputs,
)

pytestmark = pytest.mark.unit

MARKER = comment_marker("ci", "qa")


def github(
    comments: list[dict[str, object]], seen: list[httpx.Request], status: int = 200
) -> PullRequestComments:
    """A PR with ``comments``, listed ``PAGE`` a page."""

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if status != 200:
            return httpx.Response(status, json={"message": "Resource not accessible by integration"})
        if request.method == "GET":
            page = int(request.url.params["page"])
            return httpx.Response(200, json=comments[(page - 1) * PAGE : page * PAGE])
        return httpx.Response(201, json={"id": 1, "body": json.loads(request.content)["body"]})

    return PullRequestComments("acme/shop", 5, "t0k", "https://ghe.test/api/v3/", httpx.MockTransport(answer))


def test_the_marked_comment_is_found_on_a_later_page_and_edited() -> None:
    seen: list[httpx.Request] = []
    others = [{"id": i, "body": f"looks good {i}"} for i in range(PAGE)]
    ours = {"id": 999, "body": f"{MARKER}\nold report"}
    with github([*others, {"id": 1000, "body": None}, ours], seen) as comments:
        assert comments.upsert(MARKER, "new report") == "updated"
    assert [f"{r.method} {r.url.path}" for r in seen] == [
        "GET /api/v3/repos/acme/shop/issues/5/comments",
        "GET /api/v3/repos/acme/shop/issues/5/comments",
        "PATCH /api/v3/repos/acme/shop/issues/comments/999",
    ]
    assert json.loads(seen[-1].content) == {"body": f"{MARKER}\nnew report"}
    assert seen[0].headers["Authorization"] == "Bearer t0k"


def test_without_one_a_comment_is_created_and_cut_to_githubs_limit() -> None:
    seen: list[httpx.Request] = []
    with github([{"id": 1, "body": comment_marker("ci", "other-dataset")}], seen) as comments:
        assert comments.upsert(MARKER, "x" * 100_000) == "created"
    body = json.loads(seen[-1].content)["body"]
    assert seen[-1].method == "POST" and body.startswith(MARKER)
    assert len(body) <= COMMENT_LIMIT and body.endswith(
        "the whole report is in the job summary and the artifact)"
    )


def test_a_refusal_says_which_request_and_why() -> None:
    with (
        github([], [], status=403) as comments,
        pytest.raises(GithubApiError, match=r"403: .*not accessible"),
    ):
        comments.upsert(MARKER, "report")


def test_outputs_are_single_lines_and_the_summary_appends(tmp_path: Path) -> None:
    write_outputs(tmp_path / "out", {"verdict": "pass", "reason": "a\nb"})
    write_outputs(tmp_path / "out", {"exit-code": "0"})
    assert (tmp_path / "out").read_text() == "verdict=pass\nreason=a b\nexit-code=0\n"
    append_summary(tmp_path / "summary", "# one\n\n")
    append_summary(tmp_path / "summary", "# two")
    assert (tmp_path / "summary").read_text() == "# one\n# two\n"
