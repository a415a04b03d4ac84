"""Connect Four's compiled core (the ``fast`` extra; the interface is :mod:`boardzoo.fast.core`'s).

Layout of a position's array ``s`` (the Python core's bitboards)::

    board of player 0, board of player 1, plies, winner, rows, cols, height, cells,
    then the next free bit of every column

A board is a bitboard of ``height = rows + 1`` bits a column (the spare bit keeps the
line tests from wrapping), so boards whose ``(rows + 1) x cols`` exceeds 63 bits are
refused by :func:`encode`.
"""

from __future__ import annotations

import numpy as np

from boardzoo.games.model import TERMINAL
from boardzoo.jit import njit, winner_return

BOARD0, BOARD1, PLIES, WINNER, ROWS, COLS, HEIGHT, CELLS, TOPS = range(9)


def encode(state) -> np.ndarray:
    geo = state.geo
    if geo.height * geo.cols > 63:
        raise ValueError(f"engine=compiled plays Connect Four boards whose (rows + 1) x cols fits in 63 bits, "
                         f"got {geo.rows}x{geo.cols}")
    return np.array([*state.boards, state.plies, state.winner, geo.rows, geo.cols, geo.height, geo.cells,
                     *state.heights], dtype=np.int64)


@njit(cache=True)
def has_four(board, height):
    for shift in (1, height, height - 1, height + 1):
        pairs = board & (board >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


@njit(cache=True, inline="always")
def current_player(s):
    if s[WINNER] >= 0 or s[PLIES] == s[CELLS]:
        return TERMINAL
    return s[PLIES] & 1


@njit(cache=True)
def returns0(s):
    return winner_return(s[WINNER])


@njit(cache=True)
def legal_actions(s, out):
    if s[WINNER] >= 0:
        return 0
    n = 0
    height, rows = s[HEIGHT], s[ROWS]
    for c in range(s[COLS]):  # written always, counted when open: no branch to mispredict
        out[n] = c
        n += s[TOPS + c] < c * height + rows
    return n


@njit(cache=True)
def apply(s, column):
    player = s[PLIES] & 1
    bit = np.int64(1) << s[TOPS + column]
    s[TOPS + column] += 1
    board = s[BOARD0 + player] | bit
    s[BOARD0 + player] = board
    s[PLIES] += 1
    if has_four(board, s[HEIGHT]):
        s[WINNER] = player


@njit(cache=True)
def observe(s, out):
    """(rows, cols, 2) planes flattened: own discs, then the opponent's; row 0 the top.
    Only the columns holding discs are read (a fresh game's observation is all zeros, and
    the batch writes one at every restart)."""
    rows, cols, height = s[ROWS], s[COLS], s[HEIGHT]
    for i in range(out.shape[1]):
        out[0, i] = 0
        out[1, i] = 0
    column_bits = (np.int64(1) << rows) - 1
    for c in range(cols):
        first, second = (s[BOARD0] >> (c * height)) & column_bits, (s[BOARD1] >> (c * height)) & column_bits
        if not (first | second):
            continue
        for r in range(rows):
            bit = np.int64(1) << (rows - 1 - r)
            cell = 2 * (r * cols + c)
            if first & bit:
                out[0, cell], out[1, cell + 1] = 1, 1
            elif second & bit:
                out[0, cell + 1], out[1, cell] = 1, 1


@njit(cache=True, inline="always")
def apply_observed(s, column, observation, b):
    """:func:`apply`, the one new disc drawn into both seats' planes of game ``b`` (a
    batch's hot path: the observation is kept up to date rather than rewritten)."""
    rows, cols, height = s[ROWS], s[COLS], s[HEIGHT]
    player = s[PLIES] & 1
    cell = 2 * ((rows - 1 - (s[TOPS + column] - column * height)) * cols + column)
    apply(s, column)
    observation[b, player, cell] = 1
    observation[b, 1 - player, cell + 1] = 1


@njit(cache=True, inline="always")
def write_mask(s, mask, b, legal):
    """Game ``b``'s mask row from the columns' free bits; the player to move (-1 when over)."""
    over = s[WINNER] >= 0 or s[PLIES] == s[CELLS]
    rows, height = s[ROWS], s[HEIGHT]
    for c in range(s[COLS]):
        mask[b, c] = not over and s[TOPS + c] < c * height + rows
    return -1 if over else s[PLIES] & 1


@njit(cache=True)
def write_input(s, out):
    """The mover's discs, the opponent's (row 0 the top), then ones if the mover moved first."""
    out[:] = 0.0
    rows, cols, height = s[ROWS], s[COLS], s[HEIGHT]
    mover = s[PLIES] & 1
    own, other = s[BOARD0 + mover], s[BOARD0 + 1 - mover]
    cells = rows * cols
    for c in range(cols):
        for r in range(rows):
            bit = np.int64(1) << (c * height + rows - 1 - r)
            if own & bit:
                out[r * cols + c] = 1.0
            elif other & bit:
                out[cells + r * cols + c] = 1.0
    if mover == 0:
        out[2 * cells:] = 1.0


def input_fits(states: np.ndarray, size: int) -> bool:
    return bool((3 * states[:, ROWS] * states[:, COLS] == size).all())


def remaining_moves(states: np.ndarray) -> np.ndarray:
    return states[:, CELLS] - states[:, PLIES]  # every move fills a cell
