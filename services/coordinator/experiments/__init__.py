"""Experiments: a run of a target over a dataset version, scored item by item.

- ``api/``: ``POST /experiments`` (202), list, status, cancel, items, failures, live events, report;
  ``POST /experiments/{id}/rescore``.
- ``submission/``: what is checked before one is accepted (evaluators loaded by the workers, a
  python target served, an http target's address allowed, the default evaluator profile).
- ``lifecycle/``: creation and every status change, checked against the transition table.
- ``dispatch/``: the fan-out of tasks at the experiment's concurrency, with worker credits and the
  budget; ``collector``: results pulled from the durable consumer and written in batches;
  ``finalizer``: run-level evaluators, ``aggregation``, the baseline comparison, the verdict;
  ``events``: progress published for the live view; ``report``: the JSON, markdown and JUnit report.
- ``store/``: the experiment's rows in PostgreSQL (nothing above it is imported there).
"""
