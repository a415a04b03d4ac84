"""AlphaZero's trainer interrupted: a run stopped between generations, killed anywhere, or
left with self-play tasks staged (whole or torn) goes on as the uninterrupted run would."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")
torch = pytest.importorskip("torch", reason="the rl extra is not installed (pip install torch==2.13.0 && "
                                            "pip install '.[rl]')")

pytestmark = pytest.mark.training  # every test here trains (a tiny run is still a run)

from alphazero_fixtures import TINY, assert_same_networks  # noqa: E402

from boardzoo.agents.alphazero.network import Network  # noqa: E402
from boardzoo.training.alphazero import Trainer  # noqa: E402
from boardzoo.training.alphazero.run_directory import RunDirectory  # noqa: E402


def test_a_run_resumed_goes_on_as_if_it_never_stopped(tmp_path):
    straight = str(tmp_path / "straight")
    Trainer(straight, TINY, log=lambda line: None).run(generations=2)
    parts = str(tmp_path / "parts")
    Trainer(parts, TINY, log=lambda line: None).run(generations=1)
    resumed = Trainer(parts, None, log=lambda line: None)
    assert resumed.generation == 1 and resumed.buffer.size > 0
    resumed.run(generations=2)
    assert_same_networks(straight, parts, 2)
    # A run checked out of version control has its checkpoint but no weights: resuming writes them.
    shutil.rmtree(os.path.join(parts, "weights"))
    assert Trainer(parts, None, log=lambda line: None).generation == 2
    assert_same_networks(straight, parts, 2)
    assert Network.load(os.path.join(parts, "weights", "latest.npz")).about["generation"] == 2
    with pytest.raises(ValueError, match="other settings"):
        Trainer(parts, dataclasses.replace(TINY, simulations=5))


def test_a_damaged_staged_task_is_played_again(tmp_path):
    run_dir = str(tmp_path / "run")
    straight = str(tmp_path / "straight")
    Trainer(straight, TINY, log=lambda line: None).run(generations=1)
    trainer = Trainer(run_dir, TINY, log=lambda line: None)
    os.makedirs(os.path.join(run_dir, "staging"))
    with open(os.path.join(run_dir, "staging", "gen-1-task-0.npz"), "wb") as handle:
        handle.write(b"PK\x03\x04 torn")  # a task's file cut short
    lines: list[str] = []
    trainer.log = lines.append
    trainer.run(generations=1)
    assert not any("found done" in line for line in lines)
    assert_same_networks(straight, run_dir, 1)


def test_a_staged_task_of_another_shape_is_set_aside_and_played_again(tmp_path):
    """A staged file whose positions do not fit the run's game (another game's, say)
    blocked every resume: it is named in the log, set aside, and its task played again."""
    straight = str(tmp_path / "straight")
    Trainer(straight, TINY, log=lambda line: None).run(generations=1)
    run_dir = str(tmp_path / "run")
    trainer = Trainer(run_dir, TINY, log=lambda line: None)
    staging = os.path.join(run_dir, "staging")
    os.makedirs(staging)
    np.savez(os.path.join(staging, "gen-1-task-0.npz"), inputs=np.zeros((3, 5), np.float16),
             policies=np.zeros((3, 2), np.float32), values=np.zeros(3, np.float32),
             meta=np.array(json.dumps({"number": 0, "games": 1, "plies": 3, "first_player_score": 1.0,
                                       "seconds": 1.0, "evaluations": 3, "outcomes": {}})))
    lines: list[str] = []
    trainer.log = lines.append
    trainer.directory.log = lines.append
    trainer.run(generations=1)
    assert any("set aside gen-1-task-0.npz in rejected/ (its positions are (5,) inputs" in line for line in lines)
    assert not any("found done" in line for line in lines)
    assert_same_networks(straight, run_dir, 1)
    assert os.path.exists(os.path.join(run_dir, "rejected", "gen-1-task-0.npz"))


def test_the_time_of_tasks_staged_by_an_interrupted_call_counts_in_the_runs_hours(tmp_path, monkeypatch):
    import boardzoo.training.alphazero.trainer as trainer_module

    run_dir = str(tmp_path / "run")
    real_run_tasks = trainer_module.run_tasks

    def first_task_then_stop(*args, **kwargs):
        yield next(iter(real_run_tasks(*args, **kwargs)))
        raise KeyboardInterrupt

    monkeypatch.setattr(trainer_module, "run_tasks", first_task_then_stop)
    with pytest.raises(KeyboardInterrupt):
        Trainer(run_dir, TINY, workers=2, log=lambda line: None).run(generations=1)
    monkeypatch.setattr(trainer_module, "run_tasks", real_run_tasks)
    [staged] = os.listdir(os.path.join(run_dir, "staging"))
    directory = RunDirectory(run_dir, log=lambda line: None)
    trainer = Trainer(run_dir, None, log=lambda line: None)
    [result] = directory.staged(1, 2, int(np.prod(trainer.input_shape)), trainer.actions).values()
    result.seconds = 7200.0  # as if the interrupted call had played it for two hours
    directory.stage(1, result)
    lines: list[str] = []
    Trainer(run_dir, None, workers=2, log=lines.append).run(generations=1)
    assert any("1 of 2 self-play tasks found done" in line for line in lines)
    [record] = [json.loads(line) for line in open(os.path.join(run_dir, "history.jsonl"))]
    # Two workers played side by side: the staged task's two hours are one of the run's.
    assert 3600 <= record["selfplay_seconds"] < 3600 + 600
    assert 1.0 <= record["hours"] < 1.2


KILLED_RUN = """
import sys
from boardzoo.training.alphazero import Trainer, TrainingConfig
import json
config = TrainingConfig.from_json(json.loads(sys.argv[2]), "test")
Trainer(sys.argv[1], config, log=lambda line: print(line, flush=True)).run(generations=3)
"""


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux's /proc; none elsewhere)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task") if os.path.exists(f"/proc/{pid}/task") else []:
        with open(f"/proc/{pid}/task/{task}/children") as handle:
            found += [int(child) for child in handle.read().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.slow
def test_a_run_killed_anywhere_resumes_and_ends_as_the_uninterrupted_one(tmp_path):
    config = dataclasses.replace(TINY, games_per_generation=12, games_per_task=2, mistakes_every=0)
    straight = str(tmp_path / "straight")
    Trainer(straight, config, log=lambda line: None).run(generations=3)
    rng = random.Random(0)
    for attempt in range(3):
        run_dir = str(tmp_path / f"killed-{attempt}")
        process = subprocess.Popen([sys.executable, "-c", KILLED_RUN, run_dir, json.dumps(config.to_json())],
                                   stdout=subprocess.PIPE, text=True)
        wanted = rng.choice(["self-play task 3", "generation 1:", "evaluated", "generation 2: self-play task 1"])
        for line in process.stdout:
            if wanted in line:
                break
        time.sleep(rng.random() * 0.3)
        workers = _children(process.pid)
        process.send_signal(signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 5
        while any(os.path.exists(f"/proc/{pid}") for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in workers if _alive(pid)], "worker processes outlived the killed run"
        Trainer(run_dir, None, log=lambda line: None).run(generations=3)
        assert_same_networks(straight, run_dir, 3, context=f"{wanted}: ")
        history = [json.loads(line) for line in open(os.path.join(run_dir, "history.jsonl"))]
        assert [entry["generation"] for entry in history] == [1, 2, 3]
