"""Which fetched task of an experiment runs now and which waits for a credit (pure: no I/O).

A task of experiment E gets a *turn*, a future resolved to True (run) or False (hand it back):

- no grant known for E (an old coordinator, a grant not written yet, the experiment ended): it runs
  as without credits;
- the grant names this worker with n credits: it runs while fewer than n tasks of E run here, else
  it is *parked* and starts the moment a task of E ends here (no coordinator round trip);
- the grant names this worker with 0 (its share moved to others, it drains) or the worker drains:
  a parked task is handed back so that another worker runs it;
- the grant does not name this worker (it started after the grant was written): parked until the
  next grant decides.

Whatever the grants, at most ``capacity`` tasks run at once (the worker's slots). The worker keeps a
parked task's lease and bounds how many it parks by what it fetches (``parked``).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Literal

from shared.contracts.credits import CreditGrant
from shared.metrics import TASKS_PARKED

Verdict = Literal["run", "park", "return"]


class CreditLedger:
    def __init__(
        self,
        worker_id: str,
        capacity: int,
        grant_of: Callable[[str], CreditGrant | None],
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self._worker_id = worker_id
        self._capacity = capacity
        self._grant_of = grant_of
        self._on_change = on_change
        self._running: Counter[str] = Counter()
        self._waiting: list[tuple[str, asyncio.Future[bool]]] = []
        self._draining = False

    @property
    def running(self) -> int:
        return self._running.total()

    @property
    def parked(self) -> int:
        return len(self._waiting)

    def running_of(self, experiment_id: str) -> int:
        return self._running[experiment_id]

    def turn(self, experiment_id: str) -> asyncio.Future[bool]:
        """The turn of one fetched task of ``experiment_id``; call ``finished`` after one that ran."""
        turn: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append((experiment_id, turn))
        self.reconsider()
        return turn

    def finished(self, experiment_id: str) -> None:
        self._running[experiment_id] -= 1
        if self._running[experiment_id] <= 0:
            del self._running[experiment_id]
        self.reconsider()

    def drain(self) -> None:
        """Stopping: every parked task is handed back, none starts from now on."""
        self._draining = True
        self.reconsider()

    def reconsider(self) -> None:
        """Start or hand back parked tasks, oldest first (a grant changed, a task ended)."""
        still: list[tuple[str, asyncio.Future[bool]]] = []
        changed = False
        for experiment_id, turn in self._waiting:
            verdict = "return" if turn.done() else self._verdict(experiment_id)
            if verdict == "park":
                still.append((experiment_id, turn))
                continue
            changed = True
            if turn.done():
                continue  # cancelled (the worker stopped while it waited)
            if verdict == "run":
                self._running[experiment_id] += 1
            turn.set_result(verdict == "run")
        self._waiting = still
        TASKS_PARKED.set(len(still))
        if changed:
            self._on_change()

    def _verdict(self, experiment_id: str) -> Verdict:
        if self._draining:
            return "return"
        grant = self._grant_of(experiment_id)
        credits = None if grant is None else grant.credits_of(self._worker_id)
        if grant is not None and credits is None:
            return "park"  # this worker joined after the grant was written: the next one decides
        if credits == 0:
            return "return"
        if self.running >= self._capacity:
            return "park"
        if credits is not None and self._running[experiment_id] >= credits:
            return "park"
        return "run"
