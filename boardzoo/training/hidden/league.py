"""The opponents a learner's games are drawn against: itself (both seats learn), its past
selves and fixed opponents (the game's roll-out policies, or any agent), so that it is
not exploited by one style of play. Among the past selves, and among the fixed
opponents, each is drawn by how hard the learner finds it (prioritised fictitious
self-play): a style that still beats the learner is met more often than one it has
mastered."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from boardzoo.agents.alphazero.network import Network
from boardzoo.training.alphazero.model import PolicyValueNet

#: A game's controller of a seat: the learner, a snapshot (``SNAPSHOT + i``, ``i`` the
#: iteration it was taken at) or a fixed opponent (``FIXED_POLICY - k``, ``k`` its place
#: in the league's ``fixed``).
LEARNER, SNAPSHOT, FIXED_POLICY = 0, 1, -1
#: How quickly a snapshot's score follows the latest games (an exponential average).
SCORE_STEP = 0.05
#: The least weight a snapshot is drawn with, however well the learner does against it.
WEIGHT_FLOOR = 0.02


@dataclass
class Snapshot:
    """A past self: its network (played in PyTorch, kept as the NumPy file's arrays), the
    iteration it was taken at, and the learner's score against it (1 a win, 1/2 a draw)."""

    iteration: int
    network: Network
    score: float = 0.5

    def __post_init__(self) -> None:
        torch_module = PolicyValueNet(self.network.architecture)
        torch_module.load_state_dict({name: torch.from_numpy(array.copy())
                                      for name, array in self.network.arrays.items()})
        self.module = torch_module.eval()

    @property
    def weight(self) -> float:
        return weight(self.score)


def weight(score: float) -> float:
    """How often an opponent the learner scores ``score`` against is drawn, relatively."""
    return max(WEIGHT_FLOOR, (1.0 - score) ** 2)


class League:
    """Draws each new game's opponent: the learner with ``self_share``, one of the ``fixed``
    opponents (their names) by its weight with ``fixed_share``, else a snapshot by its
    weight (the learner when there is none yet). Keeps the newest ``size`` snapshots."""

    def __init__(self, self_share: float, fixed_share: float, fixed: tuple[str, ...], size: int):
        self.self_share, self.fixed_share, self.fixed, self.size = self_share, fixed_share, fixed, size
        self.snapshots: dict[int, Snapshot] = {}  # by the iteration each was taken at
        #: The learner's score against each fixed opponent, by its name.
        self.fixed_scores: dict[str, float] = dict.fromkeys(fixed, 0.5)

    def draw(self, rng: np.random.Generator) -> int:
        u = rng.random()
        if u < self.self_share or (u >= self.self_share + self.fixed_share and not self.snapshots):
            return LEARNER
        if u < self.self_share + self.fixed_share:
            weights = np.array([weight(self.fixed_scores[name]) for name in self.fixed])
            return FIXED_POLICY - int(rng.choice(len(self.fixed), p=weights / weights.sum()))
        taken = list(self.snapshots)
        weights = np.array([self.snapshots[i].weight for i in taken])
        return SNAPSHOT + taken[int(rng.choice(len(taken), p=weights / weights.sum()))]

    def fixed_name(self, controller: int) -> str:
        """The name of the fixed opponent a controller (at most ``FIXED_POLICY``) names."""
        return self.fixed[FIXED_POLICY - controller]

    def snapshot(self, controller: int) -> Snapshot | None:
        """The snapshot a controller names (None once the league let it go)."""
        return self.snapshots.get(controller - SNAPSHOT)

    def record(self, controller: int, score: float) -> None:
        """The learner scored ``score`` in a game against ``controller``."""
        if controller <= FIXED_POLICY:
            name = self.fixed_name(controller)
            self.fixed_scores[name] += SCORE_STEP * (score - self.fixed_scores[name])
            return
        snapshot = self.snapshot(controller) if controller >= SNAPSHOT else None
        if snapshot is not None:
            snapshot.score += SCORE_STEP * (score - snapshot.score)

    def add(self, iteration: int, network: Network) -> None:
        self.snapshots[iteration] = Snapshot(iteration, network)
        for old in sorted(self.snapshots)[:-self.size]:
            del self.snapshots[old]

    def take_over(self, other: League) -> None:
        """Keep ``other``'s past selves (the newest this league's size allows) and its scores
        against the fixed opponents this league draws too: a branch's league, after its
        settings changed."""
        for iteration in sorted(other.snapshots)[-self.size:]:
            self.snapshots[iteration] = other.snapshots[iteration]
        for name in self.fixed:
            self.fixed_scores[name] = other.fixed_scores.get(name, 0.5)

    def scores(self) -> dict[str, float]:
        return {str(i): round(s.score, 3) for i, s in self.snapshots.items()}
