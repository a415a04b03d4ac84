"""The purple search's positions compiled (the ``fast`` extra): the tables of
:mod:`.purple_position` as arrays, a position as rows of ``ints`` and ``floats`` per ply,
and the kernels that evaluate a position and play a move on it, each term by term the
reference's (:mod:`.purple_evaluation`, :class:`~boardzoo.strategy.geister.purple.PurpleSearch`).

A position is a row of a few arrays, one row per ply (the child of ply ``k`` is
written at ``k + 1``, so nothing is allocated during a search):

* ``ints[ply]``: the bitmasks and counts of :class:`~boardzoo.strategy.geister.purple_position.Position`
  (``RED`` ... ``RED_STEPS`` below);
* ``floats[ply]``: its ``gain`` and ``danger``;
* ``odds[row]``: blue odds and threat odds of each square, NaN where the Python tables
  have no entry (each reading keeps its own default for a missing entry). Only an
  opponent move that carries an entry copies the tables, into the row of its ply;
  ``odds_row[ply]`` says which row a ply reads, as the Python positions share one dict.
"""

from __future__ import annotations

import numpy as np

from boardzoo.jit import njit
from boardzoo.strategy.geister import purple_position as reference

RED, BLUE, PURPLE, MARKED, TAKES, HIDDEN_REDS, OUR_REDS, OUR_BLUES, BLUE_STEPS, RED_STEPS = range(10)
GAIN, DANGER_SUM = range(2)
#: The settings of a search, as one float array.
(W_OURS, W_GAIN, HUNT, REPEAT, RACE_WEIGHT, RED_PULL, BAIT, CAUTION, BOLDNESS, HUNTING,
 DEADLINE) = range(11)
#: The counters: nodes searched, whether the time ran out, the positions whose best move
#: is kept, and the search's generation (the best-move table's entries of earlier
#: searches are stale without being cleared).
NODES, TIMED_OUT, KEPT, GENERATION = range(4)
#: The best-move table's columns: the key (our reds, our blues, their ghosts with the side
#: to move as bit 36), the move (from * 64 + to), the generation that wrote it.
KEY_RED, KEY_BLUE, KEY_PURPLE_SIDE, MOVE, STAMP = range(5)
#: Deepest ply a search can reach (``best_move``'s ``max_depth`` is at most 40 in the agent).
MAX_PLY = 64
MAX_MOVES = 40
EMPTY = -1
#: Bit 36 of a best-move key: the opponent to move.
THEIR_SIDE = 1 << 36

WIN = reference.WIN
SURE_ESCAPE, ESCAPE_PRICE, LAST_RED_RISK = reference.SURE_ESCAPE, reference.ESCAPE_PRICE, reference.LAST_RED_RISK
HUNT_SURE, REPEAT_CAP, UNCOVERED_REACH = reference.HUNT_SURE, reference.REPEAT_CAP, reference.UNCOVERED_REACH
BEST_MOVES_KEPT = reference.BEST_MOVES_KEPT
EXIT_MASK = reference.EXIT_MASK
OUR_EXIT_MASK = (1 << reference.OUR_EXITS[0]) | (1 << reference.OUR_EXITS[1])
THEIR_EXIT_0, THEIR_EXIT_1 = reference.THEIR_EXITS
SQUARES = len(reference.NEIGHBOURS)


def table_of(rows, width: int) -> np.ndarray:
    out = np.full((len(rows), width), EMPTY, dtype=np.int64)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


TAKES_PENALTY = np.array(reference.TAKES_PENALTY)
DANGER = np.array(reference.DANGER)
BLUES_LOST_PENALTY = np.array(reference.BLUES_LOST_PENALTY)
RACE_WIN = np.array(reference.RACE_WIN)
UNCOVERED = np.array(reference.UNCOVERED)
NEIGHBOURS = table_of(reference.NEIGHBOURS, 4)
NEIGHBOUR_MASK = np.array(reference.NEIGHBOUR_MASK, dtype=np.int64)
OUR_DISTANCE = np.array(reference.OUR_DISTANCE, dtype=np.int64)
THEIR_DISTANCE = np.array(reference.THEIR_DISTANCE, dtype=np.int64)
STEPS = np.array(reference.STEPS, dtype=np.int64)
OUR_DISTANCE_RINGS = np.array(reference.OUR_DISTANCE_RINGS, dtype=np.int64)
OUR_EXIT_RINGS = np.array(reference.OUR_EXIT_RINGS, dtype=np.int64)
THEIR_EXIT_RINGS = np.array(reference.THEIR_EXIT_RINGS, dtype=np.int64)
THEIR_EXIT_WITHIN = np.array(reference.THEIR_EXIT_WITHIN, dtype=np.int64)
#: The square of a one-bit mask by its remainder mod 37 (2 is a primitive root of 37, so
#: the 36 powers of two leave 36 different remainders): a lowest-bit index in one lookup.
BIT_INDEX = np.full(37, EMPTY, dtype=np.int64)
for _square in range(SQUARES):
    BIT_INDEX[(1 << _square) % 37] = _square


