"""Review: queues of items people label (from an experiment, sampled traces or a drift alert),
labels turned into ``human.<field>`` scores, a judge calibrated against them, and a queue's
labelled items turned into a dataset version.

- ``api/``: queues, items, labels, ``GET /calibration``, a drift alert's queue.
- ``calibration``: a judge against people's labels; ``store/``: queues, items, labels.
"""
