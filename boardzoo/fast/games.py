"""The game cores compiled: each game's rules as numba functions over a flat int64 array.

A position is one ``int64`` array (its layout per game below); every kernel takes the
game's id first and branches on it, so one compiled search serves every game. The
Python cores in :mod:`boardzoo.games` are the reference: :func:`encode` turns one into
its array, and ``tests/test_compiled.py`` plays thousands of random games on both,
comparing legal moves, outcomes and scores move by move.

Layouts (``s`` the array)::

    nim           pawns, k, coin, player, coin pending, winner
    connect_four  board of player 0, board of player 1, plies, winner, rows, cols, height,
                  cells, then the next free bit of every column
    cantris       rows, cols, bonus turn, taken tile scores, player, score 0, score 1, tiles left,
                  then every column's height, then the tiles (column c, height r at
                  ``CANTRIS_TILES + cols + c * rows + r``)
    geister       player, plies, max turns, winner, over, lost (blue 0, red 0, blue 1,
                  red 1), placed 0, placed 1, then 16 ghost squares, 16 colours, 36 board cells

Randomness is a xorshift64* generator whose state is a one-element uint64 array, seeded
from the agent's own seeded generator: the same seed gives the same game on this engine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

import boardzoo.fast.cache  # noqa: F401  (guards numba's disk cache; before any njit)
from boardzoo.games.geister.board import ESCAPED, GHOSTS, MOVE_ACTIONS, RED_SETS, SQUARES, TARGET
from boardzoo.games.registry import games

#: The compiled games, numbered as their declarations say (the kernels branch on these).
GAME_IDS = {name: game.compiled_id for name, game in games().items() if game.compiled_id is not None}
NIM, CONNECT_FOUR, CANTRIS, GEISTER = (GAME_IDS[name] for name in ("nim", "connect_four", "cantris", "geister"))
#: ``player`` of a chance event and of a finished game, as in :mod:`boardzoo.games.model`.
CHANCE, TERMINAL = -1, -2
#: Roll-out policies: uniform random, Nim's strategic rule, Geister's forward moves and rushing player.
RANDOM, STRATEGIC, FORWARD, RUSHING = range(4)
ROLLOUT_IDS = {"random": RANDOM, "strategic": STRATEGIC, "forward": FORWARD, "rushing": RUSHING}
#: Each compiled game's roll-out policies, as its declaration names them: name -> id.
POLICIES = {name: {policy: ROLLOUT_IDS[policy] for policy in game.compiled_rollouts}
            for name, game in games().items() if game.compiled_id is not None}
#: Most legal moves (and chance outcomes) a position can have, per game, given its array.
NIM_PAWNS, NIM_K, NIM_COIN, NIM_PLAYER, NIM_PENDING, NIM_WINNER = range(6)
C4_BOARD0, C4_BOARD1, C4_PLIES, C4_WINNER, C4_ROWS, C4_COLS, C4_HEIGHT, C4_CELLS, C4_TOPS = range(9)
CT_ROWS, CT_COLS, CT_BONUS, CT_TILE_SCORES, CT_PLAYER, CT_SCORE0, CT_SCORE1, CT_LEFT, CANTRIS_TILES = range(9)
(GS_PLAYER, GS_PLIES, GS_MAX_TURNS, GS_WINNER, GS_OVER, GS_LOST, GS_PLACED, GS_POS, GS_RED,
 GS_BOARD) = (0, 1, 2, 3, 4, 5, 9, 11, 27, 43)
GEISTER_LENGTH = GS_BOARD + SQUARES
#: Geister's move table: TARGET_TABLE[seat, square, direction] is the square reached,
#: ESCAPED through an exit, OFF_BOARD elsewhere off the board.
OFF_BOARD = -3
TARGET_TABLE = np.array([[[OFF_BOARD if t is None else t for t in row] for row in table] for table in TARGET],
                        dtype=np.int64)
RED_SET_TABLE = np.array(RED_SETS, dtype=np.int64)


# --- randomness --------------------------------------------------------------------------------
def seed_state(seed: int) -> np.ndarray:
    """A generator state from any int (splitmix64 of it: never the all-zero state)."""
    z = (seed + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    z ^= z >> 31
    return np.array([z or 1], dtype=np.uint64)


@njit(cache=True)
def random_float(rng):
    """Uniform in [0, 1): xorshift64*, the top 53 bits."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return np.float64((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def random_below(rng, n):
    return np.int64(random_float(rng) * n)


