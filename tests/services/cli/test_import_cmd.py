"""``yardstick import promptfoo|openai-evals``: refusals and files without a server (unit), then a
promptfoo config and an OpenAI Evals samples file imported into a live coordinator, each run with the
command the import printed, on real eval workers and an in-process task worker, and scored."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner, Result

from services.cli.app import app as cli
from shared.datasets.files import load_dataset_file
from tests.evaluator_registry import validate_specs
from tests.services.live_api import Api
from tests.yardstick.conftest import StartTaskWorker, eval_workers, start_task_worker
from yardstick import task
from yardstick.api.evaluation import EvaluatorSpec

__all__ = ["eval_workers", "start_task_worker"]  # fixtures used here

FIXTURES = Path(__file__).parents[2] / "shared" / "datasets" / "importers" / "fixtures"
GETTING_STARTED = FIXTURES / "promptfoo" / "getting-started" / "promptfooconfig.yaml"
GUIDE = FIXTURES / "promptfoo" / "configuration-guide" / "promptfooconfig.yaml"
EVALS_REGISTRY = FIXTURES / "openai_evals" / "registry" / "evals" / "test-basic.yaml"
EVALS_SAMPLES = FIXTURES / "openai_evals" / "registry" / "data" / "test_match" / "samples.jsonl"


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env)


def run_line(output: str) -> list[str]:
    [line] = [line for line in output.splitlines() if line.startswith("yardstick run ")]
    return shlex.split(line)


@pytest.mark.unit
def test_out_writes_a_dataset_file_and_prints_both_commands(tmp_path: Path) -> None:
    out = tmp_path / "translations.yaml"
    result = invoke("import", "promptfoo", str(GETTING_STARTED), "--out", str(out), "--set", "name=translate")
    assert result.exit_code == 0, result.output
    dataset = load_dataset_file(out)
    assert dataset.name == "getting-started" and [i.id for i in dataset.items] == ["test-001", "test-002"]
    assert f"yardstick datasets push {out}" in result.stdout
    words = run_line(result.stdout)
    assert words[:2] == ["yardstick", "run"]
    assert words[words.index("--dataset") + 1] == "getting-started"
    assert words[words.index("--set") + 1] == "name=translate"
    validate_specs([EvaluatorSpec.parse(words[words.index("--evaluator") + 1])])


@pytest.mark.unit
def test_unsupported_assertions_refuse_the_import_unless_skipped(tmp_path: Path) -> None:
    out = tmp_path / "guide.yaml"
    refused = invoke("import", "promptfoo", str(GUIDE), "--out", str(out))
    assert refused.exit_code == 2 and not out.exists()
    said = " ".join(refused.stderr.split())  # the console wraps long lines where the path makes it
    assert "test 1 assert #2 (javascript)" in said and "--skip-unsupported" in said
    assert "Traceback" not in refused.output
    skipped = invoke("import", "promptfoo", str(GUIDE), "--out", str(out), "--skip-unsupported")
    assert skipped.exit_code == 0, skipped.output
    said = " ".join(skipped.stderr.split())
    assert "left out (1)" in said and "judge model" in said
    assert "embeddings" in said and out.exists()


@pytest.mark.unit
def test_openai_evals_registry_out_and_its_run_command(tmp_path: Path) -> None:
    out = tmp_path / "match.yaml"
    result = invoke(
        "import", "openai-evals", str(EVALS_REGISTRY), "--eval", "test-match", "--out", str(out),
        "--target", "http", "--output-field", "answer",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert len(load_dataset_file(out).items) == 3
    words = run_line(result.stdout)
    assert words[words.index("--set") + 1] == "url=https://YOUR_APP/answer"
    spec = EvaluatorSpec.parse(words[words.index("--evaluator") + 1])
    assert spec == EvaluatorSpec(name="item_checks", args={"field": "answer"})
    validate_specs([spec])


@pytest.mark.unit
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["promptfoo", "missing.yaml"], "no such file"),
        (["promptfoo", "{tmp}/bad.yaml"], "not valid YAML"),
        (["openai-evals", "{tmp}/bad.yaml"], "not valid YAML"),
        (["openai-evals", "{tmp}/empty.jsonl"], "the file is empty"),
        (
            ["openai-evals", "{tmp}/empty.jsonl", "--eval-class", "exact"],
            "use match, includes or fuzzy_match",
        ),
        (["promptfoo", str(GETTING_STARTED), "--out", "{tmp}"], "cannot write it"),
    ],
)
def test_bad_input_exits_2_with_what_to_do(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "bad.yaml").write_text("tests: [\n")
    (tmp_path / "empty.jsonl").write_text("")
    result = invoke("import", *[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split()) and "Traceback" not in result.output


@task("translate")
def translate(item: dict[str, Any]) -> dict[str, Any]:
    """The application under test: a fixed phrasebook."""
    answers = {"French": "Bonjour le monde!", "Spanish": "¿Dónde está la biblioteca?"}
    return {"output": answers[item["language"]]}


@task("complete")
def complete(item: dict[str, Any]) -> dict[str, Any]:
    """The application under test for the OpenAI Evals samples: completes each phrase from a fixed
    list, right at the start (" time"), right but not at the start ("It was George Washington."), or
    wrong ("16"), so Match and Includes score the same answers differently."""
    answers = {"Once upon a ": " time", "The first US president was ": "It was George Washington.",
               "OpenAI was founded in 20": "16"}  # fmt: skip
    [question] = [m["content"] for m in item["messages"] if m["role"] == "user"]
    return {"output": answers[question]}


async def yardstick(api: Api, *args: str) -> Result:
    """The CLI blocks while it follows a run: off the loop, so the in-process workers keep going."""
    return await asyncio.to_thread(CliRunner().invoke, cli, list(args), env=api.env)


async def get(api: Api, path: str) -> Any:
    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as http:
        response = await http.get(path)
    response.raise_for_status()
    return response.json()


async def import_and_run(api: Api, *import_args: str) -> tuple[Result, dict[str, Any]]:
    """``yardstick import …`` into the live coordinator, then the ``yardstick run`` line it printed;
    the import's answer and the one experiment that ran."""
    imported = await yardstick(api, "import", *import_args)
    assert imported.exit_code == 0, imported.output
    ran = await yardstick(api, *run_line(imported.stdout)[1:], "--json")
    assert ran.exit_code == 0, ran.output
    [experiment] = await get(api, "/experiments")
    return imported, experiment


