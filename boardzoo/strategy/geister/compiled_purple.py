"""The purple search compiled (the ``fast`` extra): :class:`CompiledPurpleSearch`.

The same search as :class:`boardzoo.strategy.geister.purple.PurpleSearch` (its docstring
describes it), node for node: the same moves in the same order, the same evaluation to
the last bit, the same best-move table and killers, so at a given depth it visits the
same nodes and returns the same move and value (``tests/test_compiled.py`` holds it to
the Python search on random positions). Only the speed differs, and with a time budget
the depth it reaches.

Positions are rows of arrays per ply (:mod:`.compiled_purple_position`).
The clock is read, as in Python, every 64 nodes, through numba's object mode.
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np

from boardzoo.jit import njit
from boardzoo.strategy.geister import purple_position as reference
from boardzoo.strategy.geister.compiled_purple_position import (
    BEST_MOVES_KEPT,
    BLUE,
    BOLDNESS,
    DEADLINE,
    EMPTY,
    ESCAPE_PRICE,
    EXIT_MASK,
    GENERATION,
    KEPT,
    KEY_BLUE,
    KEY_PURPLE_SIDE,
    KEY_RED,
    MARKED,
    MAX_MOVES,
    MAX_PLY,
    MOVE,
    NEIGHBOUR_MASK,
    NEIGHBOURS,
    NODES,
    OUR_BLUES,
    OUR_EXIT_MASK,
    OUR_REDS,
    PURPLE,
    RED,
    REPEAT,
    REPEAT_CAP,
    SQUARES,
    STAMP,
    SURE_ESCAPE,
    THEIR_SIDE,
    TIMED_OUT,
    WIN,
    evaluate,
    low_square,
    odds_at,
    play_ours,
    play_theirs,
)
from boardzoo.strategy.geister.purple import PurpleSearch
from boardzoo.strategy.geister.purple_position import Position, board_key, squares_of


@njit(cache=True)
def _moves(ints, ply, moves, ours):
    """The moves of a side at ``ply`` into ``moves[ply]`` (from, to), as Python's
    ``our_moves`` / ``their_moves`` list them: captures in the order generated, then the
    quiet ones by a stable sort, ours forward first (by ``t - s``), theirs toward us
    (by ``s - t``); returns how many."""
    mine = ints[ply, RED] | ints[ply, BLUE]
    purple = ints[ply, PURPLE]
    movers, targets = (mine, purple) if ours else (purple, mine)
    n = 0
    for quiet in range(2):  # captures first, then the quiet moves sorted by insertion
        first_quiet = n
        rest = movers
        while rest:
            s = low_square(rest)
            rest &= rest - 1
            for i in range(4):
                t = NEIGHBOURS[s, i]
                if t < 0:
                    break
                bit = np.int64(1) << t
                if movers & bit or ((targets & bit) != 0) != (quiet == 0):
                    continue
                key = t - s if ours else s - t
                j = n
                while quiet and j > first_quiet and _sort_key(moves, ply, j - 1, ours) > key:
                    moves[ply, j, 0], moves[ply, j, 1] = moves[ply, j - 1, 0], moves[ply, j - 1, 1]
                    j -= 1
                moves[ply, j, 0], moves[ply, j, 1] = s, t
                n += 1
    return n


@njit(cache=True)
def _sort_key(moves, ply, i, ours):
    return moves[ply, i, 1] - moves[ply, i, 0] if ours else moves[ply, i, 0] - moves[ply, i, 1]


@njit(cache=True)
def _to_front(moves, ply, n, s, t):
    """Move (s, t) to the front of the ply's moves, if it is one of them."""
    for i in range(n):
        if moves[ply, i, 0] == s and moves[ply, i, 1] == t:
            for j in range(i, 0, -1):
                moves[ply, j, 0], moves[ply, j, 1] = moves[ply, j - 1, 0], moves[ply, j - 1, 1]
            moves[ply, 0, 0], moves[ply, 0, 1] = s, t
            return


