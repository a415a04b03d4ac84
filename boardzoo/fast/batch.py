"""Batches of games compiled (the ``fast`` extra): B games of one game as rows of one
int64 array in the compiled core's layout (:mod:`.games`), stepped in one call, both
seats' observations and the legal-action masks written in one pass.

Observations are written into a ``(B, 2, size)`` array (each env's observation
flattened; the caller reshapes a view of it), in the AEC envs' encodings: a seat's
observation reads only what that seat may know. Chance events and fresh deals draw
from one NumPy ``Generator`` handed in; numba draws from it exactly as NumPy does, so
the draws follow the reference batch's in the same order. ``boardzoo.vector`` drives
these kernels; the tests hold them to the reference batch move by move."""

from __future__ import annotations

import numpy as np
from numba import njit

import boardzoo.fast.cache  # noqa: F401  (guards numba's disk cache; before any njit)
from boardzoo.fast.games import (
    C4_BOARD0,
    C4_CELLS,
    C4_COLS,
    C4_HEIGHT,
    C4_PLIES,
    C4_ROWS,
    C4_TOPS,
    C4_WINNER,
    CANTRIS,
    CANTRIS_TILES,
    CHANCE,
    CONNECT_FOUR,
    CT_COLS,
    CT_ROWS,
    CT_SCORE0,
    GS_LOST,
    GS_MAX_TURNS,
    GS_PLACED,
    GS_PLIES,
    GS_POS,
    GS_RED,
    NIM,
    NIM_COIN,
    NIM_K,
    NIM_PAWNS,
    NIM_PENDING,
    NIM_PLAYER,
    NIM_WINNER,
    TERMINAL,
    apply,
    connect_four_apply,
    current_player,
    legal_actions,
    returns0,
)
from boardzoo.games.geister.board import GHOSTS, SQUARES

#: Geister's observation: the plane of own colours starts at plane 8, the opponent's ghosts at plane 10.
_BLUE_PLANE, _OPPONENTS_PLANE, _COUNTS = 8, 10, 11 * SQUARES


# --- observations, one game and both seats ---------------------------------------------------------
@njit(cache=True)
def nim_observation(s, out):
    """``[pawns, k]`` for either seat (Nim hides nothing)."""
    for seat in range(2):
        out[seat, 0], out[seat, 1] = s[NIM_PAWNS], s[NIM_K]


@njit(cache=True)
def connect_four_observation(s, out):
    """(rows, cols, 2) planes flattened: own discs, then the opponent's; row 0 the top."""
    rows, cols, height = s[C4_ROWS], s[C4_COLS], s[C4_HEIGHT]
    for c in range(cols):
        for r in range(rows):
            bit = 1 << (c * height + rows - 1 - r)
            first = 1 if s[C4_BOARD0] & bit else 0
            second = 1 if s[C4_BOARD0 + 1] & bit else 0
            cell = 2 * (r * cols + c)
            out[0, cell], out[0, cell + 1] = first, second
            out[1, cell], out[1, cell + 1] = second, first


@njit(cache=True)
def cantris_observation(s, out):
    """The board row by row from the bottom (0 = empty), then own score, the opponent's."""
    rows, cols = s[CT_ROWS], s[CT_COLS]
    tiles = CANTRIS_TILES + cols
    for c in range(cols):
        height = s[CANTRIS_TILES + c]
        for r in range(rows):
            value = s[tiles + c * rows + r] if r < height else 0
            out[0, r * cols + c] = value
            out[1, r * cols + c] = value
    cells = rows * cols
    for seat in range(2):
        out[seat, cells], out[seat, cells + 1] = s[CT_SCORE0 + seat], s[CT_SCORE0 + 1 - seat]


