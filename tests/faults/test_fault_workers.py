"""Faults against worker processes: a dead worker ends the run within seconds, what
finished stays on disk, and the same command resumes; every error pickles."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import time

import pytest
from helpers import CLI, assert_clean_error, records_of, run_cli

from boardzoo.errors import BoardzooError, IllegalActionError, ResultsFileError, WorkerError


def _workers_of(parent: int) -> list[int]:
    """The pool's worker processes: children of ``parent`` started by multiprocessing."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"spawn_main" in command:
            found.append(int(pid))
    return found


def _kill_a_worker_and_wait(command: list[str], out) -> tuple[subprocess.CompletedProcess, float]:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and len(workers) < 2:
        time.sleep(0.2)
        workers = _workers_of(process.pid)
    assert workers, "the run started no worker"
    time.sleep(1.0)  # let the workers take games
    os.kill(workers[0], signal.SIGKILL)  # as the out-of-memory killer would
    killed = time.monotonic()
    out_text, err = process.communicate(timeout=60)  # a hang fails the test here
    return subprocess.CompletedProcess(command, process.returncode, out_text, err), time.monotonic() - killed


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the workers through /proc")
def test_a_killed_arena_worker_ends_the_run_and_the_command_resumes(tmp_path):
    out = tmp_path / "games.jsonl"
    args = ["arena", "connect_four_v0", "mcts:iterations=3000", "greedy", "--games", "16", "--workers", "2",
            "--out", str(out)]
    result, seconds = _kill_a_worker_and_wait([*CLI, *args], out)
    assert seconds < 15
    assert_clean_error(result, "a worker process died", "run the same command")
    finished = records_of(out) if out.exists() else []
    resumed = run_cli(*args, "--json", timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    records = records_of(out)
    assert sorted(r["game"] for r in records) == list(range(16))
    assert records[: len(finished)] == finished  # what finished before the kill is still there


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the workers through /proc")
def test_a_killed_experiment_worker_ends_the_run_and_resume_finishes_it(tmp_path):
    out = tmp_path / "run"
    args = ["experiment", "run", "connect-four-uct", "--games", "1", "--workers", "2", "--out", str(out)]
    result, seconds = _kill_a_worker_and_wait([*CLI, *args], out)
    assert seconds < 15
    assert_clean_error(result, "a worker process died", "--resume")
    resumed = run_cli(*args, "--resume", timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    assert (out / "report.md").exists()


def _all_errors(cls=BoardzooError):
    yield cls
    for sub in cls.__subclasses__():
        yield from _all_errors(sub)


def test_every_boardzoo_error_survives_pickling():
    # Import the modules that define errors of their own.
    import boardzoo.experiments.framework  # noqa: F401
    import boardzoo.geister_client  # noqa: F401
    import boardzoo.strategy.connect_four.solver  # noqa: F401

    classes = set(_all_errors())
    assert {IllegalActionError, ResultsFileError, WorkerError} <= classes
    assert len(classes) >= 10
    for cls in classes:
        error = (cls("nim_v0", "player_0", 7, "the pile has 2 pawns") if cls is IllegalActionError
                 else cls("something specific went wrong"))
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is cls and str(copy) == str(error) and copy.args == error.args
    copy = pickle.loads(pickle.dumps(IllegalActionError("nim_v0", "player_0", 7, "why")))
    assert (copy.env_name, copy.agent, copy.action, copy.reason) == ("nim_v0", "player_0", 7, "why")


def refuse_odd(number: int) -> int:
    if number % 2:
        raise IllegalActionError("nim_v0", "player_0", number, "odd numbers are illegal here")
    return number


def test_an_error_raised_in_a_worker_reaches_the_parent_intact():
    from boardzoo.workers import run_parallel

    start = time.monotonic()
    results = []
    with pytest.raises(IllegalActionError) as caught:
        for value in run_parallel(refuse_odd, [0, 2, 4, 1, 6, 8], workers=2):
            results.append(value)
    assert caught.value.action == 1 and "odd numbers" in str(caught.value)
    assert time.monotonic() - start < 30  # raised, not hung


def die_on_one(number: int) -> int:
    if number == 1:
        os._exit(9)  # as a worker killed by a signal: no exception, no result
    return number


def test_a_worker_that_dies_while_the_caller_is_busy_is_a_worker_error():
    # The death is seen when the next task is submitted, not in a finished task's result:
    # the caller holds the first result while the worker dies on the second task.
    from boardzoo.workers import run_parallel

    results = run_parallel(die_on_one, [0, 1, 2, 3, 4, 5], workers=1)
    assert next(results) == 0
    time.sleep(3)
    with pytest.raises(WorkerError, match="a worker process died"):
        list(results)