@pytest.mark.integration
@pytest.mark.timeout(120)
@pytest.mark.usefixtures("eval_workers")
async def test_an_imported_promptfoo_config_runs_with_the_printed_command(
    api: Api, start_task_worker: StartTaskWorker
) -> None:
    await start_task_worker(translate)
    args = ("promptfoo", str(GETTING_STARTED), "--set", "name=translate")
    imported, experiment = await import_and_run(api, *args)
    said = " ".join(imported.stderr.split())  # the console wraps long lines where the path makes it
    assert "getting-started v1 (new version; 2 items)" in said
    versions = await get(api, "/datasets/getting-started/versions")
    assert [(v["version"], v["item_count"]) for v in versions] == [(1, 2)]
    metrics = experiment["aggregates"]["metrics"]
    assert metrics["contains"]["mean"] == 1.0 and metrics["icontains"]["mean"] == 1.0
    assert experiment["aggregates"]["pass_rate"] == 1.0

    again = await yardstick(api, "import", *args)
    assert "v1 (unchanged" in " ".join(again.stderr.split())


@pytest.mark.integration
@pytest.mark.timeout(120)
@pytest.mark.usefixtures("eval_workers")
@pytest.mark.parametrize(
    ("eval_class", "passed"),
    [("match", ["sample-0001"]), ("includes", ["sample-0001", "sample-0002"])],
)
async def test_an_imported_openai_evals_samples_file_runs_with_the_printed_command(
    api: Api, start_task_worker: StartTaskWorker, eval_class: str, passed: list[str]
) -> None:
    await start_task_worker(complete)
    imported, experiment = await import_and_run(
        api, "openai-evals", str(EVALS_SAMPLES), "--eval-class", eval_class, "--set", "name=complete"
    )
    assert "test-match v1 (new version; 3 items)" in " ".join(imported.stderr.split())
    assert experiment["aggregates"]["metrics"][eval_class]["mean"] == pytest.approx(len(passed) / 3)
    items = (await get(api, f"/experiments/{experiment['id']}/items"))["items"]
    scores = {item["item_id"]: [(s["name"], s["value"]) for s in item["scores"]] for item in items}
    assert scores == {
        f"sample-000{n}": [(eval_class, 1.0 if f"sample-000{n}" in passed else 0.0)] for n in (1, 2, 3)
    }
