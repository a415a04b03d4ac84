"""One writer at a time for a run directory or a measurement file, across processes."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from filelock import FileLock, Timeout


@contextlib.contextmanager
def held_alone(lock_path: str, refusal: str) -> Iterator[None]:
    """Hold the OS file lock ``lock_path`` for the block. When another process holds it,
    refuse at once with ``ValueError(refusal)`` rather than wait: a second writer is a
    mistake to report, not a turn to queue for."""
    lock = FileLock(lock_path)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise ValueError(refusal) from None
    try:
        yield
    finally:
        lock.release()
