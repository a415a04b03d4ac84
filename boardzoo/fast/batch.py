"""Batches of Connect Four games compiled (the ``fast`` extra): B games as rows of one
int64 array in the compiled core's layout (:mod:`.games`), stepped in one call, with both
seats' observations and the legal-action masks written in the same pass.
``boardzoo.vector`` drives it; the tests hold it to the reference batch move by move."""

from __future__ import annotations

from numba import njit

import boardzoo.fast.cache  # noqa: F401  (guards numba's disk cache; before any njit)
from boardzoo.fast.games import (
    C4_BOARD0,
    C4_COLS,
    C4_HEIGHT,
    C4_ROWS,
    C4_TOPS,
    CONNECT_FOUR,
    TERMINAL,
    apply,
    current_player,
    returns0,
)


@njit(cache=True)
def connect_four_observe(states, observation, mask, players):
    """Each game's player to move (-1 at the end), both seats' (rows, cols, 2) planes (own
    discs, then the opponent's; row 0 the top) and the mover's legal columns."""
    for b in range(states.shape[0]):
        s = states[b]
        rows, cols, height = s[C4_ROWS], s[C4_COLS], s[C4_HEIGHT]
        player = current_player(CONNECT_FOUR, s)
        players[b] = -1 if player == TERMINAL else player
        for c in range(cols):
            base = c * height
            for r in range(rows):
                bit = 1 << (base + rows - 1 - r)
                first = 1 if s[C4_BOARD0] & bit else 0
                second = 1 if s[C4_BOARD0 + 1] & bit else 0
                observation[b, 0, r, c, 0] = first
                observation[b, 0, r, c, 1] = second
                observation[b, 1, r, c, 0] = second
                observation[b, 1, r, c, 1] = first
            mask[b, c] = player != TERMINAL and s[C4_TOPS + c] < base + rows


@njit(cache=True)
def connect_four_step(states, actions, fresh, auto_reset, rewards, terminated):
    """Plays ``actions[b]`` in game ``b`` (checked legal by the caller); an ended game's
    rewards and flag are written, and with ``auto_reset`` it starts again as ``fresh``."""
    for b in range(states.shape[0]):
        s = states[b]
        apply(CONNECT_FOUR, s, actions[b])
        if current_player(CONNECT_FOUR, s) == TERMINAL:
            value = returns0(CONNECT_FOUR, s)
            rewards[b, 0], rewards[b, 1] = value, -value
            terminated[b] = True
            if auto_reset:
                s[:] = fresh
        else:
            rewards[b, 0], rewards[b, 1] = 0.0, 0.0
            terminated[b] = False

