"""``python -m yardstick.ci`` as a GitHub Actions job runs it: a subprocess with a fake GitHub
environment (event file, output and summary files, ``GITHUB_API_URL`` at a local fake), against a
live coordinator with in-process eval workers; the gate serves the python task itself.

A push to main records the baseline; a pull request whose task answers alike passes (exit 0) and
gets a comment; the same pull request with a worse task fails (exit 1) and the comment is edited,
not duplicated. The same worse task compared with the exported main run (``--baseline-file``, as in
mode local) fails the same way without the server's baseline."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.services.live_api import Api
from tests.yardstick.ci.fake_github import TOKEN, FakeGithub, fake_github
from yardstick.api.topology import Topology
from yardstick.ci import main

ROOT = Path(__file__).resolve().parents[3]
REPOSITORY = "acme/shop"
PR = 7
ITEMS = 24
MAIN_SHA, GOOD_SHA, WORSE_SHA = "a" * 40, "b" * 40, "c" * 40


def write_dataset(path: Path) -> None:
    """Questions whose right answer is the question in capitals (the ``shout`` task's)."""
    items = [
        {"id": f"q{i}", "input": {"question": f"city {i}"}, "expected_output": {"output": f"CITY {i}"}}
        for i in range(ITEMS)
    ]
    path.write_text(yaml.safe_dump({"name": "cities", "items": items}), encoding="utf-8")


class Job:
    """One CI job's environment in its own folder under ``root``."""

    def __init__(
        self, root: Path, name: str, api: Api, nats_url: str, topology: Topology, github: FakeGithub
    ):
        self.dir = root / name
        self.dir.mkdir()
        self.env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("GITHUB_", "YARDSTICK_", "NATS_", "GITLAB_", "CI_"))
        } | {
            "PYTHONPATH": str(ROOT),
            "YARDSTICK_HOME": str(self.dir / ".yardstick"),
            "YARDSTICK_API_URL": api.url,
            "YARDSTICK_API_KEY": api.key,
            "NATS_URL": nats_url,
            "NATS_NAMESPACE": topology.namespace,
            "GITHUB_ACTIONS": "true",
            "GITHUB_API_URL": github.url,
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_EVENT_PATH": str(self.dir / "event.json"),
            "GITHUB_OUTPUT": str(self.dir / "output"),
            "GITHUB_STEP_SUMMARY": str(self.dir / "summary.md"),
            "YARDSTICK_CI_DATASET_FILE": str(root / "cities.yaml"),
            "YARDSTICK_CI_EVALUATORS": "exact_match",
            "YARDSTICK_CI_OUT_DIR": str(self.dir / "out"),
        }

    def push(self, sha: str) -> Job:
        self.env |= {"GITHUB_EVENT_NAME": "push", "GITHUB_REF_NAME": "main", "GITHUB_SHA": sha}
        return self._event({"ref": "refs/heads/main", "after": sha})

    def pull_request(self, sha: str) -> Job:
        self.env |= {
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_REF_NAME": f"{PR}/merge",
            "GITHUB_SHA": "f" * 40,
        }
        pull = {
            "number": PR,
            "head": {"ref": "feature/faster", "sha": sha},
            "base": {"ref": "main", "sha": MAIN_SHA},
        }
        return self._event({"action": "synchronize", "number": PR, "pull_request": pull})

    def _event(self, payload: dict[str, Any]) -> Job:
        payload["repository"] = {"full_name": REPOSITORY, "default_branch": "main"}
        (self.dir / "event.json").write_text(json.dumps(payload), encoding="utf-8")
        return self

    async def run(self, task: str, *args: str) -> tuple[int, str]:
        """The gate's exit code and its stderr."""
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "yardstick.ci",
            "--task",
            f"tests.yardstick.sample_tasks:{task}",
            *args,
            cwd=self.dir,
            env=self.env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 120)
        assert proc.returncode is not None
        return proc.returncode, err.decode() + out.decode()

    def outputs(self) -> dict[str, str]:
        lines = (self.dir / "output").read_text(encoding="utf-8").splitlines()
        return dict(line.split("=", 1) for line in lines)

    def junit(self) -> ET.Element:
        return ET.fromstring((self.dir / "out" / "junit.xml").read_text(encoding="utf-8"))


