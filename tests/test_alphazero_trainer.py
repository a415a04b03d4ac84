"""AlphaZero's trainer at a tiny size: a loop, self-play's options, the buffer,
branches, bfloat16, the run directory's lock and the command line."""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib

import numpy as np
import pytest

pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")
torch = pytest.importorskip("torch", reason="the rl extra is not installed (pip install torch==2.13.0 && "
                                            "pip install '.[rl]')")

pytestmark = pytest.mark.training  # every test here trains (a tiny run is still a run)

from alphazero_fixtures import TINY, assert_same_networks, averaged_of, weights_of, write_connect_four_network  # noqa: E402

from boardzoo.agents.alphazero.evaluator import shipped_path  # noqa: E402
from boardzoo.agents.alphazero.network import Network  # noqa: E402
from boardzoo.arena import run as run_arena  # noqa: E402
from boardzoo.cli import main as cli_main  # noqa: E402
from boardzoo.training.alphazero import Trainer  # noqa: E402


@pytest.fixture(scope="module")
def connect_four_weights(tmp_path_factory):
    return write_connect_four_network(str(tmp_path_factory.mktemp("weights") / "c4.npz"))



def selfplay_task(network, games: int, seed: int, env: str = "connect_four_v0", game: str = "connect_four",
                  params: dict | None = None, evaluation_cache: int = 1 << 18, **settings):
    """A self-play task of ``games`` games at once with the settings' defaults but ``settings``."""
    from boardzoo.training.alphazero.config import TrainingConfig
    from boardzoo.training.alphazero.selfplay import SelfPlayTask

    config = TrainingConfig(env=env, game=game, params=params or {}, games_per_task=games, **settings)
    return SelfPlayTask(config, network, games=games, seed=seed, evaluation_cache=evaluation_cache)


def test_the_loop_at_a_tiny_size_learns_rates_and_keeps_its_files_bounded(tmp_path):
    run_dir = str(tmp_path / "run")
    lines: list[str] = []
    trainer = Trainer(run_dir, TINY, log=lines.append)
    trainer.run(generations=3)
    history = [json.loads(line) for line in open(os.path.join(run_dir, "history.jsonl"))]
    assert [entry["generation"] for entry in history] == [1, 2, 3]
    for entry in history:
        assert entry["games"] == 6 and entry["positions"] >= 6 * 7 and entry["steps"] >= 1
        assert set(entry["scores"]) == ({"random", f"gen-{entry['generation'] - 1}"})
        assert entry["elo_low"] <= entry["elo"] <= entry["elo_high"]
    assert set(history[1]["mistakes"]) == set(history[1]["outcome_mistakes"]) == {"network", "search"}
    assert "mistakes" not in history[0] and "mistakes" not in history[2]
    assert history[-1]["buffer"] == sum(entry["positions"] for entry in history)
    # Only the newest keep_weights generations' files stay (and latest.npz, averaged.npz).
    assert sorted(os.listdir(os.path.join(run_dir, "weights"))) == [
        "averaged.npz", "gen-0002.npz", "gen-0003.npz", "latest.npz"]
    assert not os.path.exists(os.path.join(run_dir, "staging"))
    about = Network.load(os.path.join(run_dir, "weights", "latest.npz")).about
    assert about["game"] == "connect_four" and about["generation"] == 3
    assert any("generation 3 evaluated" in line for line in lines)
    # The run's own network plays as an agent.
    records = run_arena("connect_four_v0", f"alphazero:weights={run_dir}/weights/latest.npz,iterations=4",
                        "random", 2, progress=False)
    assert len(records) == 2


def test_sampled_opening_plies_vary_self_play_and_follow_the_seed(connect_four_weights):
    from boardzoo.training.alphazero.selfplay import play

    network = Network.load(connect_four_weights)

    def games(sampled_plies: int, seed: int = 3, late_temperature: float = 0.0) -> list[tuple]:
        task = selfplay_task(network, 8, seed, simulations=4, max_considered=4, gumbel_scale=0.0,
                             sampled_plies=sampled_plies, late_temperature=late_temperature)
        result = play(task)
        # A game's positions follow one another, each game's from the empty board on.
        empty = result.inputs[0]
        starts = [i for i, row in enumerate(result.inputs) if (row == empty).all()] + [len(result.inputs)]
        assert result.games == 8 and len(starts) == 9
        return sorted(result.inputs[a:b].astype(bool).tobytes() for a, b in zip(starts, starts[1:]))

    plain = games(0)
    assert len(set(plain)) == 1  # no noise, nothing drawn: one game eight times

    def evaluations(cache: int) -> int:
        return play(selfplay_task(network, 8, 3, simulations=4, max_considered=4, gumbel_scale=0.0,
                                  evaluation_cache=cache)).evaluations

    assert 8 * evaluations(1 << 18) <= evaluations(0)  # one game eight times: the network asked once
    sampled = games(6)
    assert len(set(sampled)) >= 4 and games(6) == sampled and games(6, seed=4) != sampled
    late = games(0, late_temperature=1.0)  # every ply drawn, none in the opening
    assert len(set(late)) >= 4 and games(0, late_temperature=1.0) == late


