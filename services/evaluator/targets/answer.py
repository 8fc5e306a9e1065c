"""The search-proxy's answers over ``search.answer``: retrieval plus an answer with citations."""

from __future__ import annotations

from pydantic import ValidationError

from services.evaluator.errors import TargetConfigError
from services.evaluator.targets.base import TargetOutput
from services.evaluator.targets.nats_request import NatsRequestTarget
from yardstick.api.answer_messages import AnswerRequest, AnswerResponse
from yardstick.api.eval_messages import AnswerTarget, EvalTask


class SearchAnswerTarget(NatsRequestTarget[AnswerRequest, AnswerResponse]):
    service = "search-proxy"
    reply_model = AnswerResponse

    def build_request(self, task: EvalTask) -> AnswerRequest:
        spec = task.target
        if not isinstance(spec, AnswerTarget):
            raise TargetConfigError(f"answer target given a {spec.kind!r} task")
        question = task.input.get("query") or task.input.get("question")
        if question is None:
            raise TargetConfigError(
                f"item {task.item_id!r} has no input.query (or input.question), which the answer target needs"
            )
        try:
            return AnswerRequest(
                query=question,
                mode=spec.mode,
                limit=spec.limit,
                backend=spec.backend,
                bypass_cache=spec.bypass_cache,
                degrade=spec.degrade,
                answerer=spec.answerer,
                max_sentences=spec.max_sentences,
            )
        except ValidationError as exc:
            raise TargetConfigError(
                f"item {task.item_id!r} input does not fit an answer request: {exc}"
            ) from exc

    def output(self, reply: AnswerResponse) -> TargetOutput:
        """The reply as JSON (answer, citations, contexts, results, …) minus the envelope."""
        return TargetOutput(output=reply.model_dump(mode="json", exclude={"schema_version", "ok", "error"}))
