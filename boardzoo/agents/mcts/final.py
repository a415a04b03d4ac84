"""Final choice: the move a search plays, from the root's children.

* ``visits`` — the most visited child (ties: the better mean);
* ``value`` — the best ``mean + c_final * sqrt(ln N / n)`` (``c_final=0``: the best mean;
  source 001 picks its move this way);
* ``lcb`` — of the children visited at least ``lcb_share`` as often as the most visited,
  the one whose mean has the highest lower confidence bound, ``mean - lcb_z * standard
  error``: the move most surely good. KataGo chooses so (Wu 2019): PUCT sends most visits
  where the priors point, and a prior sure of a move makes it the most visited even when
  a less visited one is valued better on enough visits to trust.

Before either, with ``decisive=true``, a move that wins at once is played whatever the
search made of it (:func:`decisive_move`): PUCT may never visit a move its priors put low,
a winning one included.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from boardzoo.agents.mcts.selection import check_constant
from boardzoo.agents.mcts.tree import Node
from boardzoo.games.model import GameState
from boardzoo.spec import Registry

#: ``choose(root, children) -> child``.
Choose = Callable[[Node, list[Node]], Node]

FINAL = Registry("final")


@FINAL.register("visits")
def most_visited() -> Choose:
    return lambda root, children: max(children, key=lambda c: (c.visits, c.mean()))


@FINAL.register("value")
def best_value(c_final: float = 0.0) -> Choose:
    c_final = check_constant("c_final", c_final)

    def choose(root: Node, children: list[Node]) -> Node:
        log_n = math.log(max(root.visits, 1))
        return max(children, key=lambda c: c.mean() + c_final * math.sqrt(log_n / max(c.visits, 1)))

    return choose


@FINAL.register("lcb")
def lower_confidence_bound(lcb_z: float = 1.96, lcb_share: float = 0.1) -> Choose:
    lcb_z = check_constant("lcb_z", lcb_z)
    lcb_share = check_constant("lcb_share", lcb_share)
    if lcb_share > 1:
        raise ValueError(f"lcb_share is a share of the most visited child's visits, at most 1; got {lcb_share}")

    def bound(child: Node) -> float:
        n = child.visits
        mean = child.total / n
        variance = max(child.sum_sq / n - mean * mean, 0.0)
        return mean - lcb_z * math.sqrt(variance / n)

    def choose(root: Node, children: list[Node]) -> Node:
        most = max(c.visits for c in children)
        trusted = [c for c in children if c.visits >= max(lcb_share * most, 2)]
        if not trusted:  # too few visits to bound any mean: the most visited, as visits does
            return max(children, key=lambda c: (c.visits, c.mean()))
        return max(trusted, key=lambda c: (bound(c), c.visits))

    return choose


#: How many of the root's samples a move must win at once in, on hidden information.
DECISIVE_SAMPLES = 16


def decisive_move(sample: Callable[[], GameState], hidden: bool) -> int | None:
    """A move that ends the game won for the player to move, in every one of
    :data:`DECISIVE_SAMPLES` states drawn by ``sample`` (one when nothing is hidden), or
    None: the decisive moves of Teytaud and Teytaud (2010), at the root."""
    states = [sample() for _ in range(DECISIVE_SAMPLES if hidden else 1)]
    mover = states[0].current_player()
    for action in states[0].legal_actions():
        for state in states:
            if not state.is_legal(action):
                break
            after = state.clone()
            after.apply(action)
            if not (after.is_terminal() and after.returns()[mover] > 0):
                break
        else:
            return action
    return None
