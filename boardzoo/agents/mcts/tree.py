"""The search tree: its nodes, and text, Graphviz and JSON views of it."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import TypeVar

from boardzoo.games.model import CHANCE, TERMINAL

T = TypeVar("T")


class Node:
    """One node of the tree. ``mover`` chose the move into it (CHANCE for an outcome);
    ``total``/``sum_sq`` accumulate the mover's payoffs, ``wins`` the mover's wins;
    ``prior`` is the probability a prior gave the move (selection policies may use it).

    Nodes hold no parent pointer: an iteration keeps its root-to-leaf path instead, so a
    tree has no reference cycles and is freed the moment it is dropped."""

    __slots__ = ("action", "mover", "to_move", "children", "untried",
                 "visits", "total", "sum_sq", "wins", "prior", "proven", "proof_plies")

    def __init__(self, action: int, mover: int, prior: float = 1.0):
        self.action = action
        self.mover = mover
        #: The player to move here (CHANCE, TERMINAL) in the last sample that reached it.
        self.to_move = TERMINAL
        self.children: list[Node] | None = None  # None until expanded
        # Moves without a child yet, listed when the node is first expanded; the shared
        # empty tuple until then costs no memory per node.
        self.untried: list[int] | tuple[()] = ()
        self.visits = 0
        self.total = 0.0
        self.sum_sq = 0.0
        self.wins = 0
        self.prior = prior
        self.proven: float | None = None  # exact value for player 0, once proven (solver)
        self.proof_plies = 0

    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0

    def win_ratio(self) -> float:
        return self.wins / self.visits if self.visits else 0.0


def tree_size(root: Node) -> int:
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        count += 1
        if node.children:
            stack.extend(node.children)
    return count


def leaf_depths(root: T, children: Callable[[T], Sequence[T]]) -> list[int]:
    """The depth (edges from the root) of every leaf of the tree: every node without
    children. The Nim study's path columns are these, summarised per decision."""
    depths, stack = [], [(root, 0)]
    while stack:
        node, depth = stack.pop()
        below = children(node)
        if below:
            stack.extend((child, depth + 1) for child in below)
        else:
            depths.append(depth)
    return depths


def tree_text(root: Node, label: Callable[[int], str], depth: int = 2, best: int = 3) -> str:
    """The tree as indented text: the ``best`` most visited children of every node,
    ``depth`` levels down."""
    lines = [f"root: {root.visits} visits, to move: {_who(root.to_move)}"]

    def walk(node: Node, level: int) -> None:
        if level > depth or not node.children:
            return
        for child in sorted(node.children, key=lambda c: -c.visits)[:best]:
            lines.append(f"{'  ' * level}{_edge(child, label)}  {_describe(child)}")
            walk(child, level + 1)

    walk(root, 1)
    return "\n".join(lines)


def tree_dot(root: Node, label: Callable[[int], str], depth: int = 3, min_visits: int = 1) -> str:
    """The tree in Graphviz DOT (nodes with at least ``min_visits`` visits)."""
    lines = ["digraph mcts {", '  node [shape=box, fontname="monospace"];',
             f'  n0 [label="root\\n{root.visits} visits"];']
    counter = 0

    def walk(node: Node, name: str, level: int) -> None:
        nonlocal counter
        if level >= depth:
            return
        for child in node.children or []:
            if child.visits < min_visits:
                continue
            counter += 1
            child_name = f"n{counter}"
            lines.append(f'  {child_name} [label="{_describe(child)}"];')
            lines.append(f'  {name} -> {child_name} [label="{_edge(child, label)}", penwidth='
                         f'{1 + 4 * child.visits / max(node.visits, 1):.2f}];')
            walk(child, child_name, level + 1)

    walk(root, "n0", 0)
    lines.append("}")
    return "\n".join(lines)


def tree_json(root: Node, label: Callable[[int], str], max_nodes: int = 300, played: int | None = None) -> dict:
    """The tree's most visited part as nested dicts (at most ``max_nodes`` nodes, chosen
    best first by visits), for the browser's tree view. Each node: ``label`` (the move into
    it), ``mover``, ``visits``, ``value`` (the mover's mean payoff), ``wins`` (the mover's
    win ratio), ``proven``, ``chosen`` (on the path of the move ``played`` at the root, or
    the most visited one, and then the most visited continuation), ``children`` and
    ``hidden`` (children left out)."""
    def view(node: Node, text: str) -> dict:
        return {"label": text, "mover": node.mover, "visits": node.visits, "value": round(node.mean(), 4),
                "wins": round(node.win_ratio(), 4), "proven": node.proven, "chosen": False,
                "children": [], "hidden": len(node.children or [])}

    top = view(root, "root")
    top["chosen"] = True
    count, tie = 1, 0
    frontier: list[tuple[int, int, Node, dict, bool]] = []

    def offer(node: Node, shown: dict, on_path: bool, pick: int | None = None) -> None:
        nonlocal tie
        children = sorted(node.children or [], key=lambda child: -child.visits)
        if pick is None and children:
            pick = children[0].action
        for child in children:
            tie += 1
            heapq.heappush(frontier, (-child.visits, tie, child, shown, on_path and child.action == pick))

    offer(root, top, True, played)
    while frontier and count < max_nodes:
        _, _, node, parent, chosen = heapq.heappop(frontier)
        if node.visits == 0:
            break  # the heap gives the most visited first: only unvisited nodes are left
        shown = view(node, f"chance {node.action}" if node.mover == CHANCE else label(node.action))
        shown["chosen"] = chosen
        parent["children"].append(shown)
        parent["hidden"] -= 1
        count += 1
        offer(node, shown, chosen)
    return top


def _who(player: int) -> str:
    return {CHANCE: "chance", TERMINAL: "nobody (game over)"}.get(player, f"player_{player}")


def _edge(node: Node, label: Callable[[int], str]) -> str:
    return f"chance {node.action}" if node.mover == CHANCE else f"p{node.mover}:{label(node.action)}"


def _describe(node: Node) -> str:
    text = f"n={node.visits} mean={node.mean():+.3f} wins={node.win_ratio():.2f}"
    if node.proven is not None:
        text += f" proven={node.proven:+.0f}"
    return text