@njit(cache=True)
def _slot(table, counters, red, blue, purple_side):
    """The best-move table's slot holding this key, or the empty one where it goes: an
    open-addressing hash table with linear probing, never more than half full, so the
    table keeps exactly what the Python search's dict keeps (:data:`BEST_MOVES_KEPT`)."""
    mask = table.shape[0] - 1
    h = red * 0x2545F4914F6CDD1D ^ blue * 0x5851F42D4C957F2D ^ purple_side * 0x27BB2EE687B0B0FD
    i = (h ^ (h >> 29)) & mask
    generation = counters[GENERATION]
    while table[i, STAMP] == generation:
        if table[i, KEY_RED] == red and table[i, KEY_BLUE] == blue and table[i, KEY_PURPLE_SIDE] == purple_side:
            break
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _order(moves, ply, n, killers, table, counters, red, blue, purple_side):
    for k in range(2):
        if killers[ply, k, 0] != EMPTY:
            _to_front(moves, ply, n, killers[ply, k, 0], killers[ply, k, 1])
    i = _slot(table, counters, red, blue, purple_side)
    if table[i, STAMP] == counters[GENERATION]:
        hint = table[i, MOVE]
        _to_front(moves, ply, n, hint // 64, hint % 64)


@njit(cache=True)
def _remember(killers, table, counters, red, blue, purple_side, s, t, ply, depth, cut):
    if depth >= 2:
        i = _slot(table, counters, red, blue, purple_side)
        if table[i, STAMP] == counters[GENERATION]:
            table[i, MOVE] = s * 64 + t
        elif counters[KEPT] < BEST_MOVES_KEPT:
            table[i, KEY_RED], table[i, KEY_BLUE], table[i, KEY_PURPLE_SIDE] = red, blue, purple_side
            table[i, MOVE], table[i, STAMP] = s * 64 + t, counters[GENERATION]
            counters[KEPT] += 1
    if cut:
        for k in range(2):
            if killers[ply, k, 0] == s and killers[ply, k, 1] == t:
                return
        killers[ply, 1, 0], killers[ply, 1, 1] = killers[ply, 0, 0], killers[ply, 0, 1]
        killers[ply, 0, 0], killers[ply, 0, 1] = s, t


@njit(cache=True)
def _tick(counters, settings):
    counters[NODES] += 1
    if counters[NODES] & 63 == 0:
        with numba.objmode(now="float64"):
            now = time.perf_counter()
        if now > settings[DEADLINE]:
            counters[TIMED_OUT] = 1
            return False
    return True


@njit(cache=True)
def _search(ints, floats, odds, odds_row, moves, killers, table, counters, settings, depth, alpha, beta, ply, ours):
    """``PurpleSearch.our_turn`` (``ours`` 1) or ``their_turn`` with its ``their_gamble``
    (``ours`` 0), step for step, in one self-recursive function written once for both
    sides: numba's compile time grows with the code, and this function holds most of it.
    The side is an int computed at each call: functions calling each other, or one
    calling itself with a literal True or False (two specializations calling each other),
    compile but crash when loaded from numba's cache (numba's bug report #6061, github.com/numba/numba/issues/6061)."""
    if ours:
        if ints[ply, BLUE] & OUR_EXIT_MASK:
            return WIN - ply
        if ints[ply, OUR_BLUES] == 0:
            return -WIN + ply
    if not _tick(counters, settings):
        return 0.0
    risk = 0.0 if ours else _escape_risk(ints, odds, odds_row, ply)
    if risk >= SURE_ESCAPE:
        return -WIN + ply
    here = 0.0  # a ghost on our exit at its owner's turn escapes if blue: not a move of this game
    if depth == 0 or risk != 0.0:
        here = evaluate(ints, floats, odds, odds_row, ply, ours == 1, settings) - ESCAPE_PRICE * risk
        if depth == 0:
            return here
    red, blue, purple = ints[ply, RED], ints[ply, BLUE], ints[ply, PURPLE]
    last_red = not ours and ints[ply, OUR_REDS] <= 1
    # with our last red left a cautious opponent does not capture (it may be its fourth
    # red), a bold one does: the value is the mixture of the two, each searched in full
    gamble = last_red and settings[BOLDNESS] > 0.0 and _can_capture(ints, ply)
    value_best = -WIN if ours else WIN  # in a gamble, the cautious opponent's value
    if risk != 0.0:
        value_best = here
        if not gamble:
            if value_best <= alpha:
                return value_best
            beta = min(beta, value_best)
    bold = value_best
    n = _moves(ints, ply, moves, ours)
    purple_side = purple if ours else purple | THEIR_SIDE
    if not gamble:
        _order(moves, ply, n, killers, table, counters, red, blue, purple_side)
    best_s, best_t = np.int64(0), np.int64(0)
    if n:
        best_s, best_t = moves[ply, 0, 0], moves[ply, 0, 1]
    for i in range(n):
        s, t = moves[ply, i, 0], moves[ply, i, 1]
        capture = (purple if ours else red | blue) & (np.int64(1) << t)
        if last_red and capture and (not gamble or red & capture):
            continue  # any capture may be a cautious opponent's fourth red; our last red, anyone's
        if play_ours(ints, floats, odds, odds_row, ply, s, t, settings) if ours else play_theirs(
                ints, floats, odds, odds_row, ply, s, t):
            value = _search(ints, floats, odds, odds_row, moves, killers, table, counters, settings, depth - 1,
                            -WIN - 1.0 if gamble else alpha, WIN + 1.0 if gamble else beta, ply + 1, 1 - ours)
            if counters[TIMED_OUT]:
                return 0.0
        else:
            value = -WIN + ply if ours else WIN - ply
        if gamble:
            if capture:
                bold = min(bold, value)
            else:
                value_best = min(value_best, value)
        elif ours:
            if value > value_best:
                value_best, best_s, best_t = value, s, t
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        elif value < value_best:
            value_best, best_s, best_t = value, s, t
            if value < beta:
                beta = value
                if alpha >= beta:
                    break
    if gamble:
        boldness = settings[BOLDNESS]
        return boldness * min(bold, value_best) + (1.0 - boldness) * value_best
    _remember(killers, table, counters, red, blue, purple_side, best_s, best_t, ply, depth,
              value_best >= beta if ours else value_best <= alpha)
    return value_best


@njit(cache=True)
def _escape_risk(ints, odds, odds_row, ply):
    """The highest odds of blue (1 where unread) among the opponent's unmarked ghosts on
    our exits, which escape at its turn if blue; 0 when none stands there."""
    rest = ints[ply, PURPLE] & ~ints[ply, MARKED] & EXIT_MASK
    risk = 0.0
    row = odds_row[ply]
    while rest:
        q = odds_at(odds[row, 0], low_square(rest), 1.0)
        rest &= rest - 1
        if q > risk:
            risk = q
    return risk


@njit(cache=True)
def _can_capture(ints, ply):
    """Does an opponent ghost stand next to one of ours?"""
    rest = ints[ply, RED] | ints[ply, BLUE]
    while rest:
        if ints[ply, PURPLE] & NEIGHBOUR_MASK[low_square(rest)]:
            return True
        rest &= rest - 1
    return False


@njit(cache=True)
def _best_move(ints, floats, odds, odds_row, moves, killers, table, counters, settings, max_depth, visited_keys,
               visited_counts, out):
    """The root: iterative deepening until ``max_depth`` or the deadline. ``out``: the
    move (from, to), the depth done; returns the value."""
    n = _moves(ints, 0, moves, 1)
    root = moves[0, :n].copy()
    best_s, best_t, best_value = root[0, 0], root[0, 1], -WIN
    repeat = settings[REPEAT]
    depth_done = 0
    for depth in range(1, max_depth + 1):
        alpha, chosen, chosen_value = -WIN - 1.0, 0, -WIN - 1.0
        for i in range(n):
            s, t = root[i, 0], root[i, 1]
            if not play_ours(ints, floats, odds, odds_row, 0, s, t, settings):
                value = -WIN
            else:
                value = _search(ints, floats, odds, odds_row, moves, killers, table, counters, settings, depth - 1,
                                alpha, WIN + 1.0, np.int64(1), np.int64(0))
                if counters[TIMED_OUT]:
                    break
                if visited_keys.shape[0] and repeat != 0.0 and abs(value) < WIN / 2:
                    for j in range(visited_keys.shape[0]):
                        if (visited_keys[j, 0] == ints[1, RED] and visited_keys[j, 1] == ints[1, BLUE]
                                and visited_keys[j, 2] == ints[1, PURPLE]):
                            value -= repeat * min(visited_counts[j], REPEAT_CAP)
                            break
            if value > chosen_value:
                chosen, chosen_value = i, value
                alpha = max(alpha, value)
        if counters[TIMED_OUT]:
            break
        best_s, best_t, best_value, depth_done = root[chosen, 0], root[chosen, 1], chosen_value, depth
        for j in range(chosen, 0, -1):
            root[j, 0], root[j, 1] = root[j - 1, 0], root[j - 1, 1]
        root[0, 0], root[0, 1] = best_s, best_t
        if abs(chosen_value) > WIN / 2:
            break
    out[0], out[1], out[2] = best_s, best_t, depth_done
    return best_value


class CompiledPurpleSearch(PurpleSearch):
    """:class:`~boardzoo.strategy.geister.purple.PurpleSearch` whose :meth:`best_move` runs
    compiled; everything else (the Python evaluation, the moves) is the Python search's.
    Without ``ordering`` there is nothing to compile against (the reference order is the
    Python search's job), so it is always on here."""

    def __init__(self, **options):
        if options.get("ordering") is False:
            raise ValueError("the compiled purple search always orders its moves; use PurpleSearch for the "
                             "plain order")
        super().__init__(**options)
        self.ints = np.zeros((MAX_PLY + 2, 10), dtype=np.int64)
        self.floats = np.zeros((MAX_PLY + 2, 2))
        self.odds = np.full((MAX_PLY + 2, 2, SQUARES), np.nan)
        self.odds_row = np.zeros(MAX_PLY + 2, dtype=np.int64)
        self.moves = np.zeros((MAX_PLY + 2, MAX_MOVES, 2), dtype=np.int64)
        self.killer_table = np.full((MAX_PLY + 2, 2, 2), EMPTY, dtype=np.int64)
        self.counters = np.zeros(4, dtype=np.int64)
        #: The best-move table, twice as many slots as it may keep (see :func:`_slot`).
        self.table = np.zeros((2 * BEST_MOVES_KEPT, 5), dtype=np.int64)
        self.out = np.zeros(3, dtype=np.int64)

    def best_move(self, p: Position, seconds: float | None, max_depth: int = 40,
                  boldness: float = 0.0, visited: dict[tuple[int, int, int], int] | None = None
                  ) -> tuple[tuple[int, int], float]:
        if max_depth > MAX_PLY - 2:
            raise ValueError(f"the compiled purple search goes at most {MAX_PLY - 2} plies deep, got {max_depth}")
        self.boldness = boldness
        start = time.perf_counter()
        deadline = math.inf if seconds is None else start + seconds
        self.nodes = 0
        self.depth_done = 0
        hunting = bool(self.hunt) and any(q >= reference.HUNT_SURE for q in p.blue_odds.values())
        self.hunting = hunting
        for s in squares_of(p.blue):
            if s in reference.OUR_EXITS:
                return (s, -1), WIN
        self.ints[0] = (p.red, p.blue, p.purple, p.marked, p.takes, p.hidden_reds, p.our_reds, p.our_blues,
                        p.blue_steps, p.red_steps)
        self.floats[0] = (p.gain, p.danger)
        self.odds[0] = np.nan
        for k, table in enumerate((p.blue_odds, p.threat_odds)):
            for square, q in table.items():
                self.odds[0, k, square] = q
        self.odds_row[0] = 0
        self.killer_table.fill(EMPTY)
        self.counters[NODES] = self.counters[TIMED_OUT] = self.counters[KEPT] = 0
        self.counters[GENERATION] += 1
        settings = np.array([self.weights[0], self.weights[1], self.hunt, self.repeat, self.race_weight,
                             self.red_pull, self.bait, self.caution, boldness, float(hunting), deadline])
        visited = visited or {}
        keys = np.array(list(visited), dtype=np.int64).reshape(-1, 3)
        counts = np.array(list(visited.values()), dtype=np.int64)
        try:
            value = _best_move(self.ints, self.floats, self.odds, self.odds_row, self.moves, self.killer_table,
                               self.table, self.counters, settings, max_depth, keys, counts, self.out)
        except SystemError as error:
            # Ctrl-C (or the command line's SIGTERM) lands in the clock reading's object mode,
            # which numba reports as a SystemError caused by it: raise the interrupt itself,
            # as the Python search would
            if error.__cause__ is not None and not isinstance(error.__cause__, Exception):
                raise error.__cause__ from None
            raise
        self.nodes = int(self.counters[NODES])
        self.depth_done = int(self.out[2])
        return (int(self.out[0]), int(self.out[1])), float(value)


def warm_up() -> None:
    """Load (or compile, the first time after an install) the compiled search."""
    position = Position(1 << 31, 1 << 32, 1 << 2, 0, 4, 4, 1, 1, 0.0, {2: 0.5})
    CompiledPurpleSearch(hunt=1.0, race=1.0, bait=1.0).best_move(position, None, 2, 0.5, {board_key(position): 1})
