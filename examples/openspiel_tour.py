"""boardzoo's games in OpenSpiel, and through OpenSpiel in TorchRL (the ``openspiel`` and
``torchrl`` extras): OpenSpiel's MCTS plays boardzoo's Connect Four, OpenSpiel's CFR
learns the smallest Geister and both libraries measure how exploitable it still is, and
TorchRL's ``OpenSpielEnv`` plays the same Geister as a multi-agent env.

    pip install ".[openspiel,torchrl]"
    python examples/openspiel_tour.py
"""
# needs: pyspiel, torchrl

import numpy as np
import pyspiel
from open_spiel.python.algorithms import cfr, mcts
from open_spiel.python.algorithms import exploitability as spiel_exploitability

from boardzoo.exploitability import build_tree, exploitability
from boardzoo.interop.openspiel import tabular_policy  # importing it registers boardzoo's games

TINY_GEISTER = {"rows": 3, "cols": 4, "blue": 1, "red": 1, "max_turns": 4, "placement": "dealt"}
TINY_NAME = "boardzoo_geister(" + ",".join(f"{k}={v}" for k, v in TINY_GEISTER.items()) + ")"


def mcts_plays_connect_four() -> None:
    game = pyspiel.load_game("boardzoo_connect_four")
    bot = mcts.MCTSBot(game, uct_c=2, max_simulations=300,
                       evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                       random_state=np.random.RandomState(1))
    rng = np.random.RandomState(2)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bot.step(state) if state.current_player() == 0 else rng.choice(state.legal_actions()))
    print(state)
    print("Connect Four, OpenSpiel's MCTS (first) against random: returns", state.returns())


def cfr_learns_tiny_geister() -> None:
    game = pyspiel.load_game(TINY_NAME)
    solver = cfr.CFRPlusSolver(game)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    theirs = spiel_exploitability.exploitability(game, average)
    # The same strategy over boardzoo's tree of the game, and boardzoo's exact measure of it.
    tree = build_tree("geister", **TINY_GEISTER)
    ours = exploitability(tree, tabular_policy(tree, game, average))
    print(f"tiny Geister, OpenSpiel's CFR+ after 20 iterations: exploitability {theirs:.6f} by OpenSpiel, "
          f"{ours:.6f} by boardzoo")


def torchrl_plays_geister() -> None:
    import torch
    from torchrl.envs.libs.openspiel import OpenSpielEnv

    torch.set_num_threads(1)
    env = OpenSpielEnv(TINY_NAME)
    env.set_seed(3)
    rollout = env.rollout(20)
    print(f"tiny Geister in TorchRL: {rollout.shape[0]} steps, rewards at the end "
          f"{rollout['next', 'agents', 'reward'][-1].flatten().tolist()}")


if __name__ == "__main__":
    mcts_plays_connect_four()
    cfr_learns_tiny_geister()
    torchrl_plays_geister()
    print("game over")
