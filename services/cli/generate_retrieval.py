"""``yardstick datasets generate-retrieval``: LLM-generated golden retrieval dataset (
phase 1) written as a new golden file version. Needs a model: Mistral (``MISTRAL_API_KEY``) or any
OpenAI-compatible endpoint (``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``, ``--provider openai --model …``).
Structured replies go through the provider layer (response-format fallback, tolerant parsing)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Annotated, cast

import typer

from services.search_proxy.corpus import CorpusFileError, load_corpus
from services.search_proxy.generation.pipeline import (
    GenerationConfig,
    GenerationError,
    StructuredChatModel,
    run_generation,
)
from services.search_proxy.settings import DEFAULT_CORPUS
from shared.llm import (
    LlmConfig,
    LlmNotConfigured,
    ProviderChoice,
    StructuredLlm,
    StructuredModel,
    llm_config,
)

_VERSIONED = re.compile(r"golden-v(\d+)\.json$")


GENERATION_TIMEOUT_S = 60.0
MISTRAL_GENERATOR = "mistral-small-latest"
MISTRAL_CRITIC = "mistral-large-latest"


def generation_configs(
    provider: ProviderChoice, model: str | None, critic_model: str | None
) -> tuple[LlmConfig, LlmConfig]:
    """The generator (temperature 0.8) and critic (0.2) models; :class:`LlmNotConfigured` without one.
    Mistral defaults to mistral-small-latest / mistral-large-latest; openai's critic defaults to
    the generator's model."""
    generator = llm_config(provider, model, temperature=0.8, default_mistral_model=MISTRAL_GENERATOR)
    if generator.provider == "offline":
        raise LlmNotConfigured(
            "dataset generation needs a model: set MISTRAL_API_KEY, or OPENAI_BASE_URL / OPENAI_API_KEY "
            "and pass --provider openai --model NAME. Or use the hand-curated datasets/search/golden-v1.json."
        )
    default_critic = MISTRAL_CRITIC if generator.provider == "mistral" else generator.model
    critic = llm_config(generator.provider, critic_model or default_critic, temperature=0.2)
    limits = {"timeout_s": max(generator.timeout_s, GENERATION_TIMEOUT_S)}
    return generator.model_copy(update=limits), critic.model_copy(update=limits)


def build_models(generator: LlmConfig, critic: LlmConfig) -> tuple[StructuredChatModel, StructuredChatModel]:
    """The two models on the provider layer (``with_structured_output`` shape)."""
    return StructuredModel(StructuredLlm(generator)), StructuredModel(StructuredLlm(critic))


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
    provider: Annotated[
        str, typer.Option(help="auto, mistral or openai (any OpenAI-compatible endpoint, OPENAI_BASE_URL)")
    ] = "auto",
    model: Annotated[
        str | None, typer.Option(help="Model that writes queries (mistral: mistral-small-latest)")
    ] = None,
    critic_model: Annotated[
        str | None, typer.Option(help="Model that critics (mistral: mistral-large-latest; else --model)")
    ] = None,
    workspace_id: Annotated[str, typer.Option(help="workspaceId written into the file")] = "yardstick-eval",
    overwrite: Annotated[bool, typer.Option(help="Replace an existing output file")] = False,
) -> None:
    """Generate queries over the corpus with an LLM, filter them with an LLM critic, resolve their
    ground truth against the corpus and write a validated golden dataset file."""
    if provider not in ("auto", "mistral", "openai"):
        typer.echo(f"--provider {provider!r}: choose auto, mistral or openai", err=True)
        raise typer.Exit(2)
    try:
        configs = generation_configs(cast(ProviderChoice, provider), model, critic_model)
    except LlmNotConfigured as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc
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
    generator, critic = build_models(*configs)
    try:
        report = asyncio.run(run_generation(generator, critic, corpus_data, config))
    except GenerationError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.dataset.to_json(), encoding="utf-8")
    typer.echo(
        f"generated {report.generated} ({report.unparsable_replies} unparsable model replies skipped), "
        f"passed critic {report.passed_critic}, "
        f"with ground truth {report.resolved}; wrote {len(report.dataset.cases)} cases to {path}"
    )


if __name__ == "__main__":
    typer.run(generate_retrieval_command)
