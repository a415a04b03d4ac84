"""What the AlphaZero test files share: small networks with every weight random, the
committed Connect Four mistake sets, and a training run's settings at a tiny size."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import torch

from boardzoo.agents.alphazero.network import Network
from boardzoo.training.alphazero import PRESETS
from boardzoo.training.alphazero.model import PolicyValueNet

ARCHITECTURES = [
    {"kind": "conv", "input": [3, 6, 7], "channels": 16, "blocks": 2, "value_hidden": 8, "actions": 7},
    {"kind": "conv", "input": [8, 6, 3], "channels": 8, "blocks": 0, "value_hidden": 4, "actions": 3},
    {"kind": "mlp", "input": [61], "channels": 32, "blocks": 2, "value_hidden": 16, "actions": 3},
    # with a belief head (the hidden-information trainer's networks)
    {"kind": "conv", "input": [5, 4, 3], "channels": 8, "blocks": 1, "value_hidden": 4, "actions": 9, "belief": 12},
    {"kind": "mlp", "input": [20], "channels": 16, "blocks": 1, "value_hidden": 4, "actions": 5, "belief": 7},
]
SETS_FILE = os.path.join(os.path.dirname(__file__), "..", "bench", "data", "connect_four_mistake_sets.txt")


def random_module(architecture: dict, seed: int) -> PolicyValueNet:
    torch.manual_seed(seed)
    module = PolicyValueNet(architecture)
    with torch.no_grad():
        for parameter in module.parameters():  # the zero-started layers too, so every weight matters
            parameter.normal_(0, 0.2)
    return module.eval()


def write_connect_four_network(path: str) -> str:
    random_module(ARCHITECTURES[0], 4).to_network({"game": "connect_four"}).save(path)
    return path


TINY = dataclasses.replace(
    PRESETS["connect_four"], channels=4, blocks=1, value_hidden=4, simulations=4, games_per_generation=6,
    games_per_task=3, replay_positions=1000, batch_size=32, eval_games=2, eval_simulations=2,
    anchors=("random",), mistake_sets=SETS_FILE, mistakes_every=2, mistake_positions=2, mistake_simulations=2,
    keep_weights=2, keep_every=0)


def weights_of(run_dir: str, generation: int) -> dict[str, np.ndarray]:
    return Network.load(os.path.join(run_dir, "weights", f"gen-{generation:04d}.npz")).arrays


def averaged_of(run_dir: str) -> dict[str, np.ndarray]:
    return Network.load(os.path.join(run_dir, "weights", "averaged.npz")).arrays


def assert_same_networks(expected_run: str, run: str, generation: int, context: str = "") -> None:
    """``run`` holds exactly ``expected_run``'s networks: generation ``generation``'s and the average."""
    for expected, got in ((weights_of(expected_run, generation), weights_of(run, generation)),
                          (averaged_of(expected_run), averaged_of(run))):
        assert set(got) == set(expected)
        for name, array in expected.items():
            np.testing.assert_array_equal(got[name], array, err_msg=f"{context}{name}")