def test_search_value_weight_mixes_the_games_result_with_the_searchs_value(connect_four_weights):
    from boardzoo.training.alphazero.selfplay import play

    network = Network.load(connect_four_weights)

    def targets(weight: float):
        task = selfplay_task(network, 6, 5, simulations=8, max_considered=4, sampled_plies=4,
                             search_value_weight=weight)
        return play(task)

    results, searched, half = targets(0.0), targets(1.0), targets(0.5)
    # The weight changes the targets only: the same games, positions and policies.
    assert np.array_equal(results.inputs, searched.inputs) and np.array_equal(results.policies, half.policies)
    assert set(np.unique(results.values)) <= {-1.0, 0.0, 1.0}
    assert np.all(np.abs(searched.values) <= 1.0) and len(np.unique(searched.values)) > 3
    assert not np.allclose(searched.values, results.values)
    np.testing.assert_allclose(half.values, (results.values + searched.values) / 2, atol=1e-6)


def test_playout_cap_randomisation_learns_only_from_the_fully_searched_plies(connect_four_weights):
    from boardzoo.training.alphazero.selfplay import play

    network = Network.load(connect_four_weights)

    def games(share: float, seed: int = 7):
        task = selfplay_task(network, 8, seed, simulations=16, max_considered=4, sampled_plies=4,
                             full_search_share=share, fast_simulations=2)
        return play(task)

    full, capped = games(1.0), games(0.25)
    assert full.games == capped.games == 8
    assert len(full.inputs) == full.plies  # every ply a position
    # About a quarter of the plies are learned from; the rest cost two simulations, not sixteen.
    assert 0.1 * capped.plies < len(capped.inputs) < 0.45 * capped.plies
    assert capped.evaluations < 0.6 * full.evaluations * capped.plies / full.plies
    assert set(np.unique(capped.values)) <= {-1.0, 0.0, 1.0}
    again = games(0.25)
    assert np.array_equal(again.inputs, capped.inputs) and np.array_equal(again.values, capped.values)
    assert not np.array_equal(games(0.25, seed=8).inputs, capped.inputs)


def test_random_openings_are_played_but_not_learned_from(connect_four_weights):
    from boardzoo.training.alphazero.selfplay import play

    network = Network.load(connect_four_weights)

    def games(share: float, seed: int = 9, plies: int = 6, env: str = "connect_four_v0", name: str = "connect_four",
              net: Network = network, params: dict | None = None):
        task = selfplay_task(net, 8, seed, env=env, game=name, params=params, simulations=8, max_considered=4,
                             sampled_plies=2, random_opening_share=share, random_opening_plies=plies)
        return play(task)

    plain, opened = games(0.0), games(1.0)
    assert plain.games == opened.games == 8
    empty = plain.inputs[0]  # the first game's first position
    assert sum(bool((row == empty).all()) for row in plain.inputs) == 8
    # Every game opened at random: no position learned from is the empty board, and the
    # random plies are played (counted) but none is a position.
    assert not any((row == empty).all() for row in opened.inputs)
    assert len(opened.inputs) < opened.plies
    assert set(np.unique(opened.values)) <= {-1.0, 0.0, 1.0}
    again = games(1.0)
    assert np.array_equal(again.inputs, opened.inputs) and np.array_equal(again.values, opened.values)
    assert not np.array_equal(games(1.0, seed=10).inputs, opened.inputs)
    # Openings longer than any game of Nim: each ends inside its opening, is not counted,
    # and its slot plays a game without one, every ply of which is learned from.
    nim = Network.load(shipped_path("nim"))
    short = games(1.0, plies=1000, env="nim_v0", name="nim", net=nim, params={"n": 12, "k": 3})
    assert short.games == 8 and len(short.inputs) == short.plies > 0