# --- encoding the Python cores --------------------------------------------------------------------
def encode(state) -> np.ndarray:
    """The array of a Python core's position (see the layouts above)."""
    name = state.game_name
    if name == "nim":
        return np.array([state.pawns, state.k, state.coin, state.player, state.coin_pending, state.winner],
                        dtype=np.int64)
    if name == "connect_four":
        geo = state.geo
        if geo.height * geo.cols > 63:
            raise ValueError(f"engine=compiled plays Connect Four boards whose (rows + 1) x cols fits in 63 bits, "
                             f"got {geo.rows}x{geo.cols}")
        return np.array([*state.boards, state.plies, state.winner, geo.rows, geo.cols, geo.height, geo.cells,
                         *state.heights], dtype=np.int64)
    if name == "cantris":
        tiles = np.zeros(state.cols * state.rows, dtype=np.int64)
        for c, column in enumerate(state.columns):
            tiles[c * state.rows: c * state.rows + len(column)] = column
        header = [state.rows, state.cols, state.bonus_turn, state.tile_scores, state.player, *state.scores,
                  sum(map(len, state.columns))]
        return np.concatenate([np.array(header + [len(column) for column in state.columns], dtype=np.int64), tiles])
    if name == "geister":
        header = [state.player, state.plies, state.max_turns, state.winner, state.over, *state.lost[0],
                  *state.lost[1], *state.placed]
        return np.array(header + list(state.pos) + [bool(red) for red in state.red] + list(state.board),
                        dtype=np.int64)
    raise ValueError(f"the compiled engine has no core for {name}")


