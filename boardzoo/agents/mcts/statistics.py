"""The statistics of one MCTS decision (``agent.stats``), for the Python and the compiled
engine alike."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from boardzoo.agents.mcts.backup import value_for
from boardzoo.agents.mcts.tree import Node


def length_summary(name: str, lengths) -> dict[str, float]:
    """``{name}_mean``, ``_median`` and ``_max`` of path lengths (0 for none), the median
    as :func:`statistics.median` gives it. In numpy: a compiled search of a fraction of a
    second makes hundreds of thousands of paths, which took Python's own sums longer than
    the search was given."""
    values = np.asarray(lengths, dtype=np.int64)
    if not len(values):
        return {f"{name}_mean": 0.0, f"{name}_median": 0, f"{name}_max": 0}
    ordered = np.sort(values)
    middle = len(ordered) // 2
    median = int(ordered[middle]) if len(ordered) % 2 else (int(ordered[middle - 1]) + int(ordered[middle])) / 2
    return {f"{name}_mean": float(values.mean()), f"{name}_median": median, f"{name}_max": int(ordered[-1])}


def decision_statistics(root: Node, best: Node, label: Callable[[int], str], size: int, seconds: float, depths,
                        leaves, reused: bool) -> dict:
    """``agent.stats`` after a decision: the budget spent, the tree, the chosen child, path
    and leaf lengths, and every root child (``label`` writes its move)."""
    player = root.to_move
    return {
        "iterations": len(depths),
        "seconds": seconds,
        "tree_size": size,
        "reused_tree": reused,
        "root_visits": root.visits,
        "action": best.action,
        "convincity": best.win_ratio(),
        "value": best.mean(),
        **length_summary("path", depths),
        # The depths of the final tree's leaves (the Nim study's path columns).
        **length_summary("leaf_depth", leaves),
        "proven": None if root.proven is None else value_for(player, root.proven),
        "children": [
            {"action": c.action, "label": label(c.action), "visits": c.visits, "prior": c.prior,
             "value": c.mean(), "win_ratio": c.win_ratio(),
             "proven": None if c.proven is None else value_for(player, c.proven)}
            for c in sorted(root.children or [], key=lambda c: -c.visits)
        ],
    }
