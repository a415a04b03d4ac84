"""The reference batched game: one raw AEC env per game, stepped one after another, its
results gathered into arrays. Slow and plain on purpose: the AEC envs are the rules'
reference, so every faster implementation is compared with this one action for action."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardzoo.envs import make as make_env
from boardzoo.envs.aec import AGENTS, BoardGameEnv
from boardzoo.values import whole
from boardzoo.vector.batch import (
    MAX_BATCH,
    Batch,
    checked_actions,
    checked_batch,
    first_refused,
    new_batch_generator,
    refusal,
)


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal action per row of ``mask`` drawn uniformly from ``rng`` (the row's legal
    actions in order, the one at ``floor(rng.random() * count)``), -1 for a row with none:
    the plain version of the compiled ``boardzoo.fast.batch.random_legal_actions``, which
    draws the same."""
    actions = np.full(len(mask), -1, dtype=np.int64)
    for b, row in enumerate(mask):
        legal = np.flatnonzero(row)
        if len(legal):
            actions[b] = legal[int(rng.random() * len(legal))]
    return actions


@dataclass(frozen=True)
class EnvsState:
    """The reference batch's games: one AEC env each, all drawing from one generator."""

    name: str
    envs: list[BoardGameEnv]
    rng: np.random.Generator

    def explain_illegal(self, game: int, action: int) -> str:
        return self.envs[game].game.explain_illegal(action)


class ReferenceVectorGame:
    """``batch`` games of env ``env``, each a raw AEC env."""

    def __init__(self, env: str, batch: int, auto_reset: bool = False, **params: Any):
        self.batch = whole("batch", batch, 1, MAX_BATCH)
        self.auto_reset = auto_reset
        self.template: BoardGameEnv = make_env(env, raw=True, **params)
        self.name = str(self.template.metadata["name"])
        self.num_actions = int(self.template.action_spaces[AGENTS[0]].n)
        box = self.template.observation_spaces[AGENTS[0]]["observation"]
        self.observation_shape: tuple[int, ...] = tuple(box.shape or ())
        self.observation_dtype = box.dtype

    def reset(self, seed: int | None = None) -> Batch:
        """Every game afresh; ``seed`` (an int >= 0, or None for a fresh one) seeds the one
        generator all the batch's deals and chance events are drawn from, game by game."""
        rng = new_batch_generator(seed)
        envs = [copy.deepcopy(self.template) for _ in range(self.batch)]
        for env in envs:
            env.np_random = rng
            env.reset()
        zeros = np.zeros(self.batch, dtype=bool)
        return self._gather(EnvsState(self.name, envs, rng), np.zeros((self.batch, 2), dtype=np.float32),
                            zeros, zeros.copy())

    def step(self, batch: Batch, actions: Any, playing: Any = None) -> Batch:
        """Play ``actions[i]`` for the player to move in game ``i`` of ``batch`` (which stays
        as it was: a batch can be stepped again, another way); only the games where
        ``playing`` (a bool a game; None: every game) is true are stepped, the others stay
        as they are with no reward. With ``auto_reset`` the games that end start afresh
        after every game was stepped, in game order. An illegal action, a finished game
        (without ``auto_reset``) or a wrong shape is a ValueError naming the game, and
        steps no game."""
        actions, playing = checked_actions(self.name, batch, EnvsState, actions, playing)
        refused = first_refused(batch, actions, playing)
        if refused >= 0:
            raise refusal(self.name, batch, refused, int(actions[refused]))
        envs, rng = copy.deepcopy((batch.state.envs, batch.state.rng))
        rewards = np.zeros((self.batch, 2), dtype=np.float32)
        terminated = np.zeros(self.batch, dtype=bool)
        truncated = np.zeros(self.batch, dtype=bool)
        for i, (env, action, play) in enumerate(zip(envs, actions.tolist(), playing.tolist())):
            if play:
                env.step(action)
                rewards[i] = [env.rewards[agent] for agent in AGENTS]
                terminated[i] = any(env.terminations.values())
                truncated[i] = any(env.truncations.values())
        state = EnvsState(self.name, envs, rng)
        if self.auto_reset:
            self._restart(state, terminated | truncated)
        return self._gather(state, rewards, terminated, truncated)

    def restart(self, batch: Batch) -> Batch:
        """``batch`` with the games that are over started afresh, in game order (drawing
        from the batch's generator), the others as they were; no rewards, no flags."""
        checked_batch(self.name, batch, EnvsState)
        state = EnvsState(self.name, *copy.deepcopy((batch.state.envs, batch.state.rng)))
        self._restart(state, batch.current_player < 0)
        zeros = np.zeros(self.batch, dtype=bool)
        return self._gather(state, np.zeros((self.batch, 2), dtype=np.float32), zeros, zeros.copy())

    @staticmethod
    def _restart(state: EnvsState, games: np.ndarray) -> None:
        for env, over in zip(state.envs, games.tolist()):
            if over:
                env.reset()

    def _gather(self, state: EnvsState, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> Batch:
        players = np.full(self.batch, -1, dtype=np.int8)
        observation = np.zeros((self.batch, 2, *self.observation_shape), dtype=self.observation_dtype)
        mask = np.zeros((self.batch, self.num_actions), dtype=bool)
        for i, env in enumerate(state.envs):
            for seat, agent in enumerate(AGENTS):
                seen = env.observe(agent)
                observation[i, seat] = seen["observation"]
                if seen["action_mask"].any():
                    players[i] = seat
                    mask[i] = seen["action_mask"].astype(bool)
        return Batch(players, observation, mask, rewards, terminated, truncated, state)
