"""In-memory slot accounting of the dispatcher: which tasks of a running experiment are in flight,
and which pending rows are read ahead, ready to publish the moment a slot frees.

A slot frees when a task's result *arrives* at the collector, before it is stored: the next task is
published while the result is being written, instead of after the write and a dispatch round trip
through Postgres. Nothing here is the source of truth - Postgres is (pending -> dispatched ->
ok|error) - so the ledger of an experiment can be dropped and rebuilt from the database at any time:

- ``in_flight`` holds the tasks published (or found ``dispatched``) whose result has not arrived;
  a result for a key it does not hold (a redelivery, a duplicate) frees nothing.
- ``ahead`` holds pending rows read in item order after ``cursor``; a row taken from it and not
  published (the publish failed) goes back to its front.
- ``stock`` is how many tasks may be published and unfinished at once: the experiment's concurrency
  C, plus ``read_ahead`` more once the workers hold credits for it (they run at most C of them and
  park the rest, starting one the moment another ends: ``dispatch/credit_grants.py``).
- A key whose row is already terminal in Postgres while still in ``in_flight`` (its result arrived
  before the key was loaded) is removed by ``settled`` on the dispatcher's tick.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from shared.db.models import Experiment, ExperimentItem

TaskKey = tuple[str, int]
"""(item_id, trial) of one task of an experiment."""
Cursor = tuple[int, int, int]
"""(position, trial, row id) of the last row read ahead: the next read starts after it."""


def key_of(row: ExperimentItem) -> TaskKey:
    return (row.item_id, row.trial)


@dataclass
class ExperimentSlots:
    experiment: Experiment
    in_flight: dict[TaskKey, int] = field(default_factory=dict)
    """Key -> row id of every task whose result has not arrived yet."""
    ahead: deque[ExperimentItem] = field(default_factory=deque)
    cursor: Cursor | None = None
    exhausted: bool = False
    """The last read ahead found no pending row after ``cursor``."""
    read_ahead_stock: int = 0
    """Tasks published beyond C (0 while the workers hold no credits for this experiment)."""

    @property
    def concurrency(self) -> int:
        return self.experiment.config.concurrency

    @property
    def stock(self) -> int:
        """Tasks that may be published and unfinished at once."""
        return self.concurrency + self.read_ahead_stock

    @property
    def free(self) -> int:
        return max(0, self.stock - len(self.in_flight))

    @property
    def want_ahead(self) -> int:
        """Rows to read so that a whole wave of slots can be refilled from memory."""
        return 0 if self.exhausted else max(0, self.stock - len(self.ahead))

    @property
    def hungry(self) -> bool:
        """Time to read ahead: the queue is empty or below half a wave, and rows may be left."""
        return self.want_ahead > 0 and len(self.ahead) < max(1, self.stock // 2)

    def take(self) -> list[ExperimentItem]:
        """Rows for the free slots, counted in flight from now on."""
        rows = [self.ahead.popleft() for _ in range(min(self.free, len(self.ahead)))]
        for row in rows:
            self.in_flight[key_of(row)] = row.id
        return rows

    def give_back(self, rows: list[ExperimentItem]) -> None:
        """Rows taken but not published: in front of the queue again, their slots free."""
        for row in reversed(rows):
            self.in_flight.pop(key_of(row), None)
            self.ahead.appendleft(row)

    def read_ahead(self, rows: list[ExperimentItem], asked: int) -> None:
        self.ahead.extend(rows)
        if rows:
            last = rows[-1]
            self.cursor = (last.position, last.trial, last.id)
        self.exhausted = len(rows) < asked

    def load_in_flight(self, rows: Iterable[tuple[str, int, int]]) -> None:
        for item_id, trial, row_id in rows:
            self.in_flight[(item_id, trial)] = row_id

    def arrived(self, key: TaskKey) -> bool:
        """A result for ``key`` arrived; True if that freed a slot."""
        return self.in_flight.pop(key, None) is not None

    def settled(self, row_ids: Iterable[int]) -> None:
        """These in-flight rows are terminal in Postgres: their slots are free."""
        done = set(row_ids)
        for key in [k for k, row_id in self.in_flight.items() if row_id in done]:
            del self.in_flight[key]

    @property
    def idle(self) -> bool:
        """Nothing in flight and nothing read ahead: rebuilding from Postgres costs nothing."""
        return not self.in_flight and not self.ahead
