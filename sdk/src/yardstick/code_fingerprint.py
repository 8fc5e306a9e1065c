"""The fingerprint of a task worker's code, and whether the code on disk still matches it.

What is hashed: the source file of each module that defines a served task function (the function's
``__module__``, unwrapped, looked up in ``sys.modules``; its ``__file__``). Not the modules those
import, not the installed packages. The digest is SHA-256 over the files in path order, each as its
file name, a NUL byte, its bytes, a NUL byte: the same code gives the same fingerprint in any
checkout. A function whose module has no source file (defined interactively, compiled) adds
nothing; with no file at all the fingerprint is None ("unknown").

Checking is cheap: :meth:`SourceWatch.changed` compares each file's (mtime_ns, size) with those seen
at start and re-hashes a file only when they moved; a file rewritten with the same bytes is no change,
a deleted one is. It is done before each task, so a worker never serves code older than what is on
disk.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from yardstick.tasks import TaskFunction

SHORT = 12
"""Hex digits of a fingerprint shown to people (the whole digest is stored)."""


def short(fingerprint: str | None) -> str:
    """The first :data:`SHORT` hex digits, or ``unknown``."""
    return fingerprint[:SHORT] if fingerprint else "unknown"


def task_source_files(tasks: Iterable[TaskFunction]) -> list[Path]:
    """The source files of the modules that define ``tasks``, sorted, without duplicates."""
    files: set[Path] = set()
    for task in tasks:
        module = sys.modules.get(inspect.unwrap(task.fn).__module__)
        source = getattr(module, "__file__", None)
        if source and source.endswith(".py") and Path(source).is_file():
            files.add(Path(source).resolve())
    return sorted(files)


@dataclass
class _Seen:
    path: Path
    stat: tuple[int, int] | None
    digest: bytes | None


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_mtime_ns, st.st_size


def _digest(path: Path) -> bytes | None:
    try:
        return hashlib.sha256(path.read_bytes()).digest()
    except FileNotFoundError:
        return None


class SourceWatch:
    """The fingerprint of some files at start, and which of them changed since."""

    def __init__(self, files: Iterable[Path]) -> None:
        self._seen = [_Seen(path, _stat(path), None) for path in files]
        whole = hashlib.sha256()
        for seen in self._seen:
            content = seen.path.read_bytes()
            seen.digest = hashlib.sha256(content).digest()
            whole.update(seen.path.name.encode() + b"\0" + content + b"\0")
        self.fingerprint: str | None = whole.hexdigest() if self._seen else None

    @classmethod
    def of_tasks(cls, tasks: Iterable[TaskFunction]) -> SourceWatch:
        return cls(task_source_files(tasks))

    @property
    def files(self) -> list[Path]:
        return [seen.path for seen in self._seen]

    def changed(self) -> list[Path]:
        """The files whose content differs from what was hashed at start (or that are gone)."""
        moved: list[Path] = []
        for seen in self._seen:
            stat = _stat(seen.path)
            if stat == seen.stat:
                continue
            if stat is not None and _digest(seen.path) == seen.digest:
                seen.stat = stat  # touched, same bytes: not a change
                continue
            moved.append(seen.path)
        return moved