def test_self_play_in_bfloat16_judges_as_float32_does_to_two_digits(connect_four_weights):
    from boardzoo.training.alphazero.selfplay import inference_module, play, torch_evaluator

    network = Network.load(connect_four_weights)

    def games(precision: str):
        return play(selfplay_task(network, 6, 2, simulations=8, max_considered=4, sampled_plies=4,
                                  selfplay_precision=precision))

    full, half = games("float32"), games("bfloat16")
    assert full.games == half.games == 6 and len(half.inputs) == half.plies
    np.testing.assert_allclose(half.policies.sum(axis=1), 1.0, atol=1e-5)
    assert np.array_equal(games("bfloat16").inputs, half.inputs)  # the same seed, the same games
    positions = full.inputs.astype(np.float32).reshape(-1, *network.input_shape)
    (logits32, values32), (logits16, values16) = (torch_evaluator(inference_module(network, precision))(positions)
                                                  for precision in ("float32", "bfloat16"))
    assert logits16.dtype == values16.dtype == np.float32
    probabilities = [np.exp(x - x.max(axis=1, keepdims=True)) for x in (logits32, logits16)]
    p32, p16 = (p / p.sum(axis=1, keepdims=True) for p in probabilities)
    assert np.abs(p32 - p16).max() < 0.05 and np.abs(values32 - values16).max() < 0.05
    assert not np.array_equal(values32, values16)  # it did play in bfloat16
    with pytest.raises(ValueError, match="precision must be float32 or bfloat16"):
        inference_module(network, "float16")


def test_the_buffer_packs_its_planes_to_bits_and_reads_back_format_1_checkpoints(tmp_path):
    import torch

    from boardzoo.training.alphazero.buffer import ReplayBuffer

    rng = np.random.default_rng(1)
    planes = rng.integers(0, 2, (50, 126)).astype(np.float16)
    policies = rng.dirichlet(np.ones(7), 50).astype(np.float32)
    values = rng.choice([-1.0, 0.0, 1.0], 50).astype(np.float32)
    states = {}
    for inputs, key in ((planes, "packed_inputs"), (planes * np.float16(0.5), "inputs")):
        buffer = ReplayBuffer(40, 126, 7)  # a ring that has wrapped: the state is oldest first
        buffer.add(inputs, policies, values)
        states[key] = state = buffer.state()
        assert set(state) == {key, "policies", "values"}
        again = ReplayBuffer(40, 126, 7)
        again.load(state, "here")
        np.testing.assert_array_equal(again.state()["policies"].numpy(), policies[10:])
        np.testing.assert_array_equal(again.inputs[:40], inputs[10:])
    assert states["packed_inputs"]["packed_inputs"].shape == (40, 16)  # 126 planes' bits in 16 bytes
    for state in states.values():
        with pytest.raises(ValueError, match="does not fit"):
            ReplayBuffer(40, 140, 7).load(state, "here")
    # A checkpoint written in format 1 (float16 inputs) resumes to the same weights.
    straight, old = str(tmp_path / "straight"), str(tmp_path / "old")
    Trainer(straight, TINY, log=lambda line: None).run(generations=2)
    Trainer(old, TINY, log=lambda line: None).run(generations=1)
    path = os.path.join(old, "checkpoint.pt")
    saved = torch.load(path, weights_only=True)
    packed = saved["buffer"].pop("packed_inputs")
    saved["buffer"]["inputs"] = torch.from_numpy(np.unpackbits(packed.numpy(), axis=1)[:, :126].astype(np.float16))
    torch.save({**saved, "format": 1}, path)
    Trainer(old, None, log=lambda line: None).run(generations=2)
    assert_same_networks(straight, old, 2)


