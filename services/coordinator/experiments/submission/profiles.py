"""The evaluators an experiment gets when it names none: one profile per kind of data, chosen from
the dataset's kind and the target's kind.

The drive-thru profile ends with the sampler's online defaults (the reference-free evaluators it
scores live traffic with), so the last offline experiment is a drift reference for each of them:
that list is written once, in ``shared.online.sampling_config``, and read here.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.online.sampling_config import DEFAULT_EVALUATORS as ONLINE_DEFAULTS
from yardstick.api.evaluation import EvaluatorSpec


@dataclass(frozen=True)
class EvaluatorProfile:
    """Evaluator names: item-level, then run-level."""

    items: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()

    def item_specs(self) -> list[EvaluatorSpec]:
        return [EvaluatorSpec(name=name) for name in self.items]

    def run_specs(self) -> list[EvaluatorSpec]:
        return [EvaluatorSpec(name=name) for name in self.runs]


PROFILES: dict[str, EvaluatorProfile] = {
    "drive_thru": EvaluatorProfile(
        ("order_correctness", "tool_call_accuracy", *ONLINE_DEFAULTS),
        ("avg_order_correctness", "score_breakdown"),
    ),
    "retrieval": EvaluatorProfile(("retrieval",), ("score_breakdown",)),
    "conversation": EvaluatorProfile(
        (
            "final_order_correctness",
            "turn_order_accuracy",
            "finalized_as_expected",
            "readback_before_finalize",
            "tool_call_protocol",
            "no_hallucinated_items",
        ),
        ("score_breakdown",),
    ),
    "rag": EvaluatorProfile(
        (
            "citation_recall",
            "hallucination_rate",
            "entity_recall",
            "faithfulness",
            "citation_precision",
            "answer_relevancy",
        ),
        ("score_breakdown",),
    ),
    "trajectory": EvaluatorProfile(
        (
            "trajectory_match",
            "mandatory_tools_check",
            "forbidden_tools_check",
            "trajectory_pass",
            "trajectory_similarity",
        ),
        ("score_breakdown",),
    ),
}
"""Profiles by name; a dataset kind with a profile of its name uses it."""

BY_TARGET = {"agent": "drive_thru", "search": "retrieval", "answer": "rag"}
"""The profile of a target kind, for a dataset kind without one of its own."""

GOLDEN_KINDS = ("retrieval", "rag")
"""Golden sets: one serves both the search and the answer target."""

NO_PROFILE = EvaluatorProfile()


def default_profile(dataset_kind: str, target_kind: str) -> EvaluatorProfile:
    """The dataset kind's profile; a golden set (retrieval or rag) scored through the search or the
    answer target gets what that target returns: ranking metrics for search, answer metrics for answer."""
    if dataset_kind in GOLDEN_KINDS and target_kind in ("search", "answer"):
        name = BY_TARGET[target_kind]
    else:
        name = dataset_kind if dataset_kind in PROFILES else BY_TARGET.get(target_kind, "")
    return PROFILES.get(name, NO_PROFILE)
