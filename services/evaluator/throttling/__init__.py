"""Provider limits kept by the eval workers: shared pauses and rate schedules (``board``), adaptive
concurrency (``adaptive_limit``), the gate every target call goes through (``target_gate``)."""

from services.evaluator.throttling.adaptive_limit import AdaptiveLimit
from services.evaluator.throttling.board import PauseNotice, RateSchedule, ThrottleBoard
from services.evaluator.throttling.target_gate import TargetGate, ThrottleTally
from services.evaluator.throttling.target_identity import target_identity, throttle_key

__all__ = [
    "AdaptiveLimit",
    "PauseNotice",
    "RateSchedule",
    "TargetGate",
    "ThrottleBoard",
    "ThrottleTally",
    "target_identity",
    "throttle_key",
]
