"""Back-propagation: a leaf's returns to every node of the iteration's path, and the
MCTS-Solver's proofs.

Payoffs (``q``): ``win-lose`` credits each node's mover with its return (+1/0/-1 at the
end of a game, an evaluator's value in between); ``wins`` with 1 for a win and 0
otherwise (source 001's ``q = win``, for roll-outs to the end only); ``score`` with the
return on the [0, 1] scale, (1 + return) / 2: a win 1, a draw 1/2, a loss 0, the scale
UCB1's constant was derived for (c = sqrt 2 on [0, 1] payoffs acts as c = 2 sqrt 2 on
win-lose ones).
"""

from __future__ import annotations

from collections.abc import Callable

from boardzoo.agents.mcts.tree import Node
from boardzoo.games.model import CHANCE

PAYOFFS = ("win-lose", "wins", "score")


def payoff(q: str, result: float) -> float:
    """The payoff ``q`` of a mover's return ``result`` in [-1, 1]."""
    if q == "wins":
        return 1.0 if result > 0 else 0.0
    return (1.0 + result) / 2 if q == "score" else result

#: ``backup(path, returns)``.
Backup = Callable[[list[Node], tuple[float, float]], None]


def backup(q: str) -> Backup:
    if q not in PAYOFFS:
        raise ValueError(f"q must be one of {', '.join(PAYOFFS)}, got {q!r}")

    def propagate(path: list[Node], returns: tuple[float, float]) -> None:
        for node in path:
            node.visits += 1
            mover = node.mover
            if mover >= 0:
                result = returns[mover]
                paid = payoff(q, result)
                node.total += paid
                node.sum_sq += paid * paid
                if result > 0:
                    node.wins += 1

    return propagate


def value_for(player: int, value0: float) -> float:
    return value0 if player == 0 else -value0


class Proofs:
    """MCTS-Solver (perfect information only): a terminal leaf's value is exact, and
    proofs climb the path — a node is won when one child is won for its player (the
    fastest win kept), lost or drawn exactly when every child is proven, a chance node
    proven when all its outcomes are, alike. Proven-lost children are not searched."""

    @staticmethod
    def candidates(node: Node, children: list[Node]) -> list[Node]:
        player = node.to_move
        open_children = [c for c in children if c.proven is None or value_for(player, c.proven) > -1]
        return open_children or children

    @staticmethod
    def prove(path: list[Node], value0: float) -> None:
        """The leaf of ``path`` is a finished game worth ``value0`` to player 0."""
        leaf = path[-1]
        if leaf.proven is not None:
            return
        leaf.proven = value0
        for node in reversed(path[:-1]):
            if node.proven is not None:
                return
            children = node.children or []
            if node.to_move == CHANCE:
                values = {c.proven for c in children}
                if node.untried or None in values or len(values) != 1:
                    return
                node.proven = values.pop()
                node.proof_plies = 1 + max(c.proof_plies for c in children)
                continue
            player = node.to_move
            winning = [c for c in children if c.proven is not None and value_for(player, c.proven) == 1]
            if winning:
                fastest = min(winning, key=lambda c: c.proof_plies)
                node.proven, node.proof_plies = fastest.proven, 1 + fastest.proof_plies
            elif node.untried or any(c.proven is None for c in children) or not children:
                return
            else:
                best = max(children, key=lambda c: (value_for(player, c.proven), c.proof_plies))  # type: ignore[arg-type]
                node.proven, node.proof_plies = best.proven, 1 + best.proof_plies

    @staticmethod
    def winning_child(root: Node, children: list[Node]) -> Node | None:
        """The fastest proven win among ``children``, if any."""
        winning = [c for c in children if c.proven is not None and value_for(root.to_move, c.proven) == 1]
        return min(winning, key=lambda c: c.proof_plies) if winning else None
