"""Nim's compiled core (the ``fast`` extra; the interface is :mod:`boardzoo.fast.core`'s).

Layout of a position's array ``s``::

    pawns, k, coin, player, coin pending, winner

The coin is a chance event: after a move with ``coin`` on, ``current_player`` is CHANCE
and its outcomes are 0 (tails) and 1 (heads: one more pawn goes, the last one winning
for the mover), each with probability one half.
"""

from __future__ import annotations

import numpy as np

from boardzoo.games.model import CHANCE, TERMINAL
from boardzoo.games.nim import GAME
from boardzoo.jit import njit, random_below, winner_return

PAWNS, K, COIN, PLAYER, PENDING, WINNER = range(6)
#: Roll-out policies, numbered as the declaration names them.
STRATEGIC = GAME.compiled_rollouts.index("strategic")


def encode(state) -> np.ndarray:
    return np.array([state.pawns, state.k, state.coin, state.player, state.coin_pending, state.winner],
                    dtype=np.int64)


@njit(cache=True)
def current_player(s):
    if s[WINNER] >= 0:
        return TERMINAL
    return CHANCE if s[PENDING] else s[PLAYER]


@njit(cache=True)
def returns0(s):
    return winner_return(s[WINNER])


@njit(cache=True)
def legal_actions(s, out):
    if s[WINNER] >= 0:
        return 0
    if s[PENDING]:
        out[0], out[1] = 0, 1
        return 2
    n = min(s[K], s[PAWNS])
    for a in range(n):
        out[a] = a
    return n


@njit(cache=True)
def apply(s, action):
    if s[PENDING]:
        s[PENDING] = 0
        if action == 1:
            s[PAWNS] -= 1
            if s[PAWNS] == 0:
                s[WINNER] = s[PLAYER]  # the coin took the last pawn: the mover wins
                return
        s[PLAYER] ^= 1
        return
    s[PAWNS] -= action + 1
    if s[PAWNS] == 0:
        s[WINNER] = s[PLAYER]
    elif s[COIN]:
        s[PENDING] = 1
    else:
        s[PLAYER] ^= 1


@njit(cache=True)
def chance_outcome(s, u):
    """The fair coin: tails (0), then heads (1), one half each."""
    return 0 if u < 0.5 else 1


@njit(cache=True)
def observe(s, out):
    """``[pawns, k]`` for either seat (Nim hides nothing)."""
    for seat in range(2):
        out[seat, 0], out[seat, 1] = s[PAWNS], s[K]


@njit(cache=True)
def policy_action(s, policy, rng, moves):
    """Uniform, or the strategic rule: leave a multiple of k + 1 when possible."""
    if policy == STRATEGIC:
        take = s[PAWNS] % (s[K] + 1)
        if take:
            return take - 1
    return random_below(rng, min(s[K], s[PAWNS]))


def restart_setup(env) -> np.ndarray:
    """The pile's range (a fresh game draws its pile from it)."""
    return np.array([env.n_low, env.n_high], dtype=np.int64)


@njit(cache=True)
def restart(s, fresh, setup, rng):
    """A fresh game, its pile drawn as the Nim env draws it."""
    s[:] = fresh
    s[PAWNS] = rng.integers(setup[0], setup[1] + 1)


def scratch_size(state) -> int:
    return max(state.k, 2)


@njit(cache=True)
def write_input(s, out):
    """The pile one-hot (a pile beyond the input reads as the largest; callers refuse it)."""
    out[:] = 0.0
    out[min(s[PAWNS], len(out) - 1)] = 1.0


def input_fits(states: np.ndarray, size: int) -> bool:
    return bool((states[:, PAWNS] < size).all())


def remaining_moves(states: np.ndarray) -> np.ndarray:
    return states[:, PAWNS]  # every move takes a pawn
