"""Final choice: the move a search plays, from the root's children.

* ``visits`` — the most visited child (ties: the better mean);
* ``value`` — the best ``mean + c_final * sqrt(ln N / n)`` (``c_final=0``: the best mean;
  source 001 picks its move this way).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from boardzoo.agents.mcts.selection import check_constant
from boardzoo.agents.mcts.tree import Node
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
