"""MCTS compiled: the whole search of :mod:`boardzoo.agents.mcts` for the perfect-information
games, with the tree in arrays of nodes referenced by index (as source 004 suggests).

Each node is a row of ``ints`` (fields below) and of ``floats`` (payoff sum and sum of
squares). A node's children sit in one block of consecutive rows, reserved when the node
is first expanded: all its moves, in a random order; with one child per iteration
(``nthr=0``) the first ``OPENED`` of them exist, and each iteration that reaches the node
creates the next. A chance node reserves a row per outcome and creates it when the
outcome is first drawn.

The iteration is the Python loop's (:mod:`boardzoo.agents.mcts.search`) step for step:
selection by ucb1, ucbv or ucb-minimal down the created children (an unvisited one
first), expansion, a roll-out by the game's policy (a draw after ``max_rollout`` moves),
backup of ``q=win-lose`` or ``q=wins`` payoffs. Python drives it in chunks of iterations:
between chunks it watches the clock (a time budget), grows the arrays when the tree
needs room, and keeps the chosen subtree for ``reuse``.
"""

from __future__ import annotations

import math
import random
import time

import numpy as np
from numba import njit

from boardzoo.fast import COMPILED_POLICIES
from boardzoo.fast.games import (
    CHANCE,
    GAME_IDS,
    POLICIES,
    TERMINAL,
    apply,
    chance_outcome,
    current_player,
    encode,
    legal_actions,
    random_below,
    returns0,
    rollout,
    scratch_size,
    seed_state,
)
from boardzoo.games.model import GameState

#: Fields of a node's row in ``ints``.
ACTION, MOVER, TO_MOVE, FIRST, SLOTS, OPENED, VISITS, WINS, CREATED = range(9)
INT_FIELDS = 9
#: Fields of a node's row in ``floats``.
TOTAL, SUM_SQ = range(2)
#: Selection policies the compiled search has.
UCB1, UCBV, UCB_MINIMAL = range(3)
POLICY_IDS = dict(zip(COMPILED_POLICIES, (UCB1, UCBV, UCB_MINIMAL)))
#: The settings array: policy, its constants, payoffs, expansion threshold, roll-out policy and limit.
S_POLICY, S_C, S_ZETA, S_C1, S_C2, S_WINS, S_THRESHOLD, S_ALL_CHILDREN, S_ROLLOUT, S_LIMIT, S_SEARCHER_ONLY = range(11)
#: The meta array: rows in use, nodes created, the root's row.
M_USED, M_SIZE, M_ROOT = range(3)
#: Rows of ``ints`` a node takes before it is used (``FIRST`` = -1: not expanded).
FRESH = np.array([-1, -1, TERMINAL, -1, 0, 0, 0, 0, 0], dtype=np.int32)
#: About how long one compiled chunk of iterations runs before Python looks at the clock
#: and at signals again.
CHUNK_SECONDS = 0.05


@njit(cache=True)
def _reserve(ints, floats, meta, n, actions, mover, created):
    """``n`` consecutive fresh rows for a node's children; returns the first."""
    first = meta[M_USED]
    for i in range(n):
        row = first + i
        ints[row, ACTION] = actions[i]
        ints[row, MOVER] = mover
        ints[row, TO_MOVE] = TERMINAL
        ints[row, FIRST] = -1
        ints[row, SLOTS] = 0
        ints[row, OPENED] = 0
        ints[row, VISITS] = 0
        ints[row, WINS] = 0
        ints[row, CREATED] = created
        floats[row, TOTAL] = 0.0
        floats[row, SUM_SQ] = 0.0
    meta[M_USED] = first + n
    if created:
        meta[M_SIZE] += n
    return first


@njit(cache=True)
def open_node(game, ints, floats, meta, node, s, to_move, settings, rng, moves):
    """Expands ``node``: its moves shuffled into reserved rows, all created at once or
    (one child per iteration) one by one later."""
    n = legal_actions(game, s, moves)
    for i in range(n - 1, 0, -1):  # Fisher-Yates, as random.shuffle
        j = random_below(rng, i + 1)
        moves[i], moves[j] = moves[j], moves[i]
    all_children = settings[S_ALL_CHILDREN] != 0
    ints[node, FIRST] = _reserve(ints, floats, meta, n, moves, to_move, 1 if all_children else 0)
    ints[node, SLOTS] = n
    ints[node, OPENED] = n if all_children else 0


