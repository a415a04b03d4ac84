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

import importlib
import multiprocessing
import os
import secrets
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
    join_ray(address, workers)
    return _ray_results(ray, function, tasks, max(1, int(ray.cluster_resources().get("CPU", 1))))


#: What a client needs to join a cluster that authenticates with a token.
TOKEN_HINT = ("a cluster started with token authentication (Ray's default on new versions) needs "
              "RAY_AUTH_MODE=token here too, and its token (~/.ray/auth_token, RAY_AUTH_TOKEN_PATH or RAY_AUTH_TOKEN)")


def join_ray(address: str | None, workers: int | None = None) -> None:
    """Connect this process to Ray, once: the cluster at ``address`` (``host:port``,
    ``ray://host:10001``, ``auto``; None: ``RAY_ADDRESS`` if set, else as ``local``), or
    Ray started here with ``workers`` CPUs (``local``). A cluster that is not there, or
    that wants a token this process lacks, is a :class:`SpecError` at once (Ray itself
    would retry for 20 s to minutes first). Ray started here authenticates with a token
    of this process's own, held in its environment: nothing is written to
    ``~/.ray/auth_token``, as Ray otherwise does for a new local cluster."""
    import ray

    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS") or "local"
    local = address == "local"
    where = f"--ray {address}"
    if local:
        _own_token()
    else:
        _check_reachable(address)
        _check_token(address)
    try:
        ray.init(address=address, num_cpus=workers if local else None, include_dashboard=False, log_to_driver=False)
    except (ConnectionError, ValueError, RuntimeError, ray.exceptions.RayError) as error:
        raise SpecError(f"{where}: cannot join a Ray cluster there ({error}); {TOKEN_HINT}") from None


def _own_token() -> None:
    """Token authentication for Ray started in this process, with a token kept in the
    environment (its workers inherit it) unless the user set up a token or a mode."""
    given = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
    if any(name in os.environ for name in given) or os.path.exists(os.path.expanduser("~/.ray/auth_token")):
        return
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)  # ray.init turns token authentication on itself


def _check_token(address: str) -> None:
    """A ``host:port`` cluster that refuses this process's credentials is refused at once,
    by one request to its control store (Ray's own client would retry for about 20 s)."""
    if "://" in address or ":" not in address:
        return
    import ray

    # Ray's own client of the control store; a Ray without it says what is wrong in ray.init, slower
    gcs_client = getattr(importlib.import_module("ray._raylet"), "GcsClient", None)
    if gcs_client is None:
        return
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as quiet:
            os.dup2(quiet.fileno(), 2)  # its C++ core logs the refusal on stderr too
            gcs_client(address=address)
    except ray.exceptions.AuthenticationError:
        raise SpecError(f"--ray {address}: the cluster refused this machine's credentials; {TOKEN_HINT}") from None
    except Exception:  # anything else: ray.init below meets it and says so
        return
    finally:
        os.dup2(saved, 2)
        os.close(saved)


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

