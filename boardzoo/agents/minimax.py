"""Depth-limited minimax and alpha-beta on the search model (source 002), with
expectiminimax at chance events.

    make("minimax:depth=4,eval=simple")
    make("alphabeta:depth=8,eval=three2,random_first=true")
    make("alphabeta:time=0.5")          # iterative deepening within 0.5 s a move
    make("alphabeta:depth=8,table=false")  # without the transposition table

Values are from the searching player's side. A finished game scores like source 002's
*Simple* evaluator: ``2 * depth - plies`` for a win reached ``plies`` moves from the root
(faster wins score more), the negative for a loss, 0 for a draw. At the depth limit an
unfinished position scores 0 (``eval=simple``) or by the game's own evaluator
(``eval=three`` / ``eval=three2`` for Connect Four, registered beside the game). Chance
events are averaged by their probabilities and don't count as plies.

On a hidden-information model (a Geister seat's view) both search one full state sampled
from it (``determinize``): a single guess at the hidden colours, searched as the truth.
A secret choice (Geister's placement) is drawn at random, not searched.

Both agents look at moves in the game's ``ordered_legal_actions()`` order (``order=centre``,
the default: for Connect Four from the centre out) or left to right (``order=left``, the
minimax study's order) and keep the first best one, so alpha-beta picks exactly minimax's
move with exactly minimax's value while visiting fewer nodes. ``stats`` after a move:
nodes, seconds, depth reached, value; ``principal_variation()`` is the line it expects.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import ClassVar

from boardzoo.agents.base import Agent, check_budget, drawn_secret
from boardzoo.games.model import CHANCE, TERMINAL, GameState, require
from boardzoo.strategy.knowledge import check_known, knowledge_of

_TIME_CHECK = 1023  # look at the clock every 1024 nodes
#: ``order=``: the order moves are searched in, which also breaks ties (the first best is
#: kept): the game's most-promising-first order, or plain left to right (the minimax
#: study's own, which "chooses the first value found").
MOVE_ORDERS = ("centre", "left")
#: The depth when neither depth= nor time= is given.
DEFAULT_DEPTH = 4


class _OutOfTime(Exception):
    pass


def no_heuristic(state: GameState, player: int, max_depth: int) -> float:
    """Source 002's *Simple* evaluator at the depth limit: only wins count, so 0."""
    return 0.0