@njit(cache=True)
def select(ints, floats, node, settings):
    """The child an iteration descends into (the first unvisited one, else the best score)."""
    first, count, parent_visits = ints[node, FIRST], ints[node, OPENED], ints[node, VISITS]
    policy = settings[S_POLICY]
    log_n = math.log(parent_visits) if parent_visits > 0 else 0.0
    best, best_score = first, -np.inf
    for child in range(first, first + count):
        n = ints[child, VISITS]
        if n == 0:
            return child
        mean = floats[child, TOTAL] / n
        if policy == UCB1:
            score = mean + settings[S_C] * math.sqrt(log_n / n)
        elif policy == UCBV:
            eps = settings[S_ZETA] * log_n
            variance = max(floats[child, SUM_SQ] / n - mean * mean, 0.0)
            score = mean + math.sqrt(2 * variance * eps / n) + settings[S_C] * 3 * eps / n
        else:
            score = mean + settings[S_C1] / n ** settings[S_C2]
        if score > best_score:
            best, best_score = child, score
    return best


@njit(cache=True)
def iterate(game, root_state, ints, floats, meta, settings, rng, work, moves, path):
    """One iteration from the root; returns its path length (edges)."""
    work[:] = root_state
    node = meta[M_ROOT]
    path[0] = node
    length = 1
    threshold = settings[S_THRESHOLD]
    while True:
        to_move = current_player(game, work)
        ints[node, TO_MOVE] = to_move
        if to_move < 0:
            if to_move == TERMINAL:
                break
            if ints[node, FIRST] < 0:  # a chance node: a row per outcome, created when drawn
                n = legal_actions(game, work, moves)
                ints[node, FIRST] = _reserve(ints, floats, meta, n, moves, CHANCE, 0)
                ints[node, SLOTS] = n
            outcome = chance_outcome(game, work, rng)
            apply(game, work, outcome)
            child = ints[node, FIRST]
            while ints[child, ACTION] != outcome:
                child += 1
            if not ints[child, CREATED]:
                ints[child, CREATED] = 1
                ints[node, OPENED] += 1
                meta[M_SIZE] += 1
            node = child
            path[length] = node
            length += 1
            continue
        if ints[node, FIRST] < 0:
            if ints[node, VISITS] < threshold:
                break  # a leaf below the expansion threshold: evaluate it as it is
            open_node(game, ints, floats, meta, node, work, to_move, settings, rng, moves)
        if ints[node, OPENED] < ints[node, SLOTS]:  # one new child per iteration
            child = ints[node, FIRST] + ints[node, OPENED]
            ints[node, OPENED] += 1
            ints[child, CREATED] = 1
            meta[M_SIZE] += 1
            apply(game, work, ints[child, ACTION])
            path[length] = child
            length += 1
            node = child
            break
        node = select(ints, floats, node, settings)
        apply(game, work, ints[node, ACTION])
        path[length] = node
        length += 1
        if ints[node, VISITS] == 0:
            break  # a child created by a full expansion: evaluate it
    if current_player(game, work) == TERMINAL:
        ints[node, TO_MOVE] = TERMINAL
        value0 = returns0(game, work)
    else:
        ints[node, TO_MOVE] = current_player(game, work)
        searcher = current_player(game, root_state) if settings[S_SEARCHER_ONLY] else -1
        value0 = rollout(game, work, np.int64(settings[S_ROLLOUT]), np.int64(settings[S_LIMIT]), rng, moves,
                         searcher)
    wins_only = settings[S_WINS] != 0
    for i in range(length):
        row = path[i]
        ints[row, VISITS] += 1
        mover = ints[row, MOVER]
        if mover >= 0:
            result = value0 if mover == 0 else -value0
            payoff = (1.0 if result > 0 else 0.0) if wins_only else result
            floats[row, TOTAL] += payoff
            floats[row, SUM_SQ] += payoff * payoff
            if result > 0:
                ints[row, WINS] += 1
    return length - 1


