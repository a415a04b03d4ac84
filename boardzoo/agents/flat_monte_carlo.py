"""Flat Monte Carlo (source 004's "primitive Monte Carlo"): no tree; every legal move gets
the same number of roll-outs and the best mean payoff is played.

    make("flatmc:playouts=30")                      # 30 roll-outs per legal move
    make("flatmc:time=0.1,rollout=forward")         # as many rounds as 0.1 s allows

On a hidden-information model each roll-out starts from its own full state sampled under
``belief`` (Geister: ``uniform``, ``nearest-blue``, ``behaviour``, ``purple``, ``learned``), so the estimate
averages over the opponent's possible hidden colours. A secret choice (Geister's
placement) is drawn at random, not searched.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import ClassVar

from boardzoo.agents.base import Agent, check_budget, drawn_secret
from boardzoo.agents.mcts import check_game_options, check_model_options, rollout_function, sampler
from boardzoo.games.model import GameState

#: Roll-outs per move when neither playouts= nor time= is given.
DEFAULT_PLAYOUTS = 30


class FlatMonteCarloAgent(Agent):
    name = "flatmc"
    summary = "flat Monte Carlo: the same number of roll-outs for every move, best mean wins (hidden info: sampled)"

    default_notes: ClassVar[Mapping[str, str]] = {"playouts": f"{DEFAULT_PLAYOUTS} without time=",
                                                  "time": "none (seconds a move)"}

    def __init__(self, seed: int | None = None, playouts: int | None = None, time: float | None = None,
                 rollout: str = "random", max_rollout: int = 0, belief: str | None = None):
        super().__init__(seed)
        if playouts is None and time is None:
            playouts = DEFAULT_PLAYOUTS
        check_budget("flatmc", "playouts", playouts, time)
        if not isinstance(max_rollout, int) or max_rollout < 0:
            raise ValueError(f"flatmc: max_rollout must be an int >= 0 (0 = no limit), got {max_rollout!r}")
        self.playouts, self.time_budget = playouts, time
        check_game_options("flatmc", rollout, belief)
        self.rollout_name, self.max_rollout, self.belief = rollout, max_rollout, belief

    def check(self, model: GameState) -> None:
        check_model_options("flatmc", model, self.rollout_name, self.belief)

    def act(self, observation: dict, model: GameState) -> int:
        start = time.perf_counter()
        me = model.current_player()
        if me < 0:
            raise ValueError("flatmc: asked to move in a finished game or at a chance event")
        rollout = rollout_function(model, self.rollout_name, self.rng, self.max_rollout)
        sample = sampler(model, self.rng, self.belief)
        actions = model.legal_actions()
        totals = dict.fromkeys(actions, 0.0)
        rounds = 0
        deadline = None if self.time_budget is None else start + self.time_budget
        # Round-robin over the moves, so that a time budget leaves every move equally sampled.
        while self.playouts is None or rounds < self.playouts:
            if deadline is not None and rounds and time.perf_counter() > deadline:
                break
            for action in actions:
                state = sample()
                state.apply(action)
                totals[action] += rollout(state)[me]
            rounds += 1
        best = drawn_secret(model, self.rng)
        if best is None:
            best = max(actions, key=lambda a: totals[a])
        self.stats = {"rounds": rounds, "playouts": rounds * len(actions), "seconds": time.perf_counter() - start,
                      "value": totals[best] / rounds,
                      "children": [{"action": a, "label": model.action_label(a), "value": totals[a] / rounds}
                                   for a in sorted(actions, key=lambda a: -totals[a])]}
        return best