@njit(cache=True)
def low_square(mask):
    return BIT_INDEX[(mask & -mask) % 37]


@njit(cache=True)
def odds_at(odds, square, default):
    """The odds of ``square``, or ``default`` where the Python table has no entry (NaN)."""
    value = odds[square]
    return default if value != value else value


@njit(cache=True)
def nearest_ring(rings, mask):
    """The fewest steps to a square of ``mask`` by the rings of the steps (99: none)."""
    for d in range(rings.shape[0]):
        if rings[d] & mask:
            return d
    return 99


@njit(cache=True)
def race(ints, threat, ply, ours_to_move):
    """:meth:`PurpleSearch.race`, step for step (``threat``: the ply's threat odds)."""
    ours = ints[ply, RED] | ints[ply, BLUE]
    purple, blue = ints[ply, PURPLE], ints[ply, BLUE]
    theirs = purple & ~ints[ply, MARKED]
    runner = 99
    for k in range(2):
        rings = OUR_EXIT_RINGS[k]
        for d in range(rings.shape[0]):
            ring = rings[d]
            if ring & purple or d + 1 >= runner:
                break
            if ring & blue:
                runner = d + 1
                break
    first = runner - 1 if ours_to_move else runner
    guard0 = nearest_ring(THEIR_EXIT_RINGS[0], ours)
    guard1 = nearest_ring(THEIR_EXIT_RINGS[1], ours)
    near = theirs & (THEIR_EXIT_WITHIN[0, min(guard0, UNCOVERED_REACH)]
                     | THEIR_EXIT_WITHIN[1, min(guard1, UNCOVERED_REACH)])
    cost, none_first = 0.0, 1.0
    while near:
        s = low_square(near)
        near &= near - 1
        moves = 99
        d = STEPS[s, THEIR_EXIT_0]
        if d < guard0 and d + 1 < moves:
            moves = d + 1
        d = STEPS[s, THEIR_EXIT_1]
        if d < guard1 and d + 1 < moves:
            moves = d + 1
        q = odds_at(threat, s, 0.5)
        cost += q * UNCOVERED[moves]
        if moves <= first:
            none_first *= 1.0 - q
    win = RACE_WIN[runner] * none_first if runner < RACE_WIN.shape[0] else 0.0
    return win - cost


@njit(cache=True)
def hunt_steps(ints, blue_odds, ply):
    """:meth:`PurpleSearch.hunt_steps`, step for step, the same sums in the same order."""
    red = ints[ply, RED]
    total = 0.0
    prey = ints[ply, PURPLE] & ~ints[ply, MARKED]
    while prey:
        s = low_square(prey)
        prey &= prey - 1
        q = odds_at(blue_odds, s, 0.0)
        if q >= HUNT_SURE:
            first = second = 0
            reds = red
            while reds:
                d = STEPS[s, low_square(reds)]
                reds &= reds - 1
                if not first or d < first:
                    first, second = d, first
                elif not second or d < second:
                    second = d
            total += q * (first + second)
    return total


@njit(cache=True)
def evaluate(ints, floats, odds, odds_row, ply, ours_to_move, settings):
    """:meth:`PurpleSearch.evaluate`, term by term in the same order (so to the last bit)."""
    w_ours, w_gain = settings[W_OURS], settings[W_GAIN]
    score = (w_gain * floats[ply, GAIN] - BLUES_LOST_PENALTY[4 - ints[ply, OUR_BLUES]]
             - settings[CAUTION] * TAKES_PENALTY[ints[ply, TAKES]] - floats[ply, DANGER_SUM])
    blue, red = ints[ply, BLUE], ints[ply, RED]
    if blue:
        score -= w_ours * (nearest_ring(OUR_DISTANCE_RINGS, blue) + 0.25 * ints[ply, BLUE_STEPS])
    score -= w_ours * settings[RED_PULL] * ints[ply, RED_STEPS]
    row = odds_row[ply]
    if settings[HUNTING] != 0.0 and red:
        score -= settings[HUNT] * hunt_steps(ints, odds[row, 0], ply)
    if settings[RACE_WEIGHT] != 0.0:
        score += settings[RACE_WEIGHT] * race(ints, odds[row, 1], ply, ours_to_move)
    if settings[BAIT] != 0.0 and settings[BOLDNESS] != 0.0:
        offered = 0
        reds = red
        while reds:
            if NEIGHBOUR_MASK[low_square(reds)] & ints[ply, PURPLE]:
                offered += 1
            reds &= reds - 1
        score += settings[BAIT] * settings[BOLDNESS] * offered
    return score


