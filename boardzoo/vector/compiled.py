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
from boardzoo.fast.core import CHANCE, Start, kernels_for
from boardzoo.values import whole
from boardzoo.vector.batch import (
    MAX_BATCH,
    Batch,
    action_array,
    checked_actions,
    checked_batch,
    new_batch_generator,
    not_legal,
    refusal,
)

#: Why the compiled batch refuses a legal-looking action (the compiled core explains no further).
NOT_AMONG_THE_LEGAL = "not among that position's legal actions"


@dataclass(frozen=True)
class ArraysState:
    """The compiled batch's games: one row each in the compiled layout, and the state of
    the generator they draw from (None for games that draw nothing)."""

    name: str
    states: np.ndarray
    rng: Mapping[str, Any] | None

    def explain_illegal(self, game: int, action: int) -> str:
        return NOT_AMONG_THE_LEGAL


class CompiledVectorGame:
    """``batch`` games of an env whose game has a compiled core, as rows of one array."""

    def __init__(self, env: str, batch: int, auto_reset: bool = False, **params: Any):
        self.batch = whole("batch", batch, 1, MAX_BATCH)
        self.auto_reset = auto_reset
        self.template = make_env(env, raw=True, **params)  # the env checks the parameters
        self.name = str(self.template.metadata["name"])
        self.template.reset(seed=0)
        self.kernels = kernels_for(self.template.game)
        core = self.kernels.core
        self.draws = hasattr(core, "restart") or self.kernels.chance_events
        # A game whose start is drawn by chance starts before the draws: each game draws its own.
        first = (self.template.starting_position() if self.template.history and self.template.history[0][0] == CHANCE
                 else self.template.game)
        fresh = core.encode(first)  # also refuses boards the compiled core cannot hold
        box = self.template.observation_spaces[AGENTS[0]]["observation"]
        self.num_actions = int(self.template.action_spaces[AGENTS[0]].n)
        self.observation_shape: tuple[int, ...] = tuple(box.shape or ())
        self.observation_dtype = box.dtype
        self._legal = np.zeros(max(self.num_actions, 2), dtype=np.int64)
        fresh_observation = np.zeros((2, int(np.prod(self.observation_shape))), dtype=self.observation_dtype)
        core.observe(fresh, fresh_observation)
        setup = core.restart_setup(self.template) if hasattr(core, "restart_setup") else np.zeros(0, np.int64)
        self.start = Start(fresh, fresh_observation, setup)
        # The kernels take it as a plain tuple: numba unboxes a named tuple at twice the
        # cost, every call (half a microsecond, a fortieth of a Connect Four step).
        self.start_tuple = tuple(self.start)
        # One generator object serves every step: each sets it to its batch's state first
        # (a batch's draws are in its state, not in this object), so no step seeds one anew.
        self._rng = np.random.Generator(np.random.PCG64(0))

    def reset(self, seed: int | None = None) -> Batch:
        """As :meth:`ReferenceVectorGame.reset <boardzoo.vector.reference.ReferenceVectorGame.reset>`."""
        rng = new_batch_generator(seed)  # checks the seed of every game, drawing or not
        return self._restarted(np.empty((self.batch, len(self.start.state)), dtype=np.int64),
                               np.empty((self.batch, 2, *self.observation_shape), dtype=self.observation_dtype),
                               np.empty((self.batch, self.num_actions), dtype=bool),
                               np.empty(self.batch, dtype=np.int8), np.arange(self.batch), rng if self.draws else None)

    def step(self, batch: Batch, actions: Any, playing: Any = None) -> Batch:
        """As :meth:`ReferenceVectorGame.step <boardzoo.vector.reference.ReferenceVectorGame.step>`."""
        actions, playing = checked_actions(self.name, batch, ArraysState, actions, playing)
        states = batch.state.states.copy()
        rewards = np.empty((self.batch, 2), dtype=np.float32)
        terminated = np.empty(self.batch, dtype=bool)
        observation, mask = batch.observation.copy(), batch.legal_action_mask.copy()
        players = batch.current_player.copy()
        rng = self._generator(batch.state.rng)
        refused = self.kernels.step(states, actions, playing, self.auto_reset, self.start_tuple, rng,
                                    observation.reshape(self.batch, 2, -1), mask, players, self._legal, rewards,
                                    terminated)
        if refused >= 0:
            raise refusal(self.name, batch, refused, int(actions[refused]))
        return self._batch(states, rng, players, observation, mask, rewards, terminated,
                           np.zeros(self.batch, dtype=bool))

    def restart(self, batch: Batch) -> Batch:
        """As :meth:`ReferenceVectorGame.restart <boardzoo.vector.reference.ReferenceVectorGame.restart>`."""
        checked_batch(self.name, batch, ArraysState)
        return self._restarted(batch.state.states.copy(), batch.observation.copy(), batch.legal_action_mask.copy(),
                               batch.current_player.copy(), np.flatnonzero(batch.current_player < 0),
                               self._generator(batch.state.rng))

    def _restarted(self, states: np.ndarray, observation: np.ndarray, mask: np.ndarray, players: np.ndarray,
                   games: np.ndarray, rng: np.random.Generator | None) -> Batch:
        """The batch with games ``games`` dealt afresh (into the arrays given), in order."""
        self.kernels.restart_games(states, games, self.start_tuple, rng, observation.reshape(self.batch, 2, -1), mask,
                                   players, self._legal)
        zeros = np.zeros(self.batch, dtype=bool)
        return self._batch(states, rng, players, observation, mask, np.zeros((self.batch, 2), dtype=np.float32), zeros,
                           zeros.copy())

    def _generator(self, state: Mapping[str, Any] | None) -> np.random.Generator | None:
        """The generator set to ``state``; None for games that draw nothing (the kernels
        are then handed none to unbox)."""
        if not self.draws:
            return None
        if state is not None:
            self._rng.bit_generator.state = state
        return self._rng

    def _batch(self, states: np.ndarray, rng: np.random.Generator | None, players: np.ndarray, observation: np.ndarray,
               mask: np.ndarray, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> Batch:
        states.flags.writeable = False
        return Batch(players, observation, mask, rewards, terminated, truncated,
                     ArraysState(self.name, states, None if rng is None else rng.bit_generator.state))


class RandomOpponentLoop:
    """The games of a compiled batch with one learning seat and the random opponent, each
    learner step one compiled call (the learner's moves, the opponent's replies, the
    ended games dealt afresh and started, observations and masks kept up to date): the
    Gymnasium face's fast path. Its draws are the generic driver's
    (``boardzoo.training.vector_env``), so both play the same games from a seed.

    ``seat`` is the learning seat, or -1 to draw it for every game that starts from the
    opponent's generator. ``players``, ``observation`` (B, 2, ...), ``mask``, ``seats``,
    ``rewards`` (the learning seat's), ``ended`` and ``final`` (each ended game's last
    observation) are updated in place: callers copy what they hand out."""

    def __init__(self, games: CompiledVectorGame, seat: int, redeals: int):
        self.games, self.seat, self.redeals = games, seat, redeals
        self.kernels = games.kernels
        n = games.batch
        self.seats = np.zeros(n, dtype=np.int8)
        self.rewards = np.zeros(n)
        self.ended = np.zeros(n, dtype=bool)
        self.forfeits = np.zeros(n, dtype=bool)  # the games the last step's learner forfeited
        self._starting = np.zeros(n, dtype=bool)
        self._scratch = np.zeros(n)
        self.plies = np.zeros(1, dtype=np.int64)  # every move played, the opponent's included
        self.final = np.zeros((n, *games.observation_shape), dtype=games.observation_dtype)

    def reset(self, seed: int, opponent_rng: np.random.Generator) -> bool:
        """Deals every game from ``seed`` and starts them (whether all reached the learner's turn)."""
        batch = self.games.reset(seed=seed)
        self.states = batch.state.states.copy()
        self.observation, self.mask = batch.observation.copy(), batch.legal_action_mask.copy()
        self.players = batch.current_player.copy()
        self.rng = self.games._generator(batch.state.rng)
        self.opponent_rng = opponent_rng
        started = self.kernels.start_games(np.ones(self.games.batch, dtype=bool), self.states, self.seats, self.seat,
                                           self.games.start_tuple, opponent_rng, self.rng,
                                           self._flat(), self.mask, self.players, self.games._legal,
                                           self._scratch, self.plies, self.redeals)
        return bool(started)

    def step(self, actions: Any, forfeit: bool) -> bool:
        """One learner step (see :func:`boardzoo.fast.batch.learner_step`); False when the
        opponent kept ending fresh games before the learner moved. An action that is no
        action, or (without ``forfeit``) not a legal one, is a ValueError and changes nothing."""
        name = self.games.name
        actions = action_array(name, self.games.batch, actions)
        outside = (actions < 0) | (actions >= self.games.num_actions)
        if outside.any():
            game = int(np.flatnonzero(outside)[0])
            raise not_legal(name, game, int(actions[game]), "no such action")
        done = self.kernels.learner_step(actions, forfeit, self.states, self.seats, self.seat, self.games.start_tuple,
                                         self.opponent_rng, self.rng, self._flat(), self.mask, self.players,
                                         self.games._legal, self.rewards, self.ended, self.forfeits, self._starting,
                                         self.final.reshape(len(self.final), -1), self._scratch, self.plies,
                                         self.redeals)
        if done >= 0:
            raise not_legal(name, int(done), int(actions[done]), NOT_AMONG_THE_LEGAL)
        return done == -1

    def _flat(self) -> np.ndarray:
        return self.observation.reshape(self.games.batch, 2, -1)
