"""The hidden-information trainer (``boardzoo train geister``): its decisions read only
what a seat may know, its pieces against plain references, and the loop at a tiny size,
resumed after a kill (the rl and fast extras)."""

import json
import random
import shutil
import sys

import numpy as np
import pytest

pytest.importorskip("torch", reason="the rl extra is not installed (pip install '.[rl]')")
pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")

import torch  # noqa: E402
from geister_positions import recoloured  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from boardzoo.agents import make  # noqa: E402
from boardzoo.agents.alphazero.network import Network  # noqa: E402
from boardzoo.fast.core import kernels_for  # noqa: E402
from boardzoo.games.geister import GAME, GeisterView  # noqa: E402
from boardzoo.training.hidden.config import PRESETS, HiddenConfig  # noqa: E402
from boardzoo.training.hidden.selfplay import advantages_of, sample_actions  # noqa: E402
from boardzoo.training.hidden.trainer import HiddenTrainer, branch  # noqa: E402

TINY = {"rows": 3, "cols": 4, "blue": 1, "red": 1, "max_turns": 8, "placement": "dealt"}
SMALL = {"rows": 5, "cols": 4, "blue": 2, "red": 2, "exits": 1, "max_turns": 30}


def tiny_config(**changes) -> HiddenConfig:
    settings = {"params": dict(TINY), "games_in_flight": 16, "decisions_per_iteration": 128, "minibatch": 64,
                "epochs": 1, "eval_every": 2, "eval_games": 8, "snapshot_every": 1, "league_size": 2,
                "channels": 8, "blocks": 1, "value_hidden": 8, **changes}
    return HiddenConfig(env="geister_v0", game="geister", **settings)


def quiet(line):
    pass


def GAME_OF_CONNECT_FOUR():
    from boardzoo.envs import make as make_env

    env = make_env("connect_four_v0", raw=True)
    env.reset(seed=0)
    return env.model(env.agent_selection)


def positions(params, count, seed):
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = GAME.new_initial_state(rng, **params)
        while not state.is_terminal():
            if state.current_player() < 0:
                state.apply(state.sample_chance(rng))
                continue
            if state.placed[1 - state.player]:
                found.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
    return found[:count]


def random_network(tmp_path, params=SMALL):
    """A network of the small member (or of ``params``'s) with weights drawn at random
    (their outputs vary from position to position, unlike a fresh network's), saved: its
    file and the file read back."""
    trainer = HiddenTrainer(str(tmp_path / "run"), tiny_config(params=dict(params)), log=quiet)
    with torch.no_grad():
        for parameter in trainer.model.parameters():
            parameter.normal_(0, 0.3)
    path = tmp_path / "net.npz"
    trainer.network().save(str(path))
    return path, Network.load(str(path))


def test_recolouring_the_opponents_ghosts_never_changes_a_decision(tmp_path):
    """The network agent, handed the same seed, plays the same move whatever colours the
    opponent's hidden ghosts have; and the compiled input the self-play games write is
    the same for the true state and for every recolouring of it."""
    trainer = HiddenTrainer(str(tmp_path / "run"), tiny_config(params=dict(SMALL)), log=quiet)
    path = tmp_path / "net.npz"
    trainer.network().save(str(path))
    agent = make(f"network:weights={path}")
    rng = random.Random(5)
    moves_changed = 0
    for state in positions(SMALL, 150, 2):
        other = recoloured(state, rng)
        moves_changed += other.red != state.red
        decisions = []
        for full in (state, other):
            agent.reset(seed=9)
            decisions.append(agent.act({}, GeisterView(full, full.player)))
        assert decisions[0] == decisions[1]
        core = kernels_for(state).core
        inputs = [np.zeros(int(np.prod(trainer.architecture["input"])), np.float32) for _ in range(2)]
        for full, out in zip((state, other), inputs):
            core.write_input(core.encode(full), out)
        np.testing.assert_array_equal(inputs[0], inputs[1])
    assert moves_changed > 50  # most recolourings did change the colours


