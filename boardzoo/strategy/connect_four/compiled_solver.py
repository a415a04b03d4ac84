"""The exact Connect Four solver, compiled: the same search as
:class:`boardzoo.strategy.connect_four.solver.Solver` (its docstring describes it) in numba.

The Python solver is the reference: both give the exact score, and the tests check that
they agree on every test position. What differs is only how the work is organised:

* the table is two numpy arrays (keys, and packed bounds with the best move), all of
  ``memory_mb`` given to it: native code needs no cache of threat patterns;
* the search cannot call back into Python, so a timeout and progress work by node
  budgets: the compiled search stops when its budget is spent, Python reports progress,
  checks the clock and resumes it with the score interval narrowed so far (the table
  keeps what the stopped search learnt, so the repeated part is cheap). This happens
  whether or not anyone watches, so that Ctrl-C stops a long solve within seconds.
"""

from __future__ import annotations

import time

import numpy as np

from boardzoo.jit import njit
from boardzoo.strategy.connect_four.solver import ETC_DEPTH, Solver

#: Bits of a packed table entry: ``(lower + 32) | (upper + 32) << 6 | (column + 1) << 12``.
_OFFSET = 32
#: Node budget of the first resumable call; each next call gets twice as many, up to
#: ``_MAX_CHUNK`` (a few seconds of search). Always in budgets, watched or not: Python
#: handles Ctrl-C only between compiled calls, so a long solve must return now and then.
_FIRST_CHUNK, _MAX_CHUNK = 1 << 18, 1 << 24
#: The smallest budget of a call cut short by the timeout (about a millisecond of search).
_LAST_CHUNK = 1 << 14
#: Where the constants sit in the ``geo`` array the kernels take.
_CELLS, _BOARD, _BOTTOM, _HEIGHT, _ETC_LIMIT, _COLS, _SLOTS = range(7)
#: The counters array: nodes searched, node budget, and the flag of a stopped search.
_NODES, _LIMIT, _STOPPED = range(3)


@njit(cache=True)
def popcount(x):
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@njit(cache=True)
def completing_cells(discs, height):
    """Cells that would complete a four of ``discs`` (the compiled twin of
    :func:`boardzoo.games.connect_four.completing_cells`; bits past the board may be set,
    and every caller masks them off)."""
    cells = (discs << 1) & (discs << 2) & (discs << 3)
    for shift in (height, height - 1, height + 1):
        pair = (discs << shift) & (discs << (2 * shift))
        cells |= pair & (discs << (3 * shift))
        cells |= pair & (discs >> shift)
        pair = (discs >> shift) & (discs >> (2 * shift))
        cells |= pair & (discs << shift)
        cells |= pair & (discs >> (3 * shift))
    return cells


@njit(cache=True)
def _store(keys, values, slots, key, lower, upper, column):
    slot = key % slots
    keys[slot] = key
    values[slot] = (lower + _OFFSET) | (upper + _OFFSET) << 6 | (column + 1) << 12


