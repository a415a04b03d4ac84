"""Ray as the engine beyond one machine: the arena, the league and the experiments play
as Ray tasks exactly the games they play locally, a task's error comes back as it was
raised, and an address nothing answers on is refused at once.

The cluster is the one in RAY_ADDRESS (.ci/run starts a head on loopback and sets it), or
Ray started in this process. Without Ray these tests skip, unless BOARDZOO_REQUIRE_RAY=1
(as .ci/run sets) makes that a failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from boardzoo import arena, league
from boardzoo.errors import SpecError
from boardzoo.experiments import get, run
from boardzoo.workers import run_on_ray

if os.environ.get("BOARDZOO_REQUIRE_RAY") == "1":
    import ray
else:
    ray = pytest.importorskip("ray", reason="Ray is an optional extra (pip install 'boardzoo[ray]')")

ADDRESS = os.environ.get("RAY_ADDRESS") or "local"
TIMING = ("decision_seconds", "a_seconds", "b_seconds", "seconds")


@pytest.fixture(scope="module", autouse=True)
def ray_session():
    yield
    ray.shutdown()


def without_timing(records):
    return [{k: v for k, v in record.items() if k not in TIMING and not k.endswith("_ms")} for record in records]


def test_the_arena_plays_the_same_games_on_ray(tmp_path):
    games = arena.run("connect_four_v0", "mcts:iterations=30", "greedy", games=6, seed=4, progress=False)
    on_ray = arena.run("connect_four_v0", "mcts:iterations=30", "greedy", games=6, seed=4, progress=False,
                       ray=ADDRESS, out=str(tmp_path / "games.jsonl"))
    assert without_timing(on_ray) == without_timing(games)
    resumed = arena.run("connect_four_v0", "mcts:iterations=30", "greedy", games=8, seed=4, progress=False,
                        ray=ADDRESS, out=str(tmp_path / "games.jsonl"))  # the file is resumed: 2 more games
    assert without_timing(resumed[:6]) == without_timing(games) and len(resumed) == 8


def test_the_league_plays_the_same_games_on_ray(tmp_path):
    agents = ["random", "greedy", "mcts:iterations=20"]
    local = league.run("nim_v0", agents, games=4, seed=2, progress=False, out=str(tmp_path / "local.jsonl"))
    on_ray = league.run("nim_v0", agents, games=4, seed=2, progress=False, ray=ADDRESS,
                        out=str(tmp_path / "ray.jsonl"))
    assert on_ray.ratings == local.ratings

    def records(name):
        rows = [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]
        return sorted(without_timing([row for row in rows if "game" in row]), key=lambda r: (r["a"], r["b"], r["game"]))

    assert records("ray.jsonl") == records("local.jsonl") and len(records("ray.jsonl")) == 12


def test_an_experiment_plays_the_same_games_on_ray(tmp_path):
    experiment = get("cantris-mcts")
    quiet = lambda line: None  # noqa: E731
    local = run(experiment, str(tmp_path / "local"), games=1, log=quiet, progress=False)
    remote = run(experiment, str(tmp_path / "ray"), games=1, workers=2, log=quiet, progress=False, ray=ADDRESS)
    assert {k: without_timing(v) for k, v in local.items()} == {k: without_timing(v) for k, v in remote.items()}


def test_a_tasks_error_comes_back_as_it_was_raised():
    from boardzoo.arena import _play_in_worker

    job = {"env_spec": "no_such_env", "spec_a": "random", "spec_b": "random", "game": 0, "base_seed": 0}
    with pytest.raises(SpecError, match="unknown env 'no_such_env'"):
        list(run_on_ray(_play_in_worker, [job], ADDRESS, 1))


def test_an_address_nothing_answers_on_is_refused_at_once():
    done = subprocess.run([sys.executable, "-m", "boardzoo", "arena", "nim_v0", "random", "random", "--games", "2",
                           "--ray", "127.0.0.1:1"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "RAY_ADDRESS": ""})
    assert done.returncode == 2 and "--ray 127.0.0.1:1: nothing answers there" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.training
def test_training_on_ray_learns_what_it_learns_here(tmp_path):
    pytest.importorskip("torch", reason="the rl extra is not installed (pip install torch==2.13.0 && "
                                        "pip install '.[rl]')")
    pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")
    import dataclasses

    from boardzoo.agents.alphazero.network import Network
    from boardzoo.training.alphazero import PRESETS, Trainer

    config = dataclasses.replace(PRESETS["nim"], channels=4, blocks=1, value_hidden=4, simulations=4,
                                 games_per_generation=12, games_per_task=4, replay_positions=1000, batch_size=32,
                                 eval_games=2, eval_simulations=2)
    runs = {}
    for where, address in (("here", None), ("ray", ADDRESS)):
        run_dir = str(tmp_path / where)
        Trainer(run_dir, config, workers=2, ray=address, log=lambda line: None).run(generations=2)
        runs[where] = Network.load(os.path.join(run_dir, "weights", "latest.npz")).arrays
    for name, array in runs["here"].items():
        assert (runs["ray"][name] == array).all(), name


def _without_ray_credentials(home) -> dict:
    """This machine's environment with no Ray token or mode and an empty home folder: a
    client as a user has it before setting up the cluster's token."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
    return {**env, "HOME": str(home), "RAY_ADDRESS": ""}


@pytest.mark.skipif("127.0.0.1:" not in ADDRESS or os.environ.get("RAY_AUTH_MODE") != "token",
                    reason="needs the token-authenticated head on loopback that .ci/run starts")
def test_a_cluster_that_wants_a_token_this_client_lacks_is_refused_at_once(tmp_path):
    """Ray's own client prints about 20 s of InvalidAuthToken before giving up; boardzoo
    asks the cluster once and says what is missing."""
    done = subprocess.run([sys.executable, "-m", "boardzoo", "arena", "nim_v0", "random", "random", "--games", "2",
                           "--ray", ADDRESS], capture_output=True, text=True, timeout=60,
                          env=_without_ray_credentials(tmp_path))
    assert done.returncode == 2, done.stderr
    assert f"--ray {ADDRESS}: the cluster refused this machine's credentials" in done.stderr
    assert "RAY_AUTH_MODE=token" in done.stderr and "InvalidAuthToken" not in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_ray_started_here_writes_no_token_into_the_home_folder(tmp_path):
    """A new local Ray cluster writes ~/.ray/auth_token unless a token is given: boardzoo
    gives it one of the process's own, in the environment."""
    out = tmp_path / "games.jsonl"
    done = subprocess.run([sys.executable, "-m", "boardzoo", "arena", "nim_v0", "greedy", "random", "--games", "2",
                           "--ray", "local", "--workers", "1", "--out", str(out)], capture_output=True, text=True,
                          timeout=300, env=_without_ray_credentials(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(out.read_text().splitlines()) == 2
    assert not (tmp_path / ".ray" / "auth_token").exists()
