"""How reports name the task code behind a run's outputs (python targets served by ``yardstick worker``).

A run's fingerprints are those of the task workers that produced its outputs (the SDK's
``sdk/src/yardstick/code_fingerprint.py`` says what is hashed). Rules: each is shown by its first 12 hex
digits; a run without any (not a python target, or stored before fingerprints existed) shows none;
a run with more than one mixes code (a worker was restarted on other code mid-run, or replicas ran
different code) and is warned about, since its results describe no single version.
"""

from __future__ import annotations

SHORT = 12


def shown(fingerprints: list[str]) -> str:
    """``1a2b3c4d5e6f`` (one), ``1a2b… + 9f8e…`` (several), ``unknown`` (none)."""
    return " + ".join(f[:SHORT] for f in fingerprints) if fingerprints else "unknown"


def code_header(baseline: list[str], candidate: list[str]) -> str | None:
    """Both runs' code side by side; None when neither has a fingerprint."""
    if not (baseline or candidate):
        return None
    same = " (the same code)" if baseline == candidate else ""
    return f"Task code: baseline {shown(baseline)} · candidate {shown(candidate)}{same}"


def mixed_code_warnings(baseline: list[str], candidate: list[str]) -> list[str]:
    """A sentence for each run whose results came from more than one version of the task code."""
    return [
        f"the {role}'s results came from {len(fps)} versions of the task code ({shown(fps)}): a task "
        "worker ran other code than the rest; restart every `yardstick worker` on the code to measure "
        "and run it again"
        for role, fps in (("baseline", baseline), ("candidate", candidate))
        if len(fps) > 1
    ]
