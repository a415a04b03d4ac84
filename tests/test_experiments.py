"""Experiments: the statistics they report, every experiment end to end at a tiny size,
resuming, executors, and the command line."""

import json
import os

import pytest

from boardzoo.cli import main
from boardzoo.experiments import EXPERIMENTS, ExperimentError, get, run
from boardzoo.experiments.stats import mean_interval, reward_m, verdict, wilson


def quiet(line):
    pass


# --- statistics -----------------------------------------------------------------------------
def test_reward_m_follows_seed_003():
    assert reward_m(True, 7) == pytest.approx(0.8)  # the quickest win
    assert reward_m(True, 42) == pytest.approx(0.0)
    assert reward_m(True, 21) == pytest.approx(0.8 * (1 - 14 / 35))
    assert reward_m(False, 7) == pytest.approx(-1.0)  # the quickest loss
    assert reward_m(False, 42) == pytest.approx(0.0)  # a draw on the full board
    assert reward_m(True, 20) > reward_m(True, 30) and reward_m(False, 20) < reward_m(False, 30)
    for moves in (6, 43):
        with pytest.raises(ValueError, match="7..42"):
            reward_m(True, moves)


def test_wilson_interval_known_values():
    low, high = wilson(5, 10)
    assert (low, high) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0 and high == pytest.approx(0.2775, abs=1e-4)
    assert wilson(10, 10) == pytest.approx((1 - 0.2775, 1.0), abs=1e-4)
    low, high = wilson(297, 300)
    assert low < 0.99 < high
    with pytest.raises(ValueError):
        wilson(3, 2)
    with pytest.raises(ValueError):
        wilson(0, 0)


def test_mean_interval_and_verdict():
    centre, low, high = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert centre == 2.5 and (low, high) == pytest.approx((2.5 - 1.96 * 1.2910 / 2, 2.5 + 1.96 * 1.2910 / 2), abs=1e-3)
    assert mean_interval([3.0]) == (3.0, 3.0, 3.0)
    assert verdict(0.5, 0.4, 0.6) == "agrees"
    assert verdict(0.3, 0.4, 0.6) == "disagrees: ours is higher"
    assert verdict(0.7, 0.4, 0.6) == "disagrees: ours is lower"


# --- every experiment at a tiny size ------------------------------------------------------------
@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_experiment_runs_end_to_end(name, tmp_path):
    experiment = get(name)
    results = run(experiment, str(tmp_path), games=1, workers=1, log=quiet, progress=False)
    jobs = experiment.jobs(1, False)
    assert set(results) == {job.key for job in jobs} and all(len(r) == 1 for r in results.values())
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    assert len(lines) == len(jobs) and {json.loads(line)["job"] for line in lines} == set(results)
    report = (tmp_path / "report.md").read_text()
    assert report.startswith("# Seed 00") and "|---|" in report
    config = json.loads((tmp_path / "run.json").read_text())
    assert config["experiment"] == name and len(config["jobs"]) == len(jobs)
    for picture in (p for p in report.split("](")[1:]):
        file_name = picture.split(")")[0]
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            assert "Plots skipped" in report
        else:
            assert (tmp_path / file_name).stat().st_size > 1000


def test_full_size_is_the_published_size():
    jobs = get("cantris-mcts").jobs(None, True)
    assert {job.games for job in jobs} == {10_000}
    assert {job.games for job in get("nim-mcts").jobs(None, True) if job.key.endswith("vs-archival")} == {300}
    minimax = get("connect-four-minimax").jobs(None, True)
    assert max(int(j.key.rsplit("d", 1)[1]) for j in minimax if j.key.startswith("self-alphabeta")) == 13
    assert max(int(j.key.rsplit("d", 1)[1]) for j in minimax if j.key.startswith("self-minimax")) == 9


# --- resuming ---------------------------------------------------------------------------------
def test_a_resumed_run_gives_the_same_report(tmp_path):
    experiment = get("cantris-mcts")
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    run(experiment, str(whole), games=1, log=quiet, progress=False)
    run(experiment, str(parts), games=1, log=quiet, progress=False)
    # Interrupt the second run: keep half the games and a torn last line, as a kill would.
    lines = (parts / "games.jsonl").read_text().splitlines(keepends=True)
    (parts / "games.jsonl").write_text("".join(lines[: len(lines) // 2]) + lines[-1][:40])
    (parts / "report.md").unlink()
    with pytest.raises(ExperimentError, match="add --resume"):
        run(experiment, str(parts), games=1, log=quiet, progress=False)
    with pytest.raises(ExperimentError, match="different run"):
        run(experiment, str(parts), games=2, resume=True, log=quiet, progress=False)
    messages = []
    run(experiment, str(parts), games=1, resume=True, log=messages.append, progress=False)
    assert "dropped an unfinished record" in messages[0]
    assert f"{len(lines) // 2} already played" in messages[1]
    assert (parts / "report.md").read_text() == (whole / "report.md").read_text()
    assert len((parts / "games.jsonl").read_text().splitlines()) == len(lines)


# --- executors ----------------------------------------------------------------------------------
def strip_timing(results):
    return {key: [{k: v for k, v in r.items() if k != "decision_seconds"} for r in records]
            for key, records in results.items()}


def test_local_workers_give_the_same_games(tmp_path):
    experiment = get("cantris-mcts")
    serial = run(experiment, str(tmp_path / "serial"), games=1, log=quiet, progress=False)
    parallel = run(experiment, str(tmp_path / "parallel"), games=1, workers=2, log=quiet, progress=False)
    assert strip_timing(serial) == strip_timing(parallel)


def test_ray_executor_gives_the_same_games(tmp_path):
    ray = pytest.importorskip("ray", reason="Ray is an optional extra (pip install 'boardzoo[ray]')")
    experiment = get("cantris-mcts")
    local = run(experiment, str(tmp_path / "local"), games=1, log=quiet, progress=False)
    os.environ.pop("RAY_ADDRESS", None)
    try:
        remote = run(experiment, str(tmp_path / "ray"), games=1, workers=2, executor="ray", log=quiet,
                     progress=False)
    finally:
        ray.shutdown()
    assert strip_timing(local) == strip_timing(remote)


def test_bad_requests_are_refused_clearly(tmp_path):
    experiment = get("nim-mcts")
    with pytest.raises(ExperimentError, match="--games must be an int from 1 to"):
        run(experiment, str(tmp_path), games=0, log=quiet)
    with pytest.raises(ExperimentError, match="--executor must be one of local, ray"):
        run(experiment, str(tmp_path), games=1, executor="dask", log=quiet)
    with pytest.raises(ExperimentError, match="unknown experiment 'chess'"):
        get("chess")


# --- the command line ---------------------------------------------------------------------------
def test_experiment_list_and_run_from_the_command_line(tmp_path, capsys):
    assert main(["experiment", "list"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in EXPERIMENTS) and "seed 003" in listing and "--full" in listing
    out = tmp_path / "run"
    assert main(["experiment", "run", "cantris-mcts", "--games", "1", "--out", str(out)]) == 0
    assert (out / "report.md").exists()
    assert main(["experiment", "run", "cantris-mcts", "--games", "1", "--out", str(out)]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["experiment", "run", "cantris-mcts", "--games", "1", "--out", str(out), "--resume"]) == 0
