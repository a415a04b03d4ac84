"""The policy-value network in PyTorch, for training: the same architectures and
parameter names as the NumPy network the agent plays with
(:mod:`boardzoo.agents.alphazero.network`), so a trained module is written as that
network's file and read back without conversion."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import nn

from boardzoo.agents.alphazero.network import Network, check_architecture, parameter_shapes


def _start_at_zero(layer: nn.Conv2d | nn.Linear) -> None:
    """A block's last layer starts at zero: the block starts as the identity."""
    with torch.no_grad():
        layer.weight.zero_()
        if layer.bias is not None:
            layer.bias.zero_()


class _ConvBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        _start_at_zero(self.conv2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


class _DenseBlock(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, width)
        _start_at_zero(self.fc2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.fc2(torch.relu(self.fc1(x))))


class PolicyValueNet(nn.Module):
    """``forward(inputs) -> (logits, values)``, values in [-1, 1] for the player to move."""

    def __init__(self, architecture: Mapping[str, Any]):
        super().__init__()
        self.architecture = check_architecture(dict(architecture), "architecture")
        c, blocks = self.architecture["channels"], self.architecture["blocks"]
        actions, hidden = self.architecture["actions"], self.architecture["value_hidden"]
        shape = self.architecture["input"]
        self.conv = self.architecture["kind"] == "conv"
        if self.conv:
            planes, height, width = shape
            self.stem: nn.Module = nn.Conv2d(planes, c, 3, padding=1)
            self.blocks = nn.Sequential(*(_ConvBlock(c) for _ in range(blocks)))
            self.policy_conv = nn.Conv2d(c, 2, 1)
            self.policy_fc = nn.Linear(2 * height * width, actions)
            self.value_conv = nn.Conv2d(c, 1, 1)
            value_in = height * width
        else:
            self.stem = nn.Linear(shape[0], c)
            self.blocks = nn.Sequential(*(_DenseBlock(c) for _ in range(blocks)))
            self.policy_fc = nn.Linear(c, actions)
            value_in = c
        self.value_fc1 = nn.Linear(value_in, hidden)
        self.value_fc2 = nn.Linear(hidden, 1)
        belief = self.architecture.get("belief", 0)
        if belief and self.conv:
            self.belief_conv = nn.Conv2d(c, 1, 1)
        elif belief:
            self.belief_fc = nn.Linear(c, belief)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.heads(self.trunk(x))

    def trunk(self, x: torch.Tensor) -> torch.Tensor:
        """The features every head reads: the stem and the residual blocks."""
        return self.blocks(torch.relu(self.stem(x if self.conv else x.reshape(x.shape[0], -1))))

    def with_belief(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The logits, the values and the belief head's logits, in one pass (a network
        with a belief head)."""
        features = self.trunk(x)
        logits, values = self.heads(features)
        if self.conv:
            return logits, values, self.belief_conv(features).reshape(features.shape[0], -1)
        return logits, values, self.belief_fc(features)

    def heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy's logits and the values, from the trunk's features."""
        n = x.shape[0]
        if self.conv:
            logits = self.policy_fc(torch.relu(self.policy_conv(x)).reshape(n, -1))
            value_in = torch.relu(self.value_conv(x)).reshape(n, -1)
        else:
            logits = self.policy_fc(x)
            value_in = x
        values = torch.tanh(self.value_fc2(torch.relu(self.value_fc1(value_in))))[:, 0]
        return logits, values

    def to_network(self, about: Mapping[str, Any] | None = None) -> Network:
        """The NumPy network with this module's weights (and ``about`` for its file)."""
        arrays = {name: tensor.detach().cpu().numpy().astype(np.float32) for name, tensor in self.state_dict().items()}
        return Network(self.architecture, arrays, about)

    @classmethod
    def from_network(cls, network: Network) -> PolicyValueNet:
        module = cls(network.architecture)
        module.load_state_dict({name: torch.from_numpy(network.arrays[name].copy())
                                for name in parameter_shapes(network.architecture)})
        return module
