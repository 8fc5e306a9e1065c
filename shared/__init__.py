"""Yardstick's shared library: message contracts, settings, database, evaluators, statistics."""

from shared.contracts import Evaluation, EvaluatorSpec, Topology
from shared.settings import CommonSettings

__all__ = ["CommonSettings", "Evaluation", "EvaluatorSpec", "Topology"]
