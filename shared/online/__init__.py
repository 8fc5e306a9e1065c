"""Online evaluation of production traffic: the sampling config and the online metrics.

Shared by the sampler (which applies the config and writes scores) and the coordinator's
``/online`` API (which edits the config and reads the metrics).
"""
