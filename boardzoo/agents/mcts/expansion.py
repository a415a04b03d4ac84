"""Expansion: when a leaf gets children, and how many.

* :class:`OneChildPerIteration` (``nthr=0``, source 000): a node's moves are listed in a
  random order when it is first reached; each iteration that reaches it adds one child.
* :class:`AllChildren` (``nthr=N``, source 004): a leaf is evaluated as it is until it has
  ``N`` visits, then gets a child for every move at once, each with its prior.

Under determinization a node may also gain a child later, when a sample first allows a
move no earlier sample did (see :mod:`~boardzoo.agents.mcts.sampling`).
"""

from __future__ import annotations

import random

from boardzoo.agents.mcts.evaluation import Prior
from boardzoo.agents.mcts.tree import Node
from boardzoo.games.model import GameState


class OneChildPerIteration:
    threshold = 0

    def __init__(self, rng: random.Random):
        self.rng = rng

    def open(self, node: Node, state: GameState, player: int) -> int:
        """Make ``node`` expandable; returns the number of nodes created (none)."""
        actions = state.legal_actions()
        self.rng.shuffle(actions)
        node.children, node.untried = [], actions
        return 0


class AllChildren:
    def __init__(self, rng: random.Random, threshold: int, prior: Prior | None = None):
        self.rng, self.threshold, self.prior = rng, threshold, prior

    def open(self, node: Node, state: GameState, player: int) -> int:
        """Give ``node`` a child for every move; returns the number created."""
        actions = state.legal_actions()
        self.rng.shuffle(actions)
        if self.prior is None:
            uniform = 1.0 / len(actions)
            node.children = [Node(action, player, uniform) for action in actions]
        else:
            given = dict(self.prior(state))
            total = sum(given.get(action, 0.0) for action in actions)
            if total > 0:
                node.children = [Node(action, player, given.get(action, 0.0) / total) for action in actions]
            else:  # a prior that gives every legal move nothing says nothing: uniform
                node.children = [Node(action, player, 1.0 / len(actions)) for action in actions]
        node.untried = []
        return len(actions)
