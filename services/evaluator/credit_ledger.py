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
import itertools
from collections import Counter, deque
from collections.abc import Callable
from typing import Literal

from shared.contracts.credits import CreditGrant
from shared.metrics import TASKS_PARKED

Verdict = Literal["run", "park", "return"]


class CreditLedger:
    """Parked tasks wait in one queue per experiment, so a task ending costs a look at each
    experiment's oldest parked task, not at every parked task: a worker holding thousands parked
    (C in the thousands, read-ahead) stays linear in the tasks it runs."""

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
        self._total_running = 0
        self._waiting: dict[str, deque[tuple[int, asyncio.Future[bool]]]] = {}
        """Experiment id -> its parked turns, oldest first, each with its arrival number."""
        self._parked = 0
        self._arrivals = itertools.count()
        self._draining = False

    @property
    def running(self) -> int:
        return self._total_running

    @property
    def parked(self) -> int:
        return self._parked

    def running_of(self, experiment_id: str) -> int:
        return self._running[experiment_id]

    def turn(self, experiment_id: str) -> asyncio.Future[bool]:
        """The turn of one fetched task of ``experiment_id``; call ``finished`` after one that ran."""
        turn: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(experiment_id, deque()).append((next(self._arrivals), turn))
        self._parked += 1
        self.reconsider()
        return turn

    def finished(self, experiment_id: str) -> None:
        self._running[experiment_id] -= 1
        self._total_running -= 1
        if self._running[experiment_id] <= 0:
            del self._running[experiment_id]
        self.reconsider()

    def drain(self) -> None:
        """Stopping: every parked task is handed back, none starts from now on."""
        self._draining = True
        self.reconsider()

    def reconsider(self) -> None:
        """Start or hand back parked tasks, oldest first (a grant changed, a task ended).

        Within an experiment the verdict is the same for all its parked tasks until one of them is
        decided, so only each experiment's oldest is looked at; across experiments the oldest of
        those that may go goes first."""
        changed = False
        while (chosen := self._next_decided()) is not None:
            experiment_id, verdict = chosen
            queue = self._waiting[experiment_id]
            _, turn = queue.popleft()
            self._parked -= 1
            if not queue:
                del self._waiting[experiment_id]
            changed = True
            if turn.done():
                continue  # cancelled (the worker stopped while it waited)
            if verdict == "run":
                self._running[experiment_id] += 1
                self._total_running += 1
            turn.set_result(verdict == "run")
        TASKS_PARKED.set(self._parked)
        if changed:
            self._on_change()

    def _next_decided(self) -> tuple[str, Verdict] | None:
        """The experiment whose oldest parked task is the oldest that may run or go back, with its
        verdict (a cancelled turn counts as going back); None when every one stays parked."""
        best: tuple[int, str, Verdict] | None = None
        for experiment_id, queue in self._waiting.items():
            arrival, turn = queue[0]
            if best is not None and arrival > best[0]:
                continue
            verdict = "return" if turn.done() else self._verdict(experiment_id)
            if verdict != "park":
                best = (arrival, experiment_id, verdict)
        return None if best is None else (best[1], best[2])

    def _verdict(self, experiment_id: str) -> Verdict:
        if self._draining:
            return "return"
        grant = self._grant_of(experiment_id)
        credits = None if grant is None else grant.credits_of(self._worker_id)
        if grant is not None and credits is None:
            return "park"  # this worker joined after the grant was written: the next one decides
        if credits == 0:
            return "return"
        if self._total_running >= self._capacity:
            return "park"
        if credits is not None and self._running[experiment_id] >= credits:
            return "park"
        return "run"
