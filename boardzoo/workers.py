"""Worker processes for many independent games, that fail loudly instead of hanging.

``concurrent.futures.ProcessPoolExecutor`` notices a worker that dies (killed by the OOM
killer or a signal) and raises ``BrokenProcessPool`` in the parent, where
``multiprocessing.Pool`` would wait forever for the lost task. :func:`run_parallel` turns
that into a :class:`WorkerError` and stops the remaining workers, so a run ends within
seconds and whatever finished is already in its results file.

Workers are started with ``spawn`` on every platform: the same behaviour on Linux, macOS
and Windows, and no copy of the parent's memory (the parent may hold a game's true state).
Workers ignore Ctrl-C; the parent handles it and stops them.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from boardzoo.errors import WorkerError

#: The most worker processes a run may ask for.
MAX_WORKERS = 1024
_DONE = object()  # the end of the task list (a task may be anything, None included)


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_parallel(function: Callable[[Any], Any], tasks: Iterable[Any], workers: int) -> Iterator[Any]:
    """``function(task)`` for every task in ``workers`` processes; results as they finish.

    At most ``2 * workers`` tasks are in flight, so a long task list costs no memory. A
    task's exception is raised here as it was raised in the worker (boardzoo's errors
    survive pickling); a dead worker raises :class:`WorkerError`.
    """
    pending_tasks = iter(tasks)
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_ignore_interrupts)
    in_flight: set[Future] = set()
    try:
        for task in pending_tasks:
            in_flight.add(executor.submit(function, task))
            if len(in_flight) >= 2 * workers:
                break
        while in_flight:
            finished, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()
                task = next(pending_tasks, _DONE)
                if task is not _DONE:
                    # submit() raises BrokenProcessPool too, when a worker died since the wait.
                    in_flight.add(executor.submit(function, task))
    except BrokenProcessPool:
        raise WorkerError(
            "a worker process died (killed by a signal or by the out-of-memory killer); "
            "the other workers were stopped") from None
    finally:
        _stop(executor)


def _stop(executor: ProcessPoolExecutor) -> None:
    """Stop at once: cancel what has not started and end the workers' current tasks
    (``shutdown`` alone would wait for them)."""
    terminate = getattr(executor, "terminate_workers", None)  # Python 3.14+
    if terminate is not None:
        terminate()
        return
    # shutdown() forgets the processes: take them first.
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)