def failures(junit: ET.Element) -> int:
    return len(junit.findall(".//failure"))


@pytest.mark.integration
@pytest.mark.usefixtures("eval_workers")
@pytest.mark.timeout(300)
async def test_push_records_a_baseline_then_one_comment_follows_the_pull_request(
    api: Api, nats_url: str, topology: Topology, tmp_path: Path
) -> None:
    write_dataset(tmp_path / "cities.yaml")
    async with fake_github(REPOSITORY, PR) as github:

        def job(name: str) -> Job:
            return Job(tmp_path, name, api, nats_url, topology, github)

        main = job("main").push(MAIN_SHA)
        code, log = await main.run("shout")
        assert code == 0, log
        assert main.outputs()["verdict"] == "pass" and main.outputs()["comparison-id"] == ""
        assert "recorded as the baseline" in (main.dir / "summary.md").read_text(encoding="utf-8")
        assert github.requests == [], "a push has no pull request to comment on"

        good = job("good").pull_request(GOOD_SHA)
        code, log = await good.run("shout")
        assert code == 0, log
        outputs = good.outputs()
        assert outputs["verdict"] == "pass" and outputs["exit-code"] == "0" and outputs["comparison-id"]
        assert Path(outputs["junit-path"]) == good.dir / "out" / "junit.xml"
        assert failures(good.junit()) == 0 and good.junit().findall(".//testcase")
        [(comment_id, body)] = github.comments.items()
        assert body.startswith("<!-- yardstick-ci:ci:cities -->")
        assert "PASS" in body and "ci-feature-faster-bbbbbbbbbbbb" in body and "ci-main-aaaaaaaaaaaa" in body
        assert body.split("\n", 1)[1] == Path(outputs["report-path"]).read_text(encoding="utf-8")

        worse = job("worse").pull_request(WORSE_SHA)
        code, log = await worse.run("whisper")
        assert code == 1, log
        outputs = worse.outputs()
        assert outputs["verdict"] == "regression" and outputs["exit-code"] == "1"
        assert outputs["comparison-id"] not in ("", good.outputs()["comparison-id"])
        assert failures(worse.junit()) > 0
        assert list(github.comments) == [comment_id], "the comment is edited, not added again"
        body = github.comments[comment_id]
        assert "REGRESSION" in body and "ci-feature-faster-cccccccccccc" in body and "exact_match" in body
        assert github.requests[-2:] == [
            f"GET /repos/{REPOSITORY}/issues/{PR}/comments",
            f"PATCH /repos/{REPOSITORY}/issues/comments/{comment_id}",
        ]
        assert "REGRESSION" in (worse.dir / "summary.md").read_text(encoding="utf-8")

        from_file = job("from-file").pull_request(WORSE_SHA)
        code, log = await from_file.run(
            "whisper", "--baseline-file", str(main.dir / "out" / "run.json"), "--no-comment"
        )
        assert code == 1, log
        assert from_file.outputs()["verdict"] == "regression" and from_file.outputs()["comparison-id"] == ""
        assert failures(from_file.junit()) > 0
        assert "(from " in (from_file.dir / "out" / "report.md").read_text(encoding="utf-8")
        assert list(github.comments) == [comment_id] and github.requests[-1].startswith("PATCH")


@pytest.mark.unit
def test_bad_input_exits_2_and_says_what_to_give(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env = {"GITHUB_OUTPUT": str(tmp_path / "output"), "YARDSTICK_CI_DATASET": "qa"}
    assert main([], env) == 2
    assert "give --branch, --sha, --default-branch" in capsys.readouterr().err
    assert (tmp_path / "output").read_text() == "verdict=bad-input\nexit-code=2\n"
    assert (
        main(["--branch", "main", "--sha", "abc1234", "--default-branch", "main", "--timeout", "0"], env) == 2
    )
    assert "--timeout: Input should be greater than 0" in capsys.readouterr().err