def test_the_averaged_network_is_the_moving_average_of_the_generations(tmp_path):
    config = dataclasses.replace(TINY, keep_weights=10, average_decay=0.6, mistakes_every=0)
    run_dir = str(tmp_path / "run")
    Trainer(run_dir, config, log=lambda line: None).run(generations=3)

    def moving_average(generations: range) -> dict[str, np.ndarray]:
        mean = weights_of(run_dir, generations[0])
        for g in generations[1:]:
            mean = {name: 0.6 * array + 0.4 * weights_of(run_dir, g)[name] for name, array in mean.items()}
        return mean

    def assert_averaged(expected: dict[str, np.ndarray]) -> None:
        averaged = averaged_of(run_dir)
        assert set(averaged) == set(expected)
        for name, array in expected.items():
            np.testing.assert_allclose(averaged[name], array, rtol=1e-5, atol=1e-7, err_msg=name)

    assert_averaged(moving_average(range(0, 4)))
    about = Network.load(os.path.join(run_dir, "weights", "averaged.npz")).about
    assert about["generation"] == 3 and about["averaged"] == {"decay": 0.6, "from_generation": 0}
    # A checkpoint written before the average existed: the average begins where it resumes.
    path = os.path.join(run_dir, "checkpoint.pt")
    saved = torch.load(path, weights_only=True)
    del saved["averaged"], saved["averaged_from"]
    torch.save(saved, path)
    lines: list[str] = []
    Trainer(run_dir, None, log=lines.append).run(generations=5)
    assert "the averaged network (averaged.npz) begins at generation 3" in lines
    assert_averaged(moving_average(range(3, 6)))
    assert Network.load(os.path.join(run_dir, "weights", "averaged.npz")).about["averaged"]["from_generation"] == 3
    assert not np.allclose(averaged_of(run_dir)["stem.weight"], weights_of(run_dir, 5)["stem.weight"])


def test_a_branch_goes_on_from_its_source_with_its_settings_changed(tmp_path):
    from boardzoo.training.alphazero.trainer import branch

    quiet = {"log": lambda line: None}
    straight = str(tmp_path / "straight")
    Trainer(straight, TINY, **quiet).run(generations=2)
    source = str(tmp_path / "source")
    Trainer(source, TINY, **quiet).run(generations=1)
    files = ("checkpoint.pt", "config.json", "history.jsonl", os.path.join("weights", "latest.npz"))

    def contents() -> list[bytes]:
        return [pathlib.Path(source, name).read_bytes() for name in files]

    before = contents()
    # Nothing changed: the branch goes on exactly as its source would have.
    same = branch(source, str(tmp_path / "same"), {}, **quiet)
    assert same.generation == 1 and same.run_dir == str(tmp_path / "same")
    same.run(generations=2)
    assert_same_networks(straight, same.run_dir, 2)
    # Settings changed: the branch keeps them when resumed, and its record starts with its source's.
    changed_dir = str(tmp_path / "changed")
    branch(source, changed_dir, {"learning_rate": "0.001", "random_opening_share": "0.5",
                                 "random_opening_plies": "3"}, **quiet).run(generations=2)
    resumed = Trainer(changed_dir, None, **quiet)
    assert (resumed.generation, resumed.config.learning_rate, resumed.config.random_opening_share) == (2, 0.001, 0.5)
    assert resumed.history[0] == same.history[0] and resumed.history[1]["learning_rate"] == 0.001
    made = Network.load(os.path.join(changed_dir, "weights", "gen-0002.npz")).about["commands"]
    assert made[-1]["branched_from"] == f"{os.path.abspath(source)} at generation 1"
    assert not np.array_equal(weights_of(changed_dir, 2)["stem.weight"], weights_of(straight, 2)["stem.weight"])
    assert contents() == before  # the source is only read
    # Refused: what fixes the network, a directory in use, a source that is no run; nothing is left behind.
    with pytest.raises(ValueError, match="keeps its source's channels"):
        branch(source, str(tmp_path / "wide"), {"channels": "8"}, **quiet)
    with pytest.raises(ValueError, match="is not empty"):
        branch(source, changed_dir, {}, **quiet)
    with pytest.raises(ValueError, match="holds no training run"):
        branch(str(tmp_path / "nowhere"), str(tmp_path / "other"), {}, **quiet)
    with pytest.raises(ValueError, match="trains connect_four, not nim"):
        branch(source, str(tmp_path / "other"), {}, game="nim", **quiet)
    assert sorted(os.listdir(tmp_path)) == ["changed", "same", "source", "straight"]
    # A branch killed outright left its scratch copy behind: the next branch sweeps it, not a living one's.
    (tmp_path / ".branch-999999999-left").mkdir()
    (tmp_path / f".branch-{os.getpid()}-working").mkdir()
    branch(source, str(tmp_path / "after"), {}, **quiet)
    assert sorted(os.listdir(tmp_path)) == [f".branch-{os.getpid()}-working", "after", "changed", "same", "source",
                                            "straight"]


