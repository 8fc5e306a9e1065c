"""``yardstick datasets push``: one request per file (created with its first version or not at all),
names sent as one path segment whatever they contain."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from services.cli.app import app as cli
from tests.services.live_api import Api

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


def push(api: Api, path: Path, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["datasets", "push", str(path), *extra], env=api.env)
    return result.exit_code, result.output


def datasets(api: Api) -> list[str]:
    with httpx.Client(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as client:
        return [d["name"] for d in client.get("/datasets").json()]


def test_push_names_with_url_characters(api: Api, tmp_path: Path) -> None:
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"name": "team/odd?#..", "items": [{"id": "a", "input": {"q": 1}}]}))
    code, output = push(api, path)
    assert code == 0, output
    assert datasets(api) == ["team/odd?#.."]
    versions = CliRunner().invoke(cli, ["datasets", "versions", "team/odd?#.."], env=api.env)
    assert versions.exit_code == 0 and "api" not in versions.output and "odd.json" in versions.output


def test_refused_pushes_leave_nothing(api: Api, tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    no_items = tmp_path / "none.yaml"
    no_items.write_text("name: none\nitems: []\n")
    server_refused = tmp_path / "nul.json"
    server_refused.write_text(json.dumps({"name": "nul", "items": [{"id": "a", "input": {"q": "a\x00b"}}]}))
    bad_name = tmp_path / "name.json"
    bad_name.write_text(json.dumps({"name": "x" * 300, "items": [{"id": "a", "input": {}}]}))
    for path in (empty, no_items, server_refused, bad_name):
        code, output = push(api, path)
        assert code == 2, output
        assert "Traceback" not in output
    assert datasets(api) == []
