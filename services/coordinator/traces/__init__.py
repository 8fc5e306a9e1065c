"""Traces: sampled traces of any application as the API and the web UI read them, their online
scores, drift alerts, and backfills (stored traces of a window scored by evaluators).

- ``api/``: ``/traces``, ``/online`` (sampling configuration, metrics, alerts), ``/traces/backfill``.
- ``backfills``: the backfill runner; ``store/``: traces, drift alerts, backfill jobs.
"""
