"""Bounded work in flight: at most so many export requests and so many bytes at once.

A request that would pass either bound is refused at once (429 with ``Retry-After``; the exporter
retries) instead of waiting in a queue: the receiver's memory stays bounded however hard it is
flooded (a refused request's body is read in chunks and dropped, never held). A request holds its
``Content-Length`` (the limit when unknown) from the start, and grows its hold to the inflated size
once a gzip body is inflated.
"""

from __future__ import annotations

from types import TracebackType

from services.ingest.errors import Overloaded


class Admission:
    def __init__(self, max_requests: int, max_bytes: int) -> None:
        self.max_requests = max_requests
        self.max_bytes = max_bytes
        self.requests = 0
        self.bytes = 0
        self.refused = 0

    def hold(self, size: int) -> Hold:
        """Take a place for a request of ``size`` bytes, or raise :class:`Overloaded`."""
        if self.requests + 1 > self.max_requests:
            self._refuse(f"{self.requests} export requests are being handled already")
        self._take(size)
        self.requests += 1
        return Hold(self, size)

    def _take(self, size: int) -> None:
        if self.bytes + size > self.max_bytes and self.bytes > 0:  # one request alone always fits
            self._refuse(f"{self.bytes} bytes of export requests are being handled already")
        self.bytes += size

    def _refuse(self, why: str) -> None:
        self.refused += 1
        raise Overloaded(f"the receiver is busy ({why}): retry after the Retry-After delay")


class Hold:
    """A request's place; ``grow`` to a larger size, released on exit."""

    def __init__(self, admission: Admission, size: int) -> None:
        self._admission = admission
        self.size = size

    def grow(self, size: int) -> None:
        if size > self.size:
            self._admission._take(size - self.size)
            self.size = size

    def __enter__(self) -> Hold:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._admission.requests -= 1
        self._admission.bytes -= self.size
