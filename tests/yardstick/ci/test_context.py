"""Which commit and branch a job tests, from GitHub's event file or GitLab's variables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yardstick.ci.context import CiContextError, ci_context

pytestmark = pytest.mark.unit

REPO = {"full_name": "acme/shop", "default_branch": "trunk"}


def github_env(tmp_path: Path, payload: dict[str, object], **extra: str) -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload | {"repository": REPO}), encoding="utf-8")
    return {"GITHUB_EVENT_PATH": str(path), **extra}


def test_a_pull_request_tests_its_head_commit_not_the_merge_commit(tmp_path: Path) -> None:
    pull = {
        "number": 12,
        "head": {"ref": "fix/menu", "sha": "b" * 40},
        "base": {"ref": "trunk", "sha": "a" * 40},
    }
    env = github_env(tmp_path, {"pull_request": pull}, GITHUB_SHA="f" * 40, GITHUB_REF_NAME="12/merge")
    ctx = ci_context(env)
    assert (ctx.branch, ctx.sha, ctx.default_branch) == ("fix/menu", "b" * 40, "trunk")
    assert (ctx.pull_request, ctx.repository, ctx.records_baseline) == (12, "acme/shop", False)


def test_a_push_to_the_default_branch_records_the_baseline(tmp_path: Path) -> None:
    env = github_env(tmp_path, {"ref": "refs/heads/trunk"}, GITHUB_SHA="a" * 40, GITHUB_REF_NAME="trunk")
    assert ci_context(env).records_baseline
    other = github_env(tmp_path, {"ref": "refs/heads/x"}, GITHUB_SHA="a" * 40, GITHUB_REF_NAME="x")
    assert not ci_context(other).records_baseline


def test_gitlab_merge_request_pipelines_and_explicit_options() -> None:
    env = {
        "GITLAB_CI": "true",
        "CI_COMMIT_SHA": "c" * 40,
        "CI_COMMIT_REF_NAME": "refs/merge-requests/3/head",
        "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "feature",
        "CI_DEFAULT_BRANCH": "main",
    }
    ctx = ci_context(env)
    assert (ctx.branch, ctx.sha, ctx.default_branch, ctx.pull_request) == ("feature", "c" * 40, "main", None)
    assert ci_context(env, branch="main").records_baseline


def test_without_ci_variables_the_error_names_the_options_to_give(tmp_path: Path) -> None:
    with pytest.raises(CiContextError, match="give --branch, --sha, --default-branch"):
        ci_context({})
    assert ci_context({}, branch="main", sha="abcdef0", default_branch="main").records_baseline
    broken = tmp_path / "event.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(CiContextError, match="not a GitHub event payload"):
        ci_context({"GITHUB_EVENT_PATH": str(broken)})