@njit(cache=True)
def geister_observation(s, out):
    """Each seat's 11 planes and 8 counts (the env's layout), from that seat's side: its own
    ghosts and colours, where the opponent's ghosts stand (never their colours), counts."""
    out[:, :] = 0
    for seat in range(2):
        other = 1 - seat
        for i in range(GHOSTS):
            square = s[GS_POS + GHOSTS * seat + i]
            if square >= 0:
                own = square if seat == 0 else SQUARES - 1 - square
                out[seat, i * SQUARES + own] = 1
                if s[GS_PLACED + seat]:
                    plane = _BLUE_PLANE + 1 if s[GS_RED + GHOSTS * seat + i] else _BLUE_PLANE
                    out[seat, plane * SQUARES + own] = 1
            square = s[GS_POS + GHOSTS * other + i]
            if square >= 0:
                own = square if seat == 0 else SQUARES - 1 - square
                out[seat, _OPPONENTS_PLANE * SQUARES + own] = 1
        out[seat, _COUNTS] = s[GS_LOST + 2 * other]
        out[seat, _COUNTS + 1] = s[GS_LOST + 2 * other + 1]
        out[seat, _COUNTS + 2] = s[GS_LOST + 2 * seat]
        out[seat, _COUNTS + 3] = s[GS_LOST + 2 * seat + 1]
        out[seat, _COUNTS + 4] = s[GS_PLIES]
        out[seat, _COUNTS + 5] = s[GS_MAX_TURNS] - s[GS_PLIES]
        out[seat, _COUNTS + 6] = 0 if s[GS_PLACED + seat] else 1
        out[seat, _COUNTS + 7] = 1 if s[GS_PLACED + other] else 0


@njit(cache=True)
def observe(game, states, observation, mask, players, legal):
    """Each game's player to move (-1 at the end), both seats' observations (``observation``
    is ``(B, 2, size)``) and the mover's legal actions (``legal`` is scratch space for them)."""
    for b in range(states.shape[0]):
        s = states[b]
        if game == NIM:
            nim_observation(s, observation[b])
        elif game == CONNECT_FOUR:
            connect_four_observation(s, observation[b])
        elif game == CANTRIS:
            cantris_observation(s, observation[b])
        else:
            geister_observation(s, observation[b])
        player = current_player(game, s)
        players[b] = -1 if player == TERMINAL else player
        mask[b, :] = False
        for i in range(legal_actions(game, s, legal)):
            mask[b, legal[i]] = True


# --- stepping and restarting -------------------------------------------------------------------------
@njit(cache=True)
def step(game, states, actions, playing, players, mask, rng, rewards, terminated):
    """Plays ``actions[b]`` in game ``b`` and settles the chance events that follow,
    drawing from ``rng`` game by game as the AEC env does (its inverse-CDF draw over
    Nim's coin, tails then heads, one half each); writes each step's rewards and whether
    the game ended; games not ``playing`` are left as they are. ``players`` and ``mask``
    are the batch's before the step: the first game played that is over or whose action
    is not legal stops the loop, and its number is returned (the caller throws the
    half-stepped copy away); -1 when all were played."""
    for b in range(states.shape[0]):
        rewards[b, 0], rewards[b, 1] = 0.0, 0.0
        terminated[b] = False
        if not playing[b]:
            continue
        action = actions[b]
        if players[b] < 0 or action < 0 or action >= mask.shape[1] or not mask[b, action]:
            return b
        s = states[b]
        apply(game, s, action)
        while current_player(game, s) == CHANCE:
            apply(game, s, 0 if rng.random() < 0.5 else 1)
        if current_player(game, s) == TERMINAL:
            value = returns0(game, s)
            rewards[b, 0], rewards[b, 1] = value, -value
            terminated[b] = True
    return -1


