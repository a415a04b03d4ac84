"""An exact Connect Four solver: the game-theoretic score of any position.

Score convention (the standard one of Connect Four solver benchmarks), from the side of
the player to move: 0 for a draw; ``C/2 + 1 - d`` when the player to move wins and will
have placed ``d`` discs when it completes its four (``C`` = number of cells, so 22 on
6x7: an immediate win at move 7 of the game scores 18); the negative of the same count
for the opponent when the player to move loses.

Techniques: bitboards (the side to move and the occupancy mask; ``current + mask`` is a
unique key), only non-losing moves are searched (a forced block is played at once, a
move under an opponent's winning cell never), moves ordered by the number of winning
cells they create then centre first, a transposition table holding upper and lower
bounds, and the exact score found by a sequence of null-window searches that narrow
the interval ``[min, max]`` (iterative deepening on the score).

Memory is bounded inside a search: the transposition table is a fixed number of slots in
flat arrays (``memory_mb``, 256 MB by default), each slot holding one position's key and
its packed bounds; a new entry overwrites whatever shared its slot, as the standard
solvers' tables do. Losing an entry costs time, never correctness. A ``timeout`` stops a
search with :class:`~boardzoo.errors.BudgetError`; ``progress`` is called about every
4,000 nodes with the nodes searched, the seconds elapsed and the current score bounds.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable

from boardzoo.errors import BoardzooError, BudgetError
from boardzoo.games.connect_four import ConnectFourState, completing_cells
from boardzoo.values import number, seconds

#: Nodes with more empty cells than this look up their children's table entries before
#: searching any (enhanced transposition cutoff): it pays where subtrees are large.
#: (Looking up the mirrored position too was tried: it found almost nothing.)
ETC_DEPTH = 8
#: Default memory for the solver's tables, in MB; ``MEMORY_LIMIT_MB`` is the most it takes.
DEFAULT_MEMORY_MB = 256
MEMORY_LIMIT_MB = 768  # with Python itself the process stays under 1 GB
#: Bytes a table slot takes: the key (8) and the packed bounds and move (2); a cached
#: threat pattern takes 16 (its discs and its cells).
_SLOT_BYTES, _THREAT_BYTES = 10, 16
#: Share of the memory that caches threat patterns; the rest is the transposition table.
_THREAT_SHARE = 0.2
#: The search looks at the clock (timeout, progress) every this many nodes, plus one: a
#: few milliseconds of Python search, so a timeout is kept to within that (reading it
#: every 65,536 nodes let a timeout overrun by more than half).
_TICK = 0xFFF
#: The longest input line ``solve_lines`` reads as a position (longer lines are refused
#: without being read into memory).
MAX_LINE = 1024
#: The key of an empty table slot: no position's (keys are below 2**63).
_NO_KEY = 2**64 - 1
#: Bounds and move are packed into 16 bits: ``(lower + 32) | (upper + 32) << 6 | column << 12``
#: where column is the best move's column + 1 (0 for none).
_OFFSET = 32


class InvalidPosition(BoardzooError, ValueError):
    """A move string that is not a legal, unfinished position."""


def parse_moves(text: str, rows: int = 6, cols: int = 7) -> ConnectFourState:
    """A position from its moves as 1-based column digits (``"4453"``); raises InvalidPosition."""
    state = ConnectFourState(rows, cols)
    if cols > 9:
        raise InvalidPosition("move strings of single digits only describe boards of up to 9 columns")
    if len(text) > rows * cols:
        raise InvalidPosition(f"{len(text)} moves, but a {rows}x{cols} board holds at most {rows * cols} discs")
    for index, char in enumerate(text, 1):
        # Only the ASCII digits: str.isdigit() also accepts '²' and other scripts' digits.
        if not "1" <= char <= "9" or int(char) > cols:
            raise InvalidPosition(f"move {index} is {char!r}, not a column from 1 to {cols}")
        column = int(char) - 1
        if state.is_terminal():
            raise InvalidPosition(f"the game is already over before move {index}")
        if not state.is_legal(column):
            raise InvalidPosition(f"move {index} plays column {char}, which is full")
        state.apply(column)
    if state.is_terminal():
        raise InvalidPosition("the game is over: a finished position has no score to solve")
    return state


def _prime_at_most(n: int) -> int:
    """The largest prime <= n (a prime table size spreads the keys over every slot)."""
    n = max(n, 3)
    while any(n % d == 0 for d in range(2, int(n**0.5) + 1)):
        n -= 1
    return n


class Solver:
    """Solves positions of one board size; keeps its table between positions of a batch.

    ``memory_mb`` bounds the tables (they are allocated once, up front); ``timeout`` is
    seconds per position (None: no limit); ``progress(nodes, seconds, low, high)`` is called
    during long searches.
    """

    def __init__(self, rows: int = 6, cols: int = 7, memory_mb: float = DEFAULT_MEMORY_MB,
                 timeout: float | None = None,
                 progress: Callable[[int, float, int, int], None] | None = None):
        number("the solver's memory", memory_mb, 1, MEMORY_LIMIT_MB, unit=" of MB")
        if timeout is not None:
            seconds("the solver's timeout", timeout)
        problem = board_problem(rows, cols)
        if problem is not None:
            raise ValueError(problem)
        geo = ConnectFourState(rows, cols).geo
        self.rows, self.cols, self.height = rows, cols, geo.height
        self.cells = geo.cells
        self.board_mask = geo.board_mask
        self.bottom_mask = sum(1 << b for b in geo.bottoms)
        self.column_masks = [((1 << rows) - 1) << b for b in geo.bottoms]
        self.order = geo.centre_order
        self.top_bits = [1 << (b + rows - 1) for b in geo.bottoms]
        self._allocate(memory_mb * 2**20)
        self.timeout, self.progress = timeout, progress
        self.counter = [0]  # nodes searched for the last position
        self.last_seconds = 0.0
        self.bounds = (0, 0)  # the score interval the search has narrowed so far
        self._started = 0.0
        self._search = None

    prime_at_most = staticmethod(_prime_at_most)

    def _allocate(self, budget: float) -> None:
        """The tables, in ``budget`` bytes."""
        self.table_slots = _prime_at_most(int(budget * (1 - _THREAT_SHARE) / _SLOT_BYTES))
        self.threat_slots = _prime_at_most(int(budget * _THREAT_SHARE / _THREAT_BYTES))
        # Flat arrays of machine words: about 10 bytes a position, where a dict took ~200.
        # An empty slot holds a key no position has (the empty board's is 0).
        self.keys = array("Q", [_NO_KEY]) * self.table_slots
        self.values = array("H", [0]) * self.table_slots
        self.threat_keys = array("Q", [0]) * self.threat_slots
        self.threat_values = array("Q", [0]) * self.threat_slots

    def table_bytes(self) -> int:
        """Bytes the tables take."""
        return sum(table.itemsize * len(table)
                   for table in (self.keys, self.values, self.threat_keys, self.threat_values))

    @property
    def nodes(self) -> int:
        """Nodes searched for the last position solved."""
        return self.counter[0]

    # --- bitboard helpers ---------------------------------------------------------------
    def winning_cells(self, position: int, mask: int) -> int:
        """Empty cells where ``position``'s player would complete a four."""
        return completing_cells(position, self.height) & (self.board_mask ^ mask)

    # --- the score of a position -----------------------------------------------------------
    def solve(self, state: ConnectFourState) -> int:
        """The exact score of ``state`` (see the module docstring)."""
        if state.geo.rows != self.rows or state.geo.cols != self.cols:
            raise ValueError(f"this solver is for {self.rows}x{self.cols} boards")
        if state.is_terminal():
            raise InvalidPosition("the game is over: a finished position has no score to solve")
        self.counter[0] = 0
        self._started = started = time.perf_counter()
        try:
            return self._solve(state)
        finally:
            self.last_seconds = time.perf_counter() - started

    def _tick(self) -> None:
        """Every ``_TICK + 1`` nodes (the compiled solver: every node budget): the
        timeout, and progress for whoever watches."""
        elapsed = time.perf_counter() - self._started
        if self.progress is not None:
            self.progress(self.nodes, elapsed, *self.bounds)
        if self.timeout is not None and elapsed > self.timeout:
            low, high = self.bounds
            raise BudgetError(f"no exact score within {self.timeout:g} s ({self.nodes:,} nodes; "
                              f"the score is between {low} and {high})")

    def start_interval(self, state: ConnectFourState) -> tuple[int, int, int | None]:
        """The score interval before any search, and the score itself when the player to
        move wins at once."""
        current = state.boards[state.plies & 1]
        mask = state.boards[0] | state.boards[1]
        moves, cells = state.plies, self.cells
        if self.winning_cells(current, mask) & (mask + self.bottom_mask) & self.board_mask:
            return 0, 0, (cells + 1 - moves) // 2
        # (Counts of discs are halved rounding towards zero, hence -(x // 2), not -x // 2.)
        return -((cells - moves) // 2), (cells + 1 - moves) // 2, None

    def at_least(self, state: ConnectFourState, score: int) -> bool:
        """Whether the exact score of ``state`` is ``score`` or more: one null-window
        search, far cheaper than the exact score when ``score`` is near an end of the
        range (a quick win is found, or ruled out, within the moves it allows)."""
        if state.geo.rows != self.rows or state.geo.cols != self.cols:
            raise ValueError(f"this solver is for {self.rows}x{self.cols} boards")
        if state.is_terminal():
            raise InvalidPosition("the game is over: a finished position has no score")
        low, high, immediate = self.start_interval(state)
        if immediate is not None:
            return immediate >= score
        if score <= low or score > high:
            return score <= low
        self.counter[0] = 0
        self._started = time.perf_counter()
        return self._narrow(state, score - 1, score) >= score

    def _solve(self, state: ConnectFourState) -> int:
        low, high, immediate = self.start_interval(state)
        if immediate is not None:
            return immediate
        return self._narrow(state, low, high)

    def _narrow(self, state: ConnectFourState, low: int, high: int) -> int:
        """The score within [low, high] by null-window searches; a bound at or beyond an
        end of the interval where the score lies outside it (``at_least`` relies on it)."""
        player = state.plies & 1
        current = state.boards[player]
        mask = state.boards[0] | state.boards[1]
        moves = state.plies
        while low < high:  # null-window searches narrow [low, high] to the exact score
            self.bounds = (low, high)
            middle = low + (high - low) // 2
            if middle <= 0 and -(-low // 2) < middle:
                middle = -(-low // 2)
            elif middle >= 0 and high // 2 > middle:
                middle = high // 2
            result = self._negamax(current, mask, moves, middle, middle + 1)
            if result <= middle:
                high = result
            else:
                low = result
        self.bounds = (low, low)
        return low

    def _negamax(self, current: int, mask: int, moves: int, alpha: int, beta: int) -> int:
        search = self._search
        if search is None:
            search = self._search = self._build_search()
        return search(current, mask, moves, alpha, beta, self.winning_cells(current ^ mask, mask))

    def _build_search(self):
        """The recursive search as a closure: every constant is a local variable, and the
        hot path has no attribute look-up and no method call but the recursion."""
        cells, board_mask, bottom_mask = self.cells, self.board_mask, self.bottom_mask
        ordered_columns = [(c, self.column_masks[c]) for c in self.order]
        column_masks = self.column_masks
        keys, values, slots = self.keys, self.values, self.table_slots
        threat_keys, threat_values, threat_slots = self.threat_keys, self.threat_values, self.threat_slots
        h = self.height
        counter = self.counter
        tick = self._tick
        etc_limit = cells - ETC_DEPTH
        offset = _OFFSET

        def store(key, lower, upper, column):
            slot = key % slots
            keys[slot] = key
            values[slot] = (lower + offset) | (upper + offset) << 6 | (column + 1) << 12

        def search(current, mask, moves, alpha, beta, opponent_wins):
            # ``opponent_wins``: the cells where the opponent (who just moved) would
            # complete a four; the parent computed them while ordering its moves.
            counter[0] += 1
            if not counter[0] & _TICK:
                tick()
            possible = (mask + bottom_mask) & board_mask
            forced = possible & opponent_wins
            if forced:
                if forced & (forced - 1):
                    return -((cells - moves) // 2)  # two threats to block: lost next move
                possible = forced
            candidates = possible & ~(opponent_wins >> 1)  # never under the opponent's four
            if not candidates:
                return -((cells - moves) // 2)
            if moves >= cells - 2:
                return 0  # the last two discs can't make a four any more: a draw
            low = -((cells - 2 - moves) // 2)  # the opponent can't win at its next move
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
            high = (cells - 1 - moves) // 2  # we can't win at once (the caller made sure)
            # (The table's bounds for this position are folded into low/high here; the
            # position can't recur below itself, so what is stored at the end as
            # (lower, upper, best move) is always at least as tight as what was there.)
            key = current + mask
            slot = key % slots
            hash_move = 0
            if keys[slot] == key:
                packed = values[slot]
                lower, upper = (packed & 63) - offset, (packed >> 6 & 63) - offset
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
            next_moves = moves + 1
            empty = board_mask ^ mask
            hash_column = -1
            if hash_move:
                # The best move found here before is tried before ordering the rest:
                # it often refutes the node on its own. (Its few lines repeat the loop
                # below on purpose: folding both into one loop cost 10-20 % here.)
                hash_column = column
                mine = current | hash_move
                threats = threats_of(mine) & (empty ^ hash_move)
                next_mask = mask | hash_move
                score = -search(mine ^ next_mask, next_mask, next_moves, -beta, -alpha, threats)
                if score >= beta:
                    store(key, score, high, hash_column)
                    return score
                if score > alpha:
                    alpha = score
                candidates ^= hash_move
                if not candidates:
                    store(key, low, alpha, hash_column)
                    return alpha
            # The other moves: those creating the most winning cells first, the centre
            # first among equals.
            ordered = []
            rank = 0
            for column, column_mask in ordered_columns:
                move = candidates & column_mask
                if not move:
                    continue
                p = current | move
                r = threats_of(p) & (empty ^ move)
                rank -= 1
                ordered.append((r.bit_count(), rank, column, move, p, r))
            if len(ordered) > 1:
                ordered.sort(reverse=True)  # most threats first; ties by rank: centre first
            if moves < etc_limit:
                # Enhanced transposition cutoff: a child whose stored bounds already
                # refute this node saves searching the others first.
                for _, _, column, move, mine, _ in ordered:
                    next_mask = mask | move
                    child = (mine ^ next_mask) + next_mask
                    child_slot = child % slots
                    if keys[child_slot] == child:
                        refuted = offset - (values[child_slot] >> 6 & 63)  # -(child's upper bound)
                        if refuted >= beta:
                            store(key, refuted, high, column)
                            return refuted
            best_column = hash_column
            for _, _, column, move, mine, threats in ordered:
                next_mask = mask | move
                score = -search(mine ^ next_mask, next_mask, next_moves, -beta, -alpha, threats)
                if score >= beta:
                    store(key, score, high, column)
                    return score
                if score > alpha:
                    alpha = score
                    best_column = column
            store(key, low, alpha, best_column)
            return alpha

        def threats_of(p):
            """Cells (empty or not) that would complete a four of the discs ``p``."""
            slot = p % threat_slots
            if threat_keys[slot] == p:
                return threat_values[slot]
            r = completing_cells(p, h)
            threat_keys[slot] = p
            threat_values[slot] = r & 0xFFFFFFFFFFFFFFFF
            return r

        return search


def board_problem(rows: int, cols: int) -> str | None:
    """Why the solver cannot take a ``rows`` x ``cols`` board (its bitboards are 64-bit
    words), or None when it can."""
    geo = ConnectFourState(rows, cols).geo
    if geo.height * cols > 64 or (geo.cells + 1) // 2 >= _OFFSET or cols > 14:
        return (f"the solver handles boards whose (rows + 1) x cols fits in 64 bits and at most 14 columns, "
                f"not {rows}x{cols}")
    return None


def remaining_moves(score: int, plies: int, cells: int = 42) -> int:
    """Moves left until the game ends under perfect play, from a position's score."""
    if score == 0:
        return cells - plies
    mover_discs = plies // 2
    if score > 0:
        return 2 * ((cells // 2 + 1 - score) - mover_discs) - 1
    return 2 * ((cells // 2 + 1 + score) - (plies - mover_discs))


__all__ = ["InvalidPosition", "Solver", "parse_moves", "remaining_moves"]
