"""What a learned network sees of a position: each compiled game's input planes, from the
side of the player to move, written straight from the compiled layout (:mod:`.games`).

The AEC envs' observations are made for an agent outside the game; a search asks its
network about every position it opens, so the input is written here in one compiled
pass from the position's array, in a shape a network learns from easily:

=============  ===========================  ====================================================
game           shape                        contents
=============  ===========================  ====================================================
connect_four   (3, rows, cols)              the mover's discs, the opponent's (row 0 the top),
                                            then ones if the mover moved first (Connect
                                            Four's threats depend on the parity of a row)
cantris        (rows + 2, rows, cols)       one plane per tile value 1..rows+1 (a half-unit
                                            deal uses 2..rows+1), row 0 the bottom; then the
                                            mover's lead in points over the lead plus the
                                            points left on the board (in -1..1)
nim            (largest pile + 1,)          the pile as one-hot (a pile beyond the network's
                                            largest is refused by the caller)
=============  ===========================  ====================================================

Nothing here knows any theory of a game: these are its pieces, laid out.
"""

from __future__ import annotations

import numpy as np
from numba import njit

import boardzoo.fast.cache  # noqa: F401  (guards numba's disk cache; before any njit)
from boardzoo.fast.games import (
    C4_BOARD0,
    C4_COLS,
    C4_HEIGHT,
    C4_PLIES,
    C4_ROWS,
    CANTRIS,
    CANTRIS_TILES,
    CONNECT_FOUR,
    CT_COLS,
    CT_PLAYER,
    CT_ROWS,
    CT_SCORE0,
    NIM,
    NIM_PAWNS,
)
from boardzoo.games.registry import games

#: The games a network can be trained for: those whose declaration says what a network sees.
LEARNABLE = tuple(name for name, game in games().items() if game.network_input is not None)


def input_fits(game: int, states: np.ndarray, size: int) -> bool:
    """Whether inputs of ``size`` values hold every position of ``states`` (rows of one
    compiled game): :func:`write_input` checks no bounds, so its callers ask first."""
    if game == CONNECT_FOUR:
        return bool((3 * states[:, C4_ROWS] * states[:, C4_COLS] == size).all())
    if game == CANTRIS:
        rows = states[:, CT_ROWS]
        return bool(((rows + 2) * rows * states[:, CT_COLS] == size).all())
    if game == NIM:
        return bool((states[:, NIM_PAWNS] < size).all())
    return False


@njit(cache=True)
def write_input(game, s, out):
    """The network input of position ``s`` into the flat float32 ``out`` (zeroed here)."""
    out[:] = 0.0
    if game == CONNECT_FOUR:
        rows, cols, height = s[C4_ROWS], s[C4_COLS], s[C4_HEIGHT]
        mover = s[C4_PLIES] & 1
        own, other = s[C4_BOARD0 + mover], s[C4_BOARD0 + 1 - mover]
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
    elif game == CANTRIS:
        rows, cols = s[CT_ROWS], s[CT_COLS]
        cells = rows * cols
        tiles = CANTRIS_TILES + cols
        total = 0
        for c in range(cols):
            for r in range(s[CANTRIS_TILES + c]):
                value = s[tiles + c * rows + r]
                total += value
                out[(value - 1) * cells + r * cols + c] = 1.0
        mover = s[CT_PLAYER]
        lead = (s[CT_SCORE0 + mover] - s[CT_SCORE0 + 1 - mover]) / max(total + abs(s[CT_SCORE0] - s[CT_SCORE0 + 1]), 1)
        out[(rows + 1) * cells:] = lead
    elif game == NIM:
        out[min(s[NIM_PAWNS], len(out) - 1)] = 1.0



@njit(cache=True)
def write_inputs(game, states, out):
    """:func:`write_input` for every row of ``states`` into the rows of ``out`` (n, size)."""
    for i in range(states.shape[0]):
        write_input(game, states[i], out[i])