@njit(cache=True)
def connect_four_step(states, actions, playing, fresh, auto_reset, observation, mask, players, rewards, terminated):
    """Connect Four's step and observation in one pass, the observation kept up to date
    rather than rewritten: ``observation``, ``mask`` and ``players`` hold the batch's
    before the step and are brought up to date in place (one disc drawn in both seats'
    planes; a restarted game's planes cleared). Returns as :func:`step` does."""
    for b in range(states.shape[0]):
        rewards[b, 0], rewards[b, 1] = 0.0, 0.0
        terminated[b] = False
        if not playing[b]:
            continue
        s = states[b]
        column = actions[b]
        rows, cols, height = s[C4_ROWS], s[C4_COLS], s[C4_HEIGHT]
        if players[b] < 0 or column < 0 or column >= cols or s[C4_TOPS + column] >= column * height + rows:
            return b
        player = s[C4_PLIES] & 1
        cell = 2 * ((rows - 1 - (s[C4_TOPS + column] - column * height)) * cols + column)
        connect_four_apply(s, column)
        observation[b, player, cell] = 1
        observation[b, 1 - player, cell + 1] = 1
        if s[C4_WINNER] >= 0 or s[C4_PLIES] == s[C4_CELLS]:
            value = returns0(CONNECT_FOUR, s)
            rewards[b, 0], rewards[b, 1] = value, -value
            terminated[b] = True
            if auto_reset:
                s[:] = fresh
                observation[b, :, :] = 0
            else:
                players[b] = -1
                mask[b, :] = False
                continue
        players[b] = s[C4_PLIES] & 1
        for c in range(cols):
            mask[b, c] = s[C4_TOPS + c] < c * height + rows
    return -1


@njit(cache=True)
def random_legal_actions(mask, rng, actions):
    """One legal action per row of ``mask`` drawn uniformly (the row's legal actions in
    order, the one at ``floor(rng.random() * count)``), -1 for a row with none."""
    legal = np.empty(mask.shape[1], dtype=np.int64)
    for b in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            if mask[b, a]:
                legal[count] = a
                count += 1
        # u * count < count for every double u < 1: no row draws past its last action.
        actions[b] = legal[int(rng.random() * count)] if count else -1


@njit(cache=True)
def restart_copies(states, games, fresh):
    """Games ``games`` start afresh as ``fresh`` (games whose start draws nothing)."""
    for b in games:
        states[b, :] = fresh


@njit(cache=True)
def restart_nim(states, games, rng, low, high, k, coin):
    """Games ``games`` start afresh with a pile drawn from ``low..high`` as the Nim env draws it."""
    for b in games:
        s = states[b]
        s[NIM_PAWNS] = rng.integers(low, high + 1)
        s[NIM_K], s[NIM_COIN] = k, coin
        s[NIM_PLAYER], s[NIM_PENDING], s[NIM_WINNER] = 0, 0, -1


@njit(cache=True)
def _cantris_unstable(columns):
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
def cantris_deal(values, cols, attempts, rng):
    """A stable deal drawn as :func:`boardzoo.games.cantris.deal` draws it, shuffle for
    shuffle: whole deals until one is stable, then (after ``attempts``) column by column."""
    rows = len(values)
    columns = np.empty((cols, rows), dtype=np.int64)
    for _ in range(attempts):
        for c in range(cols):
            columns[c, :] = values
            rng.shuffle(columns[c])
        if not _cantris_unstable(columns):
            return columns
    for c in range(cols):
        for _ in range(100_000):  # each draw succeeds with probability above 1/10
            columns[c, :] = values
            rng.shuffle(columns[c])
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


@njit(cache=True)
def restart_cantris(states, games, fresh, values, attempts, rng):
    """Games ``games`` start afresh as ``fresh`` (the header) with a deal drawn as the
    Cantris env draws it."""
    for b in games:
        s = states[b]
        s[:] = fresh
        cols, rows = s[CT_COLS], s[CT_ROWS]
        columns = cantris_deal(values, cols, attempts, rng)
        for c in range(cols):
            for r in range(rows):
                s[CANTRIS_TILES + cols + c * rows + r] = columns[c, r]
