"""Message contracts and NATS names shared by every service."""

from shared.contracts.agent_messages import (
    AgentInvokeRequest,
    AgentInvokeResponse,
    ModelConfig,
    ModifierLine,
    OfflineBehaviour,
    OrderLine,
    TokenUsage,
    TrafficTurn,
    TrajectoryMessage,
)
from shared.contracts.answer_messages import AnswerRequest, AnswerResponse, Citation
from shared.contracts.eval_messages import (
    AgentTarget,
    AnswerTarget,
    EvalResult,
    EvalTask,
    HttpTarget,
    SearchTarget,
    TargetSpec,
)
from shared.contracts.evaluation import Evaluation, EvaluatorSpec
from shared.contracts.experiment_events import DriftAlert, ExperimentEvent
from shared.contracts.search_messages import SearchHit, SearchMode, SearchRequest, SearchResponse
from shared.contracts.topology import DEFAULT_NAMESPACE, Topology

__all__ = [
    "DEFAULT_NAMESPACE",
    "AgentInvokeRequest",
    "AgentInvokeResponse",
    "AgentTarget",
    "AnswerRequest",
    "AnswerResponse",
    "AnswerTarget",
    "Citation",
    "DriftAlert",
    "EvalResult",
    "EvalTask",
    "Evaluation",
    "EvaluatorSpec",
    "ExperimentEvent",
    "HttpTarget",
    "ModelConfig",
    "ModifierLine",
    "OfflineBehaviour",
    "OrderLine",
    "SearchHit",
    "SearchMode",
    "SearchRequest",
    "SearchResponse",
    "SearchTarget",
    "TargetSpec",
    "TokenUsage",
    "Topology",
    "TrafficTurn",
    "TrajectoryMessage",
]