def test_a_branch_whose_directory_fills_meanwhile_is_refused_and_leaves_nothing(tmp_path, monkeypatch):
    from boardzoo.training.alphazero import run_directory
    from boardzoo.training.alphazero import trainer as trainer_module

    source, target = str(tmp_path / "source"), tmp_path / "target"
    Trainer(source, TINY, log=lambda line: None).run(generations=1)
    copy = run_directory.shutil.copytree

    def copy_while_another_fills_the_target(*args, **kwargs):
        done = copy(*args, **kwargs)
        target.mkdir(exist_ok=True)
        (target / "theirs.txt").write_text("another branch's file")
        return done

    monkeypatch.setattr(run_directory.shutil, "copytree", copy_while_another_fills_the_target)
    with pytest.raises(ValueError, match="was filled while the branch was copied"):
        trainer_module.branch(source, str(target), {}, log=lambda line: None)
    assert sorted(os.listdir(tmp_path)) == ["source", "target"] and os.listdir(target) == ["theirs.txt"]


def test_a_run_in_bfloat16_on_a_cpu_without_it_is_warned(tmp_path, monkeypatch):
    from boardzoo.training.alphazero import trainer as trainer_module

    def warnings(native: bool, **settings) -> list[str]:
        monkeypatch.setattr(trainer_module, "bfloat16_in_hardware", lambda: native)
        lines: list[str] = []
        Trainer(str(tmp_path / f"run-{len(os.listdir(tmp_path))}"), dataclasses.replace(TINY, **settings),
                log=lines.append).run(generations=0)
        return [line for line in lines if line.startswith("warning")]

    assert warnings(False, selfplay_precision="bfloat16") == [
        "warning: selfplay_precision is bfloat16, which this CPU has no instructions for (avx512_bf16, amx_bf16): "
        "it is emulated, many times slower than float32 (docs/benchmarks.md); a branch (--branch-from) can go on "
        "in float32"]
    assert "learn_precision" in warnings(False, learn_precision="bfloat16")[0]
    assert warnings(True, selfplay_precision="bfloat16", learn_precision="bfloat16") == warnings(False) == []


def test_learning_in_bfloat16_follows_float32s_losses(tmp_path):
    rng = np.random.default_rng(0)
    inputs = rng.integers(0, 2, (256, 3 * 6 * 7)).astype(np.float16)
    policies = rng.dirichlet(np.full(7, 0.3), 256).astype(np.float32)
    values = rng.choice([-1.0, 0.0, 1.0], 256).astype(np.float32)
    losses, weights = {}, {}
    for precision in ("float32", "bfloat16"):
        trainer = Trainer(str(tmp_path / precision), dataclasses.replace(TINY, channels=16, batch_size=64,
                                                                         learn_precision=precision),
                          log=lambda line: None)
        trainer.buffer.add(inputs, policies, values)
        losses[precision] = [trainer._learn(1, 64 * 20) for _ in range(3)]
        weights[precision] = trainer.model.state_dict()["stem.weight"].numpy().copy()
    assert losses["float32"][-1]["value_loss"] < 0.9 * losses["float32"][0]["value_loss"]  # it learns
    for full, half in zip(losses["float32"], losses["bfloat16"]):
        for name in ("policy_loss", "value_loss"):
            assert abs(half[name] - full[name]) <= 0.02 * full[name], (name, full, half)
    assert not np.array_equal(weights["float32"], weights["bfloat16"])  # it did compute in bfloat16


def test_learning_takes_the_waiting_workers_cores_and_gives_them_back(tmp_path):
    import torch

    rng = np.random.default_rng(0)
    inputs = rng.integers(0, 2, (256, 3 * 6 * 7)).astype(np.float16)
    policies = rng.dirichlet(np.full(7, 0.3), 256).astype(np.float32)
    values = rng.choice([-1.0, 0.0, 1.0], 256).astype(np.float32)
    weights, threads_seen = [], []
    for name in ("a", "b"):
        trainer = Trainer(str(tmp_path / name), dataclasses.replace(TINY, channels=16, batch_size=64), workers=2,
                          log=lambda line: None)
        step = trainer._step
        trainer._step = lambda *args, step=step: (threads_seen.append(torch.get_num_threads()), step(*args))[1]
        trainer.buffer.add(inputs, policies, values)
        trainer._learn(1, 64 * 5)
        weights.append(trainer.model.state_dict()["stem.weight"].numpy().copy())
        assert torch.get_num_threads() == 1  # self-play's single thread again
    assert threads_seen == [2] * 20
    np.testing.assert_array_equal(*weights)  # two threads, the same steps: the same network
    assert Trainer(str(tmp_path / "ray"), TINY, workers=2, ray="auto", log=lambda line: None).learn_threads == 1


