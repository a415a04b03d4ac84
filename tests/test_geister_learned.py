"""The Geister network shipped with boardzoo, and the ``geister-learned`` preset that
searches it: what made it, that it plays from NumPy alone, and that it plays."""

import random
import re
import subprocess
import sys
from pathlib import Path

from geister_positions import random_midgames, recoloured

from boardzoo import arena
from boardzoo.agents import PRESETS, expand, make
from boardzoo.agents.alphazero.evaluator import SHIPPED_ANY, shipped_path
from boardzoo.agents.alphazero.network import Network
from boardzoo.games.geister import GeisterView

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


def test_the_preset_searches_the_shipped_network_with_the_race_and_worse_threats():
    spec = PRESETS["geister-learned"].spec
    assert "model=shipped" in spec and "belief=network" in spec
    assert "adjudicate=race" in spec and "threats=worse" in spec
    agent = make(FIXED, seed=0)
    assert agent.name == "mcts" and agent.iterations == 30 and agent.time_budget is None
    assert expand(FIXED).count("time=") == 1


def test_the_learned_player_beats_random_play_from_either_seat():
    records = arena.run("geister_v0", FIXED, "random", games=4, seed=3, progress=False)
    assert [record["winner"] for record in records] == ["a"] * 4


def test_it_plays_from_numpy_alone():
    """A game of the learned player loads no PyTorch: the network runs on NumPy."""
    program = ("import sys\nfrom boardzoo import arena\n"
               f"arena.run('geister_v0', {FIXED!r}, 'random', games=1, seed=0, progress=False)\n"
               "print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_recolouring_the_opponents_ghosts_never_changes_its_decision():
    """The searched network, race and threat reading included, handed the same seed,
    plays the same move whatever colours the opponent's hidden ghosts really have: it
    decides from the seat's view, the colours it searches over drawn from its belief."""
    agent = make(FIXED)
    rng = random.Random(7)
    changed = 0
    for state in random_midgames(rng, 24, most_plies=50):
        seat, other = state.player, recoloured(state, rng)
        changed += other.red != state.red
        decisions = []
        for full in (state, other):
            agent.reset(seed=9)
            decisions.append(agent.act({}, GeisterView(full, seat)))
        assert decisions[0] == decisions[1]
    assert changed >= 10  # most shuffles did change the colours
