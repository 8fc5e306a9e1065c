"""A gate the stale-code tests' task functions wait at: the test edits the code while a call is held."""

from __future__ import annotations

import threading

ENTERED = threading.Event()
"""Set when a call reached the gate."""
RELEASE = threading.Event()
"""Set by the test: the held call goes on."""
