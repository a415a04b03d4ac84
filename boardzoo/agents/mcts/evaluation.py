"""Leaf evaluation: what a new leaf of the tree is worth, as returns ``(v0, v1)``.

* a roll-out to the end by a policy (``rollout=random``, the game's fast path when it has
  one, or one of the game's named policies), drawn after ``max_rollout`` moves;
* a heuristic value (``value=NAME``: one of the game's evaluators, scaled into [-1, 1]);
* an **evaluator object** (``evaluator=obj`` in Python, ``model=PATH.zip`` for a saved
  Stable-Baselines3 policy, ``model=PATH.npz`` for a network of ``boardzoo train``,
  ``model=shipped`` for the network shipped for the game) with ``evaluate(state) -> (v0, v1)`` and/or
  ``prior(state) -> [(action, probability), ...]``. Without ``evaluate`` the leaves are
  rolled out; without ``prior`` the priors are uniform.

Any of these can be *adjudicated* (``adjudicate=NAME``, one of the game's adjudicators):
a leaf whose result the game knows beyond the search's horizon (Geister: a race to the
exits that nothing can stop) is scored by that result, the others as before.

A minimal evaluator, for a game where the player to move is better off::

    class ToMove:
        def evaluate(self, state):
            v = 0.1 if state.current_player() == 0 else -0.1
            return (v, -v)

    make("mcts:policy=puct,iterations=200", evaluator=ToMove())
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from boardzoo.games.model import GameState, play_out
from boardzoo.strategy.knowledge import Heuristic, knowledge_of

#: ``leaf(state) -> (v0, v1)``; it may play ``state`` on (it is the iteration's own copy).
LeafEvaluation = Callable[[GameState], tuple[float, float]]
#: ``prior(state) -> [(action, probability), ...]`` for the player to move.
Prior = Callable[[GameState], list[tuple[int, float]]]


@runtime_checkable
class ValueEvaluator(Protocol):
    def evaluate(self, state: GameState) -> tuple[float, float]: ...


@runtime_checkable
class PriorEvaluator(Protocol):
    def prior(self, state: GameState) -> list[tuple[int, float]]: ...


@runtime_checkable
class GameCheckedEvaluator(Protocol):
    """An evaluator made for some games only (a network trained on one board size) says
    so before play: ``check(model)`` raises ValueError for a game it cannot evaluate."""

    def check(self, model: GameState) -> None: ...


def rollout_function(model: GameState, name: str, rng, limit: int = 0) -> LeafEvaluation:
    """``f(state) -> returns``: a roll-out to the end by the game's policy ``name``
    (``random`` = uniform), scored as a draw after ``limit`` moves (0 = no limit).

    ``model`` is the position searched from: a policy the game declares ``searcher_only``
    steers the moves of the player to move there, and the other player's moves are random."""
    knowledge = knowledge_of(model)
    fast = knowledge.fast_rollouts.get(name)
    if fast is not None:  # the game's own tight loop for this policy
        return lambda state: fast(state, rng, limit)
    if name == "random":
        if not limit and model.capabilities.fast_playout:
            return lambda state: state.playout(rng)
        policy = None
    elif name in knowledge.rollouts:
        policy = knowledge.rollouts[name]
        if name in knowledge.searcher_only:
            policy = searcher_only(policy, model.current_player())
    else:
        raise ValueError(f"{model.game_name} has no roll-out policy {name!r}; policies are: "
                         f"{', '.join(knowledge.rollout_names())}")
    return lambda state: play_out(state, rng, policy, limit)


def searcher_only(policy: Callable, searcher: int) -> Callable:
    """``policy`` for ``searcher``'s moves, a uniformly random move for the other player's."""

    def move(state: GameState, rng) -> int:
        if state.current_player() == searcher:
            return policy(state, rng)
        actions = state.legal_actions()
        return actions[int(rng.random() * len(actions))]

    return move


class HeuristicValue:
    """One of the game's minimax evaluators as an MCTS leaf value: its score for player 0
    at ``depth`` divided by ``depth`` (the evaluators keep non-final scores below the
    depth, so that a win outranks them) and clipped into [-1, 1]."""

    def __init__(self, heuristic: Heuristic, depth: int = 10):
        self.heuristic, self.depth = heuristic, depth

    def evaluate(self, state: GameState) -> tuple[float, float]:
        value = max(-1.0, min(1.0, self.heuristic(state, 0, self.depth) / self.depth))
        return (value, -value)


def heuristic_value(model: GameState, name: str) -> HeuristicValue:
    evaluators = knowledge_of(model).evaluators
    if name not in evaluators:
        raise ValueError(f"{model.game_name} has no evaluator {name!r} for value=; "
                         f"evaluators are: {', '.join(evaluators) or 'none'}")
    return HeuristicValue(evaluators[name])


def adjudicated(leaf: LeafEvaluation,
                adjudicator: Callable[[GameState], tuple[float, float] | None]) -> LeafEvaluation:
    """``leaf``, but a position whose result ``adjudicator`` knows is scored by it."""
    def evaluate(state: GameState) -> tuple[float, float]:
        known = adjudicator(state)
        return leaf(state) if known is None else known
    return evaluate


def checked_values(evaluate: Callable[[GameState], Any], where: str) -> LeafEvaluation:
    """``evaluate`` with its answers checked: two finite numbers in [-1, 1]."""
    def leaf(state: GameState) -> tuple[float, float]:
        values = evaluate(state)
        try:
            v0, v1 = values
            ok = -1.0 <= v0 <= 1.0 and -1.0 <= v1 <= 1.0
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"{where}: evaluate(state) must return two numbers in [-1, 1] "
                             f"(values for player_0 and player_1), got {values!r}")
        return (float(v0), float(v1))
    return leaf


def checked_prior(prior: Callable[[GameState], Any], where: str) -> Prior:
    """``prior`` with its answers checked: (legal action, probability >= 0) pairs."""
    def checked(state: GameState) -> list[tuple[int, float]]:
        pairs = list(prior(state))
        legal = set(state.legal_actions())
        for pair in pairs:
            try:
                action, probability = pair
                ok = action in legal and probability >= 0 and math.isfinite(probability)
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise ValueError(f"{where}: prior(state) must list (legal action, probability >= 0) pairs, "
                                 f"got {pair!r} among {pairs[:8]!r}")
        return pairs
    return checked
