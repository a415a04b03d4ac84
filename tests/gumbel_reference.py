"""The plain reference of the compiled Gumbel search (:mod:`boardzoo.fast.gumbel`): one
game, nodes as objects over the model interface (``clone``/``apply``), written for
reading rather than speed. ``test_gumbel_search.py`` beside it holds the compiled search
to it, simulation for simulation, on random positions; it ships with the tests, not the
package, and takes sigma's constants from the compiled search itself."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from boardzoo.fast.gumbel import VALUE_SCALE, VISIT_BASE
from boardzoo.games.model import GameState


class Node:
    def __init__(self, state: GameState):
        self.state = state
        self.mover = state.current_player()
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.value0 = 0.0  # player 0's value: the network's, or the result once over
        self.logits = np.zeros(0)
        self.legal: list[int] = []
        self.edge_visits: dict[int, int] = {}
        self.edge_total: dict[int, float] = {}

    def q(self, action: int) -> float:
        """The mean of player 0's values through ``action``, from this node's mover's side."""
        sign = 1.0 if self.mover == 0 else -1.0
        return sign * self.edge_total[action] / self.edge_visits[action]

    def sigma(self) -> dict[int, float]:
        """sigma(completed q) of every legal action."""
        priors = np.exp(self.logits[self.legal] - self.logits[self.legal].max())
        priors = dict(zip(self.legal, priors / priors.sum()))
        visited = [a for a in self.legal if self.edge_visits[a] > 0]
        own = (1.0 if self.mover == 0 else -1.0) * self.value0
        if visited:
            weight = sum(priors[a] for a in visited)
            weighted = sum(priors[a] * self.q(a) for a in visited) / weight
            count = sum(self.edge_visits[a] for a in visited)
            mixed = (own + count * weighted) / (count + 1)
        else:
            mixed = own
        completed = {a: self.q(a) if self.edge_visits[a] > 0 else mixed for a in self.legal}
        low, high = min(completed.values()), max(completed.values())
        scale = (VISIT_BASE + max(self.edge_visits.values())) * VALUE_SCALE
        return {a: scale * (q - low) / max(high - low, 1e-8) for a, q in completed.items()}

    def improved_policy(self) -> dict[int, float]:
        sigma = self.sigma()
        scores = {a: self.logits[a] + sigma[a] for a in self.legal}
        top = max(scores.values())
        weights = {a: math.exp(s - top) for a, s in scores.items()}
        total = sum(weights.values())
        return {a: w / total for a, w in weights.items()}

    def below_root_choice(self) -> int:
        policy = self.improved_policy()
        visits = sum(self.edge_visits.values())
        return max(self.legal, key=lambda a: (policy[a] - self.edge_visits[a] / (1 + visits), -a))


def halving_schedule(considered: int, simulations: int) -> list[int]:
    """The visits an action has before the simulation that visits it, simulation by
    simulation (as :func:`boardzoo.fast.gumbel.considered_visits` tabulates)."""
    if considered <= 1:
        return list(range(simulations))
    rounds = math.ceil(math.log2(considered))
    schedule: list[int] = []
    visits, racing = 0, considered
    while len(schedule) < simulations:
        for _ in range(max(1, simulations // (rounds * racing))):
            schedule += [visits] * racing
            visits += 1
        racing = max(2, racing // 2)
    return schedule[:simulations]


def gumbel_search(state: GameState, evaluate: Callable[[GameState], tuple[np.ndarray, float]], simulations: int,
                  gumbel: np.ndarray, max_considered: int = 16) -> tuple[int, np.ndarray, float]:
    """The move, the improved policy over every action and the root's value for its
    mover, after ``simulations`` simulations by sequential halving over ``gumbel``.
    ``evaluate(state) -> (logits, value for the player to move)``."""
    def expand(node: Node) -> float:
        if node.mover < 0:
            node.value0 = float(node.state.returns()[0])
        else:
            logits, value = evaluate(node.state)
            node.logits = np.asarray(logits, dtype=np.float64)
            node.legal = sorted(node.state.legal_actions())
            node.edge_visits = dict.fromkeys(node.legal, 0)
            node.edge_total = dict.fromkeys(node.legal, 0.0)
            node.value0 = float(value) if node.mover == 0 else -float(value)
        return node.value0

    root = Node(state.clone())
    expand(root)
    root.visits = 1
    order = sorted(root.legal, key=lambda a: (-(gumbel[a] + root.logits[a]), a))
    considered = order[:min(max_considered, len(root.legal))]
    schedule = halving_schedule(len(considered), simulations)
    for done in range(simulations):
        node, path = root, []
        while True:
            if node is root:
                sigma = root.sigma()
                wanted = [a for a in considered if root.edge_visits[a] == schedule[done]]
                action = max(wanted, key=lambda a: (gumbel[a] + root.logits[a] + sigma[a], -a)) if wanted \
                    else root.below_root_choice()
            else:
                action = node.below_root_choice()
            path.append((node, action))
            if action not in node.children:
                child_state = node.state.clone()
                child_state.apply(action)
                child = node.children[action] = Node(child_state)
                value = expand(child)
                break
            child = node.children[action]
            if child.mover < 0:
                value = child.value0
                break
            node = child
        for parent, action in path:
            parent.edge_visits[action] += 1
            parent.edge_total[action] += value
            parent.visits += 1
        child.visits += 1
    policy = root.improved_policy()
    sigma = root.sigma()
    most = max(root.edge_visits[a] for a in considered)
    action = max((a for a in considered if root.edge_visits[a] == most),
                 key=lambda a: (gumbel[a] + root.logits[a] + sigma[a], -a))
    visits = sum(root.edge_visits.values())
    sign = 1.0 if root.mover == 0 else -1.0
    value = sign * (sum(root.edge_total.values()) / visits if visits else root.value0)
    full = np.zeros(len(root.logits))
    full[list(policy)] = list(policy.values())
    return action, full, value
