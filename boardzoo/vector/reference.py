"""The reference batched game: one raw AEC env per game, stepped one after another, its
results gathered into arrays. Slow and plain on purpose: the AEC envs are the rules'
reference, so every faster implementation is compared with this one action for action."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from boardzoo.envs import make as make_env
from boardzoo.envs.aec import AGENTS, BoardGameEnv
from boardzoo.values import whole

#: The most games one batch holds (a batch's arrays are held in memory at once).
MAX_BATCH = 65_536


@dataclass(frozen=True)
class Batch:
    """The games of a batch after a reset or a step (see the package docstring)."""

    current_player: np.ndarray      # (B,) int8: 0, 1, or -1 once the game is over
    observation: np.ndarray         # (B, 2, *observation shape): each seat's observation
    legal_action_mask: np.ndarray   # (B, actions) bool: the player to move's legal actions
    rewards: np.ndarray             # (B, 2) float32: what the step gave each seat
    terminated: np.ndarray          # (B,) bool: the game ended by its rules
    truncated: np.ndarray           # (B,) bool: the game was cut off (a ply limit)


def checked_actions(name: str, actions: Any, started: bool, over: np.ndarray) -> np.ndarray:
    """``actions`` as an int array of one action a game of a batch whose games have ``over``
    flags; ValueError (naming env ``name``) before a reset, for a wrong shape or type, or
    while a game is over. Every batch checks its actions here before stepping any game."""
    if not started:
        raise ValueError(f"{name}: call reset() before step()")
    actions = np.asarray(actions)
    if actions.shape != over.shape or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(f"{name}: actions must be {len(over)} ints, one a game, got an array of "
                         f"shape {actions.shape} and type {actions.dtype}")
    if over.any():
        raise ValueError(f"{name}: game {int(np.flatnonzero(over)[0])} is over; reset() the batch "
                         "or make it with auto_reset=True")
    return actions


def illegal(name: str, game: int, action: int, reason: str) -> ValueError:
    """The error of an illegal ``action`` in game ``game`` of a batch (none was stepped)."""
    return ValueError(f"{name}: game {game}: action {action} is not legal ({reason}); no game of the batch "
                      "was stepped")


class ReferenceVectorGame:
    """``batch`` games of env ``env``, each a raw AEC env."""

    def __init__(self, env: str, batch: int, auto_reset: bool = False, **params: Any):
        self.batch = whole("batch", batch, 1, MAX_BATCH)
        self.auto_reset = auto_reset
        self.envs: list[BoardGameEnv] = [make_env(env, raw=True, **params) for _ in range(batch)]
        self.name = str(self.envs[0].metadata["name"])
        self.num_actions = int(self.envs[0].action_spaces[AGENTS[0]].n)
        box = self.envs[0].observation_spaces[AGENTS[0]]["observation"]
        self.observation_shape: tuple[int, ...] = tuple(box.shape or ())
        self.observation_dtype = box.dtype
        self._seeds: np.random.Generator | None = None
        self._over = np.zeros(batch, dtype=bool)

    def reset(self, seed: int | None = None) -> Batch:
        """Start every game afresh; ``seed`` (an int >= 0, or None for a fresh one) seeds
        them all, each with a seed of its own drawn from it."""
        if seed is not None:
            whole("seed", seed, low=0)
        self._seeds = np.random.default_rng(seed)
        for env in self.envs:
            self._start(env)
        self._over[:] = False
        return self._gather(np.zeros((self.batch, 2), dtype=np.float32), np.zeros(self.batch, dtype=bool),
                            np.zeros(self.batch, dtype=bool))

    def step(self, actions: Any) -> Batch:
        """Play ``actions[i]`` for the player to move in game ``i``; an illegal action, a
        finished game (without ``auto_reset``) or a wrong shape is a ValueError naming the
        game."""
        actions = checked_actions(self.name, actions, self._seeds is not None, self._over)
        actions_list = actions.tolist()
        for i, (env, action) in enumerate(zip(self.envs, actions_list)):  # all checked before any is played
            game = env.game
            if not 0 <= action < self.num_actions or not game.is_legal(action):
                reason = game.explain_illegal(action) if 0 <= action < self.num_actions else "no such action"
                raise illegal(self.name, i, action, reason)
        rewards = np.zeros((self.batch, 2), dtype=np.float32)
        terminated = np.zeros(self.batch, dtype=bool)
        truncated = np.zeros(self.batch, dtype=bool)
        for i, (env, action) in enumerate(zip(self.envs, actions_list)):
            env.step(action)
            rewards[i] = [env.rewards[agent] for agent in AGENTS]
            terminated[i] = any(env.terminations.values())
            truncated[i] = any(env.truncations.values())
            if terminated[i] or truncated[i]:
                if self.auto_reset:
                    self._start(env)
                else:
                    self._over[i] = True
        return self._gather(rewards, terminated, truncated)

    def _start(self, env: BoardGameEnv) -> None:
        assert self._seeds is not None
        env.reset(seed=int(self._seeds.integers(2**63)))

    def _gather(self, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> Batch:
        players = np.full(self.batch, -1, dtype=np.int8)
        observation = np.zeros((self.batch, 2, *self.observation_shape), dtype=self.observation_dtype)
        mask = np.zeros((self.batch, self.num_actions), dtype=bool)
        for i, env in enumerate(self.envs):
            for seat, agent in enumerate(AGENTS):
                seen = env.observe(agent)
                observation[i, seat] = seen["observation"]
                if seen["action_mask"].any():
                    players[i] = seat
                    mask[i] = seen["action_mask"].astype(bool)
        return Batch(players, observation, mask, rewards, terminated, truncated)
