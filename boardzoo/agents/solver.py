"""A perfect player, for games that register an exact solver (Connect Four).

    make("solver")                          # 1 s a move: solve, else alpha-beta up to depth 6
    make("solver:time=5,depth=8,eval=three2")   # more time; a deeper fallback
    make("solver:engine=python")            # the Python solver even with the fast extra

Each move's exact game-theoretic value comes from the game's ``solve_moves`` (see
:mod:`boardzoo.strategy.knowledge`); the agent plays a best one (ties at random: every
best move keeps the value). Early positions can take the solver minutes (the empty
Connect Four board does even compiled), so a move whose values are not all
known within most of its time is played by alpha-beta (``depth``, ``eval``) in the rest
(:data:`FALLBACK_SHARE`), deepening up to ``depth`` as far as that time allows; ``stats``
says which (``solved``). ``time`` is the whole move's budget, fallback included. From the
middle game on every move is perfect; with the compiled solver (the ``fast`` extra) that
point comes several plies sooner. ``engine``: ``auto`` (the default) is the compiled
solver when the extra is installed, as its scores are exact too
(:mod:`boardzoo.strategy.engine`); ``python`` or ``compiled`` insist.
"""

from __future__ import annotations

from boardzoo.agents.base import MAX_SECONDS, Agent
from boardzoo.agents.minimax import AlphaBetaAgent
from boardzoo.errors import BudgetError
from boardzoo.games.model import GameState
from boardzoo.strategy.engine import choose_engine
from boardzoo.strategy.knowledge import knowledge_of
from boardzoo.values import seconds

#: The share of a move's ``time`` kept for the alpha-beta fallback: enough, of the default
#: second, for alpha-beta at its default depth 6 on Connect Four's slowest positions (the
#: benchmarks page has its times).
FALLBACK_SHARE = 0.2


class SolverAgent(Agent):
    name = "solver"
    summary = ("a perfect player by the game's exact solver (Connect Four); moves the solver cannot finish "
               "within most of time= are played by alpha-beta in the rest")

    def __init__(self, seed: int | None = None, time: float = 1.0, depth: int = 6, eval: str = "three2",
                 engine: str = "auto"):
        super().__init__(seed)
        self.engine = choose_engine("solver", engine, exact_twin=True)
        self.time_budget = seconds("solver: time", time, MAX_SECONDS)
        self.fallback = AlphaBetaAgent(seed=seed, depth=depth, eval=eval, time=FALLBACK_SHARE * time)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.fallback.reset(seed)

    def check(self, model: GameState) -> None:
        knowledge = knowledge_of(model)
        if knowledge.solve_moves is None:
            raise ValueError(f"{model.game_name} has no exact solver; the solver agent plays Connect Four")
        problem = knowledge.solver_refuses(model)
        if problem is not None:
            raise ValueError(problem)
        self.fallback.check(model)

    def warm_up(self, model: GameState) -> None:
        """Build the game's solver (its tables, its compiled search) by starting one
        search given a millisecond."""
        solve_moves = knowledge_of(model).solve_moves
        if solve_moves is not None and model.current_player() >= 0:
            try:
                solve_moves(model, 0.001, self.engine)
            except BudgetError:
                pass

    def act(self, observation: dict, model: GameState) -> int:
        solve_moves = knowledge_of(model).solve_moves
        if solve_moves is None:
            raise ValueError(f"solver: {model.game_name} has no exact solver registered")
        try:
            values = solve_moves(model, (1.0 - FALLBACK_SHARE) * self.time_budget, self.engine)
        except BudgetError:
            action = self.fallback.act(observation, model)
            self.stats = {"solved": False, **self.fallback.stats}
            return action
        best = max(values.values())
        choices = [action for action, value in values.items() if value == best]
        self.stats = {"solved": True, "value": best, "values": values}
        return choices[int(self.rng.random() * len(choices))]