def test_every_keep_every_th_generation_is_kept_for_good(tmp_path):
    run_dir = str(tmp_path / "run")
    Trainer(run_dir, dataclasses.replace(TINY, keep_weights=1, keep_every=2, eval_every=10),
            log=lambda line: None).run(generations=5)
    assert sorted(os.listdir(os.path.join(run_dir, "weights"))) == [
        "averaged.npz", "gen-0000.npz", "gen-0002.npz", "gen-0004.npz", "gen-0005.npz", "latest.npz"]


def test_a_run_budget_holds_across_calls_with_the_last_generation_as_the_estimate(tmp_path):
    run_dir, lines = str(tmp_path / "run"), []
    Trainer(run_dir, TINY, log=lines.append).run(run_hours=1e-6)  # the first generation has no estimate yet
    assert Trainer(run_dir, None, log=lines.append).generation == 1
    Trainer(run_dir, None, log=lines.append).run(generations=2)
    resumed = Trainer(run_dir, None, log=lines.append)
    resumed.history[-1].update(selfplay_seconds=80.0, learn_seconds=20.0)  # as if generation 2 took 100 s
    spent = resumed.seconds
    resumed.run(run_hours=(spent + 90) / 3600)  # another generation like the last would pass it
    assert resumed.generation == 2 and "another generation would take it past them" in lines[-1]
    resumed.run(generations=3, run_hours=(spent + 110) / 3600)  # one fits
    assert [json.loads(line)["generation"] for line in open(os.path.join(run_dir, "history.jsonl"))] == [1, 2, 3]


def test_a_run_directory_takes_one_trainer_at_a_time(tmp_path):
    from filelock import FileLock

    run_dir = str(tmp_path / "run")
    first = Trainer(run_dir, TINY, log=lambda line: None)
    second = Trainer(run_dir, None, log=lambda line: None)
    with FileLock(os.path.join(run_dir, ".lock")):  # as another trainer holds it while it runs
        with pytest.raises(ValueError, match="is being trained by another trainer"):
            second.run(generations=1)
    second.run(generations=1)
    # The first read generation 0's checkpoint; going on from there would undo generation 1.
    with pytest.raises(ValueError, match="its checkpoint changed since this trainer read it"):
        first.run(generations=2)
    assert [json.loads(line)["generation"] for line in open(os.path.join(run_dir, "history.jsonl"))] == [1]
    second.run(generations=2)  # the trainer that wrote the checkpoint goes on
    Trainer(run_dir, None, log=lambda line: None).run(generations=3)  # and so does one that reads it afresh
    assert [json.loads(line)["generation"] for line in open(os.path.join(run_dir, "history.jsonl"))] == [1, 2, 3]


# Settings the command line refuses before it trains, and the message that names each fault.
REFUSED_SETTINGS = [
    (["go"], "no preset for 'go'"),
    (["nim", "--run-hours", "0"], "train: --run-hours must be a number"),
    (["nim", "--set", "simulations=lots"], "simulations must be a int"),
    (["nim", "--set", "colour=blue"], "unknown setting 'colour'"),
    (["nim", "--set", "simulations=0"], "simulations must be an int from 1"),
    (["nim", "--set", "full_search_share=0.25", "--set", "fast_simulations=16"],
     "fast_simulations (16) must be fewer than simulations (16)"),
    (["nim", "--set", "random_opening_share=0.5"], "random_opening_plies must be at least 1"),
    (["nim", "--set", "selfplay_precision=float16"], "selfplay_precision must be float32 or bfloat16"),
    (["nim", "--set", "learn_precision=half"], "learn_precision must be float32 or bfloat16"),
    (["connect_four", "--set", "mistake_sets=nowhere.txt"], "cannot read mistake sets nowhere.txt"),
    # found only after a whole generation, and then at every resume, until checked first
    (["nim", "--set", "anchors=random;nonsense:x=1"], "train: anchors: unknown agent 'nonsense'"),
    (["nim", "--set", "probes=oracle"], "train: probes: no probe 'oracle'; probes are pile_theory"),
    (["connect_four", "--set", "probes=pile_theory"], "train: probes: pile_theory needs a pile game's network"),
]


