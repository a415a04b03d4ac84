"""AlphaZero's agent: the NumPy network against the PyTorch one, network files, the agent
in the arena and on many positions at once, and the shipped networks. The search itself is
tests/test_gumbel_search.py; the trainer, its resumption and its referee are in
tests/test_alphazero_{trainer,resume,referee}.py."""

from __future__ import annotations

import gc
import time

import numpy as np
import pytest

pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")
torch = pytest.importorskip("torch", reason="the rl extra is not installed (pip install torch==2.13.0 && "
                                            "pip install '.[rl]')")

from alphazero_fixtures import ARCHITECTURES, SETS_FILE, random_module, write_connect_four_network  # noqa: E402

from boardzoo.agents import make as make_agent  # noqa: E402
from boardzoo.agents.alphazero.evaluator import shipped_path  # noqa: E402
from boardzoo.agents.alphazero.network import Network  # noqa: E402
from boardzoo.arena import run as run_arena  # noqa: E402
from boardzoo.errors import SpecError  # noqa: E402
from boardzoo.fast.core import core_of  # noqa: E402
from boardzoo.games.registry import game  # noqa: E402
from boardzoo.training.alphazero.model import PolicyValueNet  # noqa: E402
from boardzoo.training.alphazero.referee import (  # noqa: E402
    SET_NAMES,
    chooser,
    read_mistake_sets,
    set_up,
)


# --- networks --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("architecture", ARCHITECTURES,
                         ids=lambda a: f"{a['kind']}-{a['blocks']}" + ("-belief" if a.get("belief") else ""))
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
    if architecture.get("belief"):
        with torch.no_grad():
            expected_belief = module.with_belief(torch.from_numpy(inputs))[2].numpy()
        assert expected_belief.shape == (13, architecture["belief"])
        np.testing.assert_allclose(network.belief(inputs), expected_belief, rtol=1e-4, atol=1e-5)
    else:
        with pytest.raises(ValueError, match="no belief head"):
            network.belief(inputs)


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
    with pytest.raises(ValueError, match="belief must be the number of the belief head's outputs"):
        Network({**network.architecture, "belief": 5}, network.arrays)  # a conv network's: one a cell
    with pytest.raises(ValueError, match="parameter belief_conv.bias is missing"):
        Network({**network.architecture, "belief": 42}, network.arrays)
    with pytest.raises(ValueError, match="cannot read network file"):
        Network.load(str(tmp_path / "missing.npz"))


# --- the agent ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def connect_four_weights(tmp_path_factory):
    return write_connect_four_network(str(tmp_path_factory.mktemp("weights") / "c4.npz"))


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
    core_of("connect_four").write_input(core_of("connect_four").encode(state), inputs)
    logits = network(inputs.reshape(1, 3, 6, 7))[0][0]
    assert agent.act({}, state) == max(state.legal_actions(), key=lambda a: logits[a])


