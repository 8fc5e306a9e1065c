"""Evaluation work: tasks published by the coordinator, tasks in a worker, results stored.

Rates come from the counters (``rate(yardstick_eval_tasks_settled_total{outcome="ok"}[1m])`` is
items done per second); every object is defined here once and imported where it moves."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

TASKS_PUBLISHED = Counter(
    "yardstick_eval_tasks_published_total",
    "Eval tasks the coordinator published to the work queue, by whether JetStream stored them (new) "
    "or dropped them as a repeat of a Msg-Id inside its duplicate window (duplicate).",
    ["result"],
)
TASKS_IN_FLIGHT = Gauge(
    "yardstick_eval_tasks_in_flight",
    "Eval tasks this worker holds now: fetched and not yet settled.",
)
TASKS_SETTLED = Counter(
    "yardstick_eval_tasks_settled_total",
    "Deliveries of eval tasks this worker settled, by outcome: ok and error are items done (acked), "
    "retry was nacked with a backoff, terminated could not be decoded, failed_to_settle raised.",
    ["outcome"],
)
RESULTS_STORED = Counter(
    "yardstick_eval_results_stored_total",
    "Eval results the coordinator wrote to PostgreSQL (upserts: a redelivered result counts again), "
    "by result status.",
    ["status"],
)
RESULT_WRITE_FAILURES = Counter(
    "yardstick_eval_result_write_failures_total",
    "Batches of results the coordinator could not write (nacked, redelivered later).",
)
CREDITS_GRANTED = Gauge(
    "yardstick_eval_credits_granted",
    "Worker-held credits the coordinator grants now, by eval worker: tasks that worker may run at "
    "once, summed over the running experiments (0 for a draining worker).",
    ["worker"],
)
TASKS_PARKED = Gauge(
    "yardstick_eval_tasks_parked",
    "Eval tasks this worker fetched and holds (lease kept) until it has a credit of their experiment.",
)
TASKS_RETURNED = Counter(
    "yardstick_eval_tasks_returned_total",
    "Parked eval tasks this worker handed back (nak, no delay) because it holds no credit of their "
    "experiment any more (its grant moved, or the worker is draining).",
)
