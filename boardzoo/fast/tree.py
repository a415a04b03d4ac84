"""The compiled MCTS as an agent drives it: :class:`CompiledTree` (a tree in arrays and
the kernels of :mod:`.mcts` that grow it), :func:`settings_array` (an agent's options
for the kernels) and :class:`CompiledSearch` (a decision per move, a kept subtree with
``reuse``)."""

from __future__ import annotations

import math
import random
import time

import numpy as np

from boardzoo.fast.core import kernels_for
from boardzoo.fast.mcts import (
    ACTION,
    CHUNK_SECONDS,
    CREATED,
    FIRST,
    FRESH,
    INT_FIELDS,
    M_ROOT,
    M_SIZE,
    M_USED,
    MOVER,
    PAYOFF_IDS,
    POLICY_IDS,
    S_ALL_CHILDREN,
    S_C,
    S_C1,
    S_C2,
    S_LIMIT,
    S_PAYOFF,
    S_POLICY,
    S_ROLLOUT,
    S_SEARCHER_ONLY,
    S_THRESHOLD,
    S_ZETA,
    SLOTS,
    SUM_SQ,
    TO_MOVE,
    TOTAL,
    VISITS,
    WINS,
    compact,
    leaf_depths_below,
)
from boardzoo.fast.rollouts import rollout_id, scratch_size
from boardzoo.games.model import GameState
from boardzoo.jit import seed_state


