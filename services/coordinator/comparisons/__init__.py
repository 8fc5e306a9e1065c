"""Comparisons: baseline against candidate, paired by (item, trial), with statistics and a verdict.

- ``api/``: ``POST /comparisons`` (and its reports), ``POST /plans`` (how many items a change needs).
- ``create``: a comparison of two completed runs stored; ``analysis``: the paired analysis computed
  from PostgreSQL (the numbers themselves are ``shared.analysis``); ``pairwise_jobs`` and
  ``pairwise_judging``: comparisons judged by an LLM, in the background.
- ``store/``: paired columns, the item-level diff, why an item failed, stored comparisons.
"""