def test_a_game_whose_settings_meet_chance_events_is_refused():
    """The compiled search plays no chance events: Nim with the coin is refused, found by
    playing the game, not by its name."""
    from boardzoo.training.alphazero import PRESETS

    with pytest.raises(ValueError, match="has chance events, which this search does not play"):
        dataclasses.replace(PRESETS["nim"], params={"n": (1, 60), "k": 3, "coin": True})
    assert dataclasses.replace(PRESETS["nim"], params={"n": (5, 9), "k": 2}).params == {"n": (5, 9), "k": 2}


def test_train_on_the_command_line_refuses_bad_input_with_a_message(tmp_path, capsys):
    run_dir = str(tmp_path / "run")
    for (preset, *settings), message in REFUSED_SETTINGS:
        assert cli_main(["train", preset, "--run", run_dir, *settings]) == 2, message
        assert message in capsys.readouterr().err
    assert not os.path.exists(run_dir)
    tiny = ["--set", "games_per_generation=8", "--set", "eval_games=2", "--set", "channels=4"]
    assert cli_main(["train", "nim", "--run", run_dir, "--generations", "1", *tiny]) == 0
    assert capsys.readouterr().out.strip() == os.path.join(run_dir, "weights", "averaged.npz")
    assert cli_main(["train", "nim", "--run", run_dir, "--generations", "2", "--set", "channels=8"]) == 2
    assert "other settings (channels" in capsys.readouterr().err
    assert cli_main(["train", "cantris", "--run", run_dir, "--generations", "2"]) == 2
    assert "trains nim, not cantris" in capsys.readouterr().err
    assert cli_main(["train", "nim", "--run", run_dir, "--generations", "2"]) == 0  # resumed as it was
    assert cli_main(["train", "nim", "--run", run_dir, "--generations", "2", *tiny]) == 0  # the same settings
    from filelock import FileLock

    with FileLock(os.path.join(run_dir, ".lock")):  # another trainer is on it
        assert cli_main(["train", "nim", "--run", run_dir, "--generations", "3"]) == 2
    assert "is being trained by another trainer" in capsys.readouterr().err
    branched = str(tmp_path / "branched")
    branching = ["train", "nim", "--run", branched, "--branch-from", run_dir, "--generations", "3"]
    assert cli_main([*branching, "--set", "channels=8"]) == 2
    assert "keeps its source's channels" in capsys.readouterr().err and not os.path.exists(branched)
    assert cli_main([*branching, "--set", "sample_reuse=1"]) == 0
    assert "branched " in capsys.readouterr().err
    assert cli_main([*branching, "--set", "sample_reuse=1"]) == 0  # the same command resumes it
    assert cli_main([*branching, "--set", "sample_reuse=3"]) == 2
    assert "holds a run with other settings" in capsys.readouterr().err
    with open(os.path.join(run_dir, "checkpoint.pt"), "wb") as handle:
        handle.write(b"garbage")
    assert cli_main(["train", "nim", "--run", run_dir, "--generations", "3"]) == 2
    assert "not a readable checkpoint" in capsys.readouterr().err




def test_train_without_an_end_stops_at_the_presets_length(tmp_path, monkeypatch, capsys):
    """``boardzoo train nim`` with no --generations, --hours or --run-hours stops by itself
    at the preset's length (the shipped network's run; two generations here), and says so."""
    from boardzoo.training.alphazero import cli as train_cli

    monkeypatch.setitem(train_cli.DEFAULT_GENERATIONS, "nim", 2)
    run_dir = str(tmp_path / "run")
    tiny = ["--set", "games_per_generation=8", "--set", "eval_games=2", "--set", "channels=4"]
    assert cli_main(["train", "nim", "--run", run_dir, *tiny]) == 0
    assert "stops at generation 2, the length of the run that made the shipped nim network" in capsys.readouterr().err
    with open(os.path.join(run_dir, "history.jsonl")) as handle:
        assert [json.loads(line)["generation"] for line in handle] == [1, 2]


