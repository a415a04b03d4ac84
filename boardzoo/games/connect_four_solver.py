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
"""

from __future__ import annotations

import time
from typing import Iterable

from boardzoo.games.connect_four import ConnectFourState, completing_cells

#: Nodes with more empty cells than this look up their children's table entries before
#: searching any (enhanced transposition cutoff): it pays where subtrees are large.
#: (Looking up the mirrored position too was tried: it found almost nothing.)
ETC_DEPTH = 8
#: Cap on the transposition table, in entries; it is cleared when full.
TABLE_LIMIT = 4_000_000


class InvalidPosition(ValueError):
    """A move string that is not a legal, unfinished position."""


def parse_moves(text: str, rows: int = 6, cols: int = 7) -> ConnectFourState:
    """A position from its moves as 1-based column digits (``"4453"``); raises InvalidPosition."""
    state = ConnectFourState(rows, cols)
    if cols > 9:
        raise InvalidPosition("move strings of single digits only describe boards of up to 9 columns")
    for index, char in enumerate(text, 1):
        if not char.isdigit() or not 1 <= int(char) <= cols:
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


class Solver:
    """Solves positions of one board size; keeps its table between positions of a batch."""

    def __init__(self, rows: int = 6, cols: int = 7):
        probe = ConnectFourState(rows, cols)
        geo = probe.geo
        self.rows, self.cols, self.height = rows, cols, geo.height
        self.cells = geo.cells
        self.board_mask = geo.board_mask
        self.bottom_mask = sum(1 << b for b in geo.bottoms)
        self.column_masks = [((1 << rows) - 1) << b for b in geo.bottoms]
        self.order = geo.centre_order
        self.top_bits = [1 << (b + rows - 1) for b in geo.bottoms]
        self.table: dict[int, tuple[int, int, int]] = {}  # key -> (lower, upper, best move)
        self.threat_cache: dict[int, int] = {}  # discs -> cells they would complete (unmasked)
        self.counter = [0]  # nodes searched for the last position
        self.last_seconds = 0.0
        self._search = None

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
        started = time.perf_counter()
        try:
            return self._solve(state)
        finally:
            self.last_seconds = time.perf_counter() - started

    def _solve(self, state: ConnectFourState) -> int:
        player = state.plies & 1
        current = state.boards[player]
        mask = state.boards[0] | state.boards[1]
        moves = state.plies
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        if len(self.threat_cache) > TABLE_LIMIT:
            self.threat_cache.clear()
        cells = self.cells
        possible = (mask + self.bottom_mask) & self.board_mask
        if self.winning_cells(current, mask) & possible:
            return (cells + 1 - moves) // 2
        # (Counts of discs are halved rounding towards zero, hence -(x // 2), not -x // 2.)
        low, high = -((cells - moves) // 2), (cells + 1 - moves) // 2
        while low < high:  # null-window searches narrow [low, high] to the exact score
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
        return low

    def _negamax(self, current: int, mask: int, moves: int, alpha: int, beta: int) -> int:
        if self._search is None:
            self._search = self._build_search()
        return self._search(current, mask, moves, alpha, beta, self.winning_cells(current ^ mask, mask))

    def _build_search(self):
        """The recursive search as a closure: every constant is a local variable, and the
        hot path has no attribute look-up and no method call but the recursion."""
        cells, board_mask, bottom_mask = self.cells, self.board_mask, self.bottom_mask
        column_masks = [self.column_masks[c] for c in self.order]
        table = self.table
        threat_cache = self.threat_cache
        h = self.height
        counter = self.counter
        etc_limit = cells - ETC_DEPTH

        def search(current, mask, moves, alpha, beta, opponent_wins):
            # ``opponent_wins``: the cells where the opponent (who just moved) would
            # complete a four; the parent computed them while ordering its moves.
            counter[0] += 1
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
            entry = table.get(key)
            hash_move = 0
            if entry is not None:
                lower, upper, hash_move = entry
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
            if hash_move & candidates:
                # The best move found here before is tried before ordering the rest:
                # it often refutes the node on its own. (Its few lines repeat the loop
                # below on purpose: folding both into one loop cost 10-20 % here.)
                mine = current | hash_move
                threats = threats_of(mine) & (empty ^ hash_move)
                next_mask = mask | hash_move
                score = -search(mine ^ next_mask, next_mask, next_moves, -beta, -alpha, threats)
                if score >= beta:
                    table[key] = (score, high, hash_move)
                    return score
                if score > alpha:
                    alpha = score
                candidates ^= hash_move
                if not candidates:
                    table[key] = (low, alpha, hash_move)
                    return alpha
            # The other moves: those creating the most winning cells first, the centre
            # first among equals.
            ordered = []
            rank = 0
            for column_mask in column_masks:
                move = candidates & column_mask
                if not move:
                    continue
                p = current | move
                r = threats_of(p) & (empty ^ move)
                rank -= 1
                ordered.append((r.bit_count(), rank, move, p, r))
            if len(ordered) > 1:
                ordered.sort(reverse=True)  # most threats first; ties by rank: centre first
            if moves < etc_limit:
                # Enhanced transposition cutoff: a child whose stored bounds already
                # refute this node saves searching the others first.
                for _, _, move, mine, _ in ordered:
                    next_mask = mask | move
                    child = table.get((mine ^ next_mask) + next_mask)
                    if child is not None and -child[1] >= beta:
                        table[key] = (-child[1], high, move)
                        return -child[1]
            best_move = hash_move
            for _, _, move, mine, threats in ordered:
                next_mask = mask | move
                score = -search(mine ^ next_mask, next_mask, next_moves, -beta, -alpha, threats)
                if score >= beta:
                    table[key] = (score, high, move)
                    return score
                if score > alpha:
                    alpha = score
                    best_move = move
            table[key] = (low, alpha, best_move)
            return alpha

        def threats_of(p):
            """Cells (empty or not) that would complete a four of the discs ``p``."""
            r = threat_cache.get(p)
            if r is None:
                r = threat_cache[p] = completing_cells(p, h)
            return r

        return search


def remaining_moves(score: int, plies: int, cells: int = 42) -> int:
    """Moves left until the game ends under perfect play, from a position's score."""
    if score == 0:
        return cells - plies
    mover_discs = plies // 2
    if score > 0:
        return 2 * ((cells // 2 + 1 - score) - mover_discs) - 1
    return 2 * ((cells // 2 + 1 + score) - (plies - mover_discs))


def solve_lines(lines: Iterable[str], solver: Solver | None = None):
    """Yield ``(position, score or None, error or None)`` for each non-empty input line:
    its first whitespace-separated field is the move string, the rest is ignored."""
    solver = solver or Solver()
    for line in lines:
        fields = line.split()
        if not fields:
            continue
        moves = fields[0]
        try:
            state = parse_moves(moves, solver.rows, solver.cols)
            yield moves, solver.solve(state), None
        except InvalidPosition as error:
            yield moves, None, str(error)


__all__ = ["InvalidPosition", "Solver", "parse_moves", "remaining_moves", "solve_lines"]
