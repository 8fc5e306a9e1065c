"""``yardstick datasets generate-retrieval``: LLM-generated golden retrieval dataset (
phase 1) written as a new golden file version. Needs MISTRAL_API_KEY."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Annotated

import typer

from services.search_proxy.corpus import CorpusFileError, load_corpus
from services.search_proxy.generation.pipeline import (
    GenerationConfig,
    GenerationError,
    StructuredChatModel,
    run_generation,
)
from services.search_proxy.settings import DEFAULT_CORPUS

_VERSIONED = re.compile(r"golden-v(\d+)\.json$")


def build_models(generator_model: str, critic_model: str) -> tuple[StructuredChatModel, StructuredChatModel]:
    """Mistral chat models (the key is read from MISTRAL_API_KEY by langchain-mistralai)."""
    from langchain_mistralai import ChatMistralAI

    generator = ChatMistralAI(model_name=generator_model, temperature=0.8, max_retries=2, timeout=60)
    critic = ChatMistralAI(model_name=critic_model, temperature=0.2, max_retries=2, timeout=60)
    return generator, critic


def next_version_path(out: Path) -> tuple[Path, int]:
    """A directory gets the next free ``golden-vN.json``; a file path keeps its own N (or 1)."""
    if out.is_dir() or not out.suffix:
        taken = [int(m[1]) for p in out.glob("golden-v*.json") if (m := _VERSIONED.search(p.name))]
        number = max(taken, default=0) + 1
        return out / f"golden-v{number}.json", number
    match = _VERSIONED.search(out.name)
    return out, int(match[1]) if match else 1


def generate_retrieval_command(
    corpus: Annotated[Path, typer.Option(help="Corpus file (corpus-v*.json)")] = DEFAULT_CORPUS,
    out: Annotated[Path, typer.Option(help="Output directory (next golden-vN.json) or file")] = (
        DEFAULT_CORPUS.parent
    ),
    count: Annotated[int, typer.Option(help="Queries to generate")] = 60,
    min_score: Annotated[int, typer.Option(help="Keep critic overall score >= this (1-5)")] = 3,
    max_cases: Annotated[int, typer.Option(help="At most this many cases in the file")] = 50,
    model: Annotated[str, typer.Option(help="Mistral model that writes queries")] = "mistral-small-latest",
    critic_model: Annotated[str, typer.Option(help="Mistral model that critics")] = "mistral-large-latest",
    workspace_id: Annotated[str, typer.Option(help="workspaceId written into the file")] = "yardstick-eval",
    overwrite: Annotated[bool, typer.Option(help="Replace an existing output file")] = False,
) -> None:
    """Generate queries over the corpus with an LLM, filter them with an LLM critic, resolve their
    ground truth against the corpus and write a validated golden dataset file."""
    if not os.environ.get("MISTRAL_API_KEY"):
        typer.echo(
            "MISTRAL_API_KEY is not set: dataset generation needs a Mistral key. "
            "Set it, or use the hand-curated datasets/search/golden-v1.json.",
            err=True,
        )
        raise typer.Exit(2)
    try:
        corpus_data = load_corpus(corpus)
    except CorpusFileError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from exc
    path, number = next_version_path(out)
    if path.exists() and not overwrite:
        typer.echo(f"{path} exists; pass --overwrite or choose another --out", err=True)
        raise typer.Exit(1)
    config = GenerationConfig(
        count=count,
        min_score=min_score,
        max_cases=max_cases,
        version=f"{number}.0.0",
        workspace_id=workspace_id,
    )
    generator, critic = build_models(model, critic_model)
    try:
        report = asyncio.run(run_generation(generator, critic, corpus_data, config))
    except GenerationError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.dataset.to_json(), encoding="utf-8")
    typer.echo(
        f"generated {report.generated}, passed critic {report.passed_critic}, "
        f"with ground truth {report.resolved}; wrote {len(report.dataset.cases)} cases to {path}"
    )


if __name__ == "__main__":
    typer.run(generate_retrieval_command)