@pytest.mark.parametrize("history_file, probe_titles", [
    ("nim-history.jsonl", ["winning piles where the network alone plays the theory"]),
    ("cantris-history.jsonl", []),
    ("connect_four-run5-history.jsonl", ["mistake rate on the solver-scored sets (outcome rule)"]),
])
def test_the_training_plot_draws_every_panel_it_has_and_only_the_probes_measured(tmp_path, monkeypatch,
                                                                                 history_file, probe_titles):
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    from boardzoo.training.alphazero import plots

    root = pathlib.Path(__file__).resolve().parents[1]
    path = root / "docs" / "training" / history_file
    if not path.exists():
        path = root / "training-runs" / "connect_four-run5" / "history.jsonl"
    history = [json.loads(line) for line in path.read_text().splitlines()]
    drawn = []
    monkeypatch.setattr(plots.plt, "close", drawn.append)
    plots.plot_history(history, str(tmp_path / "training.png"), {"random": 0.0})
    (figure,) = drawn
    assert [axes.get_title() for axes in figure.axes][2:] == probe_titles
    assert all(axes.lines for axes in figure.axes)  # no empty panel
    assert (tmp_path / "training.png").stat().st_size > 10_000


def test_a_run_directory_that_cannot_be_used_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    """``--run`` naming a file, a ``.lock`` that is a directory, a disk that will not take
    the checkpoint: one line and exit status 1 (they were tracebacks), and the run's
    previous files stay whole."""
    tiny = ["--set", "games_per_generation=8", "--set", "eval_games=0", "--set", "channels=4"]
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    assert cli_main(["train", "nim", "--run", str(a_file), "--generations", "1", *tiny]) == 1
    assert f"{a_file} is a file, not a run directory" in capsys.readouterr().err and a_file.read_text() == "mine"
    assert cli_main(["train", "nim", "--run", str(a_file / "run"), "--generations", "1", *tiny]) == 1
    assert "cannot make the folder" in capsys.readouterr().err
    locked = tmp_path / "locked"
    (locked / ".lock").mkdir(parents=True)
    assert cli_main(["train", "nim", "--run", str(locked), "--generations", "1", *tiny]) == 1
    assert ".lock is not a file" in capsys.readouterr().err
    run_dir = str(tmp_path / "run")
    assert cli_main(["train", "nim", "--run", run_dir, "--generations", "1", *tiny]) == 0
    capsys.readouterr()
    assert cli_main(["train", "nim", "--run", str(a_file / "branch"), "--branch-from", run_dir]) == 1
    assert f"{a_file} is a file, not a run directory" in capsys.readouterr().err
    before = (tmp_path / "run" / "checkpoint.pt").read_bytes()

    def full_disk(*args, **kwargs):
        raise RuntimeError("[enforce fail at inline_container.cc:626] . PytorchStreamWriter failed writing file")

    monkeypatch.setattr(torch, "save", full_disk)
    assert cli_main(["train", "nim", "--run", run_dir, "--generations", "2"]) == 1
    err = capsys.readouterr().err
    assert "checkpoint.pt" in err and "is the disk full? The run's previous files are kept" in err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("boardzoo train: error: cannot write")
    assert (tmp_path / "run" / "checkpoint.pt").read_bytes() == before


def test_evaluation_games_belong_to_the_network_they_judge_and_its_run_however_spelled(tmp_path, monkeypatch):
    """A new run in a folder where another ran played none of its evaluation games: it
    took the old run's (cached by weights path and seed); and a run resumed under another
    spelling of its folder (relative, absolute) names its networks as before."""
    monkeypatch.chdir(tmp_path)
    quiet = {"log": lambda line: None}
    config = dataclasses.replace(TINY, mistake_sets="", eval_games=2)
    Trainer("run", config, **quiet).run(generations=1)
    first = sorted(os.listdir(tmp_path / "run" / "eval"))
    records = [json.loads(line) for line in open(tmp_path / "run" / "eval" / first[0])]
    resumed = Trainer(str(tmp_path / "run"), None, **quiet)
    assert records[0]["a"] == resumed.agent_spec(1, config.eval_simulations, config.eval_sample_moves)
    os.unlink(tmp_path / "run" / "checkpoint.pt")  # another run in the same folder, another network
    Trainer("run", dataclasses.replace(config, seed=1), **quiet).run(generations=1)
    second = sorted(set(os.listdir(tmp_path / "run" / "eval")) - set(first))
    assert len(second) == len(first) == 2  # its own games (against gen-0 and random), under its network's name
    assert {name.split("-vs-")[1] for name in second} == {name.split("-vs-")[1] for name in first}
    # moved to another folder, its evaluation files name the old paths: set aside, played again
    os.rename(tmp_path / "run", tmp_path / "moved")
    lines: list[str] = []
    moved = Trainer("moved", None, log=lines.append)
    record = moved.evaluation.evaluate(1)
    assert any("set aside" in line and "played again" in line for line in lines)
    assert len(record["results"]["random"]) == config.eval_games