class MinimaxAgent(Agent):
    name = "minimax"
    summary = "depth-limited minimax (expectiminimax at chance events); eval=simple|three|three2"
    pruning = False

    default_notes: ClassVar[Mapping[str, str]] = {"depth": f"{DEFAULT_DEPTH} without time=",
                                                  "time": "none (seconds a move, deepening)"}

    def __init__(self, seed: int | None = None, depth: int | None = None, eval: str = "simple",
                 random_first: bool = False, time: float | None = None, order: str = "centre"):
        super().__init__(seed)
        if depth is None and time is None:
            depth = DEFAULT_DEPTH
        check_budget(self.name, "depth", depth, time)
        check_known(self.name, "eval", eval)
        if order not in MOVE_ORDERS:
            raise ValueError(f"{self.name}: order must be one of {', '.join(MOVE_ORDERS)}, got {order!r}")
        self.order = order
        self.depth, self.eval_name, self.random_first, self.time_budget = depth, eval, random_first, time
        self.nodes = 0
        self.use_table = False  # alpha-beta's transposition table (see _new_table)
        self._cut_off = False
        self._table: dict | None = None
        self._decided: tuple[GameState, int, int] | None = None  # the last search's (model, move, depth)

    def _heuristic(self, model: GameState) -> Callable:
        if self.eval_name == "simple":
            return no_heuristic
        evaluators = knowledge_of(model).evaluators
        if self.eval_name not in evaluators:
            known = ", ".join(["simple", *evaluators])
            raise ValueError(f"{self.name}: {model.game_name} has no evaluator {self.eval_name!r}; "
                             f"evaluators are: {known}")
        return evaluators[self.eval_name]

    def check(self, model: GameState) -> None:
        self._heuristic(model)  # raises ValueError when the game has no such evaluator
        if self.random_first:
            require(self.name, model, "initial", "random_first=true")

    def act(self, observation: dict, model: GameState) -> int:
        start = time.perf_counter()
        heuristic = self._heuristic(model)
        drawn = drawn_secret(model, self.rng)  # a secret is drawn, as random_first draws the first move
        if drawn is None and self.random_first and model.is_initial():
            actions = model.legal_actions()
            drawn = actions[int(self.rng.random() * len(actions))]
        if drawn is not None:
            self.stats = {"nodes": 0, "seconds": time.perf_counter() - start, "depth": 0,
                          "value": None, "random_first": True}
            self._decided = None
            return drawn
        self.nodes = 0
        if model.capabilities.hidden_information:
            # One guess at the hidden information, searched as if it were the truth.
            model = model.determinize(self.rng)
        if self.time_budget is None:
            assert self.depth is not None  # the constructor sets a depth when there is no time budget
            value, action = self.search(model, self.depth, heuristic)
            reached = self.depth
        else:
            value, action, reached = self._deepen(model, heuristic, start + self.time_budget)
        self.stats = {"nodes": self.nodes, "seconds": time.perf_counter() - start, "depth": reached,
                      "value": value, "random_first": False}
        self._decided = (model, action, reached)
        return action

    def principal_variation(self) -> list[str]:
        """The line the last search expects, as written moves: its move, then the best
        replies the transposition table remembers (alpha-beta on games with position keys;
        minimax keeps no table, so its line is its move alone). It stops at a chance event,
        the end of the game, or where the table keeps no move. Worked out when asked, so
        that a move's timing does not include it; empty before the first search."""
        if self._decided is None:
            return []
        model, action, depth = self._decided
        line = [model.action_label(action)]
        if self._table is None:
            return line
        state = model.clone()
        state.apply(action)
        for depth_left in range(depth - 1, 0, -1):
            if state.current_player() < 0:
                break
            entry = self._table.get((state.key(), depth_left))
            if entry is None or not state.is_legal(entry[2]):
                break
            line.append(state.action_label(entry[2]))
            state.apply(entry[2])
        return line

    def _deepen(self, model: GameState, heuristic, deadline: float):
        """Iterative deepening: the result of the deepest search finished in time."""
        value, action = self.search(model, 1, heuristic)  # always completes: a move is owed
        reached = 1
        depth = 1
        while self._cut_off and (self.depth is None or depth < self.depth):
            depth += 1
            try:
                value, action = self.search(model, depth, heuristic, deadline, first=action)
            except _OutOfTime:
                break
            reached = depth
        return value, action, reached

    def search(self, model: GameState, depth: int, heuristic=no_heuristic,
               deadline: float | None = None, first: int | None = None) -> tuple[float, int]:
        """(value, best action) of ``model`` searched ``depth`` plies deep.

        ``self._cut_off`` tells afterwards whether the depth limit cut any line short (if
        not, the whole game tree was seen and deeper searches would change nothing)."""
        self._cut_off = False
        self._table = self._new_table(model)
        me = model.current_player()
        if me < 0:
            raise ValueError(f"{self.name}: asked to move in a finished game or at a chance event")
        actions = self._moves(model)
        if first in actions:
            actions.remove(first)
            actions.insert(0, first)
        best_value, best_action = -math.inf, actions[0]
        for action in actions:
            child = model.clone()
            child.apply(action)
            value = self._value(child, me, depth, depth - 1, 1, best_value, math.inf, heuristic, deadline)
            if value > best_value:
                best_value, best_action = value, action
        return best_value, best_action

    def _moves(self, state: GameState) -> list[int]:
        return state.ordered_legal_actions() if self.order == "centre" else sorted(state.legal_actions())

    def _new_table(self, model: GameState) -> dict | None:
        """Alpha-beta's transposition table for one search (None for plain minimax, or
        for a game without position keys). Entries are keyed by the position and the
        depth left, which together fix the plies from the root and so the value: a
        stored bound holds for every later visit, and the value stays exactly minimax's."""
        if not self.pruning or not self.use_table or not model.capabilities.key:
            return None
        return {}

    def _value(self, state: GameState, me: int, max_depth: int, depth_left: int, ply: int,
               alpha: float, beta: float, heuristic, deadline: float | None) -> float:
        self.nodes += 1
        if deadline is not None and not self.nodes & _TIME_CHECK and time.perf_counter() > deadline:
            raise _OutOfTime
        to_move = state.current_player()
        if to_move == TERMINAL:
            result = state.returns()[me]
            if result == 0:
                return 0.0
            return math.copysign(2 * max_depth - ply, result)
        if to_move == CHANCE:
            total = 0.0
            for outcome, probability in state.chance_outcomes():
                child = state.clone()
                child.apply(outcome)
                total += probability * self._value(child, me, max_depth, depth_left, ply,
                                                   -math.inf, math.inf, heuristic, deadline)
            return total
        if depth_left == 0:
            self._cut_off = True
            return heuristic(state, me, max_depth)
        maximizing = to_move == me
        best = -math.inf if maximizing else math.inf
        prune = self.pruning
        table = self._table
        actions = self._moves(state)
        if table is not None:
            # (position, depth left) fixes the plies from the root too, hence the value.
            key = (state.key(), depth_left)
            entry = table.get(key)
            if entry is not None:
                lower, upper, hint = entry
                if lower >= beta or lower == upper:
                    return lower
                if upper <= alpha:
                    return upper
                if hint in actions:  # the best move of an earlier visit first
                    actions.remove(hint)
                    actions.insert(0, hint)
            window = (alpha, beta)
        best_action = actions[0]
        for action in actions:
            child = state.clone()
            child.apply(action)
            value = self._value(child, me, max_depth, depth_left - 1, ply + 1, alpha, beta, heuristic, deadline)
            if maximizing:
                if value > best:
                    best, best_action = value, action
                if prune:
                    alpha = max(alpha, value)
                    if alpha >= beta:
                        break
            else:
                if value < best:
                    best, best_action = value, action
                if prune:
                    beta = min(beta, value)
                    if alpha >= beta:
                        break
        if table is not None:
            # Fail-soft bounds: at or below the window an upper bound, at or above it a
            # lower bound, inside it the exact value.
            lower, upper = -math.inf, math.inf
            if best > window[0]:
                lower = best
            if best < window[1]:
                upper = best
            if entry is not None:
                lower, upper = max(lower, entry[0]), min(upper, entry[1])
            table[key] = (lower, upper, best_action)
        return best


class AlphaBetaAgent(MinimaxAgent):
    name = "alphabeta"
    summary = "minimax with alpha-beta pruning: the same value and move, far fewer nodes"
    pruning = True

    def __init__(self, seed: int | None = None, depth: int | None = None, eval: str = "simple",
                 random_first: bool = False, time: float | None = None, order: str = "centre",
                 table: bool = True):
        super().__init__(seed, depth, eval, random_first, time, order)
        self.use_table = table
