"""The network a hidden-information game learns: the policy-value network of the
searching trainer (:class:`~boardzoo.training.alphazero.model.PolicyValueNet`, whose NumPy
twin the agent plays with) and a belief head on the same trunk, which learns what the
player to move cannot see (the core's ``write_secret``) from what it can. The belief is
a training target only: no decision reads it, and the network file the agent loads has
no belief head."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from boardzoo.agents.alphazero.network import Network, parameter_shapes
from boardzoo.training.alphazero.model import PolicyValueNet


class BeliefPolicyValueNet(PolicyValueNet):
    """``forward(inputs) -> (logits, values)`` as the policy-value network;
    :meth:`with_belief` adds the belief's logits, one per cell of the mover's frame."""

    def __init__(self, architecture: Mapping[str, Any], cells: int):
        super().__init__(architecture)
        if self.conv:
            self.belief_conv = nn.Conv2d(self.architecture["channels"], 1, 1)
        else:
            self.belief_fc = nn.Linear(self.architecture["channels"], cells)

    def with_belief(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        features = self.trunk(x)
        logits, values = self.heads(features)
        if self.conv:
            belief = self.belief_conv(features).reshape(features.shape[0], -1)
        else:
            belief = self.belief_fc(features)
        return logits, values, belief

    def to_network(self, about: Mapping[str, Any] | None = None) -> Network:
        """The NumPy network the agent plays with: the policy and value, no belief head."""
        names = parameter_shapes(self.architecture)
        state = self.state_dict()
        return Network(self.architecture, {name: state[name].detach().cpu().numpy() for name in names}, about)

    def load_network(self, network: Network) -> None:
        """Take ``network``'s policy and value weights (the belief head keeps its own)."""
        self.load_state_dict({name: torch.from_numpy(network.arrays[name].copy())
                              for name in parameter_shapes(network.architecture)}, strict=False)
