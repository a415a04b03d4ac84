"""What players know of Connect Four: source 003's greedy rule, source 002's board
evaluators for minimax and alpha-beta, and the exact solver (:mod:`.solver`)."""

from __future__ import annotations

import time

from boardzoo.errors import BudgetError
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.strategy.connect_four.solver import Solver, board_problem
from boardzoo.strategy.engine import choose_engine
from boardzoo.strategy.knowledge import GameKnowledge, register


# --- source 002's board evaluators (minimax / alpha-beta ``eval=three|three2``) ---------------
# Both score a position at the depth limit from ``player``'s side. The seed scores "a board"
# with a player's window; we make that symmetric -- the player's score minus the
# opponent's -- so that the value is the same whichever side the search looks from.
def three_in_window_score(state: ConnectFourState, player: int, max_depth: int) -> float:
    """Source 002 "Three": a window of three discs and an empty cell is worth 40 % of the
    largest win score (0.8 * max_depth)."""
    own = 0.8 * max_depth if state.threat_cells(player) else 0.0
    theirs = 0.8 * max_depth if state.threat_cells(1 - player) else 0.0
    return own - theirs


def _best_threat(state: ConnectFourState, player: int, max_depth: int) -> int:
    cells, height, heights = state.threat_cells(player), state.geo.height, state.heights
    best = 0
    while cells:
        low = cells & -cells
        cells ^= low
        bit = low.bit_length() - 1
        empty_below = bit - heights[bit // height]
        best = max(best, max_depth - 1 - empty_below, 1)
    return best


def three_in_window_v2_score(state: ConnectFourState, player: int, max_depth: int) -> float:
    """Source 002 "Three v2": each such window is worth ``max_depth - 1`` minus the empty
    cells below its empty cell (at least 1); the board takes its best window."""
    return float(_best_threat(state, player, max_depth) - _best_threat(state, 1 - player, max_depth))


def make_solver(engine: str = "auto", **options) -> Solver:
    """A solver on ``engine`` (``boardzoo.strategy.engine``: ``auto`` is the compiled one
    when the ``fast`` extra is installed, as the scores are exact on either)."""
    if choose_engine("solve", engine, exact_twin=True) == "compiled":
        from boardzoo.strategy.connect_four.compiled_solver import CompiledSolver

        return CompiledSolver(**options)
    return Solver(**options)


#: The solvers the ``solver`` agent uses, one per board size and process (their tables
#: carry over from move to move, as a batch's do).
_PLAYING: dict[tuple[int, int, str], Solver] = {}
#: Memory of each of those solvers, in MB (a league runs one per worker process).
PLAYING_MEMORY_MB = 64


def move_values(state: ConnectFourState, seconds: float, engine: str = "auto",
                solver: Solver | None = None) -> dict[int, int]:
    """Each legal move's exact score for the player to move (the score convention above),
    within ``seconds`` in all, on ``engine``; BudgetError when they run out. Connect
    Four's ``solve_moves`` for the ``solver`` agent. ``solver``: one of the caller's own
    instead of this process's playing solver (a bigger table for positions near the
    empty board, where the playing one's 64 MB make the children take hours, not
    seconds; or the table that has just solved ``state`` itself)."""
    if solver is None:
        key = (state.geo.rows, state.geo.cols, choose_engine("solver", engine, exact_twin=True))
        solver = _PLAYING.get(key)
        if solver is None:
            solver = _PLAYING[key] = make_solver(key[2], rows=key[0], cols=key[1], memory_mb=PLAYING_MEMORY_MB)
    deadline = time.perf_counter() + seconds
    values = {}
    for action in state.ordered_legal_actions():
        child = state.clone()
        child.apply(action)
        if child.is_terminal():  # a win by this move, or a draw on the last cell
            values[action] = child.geo.cells // 2 + 1 - (child.plies + 1) // 2 if child.winner >= 0 else 0
            continue
        left = deadline - time.perf_counter()
        if left <= 0:
            raise BudgetError(f"no exact values within {seconds:g} s")
        solver.timeout = left
        values[action] = -solver.solve(child)
    return values


def solver_refuses(state: ConnectFourState) -> str | None:
    return board_problem(state.geo.rows, state.geo.cols)


register(GameKnowledge(
    game=ConnectFourState.game_name,
    greedy=ConnectFourState.greedy_action,
    evaluators={"three": three_in_window_score, "three2": three_in_window_v2_score},
    solve_moves=move_values,
    solver_refuses=solver_refuses,
))
