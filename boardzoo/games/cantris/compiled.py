"""Cantris' compiled core (the ``fast`` extra; the interface is :mod:`boardzoo.fast.core`'s).

Layout of a position's array ``s``::

    rows, cols, bonus turn, taken tile scores, player, score 0, score 1, tiles left,
    then every column's height, then the tiles (column c, height r at
    ``HEIGHTS + cols + c * rows + r``)
"""

from __future__ import annotations

import numpy as np

from boardzoo.games.cantris import WHOLE_DEAL_ATTEMPTS, column_values
from boardzoo.games.model import TERMINAL
from boardzoo.jit import njit, shuffle

ROWS, COLS, BONUS, TILE_SCORES, PLAYER, SCORE0, SCORE1, LEFT, HEIGHTS = range(9)


def encode(state) -> np.ndarray:
    tiles = np.zeros(state.cols * state.rows, dtype=np.int64)
    for c, column in enumerate(state.columns):
        tiles[c * state.rows: c * state.rows + len(column)] = column
    header = [state.rows, state.cols, state.bonus_turn, state.tile_scores, state.player, *state.scores,
              sum(map(len, state.columns))]
    return np.concatenate([np.array(header + [len(column) for column in state.columns], dtype=np.int64), tiles])


@njit(cache=True)
def current_player(s):
    return TERMINAL if s[LEFT] == 0 else s[PLAYER]


@njit(cache=True)
def returns0(s):
    if s[LEFT]:
        return 0.0
    return 1.0 if s[SCORE0] > s[SCORE1] else -1.0 if s[SCORE1] > s[SCORE0] else 0.0


@njit(cache=True)
def legal_actions(s, out):
    n = 0
    for c in range(s[COLS]):
        if s[HEIGHTS + c] > 0:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def apply(s, column):
    rows, cols = s[ROWS], s[COLS]
    base = HEIGHTS + cols + column * rows
    size = s[HEIGHTS + column]
    points = s[base] if s[TILE_SCORES] else 0
    for r in range(size - 1):  # the bottom tile is taken, the ones above fall
        s[base + r] = s[base + r + 1]
    s[base + size - 1] = 0
    s[HEIGHTS + column] = size - 1
    s[LEFT] -= 1
    cleared, rounds = settle(s, column)
    s[SCORE0 + s[PLAYER]] += points + cleared
    if not (s[BONUS] and rounds):
        s[PLAYER] ^= 1


@njit(cache=True)
def settle(s, fallen):
    """Clears lines of three or more and lets tiles fall until the board is stable (see
    :func:`boardzoo.games.cantris.settle`); ``fallen`` is the only column that changed
    on a stable board, so the first round looks only at the rows through it (and most
    moves stop there, nothing allocated). Returns (points, rounds)."""
    rows, cols = s[ROWS], s[COLS]
    if not _runs_through(s, fallen, None):
        return 0, 0
    marks = np.zeros(rows * cols, dtype=np.bool_)
    _runs_through(s, fallen, marks)
    points = rounds = 0
    while True:
        rounds += 1
        points += _clear(s, marks)
        marks[:] = False
        if not _all_runs(s, marks):
            return points, rounds


@njit(cache=True)
def _runs_through(s, c, marks):
    """Whether a horizontal run of three or more passes through column ``c``; its cells
    marked in ``marks`` unless that is None (a vertical run cannot be new there: the
    column's tiles only fell together)."""
    rows, cols = s[ROWS], s[COLS]
    tiles = HEIGHTS + cols
    found = False
    for r in range(s[HEIGHTS + c]):
        value = s[tiles + c * rows + r]
        left = c
        while left > 0 and r < s[HEIGHTS + left - 1] and s[tiles + (left - 1) * rows + r] == value:
            left -= 1
        right = c
        while right < cols - 1 and r < s[HEIGHTS + right + 1] and s[tiles + (right + 1) * rows + r] == value:
            right += 1
        if right - left >= 2:
            if marks is None:
                return True
            found = True
            for k in range(left, right + 1):
                marks[k * rows + r] = True
    return found


@njit(cache=True)
def _all_runs(s, marks):
    """Every run of three or more equal tiles, vertical or horizontal, marked; whether any."""
    rows, cols = s[ROWS], s[COLS]
    tiles = HEIGHTS + cols
    found = False
    for c in range(cols):  # vertical runs
        size, base, r = s[HEIGHTS + c], tiles + c * rows, 0
        while r < size - 2:
            value = s[base + r]
            if s[base + r + 1] == value and s[base + r + 2] == value:
                end = r + 3
                while end < size and s[base + end] == value:
                    end += 1
                for k in range(r, end):
                    marks[c * rows + k] = True
                found = True
                r = end
            else:
                r += 1
    for r in range(rows):  # horizontal runs
        c = 0
        while c < cols - 2:
            value = s[tiles + c * rows + r] if r < s[HEIGHTS + c] else 0
            end = c + 1
            while end < cols and r < s[HEIGHTS + end] and s[tiles + end * rows + r] == value:
                end += 1
            if value and end - c >= 3:
                for k in range(c, end):
                    marks[k * rows + r] = True
                found = True
                c = end
            else:
                c += 1
    return found