@njit(cache=True)
def run(game, root_state, ints, floats, meta, settings, rng, work, moves, path, depths, done, count, room):
    """Up to ``count`` iterations, their path lengths written from ``depths[done]``; stops
    early when fewer than ``room`` rows are free. Returns the iterations made."""
    capacity = ints.shape[0]
    for i in range(count):
        if capacity - meta[M_USED] < room:
            return i
        depths[done + i] = iterate(game, root_state, ints, floats, meta, settings, rng, work, moves, path)
    return count


@njit(cache=True)
def compact(ints, floats, root, new_ints, new_floats, origin):
    """Copies the subtree under ``root`` into fresh arrays, ``root`` first, each node's
    children block kept together; returns (rows used, nodes created)."""
    new_ints[0] = ints[root]
    new_floats[0] = floats[root]
    origin[0] = root
    used, size, i = 1, 1, 0
    while i < used:
        old = origin[i]
        first = ints[old, FIRST]
        if first >= 0:
            n = ints[old, SLOTS]
            for j in range(n):
                new_ints[used + j] = ints[first + j]
                new_floats[used + j] = floats[first + j]
                origin[used + j] = first + j
                size += ints[first + j, CREATED]
            new_ints[i, FIRST] = used
            used += n
        i += 1
    return used, size


@njit(cache=True)
def leaf_depths_below(ints, root, used):
    """The depth of every leaf under ``root`` (a node without a created child), as
    :func:`~boardzoo.agents.mcts.tree.leaf_depths` finds them; ``used``: rows in use.
    Compiled because a large tree took the Python walk longer than its search's budget."""
    out = np.empty(used, dtype=np.int64)
    rows = np.empty(used, dtype=np.int64)
    levels = np.empty(used, dtype=np.int64)
    rows[0], levels[0] = root, 0
    top, found = 1, 0
    while top:
        top -= 1
        row, level = rows[top], levels[top]
        first = ints[row, FIRST]
        leaf = True
        if first >= 0:
            for j in range(ints[row, SLOTS]):
                if ints[first + j, CREATED]:
                    rows[top], levels[top] = first + j, level + 1
                    top += 1
                    leaf = False
        if leaf:
            out[found] = level
            found += 1
    return out[:found]


class CompiledTree:
    """A search tree in arrays, and the compiled search that grows it from ``root_state``."""

    def __init__(self, state, settings: np.ndarray, rng: random.Random, capacity: int = 4096):
        self.game = GAME_IDS[state.game_name]
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
        self.root_state = encode(state)

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
            done += run(self.game, self.root_state, self.ints, self.floats, self.meta, self.settings,
                        self.generator, np.empty_like(self.root_state), self.moves, self.path, depths, done, chunk,
                        self.room)
        return depths[:done]

    def open_root(self) -> None:
        """Expands the root at once, whatever the threshold: a decision needs children."""
        root = int(self.meta[M_ROOT])
        player = current_player(self.game, self.root_state)
        self.ints[root, TO_MOVE] = player
        if self.ints[root, FIRST] < 0 and player >= 0:
            while len(self.ints) - self.meta[M_USED] < self.room:
                self._grow()
            open_node(self.game, self.ints, self.floats, self.meta, root, self.root_state, player, self.settings,
                      self.generator, self.moves)

    def reroot(self, row: int, state) -> None:
        """Keeps only the subtree under ``row``, now the root for ``state``."""
        new_ints, new_floats = np.empty_like(self.ints), np.empty_like(self.floats)
        origin = np.empty(len(self.ints), dtype=np.int64)
        used, size = compact(self.ints, self.floats, row, new_ints, new_floats, origin)
        self.ints, self.floats = new_ints, new_floats
        self.meta[:] = (used, size, 0)
        self.root_state = encode(state)

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
    settings[S_WINS] = q == "wins"
    settings[S_THRESHOLD] = (nthr or 1) if expands_all else 0
    settings[S_ALL_CHILDREN] = expands_all
    settings[S_ROLLOUT] = POLICIES[game_name][rollout_policy]
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
