"""AlphaZero: the NumPy network against the PyTorch one, network files, the agent, the
trainer at a tiny size (a loop, a resume after a kill, the command line) and the shipped
networks. The search itself is tests/test_gumbel_search.py."""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("numba")
torch = pytest.importorskip("torch")

from boardzoo.agents import make as make_agent  # noqa: E402
from boardzoo.agents.alphazero.evaluator import shipped_path  # noqa: E402
from boardzoo.agents.alphazero.network import Network  # noqa: E402
from boardzoo.arena import run as run_arena  # noqa: E402
from boardzoo.cli import main as cli_main  # noqa: E402
from boardzoo.errors import SpecError  # noqa: E402
from boardzoo.fast.games import GAME_IDS, encode  # noqa: E402
from boardzoo.fast.network_input import write_input  # noqa: E402
from boardzoo.games.registry import game  # noqa: E402
from boardzoo.training.alphazero.model import PolicyValueNet  # noqa: E402

# --- networks --------------------------------------------------------------------------------------------
ARCHITECTURES = [
    {"kind": "conv", "input": [3, 6, 7], "channels": 16, "blocks": 2, "value_hidden": 8, "actions": 7},
    {"kind": "conv", "input": [8, 6, 3], "channels": 8, "blocks": 0, "value_hidden": 4, "actions": 3},
    {"kind": "mlp", "input": [61], "channels": 32, "blocks": 2, "value_hidden": 16, "actions": 3},
]


def random_module(architecture: dict, seed: int) -> PolicyValueNet:
    torch.manual_seed(seed)
    module = PolicyValueNet(architecture)
    with torch.no_grad():
        for parameter in module.parameters():  # the zero-started layers too, so every weight matters
            parameter.normal_(0, 0.2)
    return module.eval()


