"""Geister's purple alpha-beta player (``purple``): see :mod:`boardzoo.games.geister.purple`.

    make("purple")                              # 0.17 s a move, learned colour odds
    make("purple:time=1,belief=uniform")

At its turn it builds the purple abstraction of its view (hidden opponent ghosts are the
worst case; ghosts that stood on an exit without escaping are red) and plays the best move
of an iterative-deepening alpha-beta search within ``time`` seconds. ``belief`` gives the
probability that each hidden ghost is blue, which the evaluation uses to value captures.
Placements are at random.
"""

from __future__ import annotations

from boardzoo.agents.base import Agent, check_budget
from boardzoo.games.geister.information import BELIEFS
from boardzoo.games.geister.purple import PurpleSearch, position_of
from boardzoo.games.geister.rules import ESCAPED, GHOSTS, MOVE_ACTIONS, OWN_STEPS, RED_SETS, SIZE, TARGET, to_own
from boardzoo.games.model import GameState


class PurpleAgent(Agent):
    name = "purple"
    summary = ("Geister: alpha-beta on the purple abstraction (hidden ghosts are the worst case), iterative "
               "deepening within time=, captures valued by a colour belief")

    def __init__(self, seed: int | None = None, time: float = 0.17, belief: str = "adaptive", depth: int = 40):
        super().__init__(seed)
        check_budget("purple", "depth", depth, time)
        if belief not in BELIEFS:
            raise ValueError(f"purple: unknown belief {belief!r}; beliefs are {', '.join(BELIEFS)}")
        self.time_budget, self.belief, self.max_depth = float(time), belief, depth
        self.search = PurpleSearch()

    def check(self, model: GameState) -> None:
        if model.game_name != "geister":
            raise ValueError(f"purple: plays Geister only, not {model.game_name}")

    def act(self, observation: dict, model: GameState) -> int:
        if model.placing:
            return MOVE_ACTIONS + int(self.rng.random() * len(RED_SETS))
        seat = model.player
        unknown = model.unknown_ghosts()
        odds = BELIEFS[self.belief](model, unknown) if unknown else []
        blues_left = 4 - model.lost[1 - seat][0]
        total = sum(odds) or 1.0
        blue = {g: min(1.0, blues_left * w / total) for g, w in zip(unknown, odds)}
        marked = {g for g in unknown if model.declined[g] > 0}
        (source, target), value = self.search.best_move(position_of(model, marked, blue), self.time_budget,
                                                        self.max_depth)
        self.stats = {"depth": self.search.depth_done, "nodes": self.search.nodes, "value": value}
        square = to_own(seat, source)
        ghost = model.board[square] - GHOSTS * seat
        if target < 0:  # an escape: the direction that leaves the board here
            return next(ghost * 4 + d for d in range(4) if TARGET[seat][square][d] == ESCAPED)
        sx, sy, tx, ty = source % SIZE, source // SIZE, target % SIZE, target // SIZE
        return ghost * 4 + OWN_STEPS.index((tx - sx, ty - sy))
