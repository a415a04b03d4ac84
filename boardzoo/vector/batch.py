"""What every batched game shares, whatever runs it: the :class:`Batch` a reset or a
step returns, the batch's generator, and the checks of a step's input and the error for
a game that refuses its action (the same words from every implementation)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

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
    actions = action_array(name, len(batch.current_player), actions)
    if playing is None:
        playing = everyone(len(actions))
    else:
        playing = np.asarray(playing)
        if playing.shape != actions.shape or playing.dtype != bool:
            raise ValueError(f"{name}: playing must be {len(actions)} bools, one a game, got an array of "
                             f"shape {playing.shape} and type {playing.dtype}")
    return actions, playing


@functools.cache
def everyone(games: int) -> np.ndarray:
    """``games`` Trues: every game played. One array per size, shared by every step and
    never written (a fresh one cost half a microsecond of a Connect Four step's fifty)."""
    return np.ones(games, dtype=bool)


def action_array(name: str, games: int, actions: Any) -> np.ndarray:
    """``actions`` as an int64 array of one action a game (``games`` of them); ValueError
    (naming env ``name``) for another shape, a type that is not an int, or an unsigned
    action too large to be read as one."""
    actions = np.asarray(actions)
    if actions.shape != (games,) or actions.dtype.kind not in "iu":  # signed or unsigned ints
        raise ValueError(f"{name}: actions must be {games} ints, one a game, got an array "
                         f"of shape {actions.shape} and type {actions.dtype}")
    if actions.dtype.kind == "u" and (actions > np.iinfo(np.int64).max).any():  # not read as negative ints
        game = int(np.flatnonzero(actions > np.iinfo(np.int64).max)[0])
        raise not_legal(name, game, int(actions[game]), "no such action")
    return actions.astype(np.int64, copy=False)


def not_legal(name: str, game: int, action: int, reason: str) -> ValueError:
    """The error for game ``game`` refusing ``action`` for ``reason`` (no game was stepped)."""
    return ValueError(f"{name}: game {game}: action {action} is not legal ({reason}); no game of the batch "
                      "was stepped")


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
    return not_legal(name, game, action, batch.state.explain_illegal(game, action) if inside else "no such action")
