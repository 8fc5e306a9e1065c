"""What the gate hands back to GitHub Actions: step outputs (``GITHUB_OUTPUT``), the job summary
(``GITHUB_STEP_SUMMARY``) and ONE pull-request comment, kept up to date.

The comment is found by a hidden HTML marker naming the gate (``<!-- yardstick-ci:PREFIX:DATASET -->``):
a later run on the same PR edits it (``PATCH``) instead of adding another, and two gates on one PR
(other datasets or prefixes) keep a comment each. The REST API is reached at ``GITHUB_API_URL``
(GitHub Enterprise, or a local fake in tests) with ``GITHUB_TOKEN``. A comment that cannot be
written (a fork's read-only token, no ``pull-requests: write`` permission) is a warning, not a
failed gate: the verdict stands either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import httpx
from pydantic import BaseModel, ConfigDict, TypeAdapter

from yardstick.transport import error_detail, segment

COMMENT_LIMIT = 65_000
"""GitHub refuses comment bodies over 65,536 characters."""
PAGE = 100
GITHUB_API = "https://api.github.com"


class GithubApiError(RuntimeError):
    """GitHub refused or could not be reached; the message says which request and why."""


class IssueComment(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: int
    body: str | None = None


_comments: TypeAdapter[list[IssueComment]] = TypeAdapter(list[IssueComment])


def comment_marker(prefix: str, dataset: str) -> str:
    return f"<!-- yardstick-ci:{prefix}:{dataset} -->"


def write_outputs(path: Path, outputs: dict[str, str]) -> None:
    """Append ``name=value`` lines to the ``GITHUB_OUTPUT`` file (values are single lines)."""
    with path.open("a", encoding="utf-8") as out:
        for name, value in outputs.items():
            out.write(f"{name}={' '.join(value.splitlines())}\n")


def append_summary(path: Path, markdown: str) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(markdown.rstrip() + "\n")


def fit_comment(body: str) -> str:
    if len(body) <= COMMENT_LIMIT:
        return body
    note = "\n\n… (cut: the whole report is in the job summary and the artifact)"
    return body[: COMMENT_LIMIT - len(note)] + note


class PullRequestComments:
    """The comments of one pull request (the issues API: a PR is an issue)."""

    def __init__(
        self,
        repository: str,
        number: int,
        token: str,
        api_url: str = GITHUB_API,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._repo = "/".join(segment(part) for part in repository.split("/", 1))
        self._number = number
        self._http = httpx.Client(
            base_url=api_url.rstrip("/"),
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
            },
            timeout=30.0,
            transport=transport,
        )

    def __enter__(self) -> PullRequestComments:
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.close()

    def _request(self, method: str, path: str, **kwargs: object) -> httpx.Response:
        try:
            response = self._http.request(method, path, **kwargs)  # type: ignore[arg-type]
        except httpx.HTTPError as exc:
            raise GithubApiError(f"{method} {path}: cannot reach GitHub: {exc}") from exc
        if response.status_code >= 400:
            raise GithubApiError(f"{method} {path} → {response.status_code}: {error_detail(response)}")
        return response

    def find(self, marker: str) -> IssueComment | None:
        """The first comment carrying ``marker``, reading every page."""
        page = 1
        while True:
            response = self._request(
                "GET",
                f"/repos/{self._repo}/issues/{self._number}/comments",
                params={"per_page": PAGE, "page": page},
            )
            comments = _comments.validate_json(response.content)
            for comment in comments:
                if marker in (comment.body or ""):
                    return comment
            if len(comments) < PAGE:
                return None
            page += 1

    def upsert(self, marker: str, body: str) -> Literal["created", "updated"]:
        """Edit the comment carrying ``marker`` to ``body`` (marker first), or create it."""
        text = fit_comment(f"{marker}\n{body}")
        existing = self.find(marker)
        if existing is None:
            self._request("POST", f"/repos/{self._repo}/issues/{self._number}/comments", json={"body": text})
            return "created"
        self._request("PATCH", f"/repos/{self._repo}/issues/comments/{existing.id}", json={"body": text})
        return "updated"
