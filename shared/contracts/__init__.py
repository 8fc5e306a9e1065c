"""Message contracts and NATS names shared by every service."""

from shared.contracts.agent_messages import (
    AgentInvokeRequest,
    AgentInvokeResponse,
    ModelConfig,
    ModifierLine,
    OfflineBehaviour,
    OrderLine,
    TokenUsage,
    TrajectoryMessage,
)
from shared.contracts.answer_messages import AnswerRequest, AnswerResponse, Citation
from shared.contracts.eval_messages import (
    RESULT_BATCH_HEADER,
    AgentTarget,
    AnswerTarget,
    EvalResult,
    EvalResultBatch,
    EvalTask,
    HttpTarget,
    PythonTarget,
    RateLimit,
    SearchTarget,
    TargetSpec,
)
from shared.contracts.evaluation import Evaluation, EvaluatorSpec
from shared.contracts.experiment_events import DriftAlert, ExperimentEvent
from shared.contracts.experiment_status import TERMINAL_STATUSES, TRANSITIONS, ExperimentStatus
from shared.contracts.item_failure import FailureSource, ItemFailure
from shared.contracts.item_outcome import ItemOutcome
from shared.contracts.search_messages import SearchHit, SearchMode, SearchRequest, SearchResponse
from shared.contracts.span_messages import ResourceSpans, Span, SpanBatch
from shared.contracts.task_messages import TaskInvokeReply, TaskInvokeRequest, TaskWorkerInfo
from shared.contracts.topology import DEFAULT_NAMESPACE, Topology

__all__ = [
    "DEFAULT_NAMESPACE",
    "RESULT_BATCH_HEADER",
    "TERMINAL_STATUSES",
    "TRANSITIONS",
    "AgentInvokeRequest",
    "AgentInvokeResponse",
    "AgentTarget",
    "AnswerRequest",
    "AnswerResponse",
    "AnswerTarget",
    "Citation",
    "DriftAlert",
    "EvalResult",
    "EvalResultBatch",
    "EvalTask",
    "Evaluation",
    "EvaluatorSpec",
    "ExperimentEvent",
    "ExperimentStatus",
    "FailureSource",
    "HttpTarget",
    "ItemFailure",
    "ItemOutcome",
    "ModelConfig",
    "ModifierLine",
    "OfflineBehaviour",
    "OrderLine",
    "PythonTarget",
    "RateLimit",
    "ResourceSpans",
    "SearchHit",
    "SearchMode",
    "SearchRequest",
    "SearchResponse",
    "SearchTarget",
    "Span",
    "SpanBatch",
    "TargetSpec",
    "TaskInvokeReply",
    "TaskInvokeRequest",
    "TaskWorkerInfo",
    "TokenUsage",
    "Topology",
    "TrajectoryMessage",
]