# --- the rules, per game ----------------------------------------------------------------------------
@njit(cache=True)
def has_four(board, height):
    for shift in (1, height, height - 1, height + 1):
        pairs = board & (board >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


@njit(cache=True)
def current_player(game, s):
    if game == NIM:
        if s[NIM_WINNER] >= 0:
            return TERMINAL
        return CHANCE if s[NIM_PENDING] else s[NIM_PLAYER]
    if game == CONNECT_FOUR:
        if s[C4_WINNER] >= 0 or s[C4_PLIES] == s[C4_CELLS]:
            return TERMINAL
        return s[C4_PLIES] & 1
    if game == CANTRIS:
        return TERMINAL if s[CT_LEFT] == 0 else s[CT_PLAYER]
    return TERMINAL if s[GS_OVER] else s[GS_PLAYER]


@njit(cache=True)
def returns0(game, s):
    """Player 0's return (+1, -1, 0; 0 before the end); player 1's is its negative."""
    if game == CANTRIS:
        if s[CT_LEFT]:
            return 0.0
        winner = 0 if s[CT_SCORE0] > s[CT_SCORE1] else 1 if s[CT_SCORE1] > s[CT_SCORE0] else -1
    else:
        winner = s[NIM_WINNER] if game == NIM else s[C4_WINNER] if game == CONNECT_FOUR else s[GS_WINNER]
    return 1.0 if winner == 0 else -1.0 if winner == 1 else 0.0


@njit(cache=True)
def legal_actions(game, s, out):
    """Writes the legal actions (chance outcomes at a chance event) into ``out``, in the
    Python core's order; returns how many."""
    n = 0
    if game == NIM:
        if s[NIM_WINNER] >= 0:
            return 0
        if s[NIM_PENDING]:
            out[0], out[1] = 0, 1
            return 2
        for a in range(min(s[NIM_K], s[NIM_PAWNS])):
            out[a] = a
        return min(s[NIM_K], s[NIM_PAWNS])
    if game == CONNECT_FOUR:
        if s[C4_WINNER] >= 0:
            return 0
        height, rows = s[C4_HEIGHT], s[C4_ROWS]
        for c in range(s[C4_COLS]):
            if s[C4_TOPS + c] < c * height + rows:
                out[n] = c
                n += 1
        return n
    if game == CANTRIS:
        for c in range(s[CT_COLS]):
            if s[CANTRIS_TILES + c] > 0:
                out[n] = c
                n += 1
        return n
    if s[GS_OVER]:
        return 0
    if not (s[GS_PLACED] and s[GS_PLACED + 1]):
        for a in range(len(RED_SET_TABLE)):
            out[a] = MOVE_ACTIONS + a
        return len(RED_SET_TABLE)
    for a in range(MOVE_ACTIONS):
        if geister_target(s, s[GS_PLAYER], a) != OFF_BOARD:
            out[n] = a
            n += 1
    return n


@njit(cache=True)
def apply(game, s, action):
    """Plays ``action`` (legal: the caller's promise; chance outcomes included)."""
    if game == NIM:
        nim_apply(s, action)
    elif game == CONNECT_FOUR:
        connect_four_apply(s, action)
    elif game == CANTRIS:
        cantris_apply(s, action)
    else:
        geister_apply(s, action)


@njit(cache=True)
def chance_outcome(game, s, rng):
    """An outcome of the chance event, drawn by its probability (Nim's fair coin)."""
    return 1 if random_float(rng) < 0.5 else 0


@njit(cache=True)
def nim_apply(s, action):
    if s[NIM_PENDING]:
        s[NIM_PENDING] = 0
        if action == 1:
            s[NIM_PAWNS] -= 1
            if s[NIM_PAWNS] == 0:
                s[NIM_WINNER] = s[NIM_PLAYER]  # the coin took the last pawn: the mover wins
                return
        s[NIM_PLAYER] ^= 1
        return
    s[NIM_PAWNS] -= action + 1
    if s[NIM_PAWNS] == 0:
        s[NIM_WINNER] = s[NIM_PLAYER]
    elif s[NIM_COIN]:
        s[NIM_PENDING] = 1
    else:
        s[NIM_PLAYER] ^= 1


@njit(cache=True)
def connect_four_apply(s, column):
    player = s[C4_PLIES] & 1
    bit = np.int64(1) << s[C4_TOPS + column]
    s[C4_TOPS + column] += 1
    board = s[C4_BOARD0 + player] | bit
    s[C4_BOARD0 + player] = board
    s[C4_PLIES] += 1
    if has_four(board, s[C4_HEIGHT]):
        s[C4_WINNER] = player


@njit(cache=True)
def cantris_apply(s, column):
    rows, cols = s[CT_ROWS], s[CT_COLS]
    base = CANTRIS_TILES + cols + column * rows
    size = s[CANTRIS_TILES + column]
    points = s[base] if s[CT_TILE_SCORES] else 0
    for r in range(size - 1):  # the bottom tile is taken, the ones above fall
        s[base + r] = s[base + r + 1]
    s[base + size - 1] = 0
    s[CANTRIS_TILES + column] = size - 1
    s[CT_LEFT] -= 1
    cleared, rounds = cantris_settle(s, column)
    s[CT_SCORE0 + s[CT_PLAYER]] += points + cleared
    if not (s[CT_BONUS] and rounds):
        s[CT_PLAYER] ^= 1


@njit(cache=True)
def cantris_settle(s, fallen):
    """Clears lines of three or more and lets tiles fall until the board is stable (see
    :func:`boardzoo.games.cantris.settle`); ``fallen`` is the only column that changed
    on a stable board, checked the cheap way first. Returns (points, rounds)."""
    rows, cols = s[CT_ROWS], s[CT_COLS]
    tiles = CANTRIS_TILES + cols
    points = rounds = 0
    marks = np.zeros(0, dtype=np.bool_)
    first = True
    while True:
        found = False
        if first:
            first = False
            c = fallen
            for r in range(s[CANTRIS_TILES + c]):  # horizontal runs through the fallen column
                value = s[tiles + c * rows + r]
                left = c
                while left > 0 and r < s[CANTRIS_TILES + left - 1] and s[tiles + (left - 1) * rows + r] == value:
                    left -= 1
                right = c
                while right < cols - 1 and r < s[CANTRIS_TILES + right + 1] and \
                        s[tiles + (right + 1) * rows + r] == value:
                    right += 1
                if right - left >= 2:
                    if not found:
                        found = True
                        marks = np.zeros(rows * cols, dtype=np.bool_)
                    for k in range(left, right + 1):
                        marks[k * rows + r] = True
        else:
            marks = np.zeros(rows * cols, dtype=np.bool_)
            for c in range(cols):  # vertical runs
                size, base, r = s[CANTRIS_TILES + c], tiles + c * rows, 0
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
                    value = s[tiles + c * rows + r] if r < s[CANTRIS_TILES + c] else 0
                    end = c + 1
                    while end < cols and r < s[CANTRIS_TILES + end] and s[tiles + end * rows + r] == value:
                        end += 1
                    if value and end - c >= 3:
                        for k in range(c, end):
                            marks[k * rows + r] = True
                        found = True
                        c = end
                    else:
                        c += 1
        if not found:
            return points, rounds
        rounds += 1
        for c in range(cols):
            size, base, kept = s[CANTRIS_TILES + c], tiles + c * rows, 0
            for r in range(size):
                value = s[base + r]
                if marks[c * rows + r]:
                    points += value
                    s[CT_LEFT] -= 1
                else:
                    s[base + kept] = value
                    kept += 1
            for r in range(kept, size):
                s[base + r] = 0
            s[CANTRIS_TILES + c] = kept


@njit(cache=True)
def geister_target(s, seat, action):
    """Where the move ``action`` of ``seat`` lands (ESCAPED through an exit), or OFF_BOARD
    when it is illegal: the compiled twin of :func:`boardzoo.games.geister.rules.move_target`."""
    g = GHOSTS * seat + (action >> 2)
    square = s[GS_POS + g]
    if square < 0:
        return OFF_BOARD
    target = TARGET_TABLE[seat, square, action & 3]
    if target == OFF_BOARD:
        return OFF_BOARD
    if target == ESCAPED:
        return OFF_BOARD if s[GS_RED + g] else ESCAPED
    occupant = s[GS_BOARD + target]
    return target if occupant < 0 or occupant // GHOSTS != seat else OFF_BOARD


@njit(cache=True)
def geister_apply(s, action):
    seat = s[GS_PLAYER]
    if action >= MOVE_ACTIONS:
        for i in range(GHOSTS):
            s[GS_RED + GHOSTS * seat + i] = 0
        for i in RED_SET_TABLE[action - MOVE_ACTIONS]:
            s[GS_RED + GHOSTS * seat + i] = 1
        s[GS_PLACED + seat] = 1
        s[GS_PLAYER] = 0 if not s[GS_PLACED] else 1 if not s[GS_PLACED + 1] else 0
        return
    g = GHOSTS * seat + (action >> 2)
    square = s[GS_POS + g]
    target = TARGET_TABLE[seat, square, action & 3]
    s[GS_BOARD + square] = -1
    s[GS_PLIES] += 1
    if target == ESCAPED:
        s[GS_POS + g] = ESCAPED
        s[GS_WINNER], s[GS_OVER] = seat, 1
        return
    victim = s[GS_BOARD + target]
    s[GS_BOARD + target] = g
    s[GS_POS + g] = target
    s[GS_PLAYER] = 1 - seat
    if victim >= 0:
        s[GS_POS + victim] = -1  # captured
        other = 1 - seat
        if s[GS_RED + victim]:
            s[GS_LOST + 2 * other + 1] += 1
            if s[GS_LOST + 2 * other + 1] == 4:
                s[GS_WINNER], s[GS_OVER] = other, 1
                return
        else:
            s[GS_LOST + 2 * other] += 1
            if s[GS_LOST + 2 * other] == 4:
                s[GS_WINNER], s[GS_OVER] = seat, 1
                return
    if s[GS_PLIES] >= s[GS_MAX_TURNS]:
        s[GS_OVER] = 1
