"""What the AlphaZero test files share: small networks with every weight random, and
the committed Connect Four mistake sets."""

from __future__ import annotations

import os

import torch

from boardzoo.training.alphazero.model import PolicyValueNet

ARCHITECTURES = [
    {"kind": "conv", "input": [3, 6, 7], "channels": 16, "blocks": 2, "value_hidden": 8, "actions": 7},
    {"kind": "conv", "input": [8, 6, 3], "channels": 8, "blocks": 0, "value_hidden": 4, "actions": 3},
    {"kind": "mlp", "input": [61], "channels": 32, "blocks": 2, "value_hidden": 16, "actions": 3},
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