@pytest.mark.parametrize("architecture", ARCHITECTURES, ids=lambda a: f"{a['kind']}-{a['blocks']}")
def test_the_numpy_network_computes_what_the_torch_network_does(architecture):
    module = random_module(architecture, 0)
    network = module.to_network()
    inputs = np.random.default_rng(1).random((13, *architecture["input"])).astype(np.float32)
    logits, values = network(inputs)
    with torch.no_grad():
        expected_logits, expected_values = module(torch.from_numpy(inputs))
    np.testing.assert_allclose(logits, expected_logits.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(values, expected_values.numpy(), rtol=1e-4, atol=1e-5)
    again = PolicyValueNet.from_network(network)
    with torch.no_grad():
        np.testing.assert_array_equal(again(torch.from_numpy(inputs))[0].numpy(), expected_logits.numpy())


def test_the_networks_buffered_pass_computes_what_its_plain_reference_does():
    import pickle
    import threading

    from boardzoo.agents.alphazero import network as network_module

    rng = np.random.default_rng(4)
    for conv in [a for a in ARCHITECTURES if a["kind"] == "conv"]:  # with residual blocks and without
        network = random_module(conv, 3).to_network()
        # Sizes in a row that reuse, grow past and evict the kept buffers, and one over a pass.
        for n in (1, 5, 1, 2, 3, 4, 6, 5, network_module.PASS + 7, 1):
            inputs = (rng.random((n, *conv["input"])) < 0.4).astype(np.float32)
            for got, expected in zip(network(inputs), network.reference(inputs)):
                np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
        assert len(network._plans.by_size) == network_module.KEPT_PLANS
    first = network(inputs)
    first[0][:] = 99.0  # what a caller keeps is its own, not a buffer the next call overwrites
    np.testing.assert_allclose(network(inputs)[0], network.reference(inputs)[0], rtol=1e-5, atol=1e-6)
    # One network shared by threads (the web server's searches): each thread its own buffers.
    batches = [(rng.random((3, *conv["input"])) < 0.4).astype(np.float32) for _ in range(4)]
    wrong = []

    def judge(batch):
        for _ in range(200):
            if not np.allclose(network(batch)[1], network.reference(batch)[1], rtol=1e-5, atol=1e-6):
                wrong.append(batch)
    threads = [threading.Thread(target=judge, args=(batch,)) for batch in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong
    copy = pickle.loads(pickle.dumps(network))  # to a worker process, without its buffers
    np.testing.assert_array_equal(copy(batches[0])[1], network(batches[0])[1])


def test_a_network_file_round_trips_and_bad_files_are_refused(tmp_path):
    network = random_module(ARCHITECTURES[0], 2).to_network({"game": "connect_four"})
    path = str(tmp_path / "net.npz")
    network.save(path)
    loaded = Network.load(path)
    assert loaded.about == {"game": "connect_four"}
    inputs = np.zeros((1, 3, 6, 7), np.float32)
    np.testing.assert_array_equal(loaded(inputs)[0], network(inputs)[0])
    (tmp_path / "text.npz").write_text("not a network")
    with pytest.raises(ValueError, match="is not a network file"):
        Network.load(str(tmp_path / "text.npz"))
    arrays = dict(network.arrays)
    arrays["stem.weight"] = arrays["stem.weight"][:, :1]
    with pytest.raises(ValueError, match="stem.weight must be floats of shape"):
        Network(network.architecture, arrays)
    arrays = dict(network.arrays)
    arrays["policy_fc.bias"] = np.full_like(arrays["policy_fc.bias"], np.nan)
    with pytest.raises(ValueError, match="not finite"):
        Network(network.architecture, arrays)
    with pytest.raises(ValueError, match="channels must be an int"):
        Network({**network.architecture, "channels": -3}, network.arrays)
    with pytest.raises(ValueError, match="cannot read network file"):
        Network.load(str(tmp_path / "missing.npz"))


# --- the agent ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def connect_four_weights(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("weights") / "c4.npz")
    random_module(ARCHITECTURES[0], 4).to_network({"game": "connect_four"}).save(path)
    return path


def test_the_agent_plays_legal_moves_in_the_arena_and_shows_its_tree(connect_four_weights):
    records = run_arena("connect_four_v0", f"alphazero:weights={connect_four_weights},iterations=16", "random", 2,
                        progress=False)
    assert len(records) == 2 and all(r["plies"] >= 7 for r in records)
    agent = make_agent(f"alphazero:weights={connect_four_weights},iterations=50", seed=0)
    state = game("connect_four").new_initial_state()
    env_model = state
    action = agent.act({"action_mask": np.ones(7, np.int8)}, env_model)
    assert agent.stats["iterations"] == 50 and agent.stats["action"] == action
    tree = agent.tree_json(1000)
    assert tree["visits"] == 51
    assert sum(child["visits"] for child in tree["children"]) == 50

    def count(node):
        return 1 + sum(count(child) for child in node["children"])

    assert count(tree) == agent.stats["size"] == 51  # a node a simulation and the root
    assert count(agent.tree_json(10)) == 10
    assert any(child["chosen"] and child["label"] == state.action_label(action) for child in tree["children"])
    quick = make_agent(f"alphazero:weights={connect_four_weights},time=0.05", seed=0)
    quick.warm_up(state)
    began = time.perf_counter()
    quick.act({}, state)
    assert time.perf_counter() - began < 1.0 and quick.stats["iterations"] >= 1


def test_a_timed_move_is_sequential_halving_of_the_simulations_its_speed_fits(connect_four_weights):
    state = game("connect_four").new_initial_state()
    for move in (3, 3, 2):
        state.apply(move)
    timed = make_agent(f"alphazero:weights={connect_four_weights},time=0.2", seed=0)
    timed.warm_up(state)
    timed._speed = 250.0  # as if measured: 0.2 s fits about 45 simulations, run in a few ms
    timed.act({}, state)
    planned = timed.stats["planned"]
    assert 40 <= planned <= 45 and timed.stats["iterations"] == planned
    fixed = make_agent(f"alphazero:weights={connect_four_weights},iterations={planned}", seed=0)
    fixed.act({}, state)
    assert (fixed.stats["action"], fixed.stats["policy"]) == (timed.stats["action"], timed.stats["policy"])
    assert [c["visits"] for c in fixed.stats["children"]] == [c["visits"] for c in timed.stats["children"]]
    assert timed._speed > 250.0  # re-measured by the move: far faster than assumed


def test_the_network_alone_plays_its_highest_legal_logit(connect_four_weights):
    network = Network.load(connect_four_weights)
    agent = make_agent(f"alphazero:weights={connect_four_weights},iterations=0")
    state = game("connect_four").new_initial_state()
    for move in (3, 3, 3, 3, 3, 3):  # column 3 full: never played however high its logit
        state.apply(move)
    inputs = np.zeros(126, np.float32)
    write_input(GAME_IDS["connect_four"], encode(state), inputs)
    logits = network(inputs.reshape(1, 3, 6, 7))[0][0]
    assert agent.act({}, state) == max(state.legal_actions(), key=lambda a: logits[a])


def test_a_network_file_guides_puct_as_an_mcts_evaluator(connect_four_weights):
    from boardzoo.agents.alphazero.evaluator import FileNetworkEvaluator

    evaluator = FileNetworkEvaluator(connect_four_weights)
    state = game("connect_four").new_initial_state()
    for move in (3, 3, 3, 3, 3, 3, 2):
        state.apply(move)
    logits = evaluator.network(np.asarray(_input_of(state)))[0][0]
    prior = dict(evaluator.prior(state))
    assert set(prior) == set(state.legal_actions()) and 3 not in prior
    expected = np.exp(logits[list(prior)] - logits[list(prior)].max())
    np.testing.assert_allclose(list(prior.values()), expected / expected.sum(), rtol=1e-6)
    value = evaluator.evaluate(state)
    assert value[0] == -value[1] and abs(value[0]) <= 1
    records = run_arena("connect_four_v0", f"mcts:policy=puct,model={connect_four_weights},iterations=20", "random",
                        2, progress=False)
    assert len(records) == 2
    with pytest.raises(ValueError, match="trained for connect_four, not nim"):
        make_agent(f"mcts:policy=puct,model={connect_four_weights}").check(game("nim").new_initial_state(n=9))


def _input_of(state):
    inputs = np.zeros(126, np.float32)
    write_input(GAME_IDS["connect_four"], encode(state), inputs)
    return inputs.reshape(1, 3, 6, 7)


def test_sampled_opening_moves_vary_the_games_and_follow_the_seed(connect_four_weights):
    spec = f"alphazero:weights={connect_four_weights},iterations=8"
    plain = run_arena("connect_four_v0", spec, "alphabeta:depth=1", 4, progress=False)
    assert len({str(r["moves"]) for r in plain}) == 2  # two deterministic players: one game a seating
    sampled = run_arena("connect_four_v0", f"{spec},sample_moves=3", "alphabeta:depth=1", 6, progress=False)
    assert len({str(r["moves"]) for r in sampled}) > 2
    again = run_arena("connect_four_v0", f"{spec},sample_moves=3", "alphabeta:depth=1", 6, progress=False)
    assert [r["moves"] for r in again] == [r["moves"] for r in sampled]


@pytest.mark.parametrize("iterations", [0, 24])
def test_the_agent_judges_many_positions_at_once_as_it_would_one_by_one(connect_four_weights, iterations):
    sets = read_mistake_sets(SETS_FILE)
    positions = [position for name in SET_NAMES for position in sets.get(name, [])[:4]]
    agent = make_agent(f"alphazero:weights={connect_four_weights},iterations={iterations}", seed=0)
    boards = [set_up(position) for position in positions]
    assert chooser(agent)(boards) == [agent.act(observation, model) for observation, model in boards]
    with pytest.raises(ValueError, match="time= budgets one move"):
        make_agent(f"alphazero:weights={connect_four_weights},time=0.1", seed=0).act_batch(boards)


def test_the_agent_refuses_what_its_network_does_not_fit(connect_four_weights, tmp_path):
    with pytest.raises(SpecError, match="cannot read network file"):
        make_agent(f"alphazero:weights={tmp_path}/none.npz")
    with pytest.raises(SpecError, match="iterations"):
        make_agent("alphazero:iterations=-1")
    agent = make_agent(f"alphazero:weights={connect_four_weights}")
    with pytest.raises(ValueError, match="trained for connect_four, not nim"):
        agent.check(game("nim").new_initial_state(n=10))
    small = game("connect_four").new_initial_state(rows=5, cols=6)
    with pytest.raises(ValueError, match="another board size"):
        agent.check(small)
    with pytest.raises(ValueError, match="plays connect_four|plays cantris"):
        agent.check(game("tic_tac_toe").new_initial_state())
    # Asked to move without a check first, it refuses as well (its compiled code writes
    # the network's input unchecked: nothing that does not fit may reach it).
    for spec in (f"alphazero:weights={connect_four_weights}", f"alphazero:weights={connect_four_weights},iterations=0",
                 f"mcts:policy=puct,model={connect_four_weights},iterations=5"):
        with pytest.raises(ValueError, match="trained for connect_four, not nim"):
            make_agent(spec).act({}, game("nim").new_initial_state(n=50))
        with pytest.raises(ValueError, match="another board size"):
            make_agent(spec).act({}, small)


# --- the trainer -------------------------------------------------------------------------------------------
from boardzoo.training.alphazero import PRESETS, Trainer  # noqa: E402
from boardzoo.training.alphazero.referee import (  # noqa: E402
    SET_NAMES,
    Position,
    chooser,
    mistake_counts,
    one_by_one,
    read_mistake_sets,
    set_up,
)

SETS_FILE = os.path.join(os.path.dirname(__file__), "..", "bench", "data", "connect_four_mistake_sets.txt")
TINY = dataclasses.replace(
    PRESETS["connect_four"], channels=4, blocks=1, value_hidden=4, simulations=4, games_per_generation=6,
    games_per_task=3, replay_positions=1000, batch_size=32, eval_games=2, eval_simulations=2,
    anchors=("random",), mistake_sets=SETS_FILE, mistakes_every=2, mistake_positions=2, mistake_simulations=2,
    keep_weights=2, keep_every=0)


def weights_of(run_dir: str, generation: int) -> dict[str, np.ndarray]:
    return Network.load(os.path.join(run_dir, "weights", f"gen-{generation:04d}.npz")).arrays


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
    # Only the newest keep_weights generations' files stay (and latest.npz).
    assert sorted(os.listdir(os.path.join(run_dir, "weights"))) == ["gen-0002.npz", "gen-0003.npz", "latest.npz"]
    assert not os.path.exists(os.path.join(run_dir, "staging"))
    about = Network.load(os.path.join(run_dir, "weights", "latest.npz")).about
    assert about["game"] == "connect_four" and about["generation"] == 3
    assert any("generation 3 evaluated" in line for line in lines)
    # The run's own network plays as an agent.
    records = run_arena("connect_four_v0", f"alphazero:weights={run_dir}/weights/latest.npz,iterations=4",
                        "random", 2, progress=False)
    assert len(records) == 2


def test_sampled_opening_plies_vary_self_play_and_follow_the_seed(connect_four_weights):
    from boardzoo.training.alphazero.selfplay import SelfPlayTask, play

    network = Network.load(connect_four_weights)

    def games(sampled_plies: int, seed: int = 3, late_temperature: float = 0.0) -> list[tuple]:
        task = SelfPlayTask("connect_four_v0", {}, "connect_four", network, games=8, batch=8, simulations=4,
                            max_considered=4, seed=seed, gumbel_scale=0.0, sampled_plies=sampled_plies,
                            late_temperature=late_temperature)
        result = play(task)
        # A game's positions follow one another, each game's from the empty board on.
        empty = result.inputs[0]
        starts = [i for i, row in enumerate(result.inputs) if (row == empty).all()] + [len(result.inputs)]
        assert result.games == 8 and len(starts) == 9
        return sorted(result.inputs[a:b].astype(bool).tobytes() for a, b in zip(starts, starts[1:]))

    plain = games(0)
    assert len(set(plain)) == 1  # no noise, nothing drawn: one game eight times

    def evaluations(cache: int) -> int:
        return play(SelfPlayTask("connect_four_v0", {}, "connect_four", network, games=8, batch=8, simulations=4,
                                 max_considered=4, seed=3, gumbel_scale=0.0, evaluation_cache=cache)).evaluations

    assert 8 * evaluations(1 << 18) <= evaluations(0)  # one game eight times: the network asked once
    sampled = games(6)
    assert len(set(sampled)) >= 4 and games(6) == sampled and games(6, seed=4) != sampled
    late = games(0, late_temperature=1.0)  # every ply drawn, none in the opening
    assert len(set(late)) >= 4 and games(0, late_temperature=1.0) == late


def test_search_value_weight_mixes_the_games_result_with_the_searchs_value(connect_four_weights):
    from boardzoo.training.alphazero.selfplay import SelfPlayTask, play

    network = Network.load(connect_four_weights)

    def targets(weight: float):
        task = SelfPlayTask("connect_four_v0", {}, "connect_four", network, games=6, batch=6, simulations=8,
                            max_considered=4, seed=5, sampled_plies=4, search_value_weight=weight)
        return play(task)

    results, searched, half = targets(0.0), targets(1.0), targets(0.5)
    # The weight changes the targets only: the same games, positions and policies.
    assert np.array_equal(results.inputs, searched.inputs) and np.array_equal(results.policies, half.policies)
    assert set(np.unique(results.values)) <= {-1.0, 0.0, 1.0}
    assert np.all(np.abs(searched.values) <= 1.0) and len(np.unique(searched.values)) > 3
    assert not np.allclose(searched.values, results.values)
    np.testing.assert_allclose(half.values, (results.values + searched.values) / 2, atol=1e-6)


def test_playout_cap_randomisation_learns_only_from_the_fully_searched_plies(connect_four_weights):
    from boardzoo.training.alphazero.selfplay import SelfPlayTask, play

    network = Network.load(connect_four_weights)

    def games(share: float, seed: int = 7):
        task = SelfPlayTask("connect_four_v0", {}, "connect_four", network, games=8, batch=8, simulations=16,
                            max_considered=4, seed=seed, sampled_plies=4, full_search_share=share,
                            fast_simulations=2)
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
    from boardzoo.training.alphazero.selfplay import SelfPlayTask, play

    network = Network.load(connect_four_weights)

    def games(share: float, seed: int = 9, plies: int = 6, env: str = "connect_four_v0", name: str = "connect_four",
              net: Network = network, params: dict | None = None):
        task = SelfPlayTask(env, params or {}, name, net, games=8, batch=8, simulations=8, max_considered=4,
                            seed=seed, sampled_plies=2, random_opening_share=share, random_opening_plies=plies)
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
    from boardzoo.training.alphazero.selfplay import SelfPlayTask, inference_module, play, torch_evaluator

    network = Network.load(connect_four_weights)

    def games(precision: str):
        return play(SelfPlayTask("connect_four_v0", {}, "connect_four", network, games=6, batch=6, simulations=8,
                                 max_considered=4, seed=2, sampled_plies=4, precision=precision))

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


def test_a_run_resumed_goes_on_as_if_it_never_stopped(tmp_path):
    straight = str(tmp_path / "straight")
    Trainer(straight, TINY, log=lambda line: None).run(generations=2)
    parts = str(tmp_path / "parts")
    Trainer(parts, TINY, log=lambda line: None).run(generations=1)
    resumed = Trainer(parts, None, log=lambda line: None)
    assert resumed.generation == 1 and resumed.buffer.size > 0
    resumed.run(generations=2)
    for name, array in weights_of(straight, 2).items():
        np.testing.assert_array_equal(weights_of(parts, 2)[name], array, err_msg=name)
    # A run checked out of version control has its checkpoint but no weights: resuming writes them.
    shutil.rmtree(os.path.join(parts, "weights"))
    assert Trainer(parts, None, log=lambda line: None).generation == 2
    for name, array in weights_of(straight, 2).items():
        np.testing.assert_array_equal(weights_of(parts, 2)[name], array, err_msg=name)
    assert Network.load(os.path.join(parts, "weights", "latest.npz")).about["generation"] == 2
    with pytest.raises(ValueError, match="other settings"):
        Trainer(parts, dataclasses.replace(TINY, simulations=5))


def test_the_buffer_packs_its_planes_to_bits_and_reads_back_format_1_checkpoints(tmp_path):
    import torch

    from boardzoo.training.alphazero.trainer import ReplayBuffer

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
    for name, array in weights_of(straight, 2).items():
        np.testing.assert_array_equal(weights_of(old, 2)[name], array, err_msg=name)


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
    for name, array in weights_of(straight, 2).items():
        np.testing.assert_array_equal(weights_of(same.run_dir, 2)[name], array, err_msg=name)
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
    from boardzoo.training.alphazero import trainer as trainer_module

    source, target = str(tmp_path / "source"), tmp_path / "target"
    Trainer(source, TINY, log=lambda line: None).run(generations=1)
    copy = trainer_module.shutil.copytree

    def copy_while_another_fills_the_target(*args, **kwargs):
        done = copy(*args, **kwargs)
        target.mkdir(exist_ok=True)
        (target / "theirs.txt").write_text("another branch's file")
        return done

    monkeypatch.setattr(trainer_module.shutil, "copytree", copy_while_another_fills_the_target)
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
        "gen-0000.npz", "gen-0002.npz", "gen-0004.npz", "gen-0005.npz", "latest.npz"]


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
    for name, array in weights_of(straight, 1).items():
        np.testing.assert_array_equal(weights_of(run_dir, 1)[name], array, err_msg=name)


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
    path = os.path.join(run_dir, "staging", staged)
    result = trainer_module._read_staged(path, int(staged.split("-")[-1].split(".")[0]))
    result.seconds = 7200.0  # as if the interrupted call had played it for two hours
    trainer_module._write_staged(path, result)
    lines: list[str] = []
    Trainer(run_dir, None, workers=2, log=lines.append).run(generations=1)
    assert any("1 of 2 self-play tasks found done" in line for line in lines)
    [record] = [json.loads(line) for line in open(os.path.join(run_dir, "history.jsonl"))]
    # Two workers played side by side: the staged task's two hours are one of the run's.
    assert 3600 <= record["selfplay_seconds"] < 3600 + 600
    assert 1.0 <= record["hours"] < 1.2


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
        for name, array in weights_of(straight, 3).items():
            np.testing.assert_array_equal(weights_of(run_dir, 3)[name], array, err_msg=f"{wanted}: {name}")
        history = [json.loads(line) for line in open(os.path.join(run_dir, "history.jsonl"))]
        assert [entry["generation"] for entry in history] == [1, 2, 3]


def test_the_mistake_sets_are_read_and_a_bad_line_is_named(tmp_path):
    sets = read_mistake_sets(SETS_FILE)
    assert set(sets) <= {"end-easy", "middle-easy", "middle-medium", "begin-easy", "begin-medium", "begin-hard"}
    bad = tmp_path / "sets.txt"
    bad.write_text("begin-easy 4455 0 1 2 3 4 5 6 7\nbegin-easy 44x5 0 1 2 3 4 5 6 7\n")
    with pytest.raises(ValueError, match="line 2"):
        read_mistake_sets(str(bad))


def test_the_outcome_and_the_score_rules_judge_worked_examples():
    # Column 1 wins soonest, 2 wins later, 3 draws, 4 loses, 5 is full.
    won = Position("", (18, 2, 0, -5, None, 0, 18))
    assert [won.worse_outcome(c) for c in range(7)] == [False, False, True, True, True, True, False]
    assert [won.worse_score(c) for c in range(7)] == [False, True, True, True, True, True, False]
    drawn = Position("", (0, -3, 0, -1, -7, -2, -3))
    assert [drawn.worse_outcome(c) for c in range(7)] == [False, True, False, True, True, True, True]
    lost = Position("", (-9, -3, -4, -3, -12, -20, -3))  # every move loses: only the slowest keeps the score
    assert not any(lost.worse_outcome(c) for c in range(7))
    assert [lost.worse_score(c) for c in range(7)] == [True, False, True, False, True, True, False]


def test_mistakes_are_counted_per_set_by_both_rules():
    sets = {name: positions[:5] for name, positions in read_mistake_sets(SETS_FILE).items()}

    def by_scores(pick):
        judged = iter([p for name in SET_NAMES if name in sets for p in sets[name]])  # the order judged

        def choose(observation, model):
            values = next(judged).values
            legal = [c for c in range(7) if values[c] is not None]
            assert legal == [int(a) for a in np.flatnonzero(observation["action_mask"])]  # the position set up
            return pick(legal, key=lambda c: values[c])
        return choose

    best, worst = mistake_counts(one_by_one(by_scores(max)), sets), mistake_counts(one_by_one(by_scores(min)), sets)
    for name, positions in sets.items():
        assert best[name] == (0, 0, len(positions))
        worst_moves = [min((c for c in range(7) if p.values[c] is not None), key=lambda c: p.values[c])
                       for p in positions]
        assert worst[name] == (sum(map(Position.worse_outcome, positions, worst_moves)),
                               sum(map(Position.worse_score, positions, worst_moves)), len(positions))
        assert worst[name].outcome <= worst[name].score


def test_a_long_mistake_measurement_runs_in_parts_in_parallel_and_resumes(tmp_path):
    from filelock import FileLock

    from boardzoo.agents import make as make_agent
    from boardzoo.training.alphazero.referee import measure_mistakes

    spec, part = "alphabeta:depth=2,eval=three2", 10
    sets = {name: positions[:25] for name, positions in read_mistake_sets(SETS_FILE).items()
            if name in ("middle-easy", "begin-hard")}
    expected = {}
    for name, positions in sets.items():  # each part judged by a fresh agent seeded by the part
        parts = [mistake_counts(chooser(make_agent(spec, seed=SET_NAMES.index(name) * 1_000_000 + start)),
                                {name: positions[start:start + part]})[name] for start in range(0, 25, part)]
        expected[name] = tuple(map(sum, zip(*parts)))
    out = str(tmp_path / "measured.json")
    lines: list[str] = []
    first = measure_mistakes(spec, {"begin-hard": sets["begin-hard"]}, workers=2, out=out, part=part,
                             log=lines.append)
    assert first["begin-hard"] == expected["begin-hard"] and first["middle-easy"] == (0, 0, 0)
    # Run again with more sets: only the parts missing from the file are judged.
    lines.clear()
    both = measure_mistakes(spec, sets, workers=2, out=out, part=part, log=lines.append)
    assert {name: both[name] for name in sets} == expected
    assert lines[0].endswith("3 parts of up to 10 positions to judge, 3 already judged")
    assert measure_mistakes(spec, sets, out=out, part=part, log=lines.append) == both  # nothing left to judge
    assert measure_mistakes(spec, sets, part=part) == both  # no file: all judged again, the same
    stored = json.loads(open(out).read())
    with FileLock(out + ".lock"):  # another measurement is writing it
        with pytest.raises(ValueError, match="is being written by another measurement"):
            measure_mistakes(spec, sets, out=out, part=part)
    with pytest.raises(ValueError, match="was measured on other positions"):
        measure_mistakes(spec, {"begin-hard": sets["middle-easy"]}, out=out, part=part)
    stored["measurements"][spec]["begin-hard/0"]["outcome"] = 99  # more mistakes than positions
    with open(out, "w") as handle:
        json.dump(stored, handle)
    with pytest.raises(ValueError, match="has a part that is not a set's counts: 'begin-hard/0'"):
        measure_mistakes(spec, sets, out=out, part=part)
    with open(out, "w") as handle:
        handle.write("no json")
    with pytest.raises(ValueError, match="is not a mistake measurement"):
        measure_mistakes(spec, sets, out=out, part=part)
    # A network file named in the spec is part of the player: rewritten, it is measured again.
    weights = str(tmp_path / "latest.npz")
    random_module(ARCHITECTURES[0], 0).to_network().save(weights)
    os.unlink(out)
    network_spec, lines = f"alphazero:weights={weights},iterations=0", []
    small = {"begin-hard": sets["begin-hard"][:3]}
    measure_mistakes(network_spec, small, out=out, part=part, log=lines.append)
    random_module(ARCHITECTURES[0], 1).to_network().save(weights)
    measure_mistakes(network_spec, small, out=out, part=part, log=lines.append)
    assert sum("1 parts of up to 10 positions to judge, 0 already judged" in line for line in lines) == 2
    assert len(json.loads(open(out).read())["measurements"]) == 2


def test_train_on_the_command_line_refuses_bad_input_with_a_message(tmp_path, capsys):
    run_dir = str(tmp_path / "run")
    assert cli_main(["train", "go", "--run", run_dir]) == 2
    assert "no preset for 'go'" in capsys.readouterr().err
    assert cli_main(["train", "nim", "--run", run_dir, "--set", "simulations=lots"]) == 2
    assert "simulations must be a int" in capsys.readouterr().err
    assert cli_main(["train", "nim", "--run", run_dir, "--set", "colour=blue"]) == 2
    assert "unknown setting 'colour'" in capsys.readouterr().err
    assert cli_main(["train", "nim", "--run", run_dir, "--set", "simulations=0"]) == 2
    assert "simulations must be an int from 1" in capsys.readouterr().err
    capped = ["--set", "full_search_share=0.25", "--set", "fast_simulations=16"]
    assert cli_main(["train", "nim", "--run", run_dir, *capped]) == 2
    assert "fast_simulations (16) must be fewer than simulations (16)" in capsys.readouterr().err
    assert cli_main(["train", "nim", "--run", run_dir, "--set", "random_opening_share=0.5"]) == 2
    assert "random_opening_plies must be at least 1" in capsys.readouterr().err
    assert cli_main(["train", "nim", "--run", run_dir, "--set", "selfplay_precision=float16"]) == 2
    assert "selfplay_precision must be float32 or bfloat16" in capsys.readouterr().err
    assert cli_main(["train", "nim", "--run", run_dir, "--set", "learn_precision=half"]) == 2
    assert "learn_precision must be float32 or bfloat16" in capsys.readouterr().err
    assert cli_main(["train", "connect_four", "--run", run_dir, "--set", "mistake_sets=nowhere.txt"]) == 2
    assert "cannot read mistake sets nowhere.txt" in capsys.readouterr().err
    tiny = ["--set", "games_per_generation=8", "--set", "eval_games=2", "--set", "channels=4"]
    assert cli_main(["train", "nim", "--run", run_dir, "--generations", "1", *tiny]) == 0
    assert capsys.readouterr().out.strip() == os.path.join(run_dir, "weights", "latest.npz")
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


# --- the shipped networks ------------------------------------------------------------------------------------
def test_the_shipped_nim_network_leaves_a_multiple_of_k_plus_1_from_every_winning_pile():
    alone, searching = make_agent("alphazero:iterations=0"), make_agent("alphazero:iterations=64")
    nim = game("nim")
    for pile in range(1, 61):
        state = nim.new_initial_state(n=pile, k=3)
        alone.check(state)
        for agent in (alone, searching):
            taken = agent.act({}, state) + 1
            if pile % 4:
                assert (pile - taken) % 4 == 0, (pile, taken, agent.spec)
    for name in ("nim", "connect_four", "cantris"):
        made = Network.load(shipped_path(name)).about
        assert made["game"] == name and made["commands"][0]["command"].startswith(f"boardzoo train {name}")
        assert all(entry["commit"] for entry in made["commands"])
    with pytest.raises(ValueError, match="piles up to 60"):
        alone.act({}, nim.new_initial_state(n=61, k=3))