@njit(cache=True)
def copy_position(ints, floats, ply):
    """The position of ``ply`` copied to ``ply + 1`` (element by element: numba compiles a
    loop much faster than an array assignment)."""
    for i in range(ints.shape[1]):
        ints[ply + 1, i] = ints[ply, i]
    for i in range(floats.shape[1]):
        floats[ply + 1, i] = floats[ply, i]


@njit(cache=True)
def play_ours(ints, floats, odds, odds_row, ply, s, t, settings):
    """Our move s -> t from ``ply`` into ``ply + 1``; False when it loses on the spot."""
    sb, tb = np.int64(1) << s, np.int64(1) << t
    child = ply + 1
    copy_position(ints, floats, ply)
    odds_row[child] = odds_row[ply]
    if ints[ply, RED] & sb:
        ints[child, RED] = ints[ply, RED] ^ sb | tb
        ints[child, RED_STEPS] += OUR_DISTANCE[t] - OUR_DISTANCE[s]
    else:
        ints[child, BLUE] = ints[ply, BLUE] ^ sb | tb
        ints[child, BLUE_STEPS] += OUR_DISTANCE[t] - OUR_DISTANCE[s]
    purple, marked = ints[ply, PURPLE], ints[ply, MARKED]
    if purple & tb:
        row = odds_row[ply]
        if not marked & tb:
            floats[child, DANGER_SUM] -= odds_at(odds[row, 1], t, 0.5) * DANGER[THEIR_DISTANCE[t]]
        takes, hidden_reds = ints[ply, TAKES], ints[ply, HIDDEN_REDS]
        if marked & tb:
            takes -= 1
        elif hidden_reds and takes == 1:
            risk = 1.0 - odds_at(odds[row, 0], t, 0.0)
            if risk >= LAST_RED_RISK:
                return False
            floats[child, GAIN] += 1.0 - risk * ESCAPE_PRICE / settings[W_GAIN]
        elif hidden_reds:
            takes -= 1
            hidden_reds -= 1
            floats[child, GAIN] += odds_at(odds[row, 0], t, 0.0)
        else:
            floats[child, GAIN] += 1.0
        if takes <= 0:
            return False
        ints[child, TAKES], ints[child, HIDDEN_REDS] = takes, hidden_reds
        ints[child, PURPLE] = purple & ~tb
        ints[child, MARKED] = marked & ~tb
    return True


@njit(cache=True)
def play_theirs(ints, floats, odds, odds_row, ply, s, t):
    """Their move s -> t from ``ply`` into ``ply + 1``; False when it loses for them."""
    sb, tb = np.int64(1) << s, np.int64(1) << t
    child = ply + 1
    copy_position(ints, floats, ply)
    row = odds_row[ply]
    ints[child, PURPLE] = ints[ply, PURPLE] ^ sb | tb
    if ints[ply, MARKED] & sb:
        ints[child, MARKED] = ints[ply, MARKED] ^ sb | tb
    else:
        floats[child, DANGER_SUM] += odds_at(odds[row, 1], s, 0.5) * (DANGER[THEIR_DISTANCE[t]]
                                                                   - DANGER[THEIR_DISTANCE[s]])
    red, blue = ints[ply, RED], ints[ply, BLUE]
    if (red | blue) & tb:
        if red & tb and ints[ply, OUR_REDS] <= 1:
            return False
        if red & tb:
            ints[child, RED] = red & ~tb
            ints[child, OUR_REDS] -= 1
            ints[child, RED_STEPS] -= OUR_DISTANCE[t]
        else:
            ints[child, BLUE] = blue & ~tb
            ints[child, OUR_BLUES] -= 1
            ints[child, BLUE_STEPS] -= OUR_DISTANCE[t]
    carried = False
    for k in range(2):
        if odds[row, k, s] == odds[row, k, s] or odds[row, k, t] == odds[row, k, t]:
            carried = True
    if carried:  # the ghost's entry goes along (and one left on t by a ghost taken there goes)
        for k in range(2):
            for square in range(SQUARES):
                odds[child, k, square] = odds[row, k, square]
            odds[child, k, t] = odds[row, k, s]
            odds[child, k, s] = np.nan
        odds_row[child] = child
    else:
        odds_row[child] = row
    return True