def test_the_numpy_agent_plays_the_training_network(tmp_path):
    """The file the agent loads gives the logits, values and belief of the PyTorch
    network that trained (the belief head's too, written and read back)."""
    trainer = HiddenTrainer(str(tmp_path / "run"), tiny_config(params=dict(SMALL)), log=quiet)
    with torch.no_grad():
        for parameter in trainer.model.parameters():
            parameter.normal_(0, 0.3)
    network = trainer.network()
    states = positions(SMALL, 64, 3)
    inputs = np.stack([GAME.network_input(s) for s in states])
    with torch.no_grad():
        logits, values, belief = trainer.model.with_belief(torch.from_numpy(inputs))
    path = tmp_path / "network.npz"
    network.save(str(path))
    network = Network.load(str(path))
    numpy_logits, numpy_values = network(inputs)
    np.testing.assert_allclose(numpy_logits, logits.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(numpy_values, values.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(network.belief(inputs), belief.numpy(), rtol=1e-4, atol=1e-4)
    assert network.belief(inputs).shape == (64, 20)  # a logit a square of the 5x4 board


def test_a_search_draws_the_hidden_colours_by_the_networks_belief(tmp_path):
    """belief=network: each hidden ghost's odds of blue are exp(-logit of red) on its
    square of the mover's frame, the same for every recolouring; and MCTS searching the
    network with it plays whole games, seats alternating."""
    import math

    from boardzoo.agents.network import NetworkBelief
    from boardzoo.arena import run as run_arena

    path, network = random_network(tmp_path)
    rng = random.Random(3)
    for state in positions(SMALL, 40, 4):
        view = GeisterView(state, state.player)
        belief = NetworkBelief.for_model(view, network)
        unknown = view.unknown_ghosts()
        logits = network.belief(GAME.network_input(view)[None])[0].reshape(5, 4)
        squares = [divmod(state.pos[g] if state.player == 0 else 19 - state.pos[g], 4) for g in unknown]
        assert belief(view, unknown) == pytest.approx([math.exp(-logits[r, c]) for r, c in squares], rel=1e-5)
        other = GeisterView(recoloured(state, rng), state.player)
        assert NetworkBelief.for_model(other, network)(other, unknown) == belief(view, unknown)
    searcher = f"mcts:policy=puct,model={path},belief=network,iterations=30"
    records = run_arena(f"geister_v0:{','.join(f'{k}={v}' for k, v in SMALL.items())}", searcher, "random",
                        games=4, seed=1)
    assert len(records) == 4 and all(record["moves"] for record in records)
    # a network without a belief head, a game without hidden information: refused in words
    from boardzoo.agents.alphazero.network import Network as Plain

    headless = Plain({**network.architecture, "belief": 0},
                     {k: v for k, v in network.arrays.items() if not k.startswith("belief")}, network.about)
    with pytest.raises(ValueError, match="the network has no belief head"):
        NetworkBelief.for_model(GeisterView(state, state.player), headless)
    with pytest.raises(ValueError, match="belief=network is for games with hidden information"):
        make("mcts:belief=network").check(GAME_OF_CONNECT_FOUR())


def test_the_purple_search_reads_the_networks_belief(tmp_path, monkeypatch):
    """purple:belief=network: the search's odds of blue are the network's (as
    blue_probabilities weighs them), an escape threat the worst of those and the adaptive
    belief's two readings; it decides alike whatever colours the opponent's hidden ghosts
    have, and it plays whole games; model= without belief=network is refused."""
    import boardzoo.agents.purple as purple_module
    from boardzoo.agents.network import NetworkBelief
    from boardzoo.arena import run as run_arena
    from boardzoo.strategy.geister.beliefs import adaptive_readings, blue_probabilities, mixed_reading

    path, network = random_network(tmp_path)
    read, threats = [], []
    original = purple_module.position_of
    monkeypatch.setattr(purple_module, "position_of", lambda view, marked, blue, threat: (
        read.append(blue), threats.append(threat), original(view, marked, blue, threat))[2])
    agent = make(f"purple:belief=network,model={path},time=none,depth=2")
    rng = random.Random(6)
    for state in positions(SMALL, 30, 5):
        view = GeisterView(state, state.player)
        if view.placing:
            continue
        agent.check(view)
        unknown = view.unknown_ghosts()
        blues = state.shape.blue - view.lost[1 - state.player][0]
        odds = NetworkBelief.for_model(view, network)(view, unknown)
        decisions = []
        for seen in (view, GeisterView(recoloured(state, rng), state.player)):
            agent.reset(seed=9)
            decisions.append(agent.act({}, seen))
        assert decisions[0] == decisions[1]
        network_blue = blue_probabilities(odds, blues)
        assert read[-2] == read[-1] == pytest.approx(dict(zip(unknown, network_blue)))
        bluffer, as_bluffer, plain = adaptive_readings(view, unknown, blues)
        mixed = mixed_reading(bluffer, as_bluffer, plain)
        assert threats[-1] == pytest.approx({g: max(b, m, p) for g, b, m, p in zip(unknown, network_blue, mixed,
                                                                                    plain)})
    assert len(read) >= 40  # most of the positions were moves, not placements
    records = run_arena(f"geister_v0:{','.join(f'{k}={v}' for k, v in SMALL.items())}",
                        f"purple:belief=network,model={path},time=none,depth=2", "random", games=4, seed=1)
    assert len(records) == 4 and all(record["moves"] for record in records)
    with pytest.raises(ValueError, match="model= is the network whose belief belief=network reads"):
        make(f"purple:model={path}")
    classic = GAME.new_initial_state(random.Random(0))
    with pytest.raises(ValueError, match="the network was trained for"):  # checked against each game played
        agent.check(GeisterView(classic, 0))


@given(st.lists(st.floats(-1, 1), min_size=1, max_size=30), st.sampled_from([-1.0, 0.0, 1.0]),
       st.floats(0, 1))
def test_advantages_are_the_discounted_sums_of_td_errors(values, result, lam):
    """GAE against its definition: A_t = sum over l of lambda^l * delta_(t+l), each delta
    the next value (the result after the last) less this one."""
    values = np.array(values)
    advantages, returns = advantages_of(values, result, lam)
    following = list(values[1:]) + [result]
    for t in range(len(values)):
        expected = sum(lam ** (k - t) * (following[k] - values[k]) for k in range(t, len(values)))
        assert advantages[t] == pytest.approx(expected, abs=1e-9)
    np.testing.assert_allclose(returns, advantages + values)
    if lam == 1:
        np.testing.assert_allclose(returns, result)


def test_moves_are_drawn_from_the_policy_over_the_legal_actions():
    logits = np.array([[2.0, 0.0, 1.0, 5.0]] * 20_000)
    masks = np.array([[True, True, True, False]] * 20_000)
    actions, log_probs = sample_actions(logits, masks, np.random.default_rng(0))
    assert not (actions == 3).any()
    expected = np.exp([2.0, 0.0, 1.0]) / np.exp([2.0, 0.0, 1.0]).sum()
    np.testing.assert_allclose(np.bincount(actions, minlength=3) / len(actions), expected, atol=0.015)
    np.testing.assert_allclose(log_probs, np.log(expected)[actions], rtol=1e-5)


def test_settings_are_checked():
    with pytest.raises(ValueError, match="learns geister, not connect_four"):
        HiddenConfig(env="connect_four_v0", game="connect_four")
    with pytest.raises(ValueError, match="'expert' is neither a roll-out policy of geister .* nor an agent: unknown"):
        tiny_config(fixed_opponents=("expert",))
    with pytest.raises(ValueError, match="'alphazero' plays .*, not geister"):
        tiny_config(fixed_opponents=("alphazero",))
    with pytest.raises(ValueError, match="no roll-out policy 'purple'"):
        tiny_config(eval_opponents=("purple",))
    with pytest.raises(ValueError, match="clip must be a number"):
        tiny_config(clip=5.0)
    with pytest.raises(ValueError, match="add up to more than 1"):
        tiny_config(self_share=0.8, fixed_share=0.5)
    with pytest.raises(ValueError, match="disguised_share must be"):
        tiny_config(disguised_share=1.5)
    assert PRESETS["geister"].env == "geister_v0"


@pytest.mark.slow
@pytest.mark.training
def test_a_tiny_run_learns_checkpoints_and_resumes(tmp_path):
    run = tmp_path / "run"
    trainer = HiddenTrainer(str(run), tiny_config(fixed_share=0.4), log=quiet, command="first", commit="a" * 40)
    trainer.train(iterations=3)
    history = [json.loads(line) for line in (run / "history.jsonl").read_text().splitlines()]
    assert [entry["iteration"] for entry in history] == [1, 2, 3]
    assert all(entry["decisions"] >= 128 * entry["iteration"] for entry in history)
    assert "eval" in history[1] and set(history[1]["eval"]) == set(trainer.config.eval_opponents)
    assert set(trainer.config.eval_opponents) == {"rushing", "forward", "random", "baiting"}
    # the league keeps 2 snapshots: the first one's file went with it
    assert sorted(path.name for path in (run / "weights").glob("iter-*")) == ["iter-00002.npz", "iter-00003.npz"]
    assert (run / "weights" / "latest.npz").exists()
    resumed = HiddenTrainer(str(run), log=quiet, command="second", commit="b" * 40)
    assert resumed.iteration == 3 and sorted(resumed.league.snapshots) == [2, 3]
    for iteration, snapshot in trainer.league.snapshots.items():  # kept in half precision
        for name, array in snapshot.network.arrays.items():
            back = resumed.league.snapshots[iteration].network.arrays[name]
            assert back.dtype == np.float32
            np.testing.assert_array_equal(back, array.astype(np.float16).astype(np.float32))
    assert resumed.league.fixed_scores == trainer.league.fixed_scores  # kept exactly
    assert resumed.league.fixed_scores != dict.fromkeys(trainer.league.fixed, 0.5)  # they were played and kept
    resumed.train(iterations=4)
    assert len((run / "history.jsonl").read_text().splitlines()) == 4
    # the weights name every command that made them, with its commit
    about = Network.load(str(run / "weights" / "latest.npz")).about
    assert about["commands"] == [{"command": "first", "commit": "a" * 40}, {"command": "second", "commit": "b" * 40}]
    assert about["iteration"] == 4 and about["training_hours"] >= 0
    with pytest.raises(ValueError, match="other settings"):
        HiddenTrainer(str(run), tiny_config(clip=0.3), log=quiet)


@pytest.mark.slow
@pytest.mark.training
def test_a_branch_goes_on_from_its_source_with_settings_changed(tmp_path):
    import os

    source = tmp_path / "source"
    HiddenTrainer(str(source), tiny_config(fixed_opponents=("rushing", "forward")), log=quiet,
                  command="made").train(iterations=2)
    before = {path: path.read_bytes() for path in source.rglob("*") if path.is_file() and path.name != ".lock"}
    lower = branch(str(source), str(tmp_path / "lower"), {"learning_rate": "0.0001"}, game="geister",
                   command="branched", log=quiet)
    assert lower.iteration == 2 and lower.config.learning_rate == 0.0001
    lower.train(iterations=3)
    resumed = HiddenTrainer(str(tmp_path / "lower"), log=quiet)
    assert resumed.iteration == 3 and resumed.config.learning_rate == 0.0001
    assert [entry["iteration"] for entry in resumed.history] == [1, 2, 3]
    assert resumed.commands[0]["command"] == "made"
    assert resumed.commands[1]["branched_from"] == f"{os.path.abspath(source)} at iteration 2"
    assert before == {path: path.read_bytes() for path in source.rglob("*") if path.is_file() and path.name != ".lock"}
    # the league's settings changed: the branch's first call draws by them already
    bait = branch(str(source), str(tmp_path / "bait"), {"fixed_opponents": "baiting", "fixed_share": "0.5",
                                                          "league_size": "1"}, log=quiet)
    assert bait.league.fixed == ("baiting",) and bait.league.fixed_share == 0.5
    assert list(bait.league.snapshots) == [2] and bait.league.fixed_scores == {"baiting": 0.5}
    bait.train(iterations=4)
    assert any("baiting" in entry["games"] for entry in bait.history[2:])
    assert set(bait.history[-1]["league"]) == {"4", "baiting"}
    shutil.rmtree(tmp_path / "bait")
    # a run kept as committed (no weights folder: only its checkpoint, settings and history)
    kept = tmp_path / "kept"
    shutil.copytree(source, kept, ignore=shutil.ignore_patterns("weights", "eval", ".lock"))
    from_kept = branch(str(kept), str(tmp_path / "from-kept"), {"learning_rate": "0.0001"}, log=quiet)
    assert Network.load(str(tmp_path / "from-kept" / "weights" / "latest.npz")).about["iteration"] == 2
    from_kept.train(iterations=3)
    shutil.rmtree(kept)
    shutil.rmtree(tmp_path / "from-kept")
    with pytest.raises(ValueError, match="keeps its source's channels"):
        branch(str(source), str(tmp_path / "wide"), {"channels": "16"}, log=quiet)
    with pytest.raises(ValueError, match="is not empty"):
        branch(str(source), str(tmp_path / "lower"), {}, log=quiet)
    assert sorted(os.listdir(tmp_path)) == ["lower", "source"]
    # from the command line: the same command makes the branch, then resumes it
    from boardzoo.cli import main

    branching = ["train", "geister", "--run", str(tmp_path / "cli"), "--branch-from", str(source), "--generations", "3"]
    assert main([*branching, "--set", "channels=16"]) == 2 and not (tmp_path / "cli").exists()
    assert main([*branching, "--set", "entropy_weight=0.02"]) == 0
    assert main([*branching, "--set", "entropy_weight=0.02", "--generations", "4"]) == 0
    assert HiddenTrainer(str(tmp_path / "cli"), log=quiet).iteration == 4
    assert main([*branching, "--set", "entropy_weight=0.03"]) == 2


@pytest.mark.slow
@pytest.mark.training
def test_a_killed_run_resumes_from_its_checkpoint(tmp_path, terminated_run):
    """SIGTERM mid-run: the trainer writes its checkpoint on the way out, and the same
    command carries on from it."""
    import signal
    import subprocess

    run = tmp_path / "run"
    sets = ["--set", "games_in_flight=16", "--set", "decisions_per_iteration=128", "--set", "minibatch=64",
            "--set", "channels=8", "--set", "blocks=1", "--set", "eval_games=0", "--set", "checkpoint_minutes=0.01"]
    tiny = "geister_v0:" + ",".join(f"{key}={value}" for key, value in TINY.items())
    command = [sys.executable, "-m", "boardzoo", "train", "geister", "--run", str(run), "--env", tiny, *sets]
    # (patience: the first call may compile the small member's kernels)
    status, err = terminated_run([*command, "--generations", "100000"], 1, run / "history.jsonl", patience=900)
    assert status == 128 + signal.SIGTERM, err
    done = len((run / "history.jsonl").read_text().splitlines())
    assert done >= 1
    finished = subprocess.run([*command, "--generations", str(done + 2)], capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stderr
    iterations = [json.loads(line)["iteration"] for line in (run / "history.jsonl").read_text().splitlines()]
    assert iterations == list(range(1, done + 3))
    assert json.loads((run / "config.json").read_text())["params"] == TINY


@pytest.mark.slow
@pytest.mark.training
def test_an_agent_in_the_league_plays_from_its_seats_view(tmp_path, monkeypatch):
    """A fixed opponent named by an agent spec plays its games move by move: each move
    from the view of its own seat (the opponent's colours hidden), with that seat's legal
    mask; the learner's scores against it are kept by its name."""
    import boardzoo.training.hidden.selfplay as selfplay

    seen = []

    class Spy:
        def __init__(self, spec):
            self.agent = make(spec)

        def check_once(self, model):
            self.agent.check_once(model)

        def reset(self, seed=None):
            self.agent.reset(seed)

        def act(self, observation, model):
            action = self.agent.act(observation, model)
            seen.append((observation, model, action))
            return action

    monkeypatch.setattr(selfplay, "make_agent", Spy)
    spec = "purple:time=none,depth=1"
    trainer = HiddenTrainer(str(tmp_path / "run"), tiny_config(params=dict(SMALL), fixed_opponents=(spec,),
                                                               fixed_share=0.5), log=quiet)
    trainer.train(iterations=2)
    assert len(seen) > 50 and any(spec in entry["games"] for entry in trainer.history)
    assert set(trainer.league.fixed_scores) == {spec}
    for observation, model, action in seen[:200]:
        assert isinstance(model, GeisterView) and observation["action_mask"][action] == 1
        seat = model.player
        assert np.array_equal(observation["action_mask"], np.array(model.legal_mask(), np.int8))
        hidden = [g for g in range(model.shape.ghosts * (1 - seat), model.shape.ghosts * (2 - seat))
                  if model.pos[g] >= 0]
        assert hidden and all(model.red[g] is None for g in hidden)


@pytest.mark.slow
@pytest.mark.training
def test_past_selves_play_disguised_in_their_share_of_games(tmp_path, monkeypatch):
    """With ``disguised_share`` 1 every game against a past self is played disguised (the
    game's decoy is drawn for its moves, and the history names them apart); with 0 none is."""
    import boardzoo.training.hidden.selfplay as selfplay

    decoyed = []
    original = selfplay.LeagueGames.__init__

    def spying(self, *args, **kwargs):
        original(self, *args, **kwargs)
        disguise = self.disguise

        def spy(inputs, ranks):
            decoyed.append(len(inputs))
            disguise(inputs, ranks)

        self.disguise = spy

    monkeypatch.setattr(selfplay.LeagueGames, "__init__", spying)
    trainer = HiddenTrainer(str(tmp_path / "run"), tiny_config(params=dict(SMALL), self_share=0.2, fixed_share=0.0,
                                                               disguised_share=1.0), log=quiet)
    trainer.train(iterations=6)
    played = {name for entry in trainer.history for name in entry["games"]}
    assert "past selves disguised" in played and "past selves" not in played
    assert sum(decoyed) > 100
    plain = HiddenTrainer(str(tmp_path / "plain"), tiny_config(params=dict(SMALL), self_share=0.2, fixed_share=0.0),
                          log=quiet)
    decoyed.clear()
    plain.train(iterations=6)
    assert "past selves" in {name for entry in plain.history for name in entry["games"]} and not decoyed


def test_the_league_draws_each_kind_of_opponent_in_its_share():
    """Half the games the learner plays itself, a tenth a roll-out policy, the rest a past
    self (itself while it has none), each past self and each roll-out policy by how hard
    the learner finds it; and a snapshot the league lets go is no longer drawn."""
    from boardzoo.agents.alphazero.network import Network, parameter_shapes
    from boardzoo.training.hidden.league import FIXED_POLICY, LEARNER, SNAPSHOT, League

    league = League(0.5, 0.1, ("rushing", "random"), size=2)
    rng = np.random.default_rng(0)
    draws = [league.draw(rng) for _ in range(20_000)]
    assert abs(draws.count(LEARNER) / len(draws) - 0.9) < 0.01
    assert {d for d in draws if d != LEARNER} == {FIXED_POLICY, FIXED_POLICY - 1}
    architecture = {"kind": "mlp", "input": [4], "channels": 2, "blocks": 0, "value_hidden": 2, "actions": 3}
    network = Network(architecture, {name: np.zeros(shape, np.float32)
                                     for name, shape in parameter_shapes(architecture).items()})
    for iteration in (10, 20, 30):
        league.add(iteration, network)
    assert sorted(league.snapshots) == [20, 30] and league.snapshot(SNAPSHOT + 10) is None
    league.snapshots[20].score, league.snapshots[30].score = 0.0, 0.9  # weights 1 and 0.02 (the floor)
    draws = [league.draw(rng) for _ in range(20_000)]
    past = [d for d in draws if d >= SNAPSHOT]
    assert abs(len(past) / len(draws) - 0.4) < 0.015
    assert abs(past.count(SNAPSHOT + 30) / len(past) - 0.02 / 1.02) < 0.01
    league.record(SNAPSHOT + 30, 0.0)
    assert league.snapshots[30].score == pytest.approx(0.9 - 0.05 * 0.9)
    fixed = [d for d in draws if d <= FIXED_POLICY]
    assert abs(fixed.count(FIXED_POLICY) / len(fixed) - 0.5) < 0.05  # both unplayed yet: even
    for _ in range(200):  # the learner always beats the rushing player, never random play
        league.record(FIXED_POLICY, 1.0)
        league.record(FIXED_POLICY - 1, 0.0)
    assert league.fixed_scores["rushing"] > 0.99 and league.fixed_scores["random"] < 0.01
    draws = [league.draw(rng) for _ in range(20_000)]
    fixed = [d for d in draws if d <= FIXED_POLICY]
    assert abs(len(fixed) / len(draws) - 0.1) < 0.01
    assert abs(fixed.count(FIXED_POLICY) / len(fixed) - 0.02 / 1.02) < 0.01


@pytest.mark.parametrize("params", [{}, SMALL], ids=["classic", "small"])
def test_a_disguised_past_self_plays_from_a_decoy_that_tells_nothing_of_its_colours(params):
    """The decoy depends on where the mover's ghosts stand and how many of its reds are
    left, never on which of them are red: recolouring its own ghosts leaves the disguised
    input as it was. Everything but the two colour planes stays; the decoy marks as many
    reds and blues as the truth, on the mover's own ghosts; inputs before the mover's
    placement stay as they were."""
    from boardzoo.games.geister import disguised_colours, network_input

    rng = random.Random(3)
    found = positions(params, 60, seed=4)
    ghosts = found[0].shape.ghosts
    ranks = np.random.default_rng(5).random((len(found), 64))
    truth = np.stack([network_input(state) for state in found])
    shuffled = np.stack([network_input(recoloured(state, rng, own=True)) for state in found])
    disguised, disguised_shuffled = truth.copy(), shuffled.copy()
    disguised_colours(disguised, ranks)
    disguised_colours(disguised_shuffled, ranks)
    np.testing.assert_array_equal(disguised, disguised_shuffled)
    assert not np.array_equal(truth, shuffled)  # the recolouring was seen before the disguise
    colours = slice(ghosts, ghosts + 2)
    np.testing.assert_array_equal(np.delete(disguised, [ghosts, ghosts + 1], axis=1),
                                  np.delete(truth, [ghosts, ghosts + 1], axis=1))
    np.testing.assert_array_equal(disguised[:, colours].sum(axis=(2, 3)), truth[:, colours].sum(axis=(2, 3)))
    np.testing.assert_array_equal(disguised[:, colours].sum(axis=1), truth[:, colours].sum(axis=1))
    assert not np.array_equal(disguised, truth)
    unplaced = network_input(GAME.new_initial_state(random.Random(0), **params))[None]
    before = unplaced.copy()
    disguised_colours(unplaced, ranks[:1])
    np.testing.assert_array_equal(unplaced, before)


def test_the_belief_accuracy_tool_scores_each_belief_on_the_ghosts_it_could_not_see(tmp_path):
    """tools/belief_accuracy.py on games against the bluffing player: every reading is of
    the hidden ghosts at the reading side's turns (counted here from the replayed games),
    the expert's adaptive model, made to read bluffers, reads this one better than a coin
    and than a plain reading (advanced ghosts are blue); the network's belief is scored too."""
    import importlib.util
    import pathlib

    from boardzoo import arena
    from boardzoo.envs import make as make_env
    from boardzoo.ledger import read_records

    spec = importlib.util.spec_from_file_location(
        "belief_accuracy", pathlib.Path(__file__).parent.parent / "tools" / "belief_accuracy.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    out = tmp_path / "games.jsonl"
    arena.run("geister_v0", "policy:rollout=forward", "policy:rollout=baiting", 8, seed=2, out=str(out),
              progress=False)
    path, _ = random_network(tmp_path, params={})
    found = tool.scores(read_records(str(out), 100)[0], "a", path)
    hidden = in_reach = 0
    for record in read_records(str(out), 100)[0]:
        env = make_env(record["env"])
        env.reset(seed=record["seed"])
        seat = 0 if record["seat_of_a"] == "player_0" else 1
        for player, action in record["moves"]:
            state = env.unwrapped.game
            if player == seat and not state.placing:
                theirs = [state.pos[g] for g in range(8 * (1 - seat), 8 * (2 - seat)) if state.pos[g] >= 0]
                ours = [state.pos[g] for g in range(8 * seat, 8 * (seat + 1)) if state.pos[g] >= 0]
                hidden += len(theirs)
                in_reach += sum(1 for q in theirs if any(abs(q % 6 - o % 6) + abs(q // 6 - o // 6) == 1
                                                         for o in ours))
            env.step(action)
    assert {name for name, _ in found} == {"network", "adaptive", "plain", "uniform"}
    assert {group for _, group in found} == set(tool.GROUPS)
    assert all(found[name, "all"].count == hidden for name, _ in found) and hidden > 200
    assert all(found[name, "in reach"].count == in_reach for name, _ in found) and in_reach > 20
    loss = {name: score.loss / score.count for (name, group), score in found.items() if group == "all"}
    assert loss["adaptive"] < min(loss["uniform"], loss["plain"])
