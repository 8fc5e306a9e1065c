"""The generated reference pages follow the code: a page per CLI command, every evaluator listed."""

from __future__ import annotations

import pytest
import typer

from docs.gen import CLI_DIR, cli_pages, evaluator_entries, evaluators_page, reference_pages
from services.cli.app import app
from shared.metrics import yardstick_metrics
from tests.evaluator_registry import REGISTRY

pytestmark = pytest.mark.unit


def _commands(command: object, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    subs: dict[str, object] = getattr(command, "commands", {})
    return [p for name, sub in subs.items() for p in [(*path, name), *_commands(sub, (*path, name))]]


def test_a_page_per_top_level_command_and_a_section_per_subcommand() -> None:
    pages = cli_pages()
    root = typer.main.get_command(app)
    for path in _commands(root):
        page = pages[f"{CLI_DIR}/{path[0]}.md"]
        assert f"`yardstick {' '.join(path)}`" in page, path
    assert set(pages) == {f"{CLI_DIR}/index.md"} | {f"{CLI_DIR}/{name}.md" for name in root.commands}


def test_every_option_of_run_is_documented() -> None:
    page = cli_pages()[f"{CLI_DIR}/run.md"]
    run = typer.main.get_command(app).commands["run"]
    for param in run.params:
        assert any(f"`{opt}" in page or f" {opt}" in page for opt in param.opts), param.name


def test_every_registered_evaluator_is_in_the_catalogue() -> None:
    page = evaluators_page()
    names = {e.name for e in REGISTRY.entries()}
    assert {e.name for e in evaluator_entries()} == names
    for name in names:
        assert f"### `{name}`" in page


def test_every_metrics_spec_is_shown() -> None:
    by_name = {e.name: e for e in evaluator_entries()}
    assert (
        by_name["string_similarity"].passes
        == "string_similarity: higher is better, passes at >= 0.8, regression beyond -0.05"
    )
    recall = {m.metric: m for m in by_name["retrieval"].metrics}["recall@10"]
    assert recall.meaning.startswith("higher is better, passes at >= 0.5")
    assert by_name["hallucination_rate"].passes.startswith(
        "hallucination_rate: lower is better, passes at <= 0.5"
    )
    assert "regression beyond +0.02" in by_name["hallucination_rate"].passes


def test_the_http_api_page_lists_every_route() -> None:
    page = reference_pages()["reference/http-api.md"]
    for route in ("`POST /experiments`", "`GET /experiments/{experiment_id}/items`", "`POST /comparisons`"):
        assert route in page


def test_every_registered_metric_is_on_the_metrics_page_with_its_help() -> None:
    page = reference_pages()["reference/metrics.md"]
    docs = yardstick_metrics()
    assert len(docs) >= 12
    for doc in docs:
        assert f"| `{doc.name}` | {doc.type} |" in page
        assert " ".join(doc.help.split())[:60] in page
