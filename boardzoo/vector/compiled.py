"""Batches on the compiled engine (the ``fast`` extra): the same games, observations,
masks, rewards and endings as the reference batch, move for move and draw for draw, at
the speed of one compiled pass per step."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardzoo.envs import make as make_env
from boardzoo.envs.aec import AGENTS
from boardzoo.fast.batch import connect_four_step, observe, restart_cantris, restart_copies, restart_nim, step
from boardzoo.fast.games import CONNECT_FOUR, GAME_IDS, encode
from boardzoo.games.cantris import WHOLE_DEAL_ATTEMPTS, column_values
from boardzoo.games.registry import game, games
from boardzoo.values import whole
from boardzoo.vector.batch import (
    MAX_BATCH,
    Batch,
    checked_actions,
    checked_batch,
    new_batch_generator,
    refusal,
)

#: How each compiled env starts a game afresh, as its game declares it: ``copy`` a start
#: that draws nothing, or the game's own draw compiled (Nim's pile, Cantris' deal), draw
#: for draw as its env.
RESTARTS = {env: game.batch_restart for game in games().values() if game.batch_restart is not None
            for env in game.envs}


@dataclass(frozen=True)
class ArraysState:
    """The compiled batch's games: one row each in the compiled layout, and the state of
    the generator they draw from (None for games that draw nothing)."""

    name: str
    states: np.ndarray
    rng: Mapping[str, Any] | None

    def explain_illegal(self, game: int, action: int) -> str:
        return "not among that position's legal actions"


class CompiledVectorGame:
    """``batch`` games of a compiled env (one of :data:`RESTARTS`) as rows of one array."""

    def __init__(self, env: str, batch: int, auto_reset: bool = False, **params: Any):
        self.batch = whole("batch", batch, 1, MAX_BATCH)
        self.auto_reset = auto_reset
        self.template = make_env(env, raw=True, **params)  # the env checks the parameters
        self.name = str(self.template.metadata["name"])
        self.restart_kind = RESTARTS[self.name]
        self.template.reset(seed=0)
        name = self.template.game.game_name
        self.game_id = GAME_IDS[name]
        self.draws = self.restart_kind != "copy" or game(name).chance
        self.fresh = encode(self.template.game)  # also refuses boards the compiled core cannot hold
        box = self.template.observation_spaces[AGENTS[0]]["observation"]
        self.num_actions = int(self.template.action_spaces[AGENTS[0]].n)
        self.observation_shape: tuple[int, ...] = tuple(box.shape or ())
        self.observation_dtype = box.dtype
        self._legal = np.zeros(self.num_actions, dtype=np.int64)
        # One generator object serves every step: each sets it to its batch's state first
        # (a batch's draws are in its state, not in this object), so no step seeds one anew.
        self._rng = np.random.Generator(np.random.PCG64(0))
        if self.restart_kind == "cantris":
            self.deal_values = np.array(column_values(self.template.rows, self.template.deal), dtype=np.int64)

    def reset(self, seed: int | None = None) -> Batch:
        """As :meth:`ReferenceVectorGame.reset <boardzoo.vector.reference.ReferenceVectorGame.reset>`."""
        rng = new_batch_generator(seed)
        states = np.empty((self.batch, len(self.fresh)), dtype=np.int64)
        self._restart(states, np.arange(self.batch), rng)
        zeros = np.zeros(self.batch, dtype=bool)
        return self._gather(states, rng, np.zeros((self.batch, 2), dtype=np.float32), zeros, zeros.copy())

    def step(self, batch: Batch, actions: Any, playing: Any = None) -> Batch:
        """As :meth:`ReferenceVectorGame.step <boardzoo.vector.reference.ReferenceVectorGame.step>`."""
        actions, playing = checked_actions(self.name, batch, ArraysState, actions, playing)
        states = batch.state.states.copy()
        rewards = np.empty((self.batch, 2), dtype=np.float32)
        terminated = np.empty(self.batch, dtype=bool)
        truncated = np.zeros(self.batch, dtype=bool)
        if self.game_id == CONNECT_FOUR:  # the hot path: the observation kept up to date, not rewritten
            observation, mask = batch.observation.copy(), batch.legal_action_mask.copy()
            players = batch.current_player.copy()
            refused = connect_four_step(states, actions, playing, self.fresh, self.auto_reset,
                                        observation.reshape(self.batch, 2, -1), mask, players, rewards, terminated)
            if refused >= 0:
                raise refusal(self.name, batch, refused, int(actions[refused]))
            states.flags.writeable = False
            return Batch(players, observation, mask, rewards, terminated, truncated,
                         ArraysState(self.name, states, None))
        rng = self._generator(batch.state.rng)
        refused = step(self.game_id, states, actions, playing, batch.current_player, batch.legal_action_mask, rng,
                       rewards, terminated)
        if refused >= 0:
            raise refusal(self.name, batch, refused, int(actions[refused]))
        if self.auto_reset and terminated.any():
            self._restart(states, np.flatnonzero(terminated), rng)
        return self._gather(states, rng, rewards, terminated, truncated)

    def restart(self, batch: Batch) -> Batch:
        """As :meth:`ReferenceVectorGame.restart <boardzoo.vector.reference.ReferenceVectorGame.restart>`."""
        checked_batch(self.name, batch, ArraysState)
        states = batch.state.states.copy()
        rng = self._generator(batch.state.rng)
        self._restart(states, np.flatnonzero(batch.current_player < 0), rng)
        zeros = np.zeros(self.batch, dtype=bool)
        return self._gather(states, rng, np.zeros((self.batch, 2), dtype=np.float32), zeros, zeros.copy())

    def _generator(self, state: Mapping[str, Any] | None) -> np.random.Generator:
        """The generator set to ``state`` (as it is, never drawn from, for games that draw nothing)."""
        if state is not None:
            self._rng.bit_generator.state = state
        return self._rng

    def _restart(self, states: np.ndarray, games: np.ndarray, rng: np.random.Generator) -> None:
        """Games ``games`` start afresh, in game order, drawing from ``rng`` as the env's reset does."""
        if self.restart_kind == "copy":
            restart_copies(states, games, self.fresh)
        elif self.restart_kind == "nim":
            env = self.template
            restart_nim(states, games, rng, env.n_low, env.n_high, env.k, int(env.coin))
        else:
            restart_cantris(states, games, self.fresh, self.deal_values, WHOLE_DEAL_ATTEMPTS, rng)

    def _gather(self, states: np.ndarray, rng: np.random.Generator, rewards: np.ndarray, terminated: np.ndarray,
                truncated: np.ndarray) -> Batch:
        observation = np.empty((self.batch, 2, *self.observation_shape), dtype=self.observation_dtype)
        mask = np.empty((self.batch, self.num_actions), dtype=bool)
        players = np.empty(self.batch, dtype=np.int8)
        observe(self.game_id, states, observation.reshape(self.batch, 2, -1), mask, players, self._legal)
        states.flags.writeable = False
        return Batch(players, observation, mask, rewards, terminated, truncated,
                     ArraysState(self.name, states, rng.bit_generator.state if self.draws else None))
