"""Which commit the CI job tests, on which branch, and whether it is a pull request: read from the
CI system's environment.

- GitHub Actions: ``GITHUB_EVENT_PATH`` (the event's JSON). A ``pull_request`` event tests the PR's
  head commit (``pull_request.head.sha``, not the merge commit in ``GITHUB_SHA``) on its head branch,
  and has a PR number to comment on; any other event tests ``GITHUB_SHA`` on ``GITHUB_REF_NAME``.
  The default branch is the event's ``repository.default_branch``.
- GitLab CI: ``CI_COMMIT_SHA`` on ``CI_MERGE_REQUEST_SOURCE_BRANCH_NAME`` (merge request pipelines)
  or ``CI_COMMIT_REF_NAME``; the default branch is ``CI_DEFAULT_BRANCH``.

Explicit options (``--branch``, ``--sha``, ``--default-branch``) win over both. Anything still
missing is a usage error naming the option to give.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError


class CiContextError(ValueError):
    """The environment does not say which commit or branch is tested."""


class _Ref(BaseModel):
    model_config = ConfigDict(extra="ignore")
    ref: str
    sha: str


class _PullRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    number: int
    head: _Ref
    base: _Ref


class _Repository(BaseModel):
    model_config = ConfigDict(extra="ignore")
    full_name: str | None = None
    default_branch: str | None = None


class GithubEvent(BaseModel):
    """The fields of a GitHub Actions event payload the gate reads (the rest is ignored)."""

    model_config = ConfigDict(extra="ignore")
    pull_request: _PullRequest | None = None
    repository: _Repository | None = None


class CiContext(BaseModel, frozen=True):
    """The tested commit and where it comes from."""

    branch: str
    sha: str
    default_branch: str
    pull_request: int | None = None
    repository: str | None = None
    """``owner/name`` on GitHub (where the PR comment goes)."""

    @property
    def records_baseline(self) -> bool:
        """A push to the default branch: its run becomes the baseline, nothing to compare with."""
        return self.pull_request is None and self.branch == self.default_branch


def read_github_event(path: Path) -> GithubEvent:
    try:
        return GithubEvent.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        raise CiContextError(f"GITHUB_EVENT_PATH {path}: not a GitHub event payload ({exc})") from exc


def ci_context(
    env: Mapping[str, str],
    *,
    branch: str | None = None,
    sha: str | None = None,
    default_branch: str | None = None,
) -> CiContext:
    """The context from the options given, else GitHub's environment, else GitLab's."""
    found: dict[str, str | int | None] = {}
    if event_path := env.get("GITHUB_EVENT_PATH"):
        event = read_github_event(Path(event_path))
        repository = event.repository or _Repository()
        found["repository"] = env.get("GITHUB_REPOSITORY") or repository.full_name
        found["default_branch"] = repository.default_branch
        if (pr := event.pull_request) is not None:
            found |= {"branch": pr.head.ref, "sha": pr.head.sha, "pull_request": pr.number}
        else:
            found |= {"branch": env.get("GITHUB_REF_NAME"), "sha": env.get("GITHUB_SHA")}
    elif env.get("GITLAB_CI"):
        found = {
            "branch": env.get("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME") or env.get("CI_COMMIT_REF_NAME"),
            "sha": env.get("CI_COMMIT_SHA"),
            "default_branch": env.get("CI_DEFAULT_BRANCH"),
        }
    given = {"branch": branch, "sha": sha, "default_branch": default_branch}
    found |= {key: value for key, value in given.items() if value}
    missing = [f"--{key.replace('_', '-')}" for key in given if not found.get(key)]
    if missing:
        raise CiContextError(
            f"cannot tell the tested commit from the environment (neither GitHub Actions' "
            f"GITHUB_EVENT_PATH nor GitLab CI's variables say it): give {', '.join(missing)}"
        )
    return CiContext.model_validate(found)