@njit(cache=True)
def _clear(s, marks):
    """The marked tiles taken off (their points returned, tiles left counted down), the
    tiles above them fallen."""
    rows, cols = s[ROWS], s[COLS]
    tiles = HEIGHTS + cols
    points = 0
    for c in range(cols):
        size, base, kept = s[HEIGHTS + c], tiles + c * rows, 0
        for r in range(size):
            value = s[base + r]
            if marks[c * rows + r]:
                points += value
                s[LEFT] -= 1
            else:
                s[base + kept] = value
                kept += 1
        for r in range(kept, size):
            s[base + r] = 0
        s[HEIGHTS + c] = kept
    return points


@njit(cache=True)
def observe(s, out):
    """The board row by row from the bottom (0 = empty), then own score, the opponent's."""
    rows, cols = s[ROWS], s[COLS]
    tiles = HEIGHTS + cols
    for c in range(cols):
        height = s[HEIGHTS + c]
        for r in range(rows):
            value = s[tiles + c * rows + r] if r < height else 0
            out[0, r * cols + c] = value
            out[1, r * cols + c] = value
    cells = rows * cols
    for seat in range(2):
        out[seat, cells], out[seat, cells + 1] = s[SCORE0 + seat], s[SCORE0 + 1 - seat]


@njit(cache=True)
def _unstable(columns):
    """Whether a full deal (``columns[c]`` bottom first) has a line of three equal values."""
    cols, rows = columns.shape
    for c in range(cols):
        for r in range(rows - 2):
            if columns[c, r] == columns[c, r + 1] == columns[c, r + 2]:
                return True
    for r in range(rows):
        for c in range(cols - 2):
            if columns[c, r] == columns[c + 1, r] == columns[c + 2, r]:
                return True
    return False


@njit(cache=True)
def deal(values, cols, attempts, rng):
    """A stable deal drawn as :func:`boardzoo.games.cantris.deal` draws it, shuffle for
    shuffle: whole deals until one is stable, then (after ``attempts``) column by column."""
    rows = len(values)
    columns = np.empty((cols, rows), dtype=np.int64)
    for _ in range(attempts):
        for c in range(cols):
            columns[c, :] = values
            shuffle(columns[c], rng)
        if not _unstable(columns):
            return columns
    for c in range(cols):
        for _ in range(100_000):  # each draw succeeds with probability above 1/10
            columns[c, :] = values
            shuffle(columns[c], rng)
            clash = False
            if c >= 2:
                for r in range(rows):
                    if columns[c - 1, r] == columns[c - 2, r] == columns[c, r]:
                        clash = True
            if not clash:
                break
        else:
            raise RuntimeError("cantris: no stable column found")
    return columns


def restart_setup(env) -> np.ndarray:
    """The values a column is dealt (the deal's kind decides them)."""
    return np.array(column_values(env.rows, env.deal), dtype=np.int64)


@njit(cache=True)
def restart(s, fresh, setup, rng):
    """A fresh game (``fresh`` its header) with a deal drawn as the Cantris env draws it."""
    s[:] = fresh
    cols, rows = s[COLS], s[ROWS]
    columns = deal(setup, cols, WHOLE_DEAL_ATTEMPTS, rng)
    for c in range(cols):
        for r in range(rows):
            s[HEIGHTS + cols + c * rows + r] = columns[c, r]


@njit(cache=True)
def write_input(s, out):
    """One plane per tile value 1..rows+1 (row 0 the bottom), then the mover's lead in points
    over the lead plus the points left on the board (in -1..1)."""
    out[:] = 0.0
    rows, cols = s[ROWS], s[COLS]
    cells = rows * cols
    tiles = HEIGHTS + cols
    total = 0
    for c in range(cols):
        for r in range(s[HEIGHTS + c]):
            value = s[tiles + c * rows + r]
            total += value
            out[(value - 1) * cells + r * cols + c] = 1.0
    mover = s[PLAYER]
    lead = (s[SCORE0 + mover] - s[SCORE0 + 1 - mover]) / max(total + abs(s[SCORE0] - s[SCORE1]), 1)
    out[(rows + 1) * cells:] = lead


def input_fits(states: np.ndarray, size: int) -> bool:
    rows = states[:, ROWS]
    return bool(((rows + 2) * rows * states[:, COLS] == size).all())


def remaining_moves(states: np.ndarray) -> np.ndarray:
    return states[:, LEFT]  # every move takes a tile
