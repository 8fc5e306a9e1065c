"""Open-file limit of a service process: a worker holding thousands of tasks in flight holds as many
sockets (targets, NATS, Postgres), and a soft ``RLIMIT_NOFILE`` of 1,024 (a common default) would
make connections fail with ``EMFILE`` long before the CPU is busy."""

from __future__ import annotations

import logging
import resource

log = logging.getLogger(__name__)

WANTED_OPEN_FILES = 65_536  # enough for C = 10,000 spread over a few workers, with room to spare


def raise_open_file_limit(wanted: int = WANTED_OPEN_FILES) -> int:
    """Raise the soft ``RLIMIT_NOFILE`` towards ``wanted`` (never above the hard limit, never lower
    than it is); returns the soft limit now in force and logs when it is still under ``wanted``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("could not raise the open-file limit", extra={"soft": soft, "error": str(exc)})
    if soft != resource.RLIM_INFINITY and soft < wanted:
        log.info(
            "open-file limit below what thousands of tasks in flight may need (raise `ulimit -Hn`)",
            extra={"soft": soft, "hard": hard, "wanted": wanted},
        )
    return soft


__all__ = ["WANTED_OPEN_FILES", "raise_open_file_limit"]