class CompiledTree:
    """A search tree in arrays, and the compiled search that grows it from ``root_state``."""

    def __init__(self, state, settings: np.ndarray, rng: random.Random, capacity: int = 4096):
        self.kernels = kernels_for(state)
        self.settings = settings
        self.rng = rng
        self.generator = seed_state(rng.getrandbits(64))
        self.branching = scratch_size(state)
        self.moves = np.empty(self.branching, dtype=np.int64)
        self.ints = np.empty((capacity, INT_FIELDS), dtype=np.int32)
        self.floats = np.empty((capacity, 2), dtype=np.float64)
        self.meta = np.zeros(3, dtype=np.int64)
        self.ints[0] = FRESH
        self.floats[0] = 0.0
        self.meta[M_USED] = self.meta[M_SIZE] = 1
        self.path = np.empty(capacity, dtype=np.int64)
        self.root_state = self.kernels.core.encode(state)

    # --- growing the tree ---------------------------------------------------------------------
    @property
    def room(self) -> int:
        """Free rows an iteration may need: a full expansion and a chance node on its way."""
        return 2 * self.branching + 4

    def _grow(self) -> None:
        capacity = 2 * len(self.ints)
        self.ints = np.concatenate([self.ints, np.empty_like(self.ints)])
        self.floats = np.concatenate([self.floats, np.empty_like(self.floats)])
        self.path = np.empty(capacity, dtype=np.int64)

    def search(self, limit: float, deadline: float | None) -> np.ndarray:
        """Iterations until ``limit`` or the ``deadline`` (the Python loop's rule: stop when
        one more at 1.5x the mean pace would overrun), run in chunks of about
        :data:`CHUNK_SECONDS`; returns their path lengths."""
        clock = time.perf_counter
        started = clock()
        depths = np.empty(1024, dtype=np.int64)
        done = 0
        while done < limit:
            chunk = int(min(limit - done, 1 << 16))
            if done:
                # Chunks of about CHUNK_SECONDS, budget or not: Ctrl-C is seen between them
                # (a chunk of 65,536 long play-outs had kept it waiting for most of a minute).
                now = clock()
                pace = max((now - started) / done, 1e-9)
                chunk = min(chunk, max(1, int(CHUNK_SECONDS / pace)))
                if deadline is not None:
                    allowed = int((deadline - now) / (1.5 * pace))
                    if allowed < 1:
                        break
                    chunk = min(chunk, max(1, allowed // 2))  # half the time left: the pace is re-measured
            else:
                chunk = min(chunk, 16)
            while len(depths) < done + chunk:
                depths = np.concatenate([depths, np.empty_like(depths)])
            while len(self.ints) - self.meta[M_USED] < self.room:
                self._grow()
            done += self.kernels.run(self.root_state, self.ints, self.floats, self.meta, self.settings,
                                     self.generator, np.empty_like(self.root_state), self.moves, self.path, depths,
                                     done, chunk, self.room)
        return depths[:done]

    def open_root(self) -> None:
        """Expands the root at once, whatever the threshold: a decision needs children."""
        root = int(self.meta[M_ROOT])
        player = self.kernels.core.current_player(self.root_state)
        self.ints[root, TO_MOVE] = player
        if self.ints[root, FIRST] < 0 and player >= 0:
            while len(self.ints) - self.meta[M_USED] < self.room:
                self._grow()
            self.kernels.open_node(self.ints, self.floats, self.meta, root, self.root_state, player,
                                   self.settings, self.generator, self.moves)

    def reroot(self, row: int, state) -> None:
        """Keeps only the subtree under ``row``, now the root for ``state``."""
        new_ints, new_floats = np.empty_like(self.ints), np.empty_like(self.floats)
        origin = np.empty(len(self.ints), dtype=np.int64)
        used, size = compact(self.ints, self.floats, row, new_ints, new_floats, origin)
        self.ints, self.floats = new_ints, new_floats
        self.meta[:] = (used, size, 0)
        self.root_state = self.kernels.core.encode(state)

    # --- reading the tree ------------------------------------------------------------------------
    @property
    def root(self) -> int:
        return int(self.meta[M_ROOT])

    @property
    def size(self) -> int:
        return int(self.meta[M_SIZE])

    def children(self, row: int) -> list[int]:
        """The created children of ``row``."""
        first = int(self.ints[row, FIRST])
        if first < 0:
            return []
        return [first + i for i in range(int(self.ints[row, SLOTS])) if self.ints[first + i, CREATED]]

    def leaf_depths(self) -> np.ndarray:
        """The depth of every leaf of the tree (see :func:`leaf_depths_below`)."""
        return leaf_depths_below(self.ints, self.root, int(self.meta[M_USED]))

    def node(self, row: int, node_class: type, depth: int = 1):
        """The node at ``row`` as a ``node_class`` (the Python search's
        :class:`~boardzoo.agents.mcts.tree.Node`), its subtree ``depth`` levels down (for
        the text and Graphviz views and the statistics)."""
        ints, floats = self.ints[row], self.floats[row]
        node = node_class(int(ints[ACTION]), int(ints[MOVER]))
        node.to_move = int(ints[TO_MOVE])
        node.visits, node.wins = int(ints[VISITS]), int(ints[WINS])
        node.total, node.sum_sq = float(floats[TOTAL]), float(floats[SUM_SQ])
        if depth > 0 and ints[FIRST] >= 0:
            node.children = [self.node(child, node_class, depth - 1) for child in self.children(row)]
        return node


def settings_array(game_name: str, policy: str, options: dict, q: str, nthr: int, expands_all: bool,
                   rollout_policy: str, max_rollout: int, searcher_only: bool = False) -> np.ndarray:
    """The settings the kernels read, from the agent's parameters (already checked);
    ``searcher_only``: the roll-out policy steers the searching player's moves only."""
    settings = np.zeros(11, dtype=np.float64)
    settings[S_POLICY] = POLICY_IDS[policy]
    settings[S_C] = options.get("c", math.sqrt(2))
    settings[S_ZETA] = options.get("zeta", 1.0)
    settings[S_C1], settings[S_C2] = options.get("c1", 1.0), options.get("c2", 1.0)
    settings[S_PAYOFF] = PAYOFF_IDS[q]
    settings[S_THRESHOLD] = (nthr or 1) if expands_all else 0
    settings[S_ALL_CHILDREN] = expands_all
    settings[S_ROLLOUT] = rollout_id(game_name, rollout_policy)
    settings[S_LIMIT] = max_rollout
    settings[S_SEARCHER_ONLY] = searcher_only
    return settings


class CompiledSearch:
    """The compiled engine's decisions for one agent: a tree per decision, or with
    ``reuse`` the subtree of the position now in front of it (found as the Python agent
    finds it, within ``reuse_depth`` events of its last move). Decisions come back as
    ``node_class`` trees, the Python search's nodes."""

    def __init__(self, settings: np.ndarray, rng: random.Random, reuse: bool, reuse_depth: int, node_class: type):
        self.settings, self.rng, self.reuse, self.reuse_depth = settings, rng, reuse, reuse_depth
        self.node_class = node_class
        self._kept: tuple[CompiledTree, int, GameState] | None = None

    def decide(self, state, limit: float, deadline: float | None, choose):
        """Searches ``state``; returns (root as a Node three levels deep, the chosen child,
        nodes in the tree, path lengths, leaf depths, whether a kept tree was reused)."""
        tree = self._reused(state) if self.reuse else None
        reused = tree is not None and tree.ints[tree.root, VISITS] > 0
        if tree is None:
            tree = CompiledTree(state, self.settings.copy(), self.rng)
        tree.open_root()
        depths = tree.search(limit, deadline)
        root = tree.node(tree.root, self.node_class, depth=3)
        children = root.children or []
        best = choose(root, [c for c in children if c.visits > 0] or children)
        if self.reuse:
            after = state.clone()
            after.apply(best.action)
            self._kept = (tree, tree.children(tree.root)[children.index(best)], after)
        return root, best, tree.size, depths, tree.leaf_depths(), reused

    def _reused(self, state) -> CompiledTree | None:
        if self._kept is None:
            return None
        tree, row, after = self._kept
        self._kept = None
        target = state.key()
        frontier = [(row, after)]
        for _ in range(self.reuse_depth + 1):
            following = []
            for candidate, candidate_state in frontier:
                if candidate_state.current_player() >= 0 and candidate_state.key() == target:
                    tree.reroot(candidate, state)
                    return tree
                if candidate_state.is_terminal():
                    continue
                for child in tree.children(candidate):
                    child_state = candidate_state.clone()
                    child_state.apply(int(tree.ints[child, ACTION]))
                    following.append((child, child_state))
            frontier = following
        return None
