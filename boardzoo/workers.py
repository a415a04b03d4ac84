"""Worker processes for many independent games, that fail loudly instead of hanging; or
Ray tasks on a cluster when one machine is not enough.

``concurrent.futures.ProcessPoolExecutor`` notices a worker that dies (killed by the OOM
killer or a signal) and raises ``BrokenProcessPool`` in the parent, where
``multiprocessing.Pool`` would wait forever for the lost task. :func:`run_parallel` turns
that into a :class:`WorkerError` and stops the remaining workers, so a run ends within
seconds and whatever finished is already in its results file.

Workers are started with ``spawn`` on every platform: the same behaviour on Linux, macOS
and Windows, and no copy of the parent's memory (the parent may hold a game's true state).
Workers ignore Ctrl-C; the parent handles it and stops them. A worker whose parent is
killed outright (no chance to stop anything) ends within a second, not after its task.

:func:`run_on_ray` runs the same tasks as Ray tasks: on a running cluster (its address,
``auto`` for the one on this machine) or on Ray started here (``local``). Only the task
(small tuples of specs, seeds and game numbers) and a reference to the function travel:
every node needs boardzoo installed, and any file a spec names (a saved model) at the
same path. Results come back to the caller, which alone writes the results file.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from itertools import islice
from typing import Any

from boardzoo.errors import SpecError, WorkerError, install_hint

#: The most worker processes a run may ask for.
MAX_WORKERS = 1024
_DONE = object()  # the end of the task list (a task may be anything, None included)


def leave_with_parent(parent: int) -> None:
    """End this process as soon as its parent is gone (killed mid-task: nothing else
    would tell us until the task is done)."""
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.5)


def _start_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=leave_with_parent, args=(os.getppid(),), daemon=True).start()


def run_parallel(function: Callable[[Any], Any], tasks: Iterable[Any], workers: int) -> Iterator[Any]:
    """``function(task)`` for every task in ``workers`` processes; results as they finish.

    At most ``2 * workers`` tasks are in flight, so a long task list costs no memory. A
    task's exception is raised here as it was raised in the worker (boardzoo's errors
    survive pickling); a dead worker raises :class:`WorkerError`.
    """
    pending_tasks = iter(tasks)
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start_worker)
    in_flight: set[Future] = set()
    try:
        for task in pending_tasks:
            in_flight.add(executor.submit(function, task))
            if len(in_flight) >= 2 * workers:
                break
        while in_flight:
            finished, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
            # The games that finished are handed over before a failed one's error: a worker
            # that dies can take its pool down in the same wait as a finished game.
            for future in sorted(finished, key=lambda done: done.exception() is not None):
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


def run_tasks(function: Callable[[Any], Any], tasks: Iterable[Any], workers: int,
              ray: str | None = None) -> Iterator[Any]:
    """``function(task)`` for every task: in ``workers`` local processes, or as Ray tasks
    at address ``ray`` (see :func:`run_on_ray`) when it is given."""
    if ray is not None:
        return run_on_ray(function, tasks, ray, workers)
    return run_parallel(function, tasks, workers)


def run_on_ray(function: Callable[[Any], Any], tasks: Iterable[Any], address: str, workers: int) -> Iterator[Any]:
    """``function(task)`` for every task as Ray tasks, results as they finish: on the
    cluster at ``address`` (``host:port``, ``ray://host:10001``, ``auto``), or on Ray
    started in this process with ``workers`` CPUs (``local``). At most twice as many
    tasks as the cluster has CPUs are in flight; a task's exception is raised here as it
    was raised; a lost worker or node raises :class:`WorkerError`."""
    try:
        import ray
    except ImportError:
        raise SpecError(f"--ray needs Ray: {install_hint('ray')}") from None
    if not ray.is_initialized():
        local = address == "local"
        _check_reachable(address)
        try:
            ray.init(address=address, num_cpus=workers if local else None,
                     include_dashboard=False, log_to_driver=False)
        except (ConnectionError, ValueError, RuntimeError, ray.exceptions.RayError) as error:
            raise SpecError(f"--ray {address}: cannot join a Ray cluster there ({error}); a cluster started with "
                            "token authentication (Ray's default on new versions) needs RAY_AUTH_MODE=token here "
                            "too, and its token") from None
    return _ray_results(ray, function, tasks, max(1, int(ray.cluster_resources().get("CPU", 1))))


def _check_reachable(address: str) -> None:
    """A ``host:port`` that nothing answers on is refused at once (Ray itself would try
    for minutes before giving up)."""
    host, _, port = address.rpartition(":")
    if "://" in address or not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as error:
        raise SpecError(f"--ray {address}: nothing answers there ({error.strerror or error}); start the cluster "
                        "with 'ray start --head' and give the address it prints") from None


def _ray_results(ray: Any, function: Callable[[Any], Any], tasks: Iterable[Any], cpus: int) -> Iterator[Any]:
    remote = ray.remote(num_cpus=1, max_retries=0)(function)
    pending_tasks = iter(tasks)
    in_flight = [remote.remote(task) for task in islice(pending_tasks, 2 * cpus)]
    try:
        while in_flight:
            finished, in_flight = ray.wait(in_flight, num_returns=1)
            try:
                result = ray.get(finished[0])
            except ray.exceptions.RayTaskError as error:  # the task's own exception, as raised
                cause = error.cause
                raise cause if isinstance(cause, BaseException) else error from None
            except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                    ray.exceptions.RaySystemError) as error:
                raise WorkerError(f"a Ray worker died ({type(error).__name__}: {error})") from None
            in_flight += [remote.remote(task) for task in islice(pending_tasks, 1)]
            yield result
    finally:
        for ref in in_flight:
            ray.cancel(ref, force=True)

