"""The coordinator's public API as data: every HTTP request and response body, the models they
contain, the task worker's NATS messages and what an application reads of a local stack.

The server (``services``, ``shared``) and the SDK both import these models from here: one home per
body, in the ``yardstick-sdk`` distribution, so an application gets them without the server.
Rules (held by import-linter and ``tests/yardstick/api``): nothing here imports the server
(``services``, ``shared``), NumPy, SciPy or SQLAlchemy; a validator here checks the body's shape only
(logic that needs the database, the statistics or the shipped data stays in the server).

Import a model from its module (nothing is re-exported here, so importing one loads only its own):

- the coordinator's resources: ``datasets``, ``experiments``, ``comparisons``, ``planning``,
  ``prompts``, ``online``, ``keys``, ``projects``, ``traces``, ``review``, ``audit``;
- what they contain: ``eval_messages`` (targets), ``evaluation``, ``experiment_config``,
  ``experiment_status``, ``experiment_events``, ``run_aggregates``, ``comparison_report``, ``gates``,
  ``pairwise``, ``statistics``, ``trace_record``, ``experiment_document`` and the rest;
- the task worker's NATS side: ``task_messages``, ``topology``, ``nats_connection``,
  ``nats_servers``, ``nats_interest`` (these need nats-py);
- ``stack_location``: where a local stack runs (the per-user file ``yardstick stack up`` writes),
  read by the SDK, the CLI and task workers.
"""
