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

#: The most games one batch holds (a batch's arrays are held in memory at once).
MAX_BATCH = 65_536


@dataclass(frozen=True)
class Batch:
    """The games of a batch after a reset or a step (see the package docstring). Its arrays
    are read-only: a step reads the games from ``state``, never from what a caller could
    have changed."""

    current_player: np.ndarray      # (B,) int8: 0, 1, or -1 once the game is over
    observation: np.ndarray         # (B, 2, *observation shape): each seat's observation
    legal_action_mask: np.ndarray   # (B, actions) bool: the player to move's legal actions
    rewards: np.ndarray             # (B, 2) float32: what the step gave each seat
    terminated: np.ndarray          # (B,) bool: the game ended by its rules
    truncated: np.ndarray           # (B,) bool: the game was cut off (a ply limit)
    state: Any                      # the games themselves, secrets included: the referee's, no player's

    def __post_init__(self) -> None:
        for field in ("current_player", "observation", "legal_action_mask", "rewards", "terminated", "truncated"):
            getattr(self, field).flags.writeable = False


def new_batch_generator(seed: int | None) -> np.random.Generator:
    """The generator a batch's games draw from (their deals and chance events, in game
    order): seeded by ``seed`` (an int >= 0), or a fresh seed when None."""
    if seed is not None:
        whole("seed", seed, low=0)
    return np.random.default_rng(seed)


def checked_batch(name: str, batch: Any, state_type: type) -> Batch:
    """``batch``, or a ValueError (naming env ``name``) unless it is a batch of this game."""
    if not isinstance(batch, Batch) or not isinstance(batch.state, state_type) or \
            getattr(batch.state, "name", None) != name:
        raise ValueError(f"{name}: step() and restart() take a Batch that this game's reset(), step() or "
                         f"restart() returned, got {type(batch).__name__}")
    return batch


def checked_actions(name: str, batch: Any, state_type: type, actions: Any,
                    playing: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """``actions`` as an int64 array of one action a game of ``batch``, and ``playing``
    (which games to step; None: all) as a bool array; ValueError (naming env ``name``)
    unless ``batch`` is a batch of this kind of game and both have its shape. Every batch
    checks its actions here, then finds the first game that refuses its action
    (:func:`first_refused`, or a compiled twin of it) before stepping any."""
    checked_batch(name, batch, state_type)
    actions = np.asarray(actions)
    if actions.shape != batch.current_player.shape or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(f"{name}: actions must be {len(batch.current_player)} ints, one a game, got an array "
                         f"of shape {actions.shape} and type {actions.dtype}")
    if playing is None:
        playing = np.ones(len(actions), dtype=bool)
    else:
        playing = np.asarray(playing)
        if playing.shape != actions.shape or playing.dtype != bool:
            raise ValueError(f"{name}: playing must be {len(actions)} bools, one a game, got an array of "
                             f"shape {playing.shape} and type {playing.dtype}")
    if actions.dtype.kind == "u" and (actions > np.iinfo(np.int64).max).any():  # not read as negative ints
        game = int(np.flatnonzero(actions > np.iinfo(np.int64).max)[0])
        raise ValueError(f"{name}: game {game}: action {int(actions[game])} is not legal (no such action); no game "
                         "of the batch was stepped")
    return actions.astype(np.int64, copy=False), playing


def first_refused(batch: Batch, actions: np.ndarray, playing: np.ndarray) -> int:
    """The first game of ``batch`` being played that is over or where ``actions`` is not
    legal; -1 when none."""
    num_actions = batch.legal_action_mask.shape[1]
    inside = (actions >= 0) & (actions < num_actions)
    legal = inside & batch.legal_action_mask[np.arange(len(actions)), np.where(inside, actions, 0)]
    refused = np.flatnonzero(playing & (~legal | (batch.current_player < 0)))
    return int(refused[0]) if len(refused) else -1


def refusal(name: str, batch: Batch, game: int, action: int) -> ValueError:
    """The error for game ``game`` of ``batch`` refusing ``action`` (no game was stepped)."""
    if batch.current_player[game] < 0:
        return ValueError(f"{name}: game {game} is over; restart() it (or reset() the batch, or make it with "
                          "auto_reset=True)")
    inside = 0 <= action < batch.legal_action_mask.shape[1]
    reason = batch.state.explain_illegal(game, action) if inside else "no such action"
    return ValueError(f"{name}: game {game}: action {action} is not legal ({reason}); no game of the batch "
                      "was stepped")


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
