"""Benchmark: decoding the hot messages (a task, a result, a batch of 16 of each) per message boundary.

Prints microseconds per decode; asserts nothing. Run: `.venv/bin/python bench/message_decoding.py`.

Compares pydantic (``model_validate_json`` and ``TypeAdapter.validate_json`` on the bytes, and
``model_validate`` on ``orjson.loads``) with msgspec: its schema-less decode (the floor of any JSON
decoder) and a ``msgspec.Struct`` mirroring the result's fields. msgspec is not a dependency of
Yardstick (the gain measured here did not pay for a second contract to keep in step with the
pydantic one): it is measured when installed (``pip install msgspec==0.22.0``), skipped otherwise.
"""

from __future__ import annotations

import asyncio
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import yaml
from pydantic import TypeAdapter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.latency import ANSWER  # noqa: E402
from shared.evaluators import run_item_evaluators  # noqa: E402
from shared.evaluators.loading import process_registry  # noqa: E402
from yardstick.api.eval_messages import (  # noqa: E402
    EvalResult,
    EvalResultBatch,
    EvalTask,
    EvalTaskBatch,
    HttpTarget,
)
from yardstick.api.evaluation import EvaluatorSpec  # noqa: E402

try:
    import msgspec
except ImportError:  # not a dependency: measured when installed
    msgspec = None

if msgspec is not None:

    class Score(msgspec.Struct, omit_defaults=True):
        name: str
        value: float | None = None
        comment: str | None = None
        metadata: dict[str, Any] | None = None
        error: str | None = None
        failure: dict[str, Any] | None = None

    class Result(msgspec.Struct):
        schema_version: int
        experiment_id: str
        item_id: str
        trial: int
        status: str
        output: dict[str, Any] | None = None
        scores: list[Score] = []
        failure: dict[str, Any] | None = None
        error: str | None = None
        usage: dict[str, Any] | None = None
        latency_ms: float | None = None
        total_ms: float | None = None
        attempts: int = 1
        throttled: int = 0
        target_concurrency: int | None = None
        worker_id: str = ""
        code_fingerprint: str | None = None
        finished_at: str = ""


EVALUATORS = ["order_correctness", "tool_call_accuracy", "no_hallucinated_items"]
RUNS = 2000


def messages() -> tuple[EvalTask, EvalResult]:
    """A task as bench/latency.py's http case sends it, and its scored result."""
    item = yaml.safe_load((ROOT / "datasets/drive-thru/order-correctness-v1.yaml").read_text())["items"][3]
    task = EvalTask(
        experiment_id="exp-0123456789",
        item_id="lat-000001",
        input=item["input"],
        expected_output=item.get("expected_output"),
        metadata=item.get("metadata", {}),
        target=HttpTarget(
            url="http://127.0.0.1:9999/answer?ms=0", body_template={"u": "{input.customer_utterance}"}
        ),
        evaluators=[EvaluatorSpec(name=name) for name in EVALUATORS],
        concurrency=100,
    )
    scores = asyncio.run(
        run_item_evaluators(
            process_registry(),
            task.evaluators,
            input=task.input,
            output=ANSWER,
            expected_output=task.expected_output,
            metadata=task.metadata,
        )
    )
    result = EvalResult(
        experiment_id=task.experiment_id,
        item_id=task.item_id,
        status="ok",
        output=ANSWER,
        scores=scores,
        latency_ms=1.2,
        total_ms=3.4,
        worker_id="worker-1",
        target_concurrency=100,
    )
    return task, result


def timed(label: str, decode: Callable[[], Any], per: int = 1) -> None:
    best = min(timeit.repeat(decode, number=RUNS, repeat=5)) / RUNS / per * 1e6
    print(f"  {label:<58} {best:7.1f} us")


def msgspec_cases(task_bytes: bytes, result_bytes: bytes) -> None:
    if msgspec is None:
        print("  msgspec not installed: pip install msgspec==0.22.0 to compare")
        return
    result_struct = msgspec.json.Decoder(Result)
    timed("task: msgspec.json.decode, no schema (floor)", lambda: msgspec.json.decode(task_bytes))
    timed("result: msgspec.json.decode, no schema (floor)", lambda: msgspec.json.decode(result_bytes))
    timed("result: msgspec Struct mirroring its fields", lambda: result_struct.decode(result_bytes))


def main() -> None:
    task, result = messages()
    task_bytes, result_bytes = task.model_dump_json().encode(), result.model_dump_json().encode()
    tasks_bytes = EvalTaskBatch([task] * 16).model_dump_json().encode()
    results_bytes = EvalResultBatch([result] * 16).model_dump_json().encode()
    task_adapter, result_adapter = TypeAdapter(EvalTask), TypeAdapter(EvalResult)
    print(f"# decoding per message boundary; task {len(task_bytes)} B, result {len(result_bytes)} B")
    timed("task: EvalTask.model_validate_json", lambda: EvalTask.model_validate_json(task_bytes))
    timed("task: TypeAdapter(EvalTask).validate_json", lambda: task_adapter.validate_json(task_bytes))
    timed("task: model_validate(orjson.loads)", lambda: EvalTask.model_validate(orjson.loads(task_bytes)))
    timed("tasks: EvalTaskBatch of 16, per task", lambda: EvalTaskBatch.model_validate_json(tasks_bytes), 16)
    timed("task: model_dump_json (the coordinator's side)", task.model_dump_json)
    timed("result: EvalResult.model_validate_json", lambda: EvalResult.model_validate_json(result_bytes))
    timed("result: TypeAdapter(EvalResult).validate_json", lambda: result_adapter.validate_json(result_bytes))
    timed(
        "result: model_validate(orjson.loads)", lambda: EvalResult.model_validate(orjson.loads(result_bytes))
    )
    timed(
        "results: EvalResultBatch of 16, per result",
        lambda: EvalResultBatch.model_validate_json(results_bytes),
        16,
    )
    msgspec_cases(task_bytes, result_bytes)


if __name__ == "__main__":
    main()
