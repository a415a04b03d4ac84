"""Tic-tac-toe's compiled core (the ``fast`` extra; the interface is :mod:`boardzoo.fast.core`'s).

Layout of a position's array ``s``::

    marks of player 0 (bit i: cell i), marks of player 1, player to move, winner, moves

Cells are numbered 0..8 row by row from the top left, as the actions are.
"""

from __future__ import annotations

import numpy as np

from boardzoo.games.model import TERMINAL
from boardzoo.games.tic_tac_toe.rules import LINES
from boardzoo.jit import njit, winner_return

MARKS0, MARKS1, PLAYER, WINNER, MOVES = range(5)
#: Each line of three as a bit mask of its cells.
LINE_MASKS = np.array([sum(1 << cell for cell in line) for line in LINES], dtype=np.int64)


def encode(state) -> np.ndarray:
    marks = [sum(1 << cell for cell in range(9) if state.cells[cell] == seat + 1) for seat in range(2)]
    return np.array([*marks, state.player, state.winner, state.moves], dtype=np.int64)


@njit(cache=True)
def current_player(s):
    return TERMINAL if s[WINNER] >= 0 or s[MOVES] == 9 else s[PLAYER]


@njit(cache=True)
def returns0(s):
    return winner_return(s[WINNER])


@njit(cache=True)
def legal_actions(s, out):
    if s[WINNER] >= 0:
        return 0
    taken, n = s[MARKS0] | s[MARKS1], 0
    for cell in range(9):  # written always, counted when free: no branch to mispredict
        out[n] = cell
        n += 1 - (taken >> cell & 1)
    return n


@njit(cache=True)
def apply(s, cell):
    player = s[PLAYER]
    marks = s[MARKS0 + player] | np.int64(1) << cell
    s[MARKS0 + player] = marks
    s[MOVES] += 1
    for line in LINE_MASKS:
        if marks & line == line:
            s[WINNER] = player
    s[PLAYER] = 1 - player


@njit(cache=True)
def observe(s, out):
    """(3, 3, 2) flattened: a seat's own marks, then the opponent's."""
    for cell in range(9):
        first, second = s[MARKS0] >> cell & 1, s[MARKS1] >> cell & 1
        out[0, 2 * cell], out[0, 2 * cell + 1] = first, second
        out[1, 2 * cell], out[1, 2 * cell + 1] = second, first


@njit(cache=True)
def apply_observed(s, cell, observation, b):
    """:func:`apply` with the one new mark drawn into both seats' planes of game ``b``."""
    player = s[PLAYER]
    apply(s, cell)
    observation[b, player, 2 * cell] = 1
    observation[b, 1 - player, 2 * cell + 1] = 1


@njit(cache=True)
def write_mask(s, mask, b, legal):
    """Game ``b``'s mask row, the empty cells while the game goes on; the player to move
    (-1 when over)."""
    over = s[WINNER] >= 0 or s[MOVES] == 9
    taken = s[MARKS0] | s[MARKS1]
    for cell in range(9):
        mask[b, cell] = not over and not taken >> cell & 1
    return -1 if over else s[PLAYER]


@njit(cache=True)
def write_input(s, out):
    """(2, 3, 3): the mover's marks, then the opponent's."""
    mover = s[PLAYER]
    for cell in range(9):
        out[cell] = s[MARKS0 + mover] >> cell & 1
        out[9 + cell] = s[MARKS0 + 1 - mover] >> cell & 1


def input_fits(states: np.ndarray, size: int) -> bool:
    return size == 18


def remaining_moves(states: np.ndarray) -> np.ndarray:
    return 9 - states[:, MOVES]  # every move fills a cell
