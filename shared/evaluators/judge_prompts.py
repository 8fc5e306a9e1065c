"""Versioned judge prompts and the structured answers the judges must return.

Change a prompt or its answer model → bump its version: the version is the judge's registered
version, stored with every judge score (``evaluator_version`` and ``metadata.prompt_version``).
v2: asked through the provider layer (the answer model's JSON schema is part of the prompt);
scores are no longer bounded in the answer model: a judge checks the scale and calls an
out-of-scale score "not measured", with the reason.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

FAITHFULNESS_VERSION = "faithfulness-v2"
ANSWER_RELEVANCY_VERSION = "answer-relevancy-v2"
CITATION_PRECISION_VERSION = "citation-precision-v2"
TRAJECTORY_VERSION = "trajectory-judge-v2"
TONE_VERSION = "drive-thru-tone-v2"


class Claims(BaseModel):
    claims: list[str] = Field(description="Atomic, independently verifiable statements in the answer")


class ClaimVerdict(BaseModel):
    claim: str
    supported: bool = Field(description="True if the context entails the claim")
    reasoning: str = ""


class ClaimVerdicts(BaseModel):
    verifications: list[ClaimVerdict]


class CitationVerdict(BaseModel):
    text: str = Field(description="The cited text from the answer")
    citation_id: str = Field(description="The citation marker, e.g. '[1]'")
    supported: bool = Field(description="Does the cited source support this text?")
    reasoning: str = ""


class CitationVerdicts(BaseModel):
    citations: list[CitationVerdict]


class Score(BaseModel):
    reasoning: str = ""
    score: float = Field(description="0 = worst, 1 = best")


class ToneVerdict(BaseModel):
    reasoning: str = ""
    friendliness: float = Field(description="1 = rude/cold, 5 = warm and polite")
    conciseness: float = Field(description="1 = rambling, 5 = short and to the point")


def _numbered(items: list[str]) -> str:
    return "\n".join(f"{i}. {text}" for i, text in enumerate(items, 1))


def _documents(items: list[str]) -> str:
    return "\n\n".join(f"[Doc {i}] {text}" for i, text in enumerate(items, 1)) or "(none)"


def decompose_prompt(answer: str) -> str:
    return (
        "Decompose this answer into atomic claims (simple statements that can be verified "
        f"independently).\n\nAnswer: {answer}\n\nReturn the list of claims."
    )


def verify_claims_prompt(claims: list[str], contexts: list[str]) -> str:
    return (
        "For each claim, decide whether it is supported by the retrieved context.\n\n"
        f"Claims:\n{_numbered(claims)}\n\nRetrieved context:\n{_documents(contexts)}\n\n"
        "For each claim return the claim text, whether it is supported (true/false) and your reasoning."
    )


def citation_prompt(answer: str, sources: list[str]) -> str:
    return (
        "Verify whether each citation correctly supports the text it is attached to.\n\n"
        f"Answer with citations: {answer}\n\nCitation sources:\n"
        + "\n\n".join(f"[{i}] {text}" for i, text in enumerate(sources, 1))
        + "\n\nFor each citation marker in the answer, decide if the cited source supports that text."
    )


def relevancy_prompt(query: str, answer: str) -> str:
    return (
        f"Score how well this answer addresses the query.\n\nQuery: {query}\n\nAnswer: {answer}\n\n"
        "Score 0-1: 1.0 directly and completely answers the query; 0.5 partially addresses it; "
        "0.0 irrelevant or does not answer. Give your reasoning."
    )


def trajectory_prompt(query: str, trajectory: str, reference: str | None) -> str:
    ref = f"\n\nA reference trajectory for comparison:\n{reference}" if reference else ""
    return (
        "You are grading the trajectory of a drive-thru ordering agent (its messages and tool calls).\n"
        "The agent must look up a menu item (lookup_menu_item) before adding it (add_item_to_order), "
        "must not add items that are not on the menu, must ask when a request is ambiguous, and must "
        "finalize only after the customer confirmed a read-back of the order.\n\n"
        f"Customer: {query}\n\nTrajectory:\n{trajectory}{ref}\n\n"
        "Score 0-1 how accurate and efficient the trajectory is for the customer's request: 1.0 the "
        "steps are correct and necessary; 0.5 it reaches a reasonable result with wrong or wasted "
        "steps; 0.0 wrong tools or a wrong result. Give your reasoning."
    )


def tone_prompt(utterance: str, previous_response: str | None, response: str) -> str:
    before = f"Agent's previous reply: {previous_response}\n" if previous_response else ""
    return (
        "Rate the drive-thru assistant's reply to the customer.\n\n"
        f"{before}Customer: {utterance}\nAssistant reply: {response}\n\n"
        "friendliness 1-5 (1 rude or cold, 5 warm and polite); conciseness 1-5 (1 rambling, "
        "5 short enough to be spoken at a drive-thru speaker). Give your reasoning."
    )