def test_mirror_averaging_is_the_mean_of_a_position_and_its_mirror_image(connect_four_weights):
    from boardzoo.agents.alphazero.network import MirrorAveraged

    network = Network.load(connect_four_weights)
    averaged = MirrorAveraged(network)
    rng = np.random.default_rng(5)
    for _ in range(20):
        # A position and its mirror image, each reached by playing the game.
        state, mirror = game("connect_four").new_initial_state(), game("connect_four").new_initial_state()
        for _ in range(int(rng.integers(0, 20))):
            if state.is_terminal():
                break
            move = int(rng.choice(state.legal_actions()))
            state.apply(move)
            mirror.apply(6 - move)
        logits, value = network(_input_of(state))
        mirror_logits, mirror_value = network(_input_of(mirror))
        both_logits, both_value = averaged(_input_of(state))
        np.testing.assert_allclose(both_logits[0], (logits[0] + mirror_logits[0, ::-1]) / 2, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(both_value[0], (value[0] + mirror_value[0]) / 2, rtol=1e-5, atol=1e-6)
        seen_from_mirror = averaged(_input_of(mirror))
        np.testing.assert_allclose(seen_from_mirror[0][0, ::-1], both_logits[0], rtol=1e-5, atol=1e-6)
    # The agent with mirror=true plays the averaged answers' best move; alone the network may differ.
    state = game("connect_four").new_initial_state()
    for move in (3, 2, 3, 4, 1):
        state.apply(move)
    both_logits = averaged(_input_of(state))[0][0]
    agent = make_agent(f"alphazero:weights={connect_four_weights},iterations=0,mirror=true")
    assert agent.act({}, state) == max(state.legal_actions(), key=lambda a: both_logits[a])
    searched = make_agent(f"alphazero:weights={connect_four_weights},iterations=16,mirror=true", seed=0)
    searched.act({}, state)
    assert searched.stats["iterations"] == 16 and state.legal_actions().count(searched.stats["action"]) == 1
    with pytest.raises(ValueError, match="mirror=true is for games whose actions are the board's columns"):
        make_agent("alphazero:mirror=true").check(game("nim").new_initial_state(n=10))
    with pytest.raises(SpecError, match="mirror"):
        make_agent("alphazero:mirror=sometimes")


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
    # the answers kept are numbers in tuples, which the cyclic collector stops walking
    # (a full cache of lists stalled a timed search a quarter of a second); a tuple is
    # let go at a collection after the one that let its items go
    for _ in range(3):
        gc.collect()
    assert evaluator._cache and not any(gc.is_tracked(answer) for answer in evaluator._cache.values())
    records = run_arena("connect_four_v0", f"mcts:policy=puct,model={connect_four_weights},iterations=20", "random",
                        2, progress=False)
    assert len(records) == 2
    with pytest.raises(ValueError, match="trained for connect_four, not nim"):
        make_agent(f"mcts:policy=puct,model={connect_four_weights}").check(game("nim").new_initial_state(n=9))


def _input_of(state):
    inputs = np.zeros(126, np.float32)
    core_of("connect_four").write_input(core_of("connect_four").encode(state), inputs)
    return inputs.reshape(1, 3, 6, 7)


def test_sampled_opening_moves_vary_the_games_and_follow_the_seed(connect_four_weights):
    spec = f"alphazero:weights={connect_four_weights},iterations=8"
    plain = run_arena("connect_four_v0", spec, "alphabeta:depth=1", 4, progress=False)
    assert len({str(r["moves"]) for r in plain}) == 2  # two deterministic players: one game a seating
    sampled = run_arena("connect_four_v0", f"{spec},sample_moves=3", "alphabeta:depth=1", 6, progress=False)
    assert len({str(r["moves"]) for r in sampled}) > 2
    again = run_arena("connect_four_v0", f"{spec},sample_moves=3", "alphabeta:depth=1", 6, progress=False)
    assert [r["moves"] for r in again] == [r["moves"] for r in sampled]


@pytest.mark.parametrize("iterations,mirror", [(0, False), (24, False), (0, True), (24, True)])
def test_the_agent_judges_many_positions_at_once_as_it_would_one_by_one(connect_four_weights, iterations, mirror):
    sets = read_mistake_sets(SETS_FILE)
    positions = [position for name in SET_NAMES for position in sets.get(name, [])[:4]]
    spec = f"alphazero:weights={connect_four_weights},iterations={iterations},mirror={str(mirror).lower()}"
    agent = make_agent(spec, seed=0)
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
    with pytest.raises(ValueError, match="trained for connect_four, not tic_tac_toe"):
        agent.check(game("tic_tac_toe").new_initial_state())
    # Asked to move without a check first, it refuses as well (its compiled code writes
    # the network's input unchecked: nothing that does not fit may reach it).
    for spec in (f"alphazero:weights={connect_four_weights}", f"alphazero:weights={connect_four_weights},iterations=0",
                 f"mcts:policy=puct,model={connect_four_weights},iterations=5"):
        with pytest.raises(ValueError, match="trained for connect_four, not nim"):
            make_agent(spec).act({}, game("nim").new_initial_state(n=50))
        with pytest.raises(ValueError, match="another board size"):
            make_agent(spec).act({}, small)


# --- the shipped networks ------------------------------------------------------------------------------------
def test_mcts_model_shipped_searches_the_network_shipped_for_the_game_it_plays():
    state = game("connect_four").new_initial_state()
    for move in (3, 2, 3, 2):
        state.apply(move)
    chosen = []
    for model in ("shipped", shipped_path("connect_four")):
        agent = make_agent(f"mcts:policy=puct,model={model},iterations=40", seed=5)
        agent.check(state)
        chosen.append((agent.act({}, state), [(child.action, child.visits) for child in agent.root.children]))
    assert chosen[0] == chosen[1]
    unchecked = make_agent("mcts:policy=puct,model=shipped,iterations=5")
    with pytest.raises(ValueError, match="model=shipped names no network until"):
        unchecked.evaluator.evaluate(state)


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


def test_a_nim_pile_beyond_the_networks_range_is_a_one_line_error(capsys):
    """The shipped Nim network knows piles up to 60: a larger one was a traceback (play)
    and a bug report (arena); now the check before the game, or the move that meets a
    larger pile, says so in one line."""
    from boardzoo.cli import main as cli_main

    agent = make_agent("alphazero")
    with pytest.raises(SpecError, match="the network knows piles up to 60, not 100"):
        agent.check(game("nim").new_initial_state(n=100))
    assert cli_main(["play", "nim_v0:n=100", "alphazero", "random"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "the network knows piles up to 60, not 100" in err
    # a pile range whose first game fits: the arena meets the larger pile at a move
    assert cli_main(["arena", "nim_v0:n=55..100", "alphazero:iterations=8", "random", "--games", "6",
                     "--seed", "3"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "the network knows piles up to 60" in err