@njit(cache=True)
def _search(current, mask, moves, alpha, beta, opponent_wins, geo, column_masks, order, keys, values, scratch,
            counters):
    """Negamax with alpha-beta on bitboards; see the Python solver's ``search`` for each step.
    Returns 0 at once, without storing anything, once the node budget is spent."""
    counters[_NODES] += 1
    if counters[_NODES] >= counters[_LIMIT]:
        counters[_STOPPED] = 1
        return 0
    cells, board_mask, slots = geo[_CELLS], geo[_BOARD], geo[_SLOTS]
    possible = (mask + geo[_BOTTOM]) & board_mask
    forced = possible & opponent_wins
    if forced:
        if forced & (forced - 1):
            return -((cells - moves) // 2)
        possible = forced
    candidates = possible & ~(opponent_wins >> 1)
    if not candidates:
        return -((cells - moves) // 2)
    if moves >= cells - 2:
        return 0
    low = -((cells - 2 - moves) // 2)
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (cells - 1 - moves) // 2
    key = current + mask
    slot = key % slots
    hash_move = 0
    hash_column = -1
    if keys[slot] == key:
        packed = np.int64(values[slot])
        lower, upper = (packed & 63) - _OFFSET, (packed >> 6 & 63) - _OFFSET
        column = (packed >> 12) - 1
        if column >= 0:
            hash_move = candidates & column_masks[column]
        if lower > low:
            low = lower
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
        if upper < high:
            high = upper
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta
    height = geo[_HEIGHT]
    empty = board_mask ^ mask
    if hash_move:
        hash_column = column
        mine = current | hash_move
        threats = completing_cells(mine, height) & (empty ^ hash_move)
        next_mask = mask | hash_move
        score = -_search(mine ^ next_mask, next_mask, moves + 1, -beta, -alpha, threats, geo, column_masks, order,
                         keys, values, scratch, counters)
        if counters[_STOPPED]:
            return 0
        if score >= beta:
            _store(keys, values, slots, key, score, high, hash_column)
            return score
        if score > alpha:
            alpha = score
        candidates ^= hash_move
        if not candidates:
            _store(keys, values, slots, key, low, alpha, hash_column)
            return alpha
    # The other moves, most winning cells created first, the centre first among equals:
    # an insertion sort of at most ``cols`` entries in this depth's row of ``scratch``.
    row = scratch[moves]
    count = 0
    for index in range(geo[_COLS]):
        column = order[index]
        move = candidates & column_masks[column]
        if not move:
            continue
        threats = completing_cells(current | move, height) & (empty ^ move)
        rank = popcount(threats) * 64 - index
        at = count
        while at > 0 and row[at - 1, 0] < rank:
            row[at, 0], row[at, 1], row[at, 2] = row[at - 1, 0], row[at - 1, 1], row[at - 1, 2]
            at -= 1
        row[at, 0], row[at, 1], row[at, 2] = rank, column, threats
        count += 1
    if moves < geo[_ETC_LIMIT]:
        for i in range(count):  # enhanced transposition cutoff, as in the Python solver
            move = candidates & column_masks[row[i, 1]]
            next_mask = mask | move
            child = ((current | move) ^ next_mask) + next_mask
            child_slot = child % slots
            if keys[child_slot] == child:
                refuted = _OFFSET - (np.int64(values[child_slot]) >> 6 & 63)
                if refuted >= beta:
                    _store(keys, values, slots, key, refuted, high, row[i, 1])
                    return refuted
    best_column = hash_column
    for i in range(count):
        column = row[i, 1]
        move = candidates & column_masks[column]
        next_mask = mask | move
        score = -_search((current | move) ^ next_mask, next_mask, moves + 1, -beta, -alpha, row[i, 2], geo,
                         column_masks, order, keys, values, scratch, counters)
        if counters[_STOPPED]:
            return 0
        if score >= beta:
            _store(keys, values, slots, key, score, high, column)
            return score
        if score > alpha:
            alpha = score
            best_column = column
    _store(keys, values, slots, key, low, alpha, best_column)
    return alpha


@njit(cache=True)
def narrow(current, mask, moves, low, high, geo, column_masks, order, keys, values, scratch, counters):
    """Null-window searches narrowing ``[low, high]`` to the exact score, until it is
    found or the node budget is spent; returns the interval reached."""
    opponent_wins = completing_cells(current ^ mask, geo[_HEIGHT]) & (geo[_BOARD] ^ mask)
    while low < high:
        middle = low + (high - low) // 2
        if middle <= 0 and -(-low // 2) < middle:
            middle = -(-low // 2)
        elif middle >= 0 and high // 2 > middle:
            middle = high // 2
        result = _search(current, mask, moves, middle, middle + 1, opponent_wins, geo, column_masks, order, keys,
                         values, scratch, counters)
        if counters[_STOPPED]:
            break
        if result <= middle:
            high = result
        else:
            low = result
    return low, high


class CompiledSolver(Solver):
    """:class:`~boardzoo.strategy.connect_four.solver.Solver` with the search compiled; the
    same constructor, the same exact scores."""

    #: A compiled table slot: the key (8 bytes) and the packed bounds and move (2).
    SLOT_BYTES = 10

    def _allocate(self, budget: float) -> None:
        if self.height * self.cols > 63:
            raise ValueError(f"the compiled solver handles boards whose (rows + 1) x cols fits in 63 bits, "
                             f"got {self.rows}x{self.cols}")
        self.table_slots = self.prime_at_most(int(budget / self.SLOT_BYTES))
        # Written once here (np.zeros alone maps pages lazily): the first search then
        # doesn't pay for the table's page faults, and the memory shows as taken.
        self.table_keys = np.empty(self.table_slots, dtype=np.int64)
        self.table_values = np.empty(self.table_slots, dtype=np.uint16)
        self.table_keys.fill(-1)  # no position's key (the empty board's is 0)
        self.table_values.fill(0)
        self.geo = np.array([self.cells, self.board_mask, self.bottom_mask, self.height, self.cells - ETC_DEPTH,
                             self.cols, self.table_slots], dtype=np.int64)
        self.column_mask_array = np.array(self.column_masks, dtype=np.int64)
        self.order_array = np.array(self.order, dtype=np.int64)
        self.scratch = np.zeros((self.cells + 1, self.cols, 3), dtype=np.int64)
        self.counters = np.zeros(3, dtype=np.int64)
        # Load (or compile) the kernels now, so that a position's time and timeout are its own.
        narrow(0, 0, 0, 0, 0, self.geo, self.column_mask_array, self.order_array, self.table_keys, self.table_values,
               self.scratch, self.counters)

    def table_bytes(self) -> int:
        return self.table_keys.nbytes + self.table_values.nbytes

    @property
    def nodes(self) -> int:
        return int(self.counters[_NODES])

    def _narrow(self, state, low: int, high: int) -> int:
        player = state.plies & 1
        current, mask = state.boards[player], state.boards[0] | state.boards[1]
        counters = self.counters
        counters[:] = 0
        chunk = _FIRST_CHUNK
        while low < high:
            self.bounds = (low, high)
            if counters[_NODES]:
                self._tick()  # between the calls, whether the last one stopped or finished
            counters[_LIMIT] = counters[_NODES] + self._within_timeout(chunk)
            counters[_STOPPED] = 0
            low, high = narrow(current, mask, state.plies, low, high, self.geo, self.column_mask_array,
                               self.order_array, self.table_keys, self.table_values, self.scratch, counters)
            low, high = int(low), int(high)
            if counters[_STOPPED]:
                chunk = min(2 * chunk, _MAX_CHUNK)
        self.bounds = (low, low)
        return low

    def _within_timeout(self, chunk: int) -> int:
        """The next call's node budget: ``chunk``, cut to the nodes the time left allows
        at the rate searched so far. The timeout is looked at only between calls, so a
        budget of seconds would otherwise overrun by up to a whole chunk (a 0.5 s timeout
        took up to 1.1 s)."""
        nodes = int(self.counters[_NODES])
        if self.timeout is None or nodes < _FIRST_CHUNK:
            return chunk
        elapsed = time.perf_counter() - self._started
        left = self.timeout - elapsed
        return max(_LAST_CHUNK, min(chunk, int(nodes / elapsed * left)))
