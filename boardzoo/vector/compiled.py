"""Connect Four batches on the compiled engine (the ``fast`` extra): the same games,
observations, masks, rewards and endings as the reference batch, move for move, at the
speed of one compiled pass per step."""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.envs import make as make_env
from boardzoo.envs.aec import AGENTS
from boardzoo.fast.batch import connect_four_observe, connect_four_step
from boardzoo.fast.games import encode
from boardzoo.values import whole
from boardzoo.vector.reference import MAX_BATCH, Batch, checked_actions, illegal


class CompiledConnectFour:
    """``batch`` games of ``connect_four_v0`` (with its ``rows`` and ``cols``) as rows of
    one array."""

    def __init__(self, env: str, batch: int, auto_reset: bool = False, **params: Any):
        self.batch = whole("batch", batch, 1, MAX_BATCH)
        self.auto_reset = auto_reset
        sample = make_env(env, raw=True, **params)  # the env checks the parameters
        sample.reset(seed=0)
        self.name = str(sample.metadata["name"])
        self.fresh = encode(sample.game)
        box = sample.observation_spaces[AGENTS[0]]["observation"]
        self.num_actions = int(sample.action_spaces[AGENTS[0]].n)
        self.states = np.tile(self.fresh, (batch, 1))
        self.observation = np.zeros((batch, 2, *tuple(box.shape or ())), dtype=np.int8)
        self.mask = np.zeros((batch, self.num_actions), dtype=bool)
        self.players = np.zeros(batch, dtype=np.int8)
        self._started = False
        self._over = np.zeros(batch, dtype=bool)

    def reset(self, seed: int | None = None) -> Batch:
        """Every game afresh (Connect Four deals nothing at random: ``seed`` is checked
        and otherwise changes nothing)."""
        if seed is not None:
            whole("seed", seed, low=0)
        self.states[:] = self.fresh
        self._started = True
        self._over[:] = False
        zeros = np.zeros(self.batch, dtype=bool)
        return self._gather(np.zeros((self.batch, 2), dtype=np.float32), zeros, zeros.copy())

    def step(self, actions: Any) -> Batch:
        """As :meth:`ReferenceVectorGame.step <boardzoo.vector.reference.ReferenceVectorGame.step>`."""
        actions = checked_actions(self.name, actions, self._started, self._over)
        inside = (actions >= 0) & (actions < self.num_actions)
        legal = inside & self.mask[np.arange(self.batch), np.where(inside, actions, 0)]
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            raise illegal(self.name, i, int(actions[i]), "that column is full" if inside[i] else "no such action")
        rewards = np.zeros((self.batch, 2), dtype=np.float32)
        terminated = np.zeros(self.batch, dtype=bool)
        connect_four_step(self.states, actions.astype(np.int64), self.fresh, self.auto_reset, rewards, terminated)
        if not self.auto_reset:
            self._over |= terminated
        return self._gather(rewards, terminated, np.zeros(self.batch, dtype=bool))

    def _gather(self, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> Batch:
        connect_four_observe(self.states, self.observation, self.mask, self.players)
        return Batch(self.players.copy(), self.observation.copy(), self.mask.copy(), rewards, terminated,
                     truncated)
