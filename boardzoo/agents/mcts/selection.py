"""Selection policies: which child an iteration descends into.

A policy is a factory registered in :data:`SELECTION`; its keyword parameters are the
spec's (``mcts:policy=ucbv,zeta=0.5``) and it returns ``select(children, parent_visits)
-> child``. The ``ucb`` family tries children not yet visited first, in the random order
expansion gave them; ``puct`` scores every child through its prior instead, so it wants
all children at once (the ``expands_all`` trait).

Adding a policy is one function and one registration::

    @SELECTION.register("greedy-mean")
    def greedy_mean() -> Select:
        def select(children, parent_visits):
            return max(children, key=lambda child: child.mean())
        return select
"""

from __future__ import annotations

import math
from collections.abc import Callable

from boardzoo.agents.mcts.tree import Node
from boardzoo.spec import Registry
from boardzoo.values import number

#: ``select(children, parent_visits) -> child``.
Select = Callable[[list[Node], int], Node]

SELECTION = Registry("policy")


def check_constant(name: str, value: float) -> float:
    return number(name, value, low=0)


@SELECTION.register("ucb1")
def ucb1(c: float = math.sqrt(2)) -> Select:
    """mean + c * sqrt(ln N / n)."""
    c = check_constant("c", c)
    sqrt, log = math.sqrt, math.log

    def select(children: list[Node], parent_visits: int) -> Node:
        log_n = log(parent_visits or 1)
        best, best_score = children[0], -math.inf
        for child in children:
            n = child.visits
            if n == 0:
                return child
            score = child.total / n + c * sqrt(log_n / n)
            if score > best_score:
                best, best_score = child, score
        return best

    return select


@SELECTION.register("ucbv")
def ucbv(c: float = math.sqrt(2), zeta: float = 1.0) -> Select:
    """UCB-V (source 003): mean + sqrt(2 var eps / n) + c * 3 eps / n, eps = zeta * ln N."""
    c, zeta = check_constant("c", c), check_constant("zeta", zeta)

    def select(children: list[Node], parent_visits: int) -> Node:
        eps = zeta * math.log(parent_visits or 1)
        best, best_score = children[0], -math.inf
        for child in children:
            n = child.visits
            if n == 0:
                return child
            mean = child.total / n
            variance = max(child.sum_sq / n - mean * mean, 0.0)
            score = mean + math.sqrt(2 * variance * eps / n) + c * 3 * eps / n
            if score > best_score:
                best, best_score = child, score
        return best

    return select


@SELECTION.register("ucb-minimal")
def ucb_minimal(c1: float = 1.0, c2: float = 1.0) -> Select:
    """UCB-Minimal (source 003): mean + c1 / n ** c2."""
    c1, c2 = check_constant("c1", c1), check_constant("c2", c2)

    def select(children: list[Node], parent_visits: int) -> Node:
        best, best_score = children[0], -math.inf
        for child in children:
            n = child.visits
            if n == 0:
                return child
            score = child.total / n + c1 / n**c2
            if score > best_score:
                best, best_score = child, score
        return best

    return select


@SELECTION.register("puct", expands_all=True)
def puct(c: float = 1.25, forced: float = 0.0) -> Select:
    """AlphaZero's PUCT: mean + c * prior * sqrt(N) / (1 + n), a child not yet visited
    counting as mean 0 (a draw on the win-lose scale). Priors come from the evaluator's
    ``prior(state)``, uniform without one.

    ``forced=k`` adds KataGo's forced playouts at the root (Wu, 2019): a child with fewer
    than sqrt(k * prior * N) visits is visited next. A move of small prior otherwise gets
    one visit, and on hidden information that visit is one sampled state: a capture that
    loses at once in the one sample where the ghost is red looks lost, and PUCT does not
    come back to it for thousands of iterations."""
    c = check_constant("c", c)
    forced = check_constant("forced", forced)

    def select(children: list[Node], parent_visits: int) -> Node:
        scale = c * math.sqrt(parent_visits)
        best, best_score = children[0], -math.inf
        for child in children:
            n = child.visits
            score = (child.total / n if n else 0.0) + scale * child.prior / (1 + n)
            if score > best_score:
                best, best_score = child, score
        return best

    if not forced:
        return select

    def at_root(children: list[Node], parent_visits: int) -> Node:
        for child in children:
            if child.visits < math.sqrt(forced * child.prior * parent_visits):
                return child
        return select(children, parent_visits)

    return RootAware(select, at_root)


class RootAware:
    """A selection that chooses differently at the root (``at_root``) than below it."""

    def __init__(self, below: Select, at_root: Select):
        self.below, self.at_root = below, at_root

    def __call__(self, children: list[Node], parent_visits: int) -> Node:
        return self.below(children, parent_visits)
