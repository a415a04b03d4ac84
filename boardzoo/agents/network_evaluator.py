"""The part every network-backed MCTS evaluator shares (a Stable-Baselines3 policy, a
network trained by ``boardzoo train``): one pass answers both of the search's questions
about a position, and the answers are kept for the positions asked about last."""

from __future__ import annotations

from collections import OrderedDict

from boardzoo.games.model import GameState


class NetworkEvaluator:
    """An evaluator over a network that answers both questions about a position in one
    pass: :meth:`answer` gives the value for the player to move and the probability of
    each legal move. The answers for the last ``cache`` positions are kept (by their
    key), so the search's two questions about a leaf cost one evaluation."""

    def __init__(self, cache: int = 50_000):
        self._cache: OrderedDict = OrderedDict()
        self._cache_size = cache

    def answer(self, state: GameState) -> tuple[float, list[tuple[int, float]]]:
        raise NotImplementedError

    def _answer(self, state: GameState) -> tuple[float, tuple[tuple[int, float], ...]]:
        # A key names a position within one game's size; the number of actions keeps
        # the answers for another size (a network asked about a board it was not made
        # for, which then explains itself) apart.
        key = (state.num_actions, state.key()) if state.capabilities.key else None
        if key is not None and key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        value, prior = self.answer(state)
        # Kept as tuples of numbers, which the cyclic garbage collector stops tracking: as
        # lists, a full cache is a million objects that every full collection walks, and
        # one such pass, a quarter of a second, fell inside a move of a timed search.
        found = (value, tuple(prior))
        if key is not None:
            self._cache[key] = found
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return found

    def evaluate(self, state: GameState) -> tuple[float, float]:
        value, _ = self._answer(state)
        return (value, -value) if state.current_player() == 0 else (-value, value)

    def prior(self, state: GameState) -> tuple[tuple[int, float], ...]:
        return self._answer(state)[1]
