"""The LLM answerer: a model on the provider layer (Mistral, or any OpenAI-compatible endpoint;
in tests anything with LangChain's ``with_structured_output``) writes the answer from the numbered
passages and says which passages each sentence comes from. Structured output goes through
:class:`shared.llm.StructuredLlm` (``json_schema`` → ``json_object`` → tolerant parsing); a reply
that never parses fails the answer with the reason (``answerer failed: LlmReplyInvalid: …``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from services.search_proxy.answering.draft import AnswerDraft, DraftSentence
from services.search_proxy.answering.passages import Passage
from services.search_proxy.generation.pipeline import StructuredChatModel
from shared.llm import LlmConfig, StructuredLlm, StructuredModel

PROMPT_VERSION = "answer-v1"


class _LlmSentence(BaseModel):
    text: str = Field(description="One sentence of the answer, without citation markers")
    sources: list[int] = Field(description="Numbers of the passages that state this sentence")


class LlmAnswer(BaseModel):
    """The structured output asked of the model."""

    sentences: list[_LlmSentence] = Field(default_factory=list, max_length=10)
    abstained: bool = Field(description="True when the passages do not answer the question")


def answer_prompt(question: str, passages: list[Passage], max_sentences: int) -> str:
    listing = "\n\n".join(f"[{n}] ({p.id}) {p.text}" for n, p in enumerate(passages, start=1))
    return f"""Answer the question using only the numbered passages below (engineering events).

Question: {question}

Passages:
{listing or "(none)"}

Rules:
- At most {max_sentences} short sentences; each states only what its passages say.
- For each sentence list the numbers of the passages that support it.
- Name people, services and numbers exactly as the passages write them.
- If the passages do not answer the question, return no sentences and abstained = true."""


class LlmAnswerer:
    def __init__(self, model: StructuredChatModel, identity: str) -> None:
        self._model = model
        self.name = identity
        """``provider:model``, e.g. ``openai:qwen2.5-7b-instruct``; the provider is its answerer name."""

    @property
    def provider(self) -> str:
        return self.name.partition(":")[0]

    async def answer(self, question: str, passages: list[Passage], max_sentences: int) -> AnswerDraft:
        if not passages:
            return AnswerDraft.abstention()
        raw: Any = await self._model.with_structured_output(LlmAnswer).ainvoke(
            answer_prompt(question, passages, max_sentences)
        )
        result = raw if isinstance(raw, LlmAnswer) else LlmAnswer.model_validate(raw)
        if result.abstained or not result.sentences:
            return AnswerDraft.abstention()
        return AnswerDraft(
            sentences=[
                DraftSentence(
                    text=s.text,
                    source_ids=[passages[n - 1].id for n in s.sources if 1 <= n <= len(passages)],
                )
                for s in result.sentences[:max_sentences]
            ]
        )


def llm_answerer(config: LlmConfig) -> LlmAnswerer:
    """The answerer on ``config``'s model (explicit timeout and retries from the configuration)."""
    return LlmAnswerer(StructuredModel(StructuredLlm(config)), config.identity)
