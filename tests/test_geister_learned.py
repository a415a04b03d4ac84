"""The Geister network shipped with boardzoo, and the ``geister-learned`` preset that
searches it: what made it, that it plays from NumPy alone, and that it plays."""

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from geister_positions import decides_alike_recoloured, placements_drawn, random_midgames, recoloured

from boardzoo import arena
from boardzoo.agents import PRESETS, expand, make
from boardzoo.agents.alphazero.evaluator import SHIPPED_ANY, shipped_path
from boardzoo.agents.alphazero.network import Network
from boardzoo.games.geister import GeisterState, GeisterView

ROOT = Path(__file__).resolve().parent.parent
#: The learned player, its clock replaced by a fixed budget: the same seed, the same game.
FIXED = "geister-learned:time=none,iterations=30"


def test_the_shipped_network_says_what_made_it():
    network = Network.load(shipped_path("geister", shipped=SHIPPED_ANY))
    made = network.about
    assert made["game"] == "geister" and made["trainer"] == "hidden" and made["params"] == {}
    assert 0 < made["training_hours"] <= 24  # the cost: at most 24 hours on two cores
    for entry in made["commands"]:  # each call of the trainer that made it, at its commit
        assert entry["command"].startswith("boardzoo train geister --run ")
        assert re.fullmatch(r"[0-9a-f]{7,40}", entry["commit"])
    assert made["commands"][-1]["command"].startswith("boardzoo train geister --run training-runs/geister-run1 ")
    assert network.architecture.get("belief")  # the head that belief=network reads


def test_the_preset_searches_the_shipped_network_with_the_race_worse_threats_and_a_match_reading():
    spec = PRESETS["geister-learned"].spec
    assert "model=shipped" in spec and "belief=network" in spec
    assert "adjudicate=race" in spec and "threats=worse" in spec and "match=learn" in spec
    agent = make(FIXED, seed=0)
    assert agent.name == "mcts" and agent.iterations == 30 and agent.time_budget is None
    assert expand(FIXED).count("time=") == 1


def test_the_learned_player_beats_random_play_from_either_seat():
    """It loses about one game in twenty to random play (the league's figure; its losses
    are the fourth red taken): ten games, seats alternating, eight won at least, a rate
    a broken player (about even) reaches once in twenty matches."""
    records = arena.run("geister_v0", FIXED, "random", games=10, seed=3, progress=False)
    won = [record["winner"] == "a" for record in records]
    assert sum(won) >= 8 and any(won[0::2]) and any(won[1::2])


def test_it_plays_from_numpy_alone():
    """A game of the learned player loads no PyTorch: the network runs on NumPy."""
    program = ("import sys\nfrom boardzoo import arena\n"
               f"arena.run('geister_v0', {FIXED!r}, 'random', games=1, seed=0, progress=False)\n"
               "print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("spec", [FIXED, FIXED + ",match=learn-in-game", FIXED + ",captures=cautious",
                                  FIXED + ",captures=wary"])
def test_recolouring_the_opponents_ghosts_never_changes_its_decision(spec):
    """The searched network, race and threat reading included (and the readers weighed
    within the game, and captures read cautiously), handed the same seed, plays the same move
    whatever colours the opponent's hidden ghosts really have: it decides from the seat's
    view, the colours it searches over drawn from its belief."""
    agent = make(spec)
    rng = random.Random(7)
    states = random_midgames(rng, 24, most_plies=70)
    assert sum(recoloured(state, random.Random(1)).red != state.red for state in states) >= 10  # colours change
    assert all(decides_alike_recoloured(agent, state, rng) for state in states)


def test_it_draws_its_placement_from_the_networks_own_mix_and_searches_every_other_move_as_before():
    """The placement is a secret: drawn from the policy the network learned in self-play
    (which mixes), never the search's one favourite (the same red set every game)."""
    from boardzoo.agents.alphazero.evaluator import FileNetworkEvaluator

    prior = dict(FileNetworkEvaluator(shipped_path("geister", shipped=SHIPPED_ANY)).prior(GeisterState()))
    favourite, share = max(prior.items(), key=lambda item: item[1])
    chosen = placements_drawn("geister-learned:time=none,iterations=2", 120)
    drawn = chosen[::2]  # player_0's, from the start the prior was read at
    spread = 4 * (share * (1 - share) / len(drawn)) ** 0.5
    assert abs(drawn.count(favourite) / len(drawn) - share) < spread and len(set(chosen)) >= 4
    for state in random_midgames(random.Random(3), 8, most_plies=60):
        seat = state.current_player()
        view = GeisterView(state, seat)
        assert make(FIXED, seed=5).act(None, view) == make(FIXED + ",secret=search", seed=5).act(None, view)


@pytest.mark.parametrize("match", ["learn", "learn-calibrated", "learn-tells"])
def test_over_a_match_it_reads_as_before_until_taught_and_never_peeks_once_taught(match):
    """match=learn: untaught (the arena, the league) every decision is the one the network's
    belief alone makes; taught a finished game, its belief mixes in the opponent profile
    (and, with match=learn-calibrated, its calibration; with match=learn-tells, the tells
    it learned), and recolouring
    the opponent's hidden ghosts still never changes a decision."""
    plain, learner = make(FIXED + ",match=none"), make(FIXED + f",match={match}")
    rng = random.Random(8)
    positions = random_midgames(rng, 12, most_plies=50)
    for state in positions:
        view = GeisterView(state, state.player)
        plain.reset(seed=3)
        learner.reset(seed=3)
        assert learner.act({}, view) == plain.act({}, view)
    finished = random_midgames(rng, 1)[0]  # a game's last position, every colour shown
    learner.end_of_game(finished, 0)
    reader = learner.match_reader
    assert reader.games == 1 and reader.readings == [] and reader.weights() != (1.0, 0.0)
    assert (reader.calibration is not None and reader.calibration.games == 1) == (match == "learn-calibrated")
    assert (reader.tells is not None and reader.tells.games == 1) == (match == "learn-tells")
    assert all(decides_alike_recoloured(learner, state, rng) for state in positions)


#: A game against Naotti2020 over the tournament server, to our 31st move: its ghost on our
#: exit corner, next to our H, three of its reds taken (one more loses) and one of its
#: blues. Its colour is a gamble; not taking it loses at once if it is blue.
ON_THE_EXIT = [32, 91, 8, 3, 8, 7, 3, 8, 8, 4, 0, 7, 13, 5, 9, 1, 0, 8, 0, 9, 7, 9, 7, 12, 0, 29, 4, 12, 4, 12, 19,
               12, 17, 19, 4, 25, 4, 25, 12, 1, 19, 24, 20, 24, 20, 6, 20, 21, 12, 24, 23, 24, 16, 4, 16, 4, 16, 4,
               20, 7, 23, 4]
H_TAKES_IT = 4 * 7 + 1


def test_with_forced_playouts_it_takes_the_runner_whatever_its_first_sample_said():
    """The capture has a small prior (0.02); without forced playouts its one visit can be
    a sample in which the ghost is red, a loss, and PUCT then leaves it (two seeds of eight
    at 1,500 iterations walked away, and the ghost left). Forced playouts sample it enough."""
    state = GeisterState(300)
    for action in ON_THE_EXIT:
        state.apply(action)
    assert state.lost[1] == [1, 3] and state.board[35] >= 8  # three reds taken; a ghost on the corner
    agent = make("geister-learned:time=none,iterations=1500,forced=2")
    for seed in range(4):
        agent.reset(seed=seed)
        assert agent.act({}, GeisterView(state, 0)) == H_TAKES_IT
