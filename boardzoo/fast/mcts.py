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
backup of ``q=win-lose``, ``q=wins`` or ``q=score`` payoffs. Python drives it in chunks of iterations:
between chunks it watches the clock (a time budget), grows the arrays when the tree
needs room, and keeps the chosen subtree for ``reuse``.
"""

from __future__ import annotations

import math

import numpy as np

from boardzoo.fast import COMPILED_POLICIES
from boardzoo.fast.core import (
    CHANCE,
    TERMINAL,
    apply,
    chance_outcome,
    current_player,
    kernel,
    legal_actions,
    returns0,
)
from boardzoo.fast.rollouts import rollout
from boardzoo.jit import njit, random_below, random_float

#: Fields of a node's row in ``ints``.
ACTION, MOVER, TO_MOVE, FIRST, SLOTS, OPENED, VISITS, WINS, CREATED = range(9)
INT_FIELDS = 9
#: Fields of a node's row in ``floats``.
TOTAL, SUM_SQ = range(2)
#: Selection policies the compiled search has.
UCB1, UCBV, UCB_MINIMAL = range(3)
POLICY_IDS = dict(zip(COMPILED_POLICIES, (UCB1, UCBV, UCB_MINIMAL)))
#: The settings array: policy, its constants, payoffs, expansion threshold, roll-out policy and limit.
(S_POLICY, S_C, S_ZETA, S_C1, S_C2, S_PAYOFF, S_THRESHOLD, S_ALL_CHILDREN, S_ROLLOUT, S_LIMIT,
 S_SEARCHER_ONLY) = range(11)
#: Payoffs the backup credits (the ``q`` parameter; boardzoo.agents.mcts.backup).
PAYOFF_WIN_LOSE, PAYOFF_WINS, PAYOFF_SCORE = range(3)
PAYOFF_IDS = {"win-lose": PAYOFF_WIN_LOSE, "wins": PAYOFF_WINS, "score": PAYOFF_SCORE}
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


@kernel
def open_node(ints, floats, meta, node, s, to_move, settings, rng, moves):
    """Expands ``node``: its moves shuffled into reserved rows, all created at once or
    (one child per iteration) one by one later."""
    n = legal_actions(s, moves)
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


@kernel
def iterate(root_state, ints, floats, meta, settings, rng, work, moves, path):
    """One iteration from the root; returns its path length (edges)."""
    work[:] = root_state
    node = meta[M_ROOT]
    path[0] = node
    length = 1
    threshold = settings[S_THRESHOLD]
    while True:
        to_move = current_player(work)
        ints[node, TO_MOVE] = to_move
        if to_move < 0:
            if to_move == TERMINAL:
                break
            if ints[node, FIRST] < 0:  # a chance node: a row per outcome, created when drawn
                n = legal_actions(work, moves)
                ints[node, FIRST] = _reserve(ints, floats, meta, n, moves, CHANCE, 0)
                ints[node, SLOTS] = n
            outcome = chance_outcome(work, random_float(rng))
            apply(work, outcome)
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
            open_node(ints, floats, meta, node, work, to_move, settings, rng, moves)
        if ints[node, OPENED] < ints[node, SLOTS]:  # one new child per iteration
            child = ints[node, FIRST] + ints[node, OPENED]
            ints[node, OPENED] += 1
            ints[child, CREATED] = 1
            meta[M_SIZE] += 1
            apply(work, ints[child, ACTION])
            path[length] = child
            length += 1
            node = child
            break
        node = select(ints, floats, node, settings)
        apply(work, ints[node, ACTION])
        path[length] = node
        length += 1
        if ints[node, VISITS] == 0:
            break  # a child created by a full expansion: evaluate it
    if current_player(work) == TERMINAL:
        ints[node, TO_MOVE] = TERMINAL
        value0 = returns0(work)
    else:
        ints[node, TO_MOVE] = current_player(work)
        searcher = current_player(root_state) if settings[S_SEARCHER_ONLY] else -1
        value0 = rollout(work, np.int64(settings[S_ROLLOUT]), np.int64(settings[S_LIMIT]), rng, moves,
                         searcher)
    payoff_id = settings[S_PAYOFF]
    for i in range(length):
        row = path[i]
        ints[row, VISITS] += 1
        mover = ints[row, MOVER]
        if mover >= 0:
            result = value0 if mover == 0 else -value0
            if payoff_id == PAYOFF_WINS:
                payoff = 1.0 if result > 0 else 0.0
            elif payoff_id == PAYOFF_SCORE:
                payoff = (1.0 + result) / 2
            else:
                payoff = result
            floats[row, TOTAL] += payoff
            floats[row, SUM_SQ] += payoff * payoff
            if result > 0:
                ints[row, WINS] += 1
    return length - 1


@kernel
def run(root_state, ints, floats, meta, settings, rng, work, moves, path, depths, done, count, room):
    """Up to ``count`` iterations, their path lengths written from ``depths[done]``; stops
    early when fewer than ``room`` rows are free. Returns the iterations made."""
    capacity = ints.shape[0]
    for i in range(count):
        if capacity - meta[M_USED] < room:
            return i
        depths[done + i] = iterate(root_state, ints, floats, meta, settings, rng, work, moves, path)
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
