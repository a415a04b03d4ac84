"""Gumbel AlphaZero's search, compiled, for many games at once (Danihelka et al., 2022,
"Policy improvement by planning with Gumbel").

Every game of a batch grows its own tree in one set of arrays (a *forest*: game ``b``'s
node ``i`` is row ``[b, i]``). One simulation of every game is two compiled passes and
one call of the network between them:

1. :func:`descend` walks each game's tree from its root to an edge not yet followed,
   plays that move on a copy of the parent's position, and either backs up the exact
   result (the game is over there) or writes the new position's network input into
   row ``b`` of the input batch;
2. the caller evaluates the rows that wait, all at once: policy logits and a value for
   the player to move (the *evaluator*, as OpenSpiel passes one to its MCTS bot);
3. :func:`expand` stores what the network said and backs the value up the path.

At the root, *sequential halving* picks which of the ``m`` most promising actions
(Gumbel noise plus logits, ``m`` at most ``max_considered``) each simulation visits:
visits are spread evenly over the considered actions, then the worse half by
``gumbel + logits + sigma(q)`` is dropped, and so on (the table of
:func:`considered_visits`). Below the root, each node picks the action that most
lacks visits against the improved policy ``softmax(logits + sigma(completed q))``.
``completed q`` fills unvisited actions with a mix of the network's value and the
visited actions' values; ``sigma`` scales the q values, rescaled to [0, 1] within the
node, by ``(50 + the most visits of an action) * 0.1``. The improved policy at the root
is the training target; with no noise, halving is a strong way to play a fixed number
of simulations. (Using the below-the-root rule at the root too, so that a search can
stop at any simulation, played far worse at equal time: it sends nearly every visit to
the first move whose value beats the network's estimate of the others, which are never
visited to correct it.)

A single position's search (the agent's move) batches within its tree instead: when the
schedule's next ``k`` simulations each visit a different one of ``k`` considered moves
(every round's sweeps but a halving round's first), the ``k`` simulations walk down at
once, each in its own move's subtree, and the network judges their leaves in one call.
The tree is the one the simulations would make one after the other.

Values in the trees are player 0's (``returns0``); each node turns them to its mover's
side, so games where a player moves twice in a row (Cantris' bonus turn) need nothing
special. Games with chance events are not searched here (the callers refuse them).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from boardzoo.fast.core import (
    TERMINAL,
    apply,
    current_player,
    kernel,
    kernels,
    legal_actions,
    returns0,
    write_input,
)
from boardzoo.jit import njit

#: sigma's constants, as the paper's (c_visit, c_scale).
VISIT_BASE, VALUE_SCALE = 50.0, 0.1
#: An evaluator: inputs (n, *input shape) float32 -> logits (n, actions), values (n,) for the mover.
Evaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def considered_visits(max_considered: int, simulations: int) -> np.ndarray:
    """Sequential halving's schedule: row ``m`` (``m`` actions considered) holds, for each
    simulation, how many visits the action it visits has had before it. Each round gives
    every action still in the race ``max(1, n / (ceil(log2 m) * still in))`` visits, then
    half of them (at least two) go on."""
    table = np.zeros((max_considered + 1, max(simulations, 1)), dtype=np.int32)
    for m in range(max_considered + 1):
        if m <= 1:
            table[m] = np.arange(table.shape[1])
            continue
        rounds = math.ceil(math.log2(m))
        sequence: list[int] = []
        visits, racing = 0, m
        while len(sequence) < simulations:
            for _ in range(max(1, simulations // (rounds * racing))):
                sequence.extend([visits] * racing)
                visits += 1
            racing = max(2, racing // 2)
        table[m, :simulations] = sequence[:simulations]
    return table


# --- one node: the completed, scaled q values --------------------------------------------------------
@njit(cache=True)
def _sigma(logits, legal, edge_n, edge_w, value0, mover, out):
    """sigma(completed q) of a node's legal actions into ``out``; returns the node's visits
    to its children in all."""
    sign = 1.0 if mover == 0 else -1.0
    top = -np.inf
    for a in range(len(logits)):
        if legal[a] and logits[a] > top:
            top = logits[a]
    total = 0.0
    for a in range(len(logits)):
        if legal[a]:
            total += math.exp(logits[a] - top)
    visits = 0
    most = 0
    weighted = 0.0
    weight = 0.0
    for a in range(len(logits)):
        if legal[a] and edge_n[a] > 0:
            visits += edge_n[a]
            most = max(most, edge_n[a])
            prior = math.exp(logits[a] - top) / total
            weighted += prior * sign * edge_w[a] / edge_n[a]
            weight += prior
    own = sign * value0
    mixed = own if visits == 0 or weight == 0.0 else (own + visits * weighted / weight) / (visits + 1)
    low, high = np.inf, -np.inf
    for a in range(len(logits)):
        if legal[a]:
            q = sign * edge_w[a] / edge_n[a] if edge_n[a] > 0 else mixed
            out[a] = q
            low = min(low, q)
            high = max(high, q)
    scale = (VISIT_BASE + most) * VALUE_SCALE
    span = max(high - low, 1e-8)
    for a in range(len(logits)):
        if legal[a]:
            out[a] = scale * (out[a] - low) / span
    return visits


@njit(cache=True)
def _improved(logits, legal, sigma, out):
    """softmax(logits + sigma) over the legal actions into ``out`` (0 elsewhere)."""
    top = -np.inf
    for a in range(len(logits)):
        if legal[a]:
            top = max(top, logits[a] + sigma[a])
    total = 0.0
    for a in range(len(logits)):
        out[a] = math.exp(logits[a] + sigma[a] - top) if legal[a] else 0.0
        total += out[a]
    for a in range(len(logits)):
        out[a] /= total


@njit(cache=True)
def _below_root_choice(logits, legal, edge_n, edge_w, value0, mover, sigma, policy):
    visits = _sigma(logits, legal, edge_n, edge_w, value0, mover, sigma)
    _improved(logits, legal, sigma, policy)
    best, best_score = -1, -np.inf
    for a in range(len(logits)):
        if legal[a]:
            score = policy[a] - edge_n[a] / (1.0 + visits)
            if score > best_score:
                best, best_score = a, score
    return best


@njit(cache=True)
def _root_choice(b, logits, legal, edge_n, edge_w, value0, mover, gumbel, considered, n_considered, table,
                 done, sigma, policy):
    """Sequential halving: among the considered actions with the visits the schedule asks
    for at this simulation, the best by gumbel + logits + sigma (the rule below the root
    once the schedule is spent)."""
    if done >= table.shape[1]:
        return _below_root_choice(logits, legal, edge_n, edge_w, value0, mover, sigma, policy)
    _sigma(logits, legal, edge_n, edge_w, value0, mover, sigma)
    wanted = table[n_considered[b], done]
    best, best_score = -1, -np.inf
    for a in range(len(logits)):
        if considered[b, a] and edge_n[a] == wanted:
            score = gumbel[b, a] + logits[a] + sigma[a]
            if score > best_score:
                best, best_score = a, score
    if best < 0:
        return _below_root_choice(logits, legal, edge_n, edge_w, value0, mover, sigma, policy)
    return best


# --- the trees and the simulations under way ------------------------------------------------------------
class Forest(NamedTuple):
    """Every game's search tree, one set of arrays: game ``b``'s node ``i`` is ``[b, i]``."""

    states: np.ndarray    # (games, capacity, state length): each node's position
    children: np.ndarray  # (games, capacity, actions): the child an edge leads to, -1 before it is followed
    logits: np.ndarray    # (games, capacity, actions): the network's logits at the node
    legal: np.ndarray     # (games, capacity, actions)
    edge_n: np.ndarray    # (games, capacity, actions): visits of each edge
    edge_w: np.ndarray    # (games, capacity, actions): player 0's values summed over them
    value0: np.ndarray    # (games, capacity): the network's value (the result, once over), player 0's
    node_n: np.ndarray    # (games, capacity): visits of the node
    to_move: np.ndarray   # (games, capacity): its player to move, TERMINAL at the end
    used: np.ndarray      # (games,): nodes in use


class Simulations(NamedTuple):
    """The simulations under way, one a row: each one's path, its leaf waiting for the
    network, and that leaf's input (a row a game, or a considered move in a sweep)."""

    path_nodes: np.ndarray    # (rows, longest path)
    path_actions: np.ndarray  # (rows, longest path)
    depth: np.ndarray         # (rows,): the path's length
    pending: np.ndarray       # (rows,): the new node waiting for the network, -1 for none
    inputs: np.ndarray        # (rows, input size): its input


class Halving(NamedTuple):
    """Sequential halving at each root: the noise, the considered actions, the schedule."""

    gumbel: np.ndarray        # (games, actions)
    considered: np.ndarray    # (games, actions)
    n_considered: np.ndarray  # (games,)
    table: np.ndarray         # the schedule (:func:`considered_visits`)


class Scratch(NamedTuple):
    sigma: np.ndarray   # (actions,)
    policy: np.ndarray  # (actions,)


# --- the three passes, made for each game (:mod:`.core`) ------------------------------------------------
@kernel
def plant(tree, roots, sims):
    """Every game's tree becomes its root alone (``roots[b]``, a position someone is to
    move in), its input written to be evaluated."""
    states, children, _, _, edge_n, edge_w, _, node_n, to_move, used = tree
    _, _, depth, pending, inputs = sims
    for b in range(roots.shape[0]):
        states[b, 0, :] = roots[b]
        children[b, 0, :] = -1
        edge_n[b, 0, :] = 0
        edge_w[b, 0, :] = 0.0
        node_n[b, 0] = 0
        to_move[b, 0] = current_player(roots[b])
        used[b] = 1
        depth[b] = 0
        pending[b] = 0
        write_input(states[b, 0], inputs[b])


@kernel
def descend_one(b, row, first, states, children, logits, legal, edge_n, edge_w, value0, node_n, to_move, used,
                path_nodes, path_actions, depth, pending, inputs, gumbel, considered, n_considered, table, sigma,
                policy):
    """One simulation's way down game ``b``'s tree, kept in ``row`` of the simulations;
    its root move is ``first``, or sequential halving's when -1; below the root, the
    improved policy's. It takes the structures' arrays one by one, as :func:`descend`
    took them out once for all games, and its helpers are calls rather than inlined:
    numba counts a reference at every use of a structure's field and at every array an
    inlined helper takes, which cost a sixth of the search's speed here."""
    node, d = 0, 0
    pending[row] = -1
    while True:
        if node == 0 and first >= 0:
            action = first
        elif node == 0:
            action = _root_choice(b, logits[b, 0], legal[b, 0], edge_n[b, 0], edge_w[b, 0], value0[b, 0],
                                  to_move[b, 0], gumbel, considered, n_considered, table, node_n[b, 0] - 1, sigma,
                                  policy)
        else:
            action = _below_root_choice(logits[b, node], legal[b, node], edge_n[b, node], edge_w[b, node],
                                        value0[b, node], to_move[b, node], sigma, policy)
        path_nodes[row, d], path_actions[row, d] = node, action
        d += 1
        child = children[b, node, action]
        if child < 0:  # a new node, its position the parent's with the action played
            child = used[b]
            used[b] = child + 1
            children[b, node, action] = child
            position = states[b, child]
            position[:] = states[b, node]
            apply(position, action)
            children[b, child, :] = -1
            edge_n[b, child, :] = 0
            edge_w[b, child, :] = 0.0
            node_n[b, child] = 0
            to_move[b, child] = current_player(position)
            if to_move[b, child] != TERMINAL:
                write_input(position, inputs[row])
                pending[row] = child
                break
            value0[b, child] = returns0(position)
        elif to_move[b, child] != TERMINAL:
            node = child
            continue
        backup(b, row, d, child, value0[b, child], path_nodes, path_actions, edge_n, edge_w, node_n)  # exact
        break
    depth[row] = d


@kernel
def backup(b, row, d, leaf, value, path_nodes, path_actions, edge_n, edge_w, node_n):
    """Player 0's ``value`` of ``leaf`` added along the ``d`` edges of row ``row``'s path
    in game ``b``'s tree, every node on it visited once more. A call, not inlined: numba
    counts a reference for every array an inlined helper takes."""
    for i in range(d):
        node, action = path_nodes[row, i], path_actions[row, i]
        edge_n[b, node, action] += 1
        edge_w[b, node, action] += value
        node_n[b, node] += 1
    node_n[b, leaf] += 1


@kernel
def descend(tree, games, sims, halving, scratch):
    """One simulation's way down in each of the first ``games`` games (see the module
    docstring); ``sims.pending[b]`` is the new node waiting for the network, or -1 when
    the leaf's value was exact."""
    states, children, logits, legal, edge_n, edge_w, value0, node_n, to_move, used = tree
    path_nodes, path_actions, depth, pending, inputs = sims
    gumbel, considered, n_considered, table = halving
    sigma, policy = scratch
    for b in range(games):
        descend_one(b, b, -1, states, children, logits, legal, edge_n, edge_w, value0, node_n, to_move, used,
                    path_nodes, path_actions, depth, pending, inputs, gumbel, considered, n_considered, table,
                    sigma, policy)


@kernel
def descend_sweep(tree, firsts, sims, halving, scratch):
    """Game 0's simulations under each of the root moves ``firsts``, one a row: a sweep
    of sequential halving (see :meth:`BatchedGumbelSearch._sweep`)."""
    states, children, logits, legal, edge_n, edge_w, value0, node_n, to_move, used = tree
    path_nodes, path_actions, depth, pending, inputs = sims
    gumbel, considered, n_considered, table = halving
    sigma, policy = scratch
    for row in range(len(firsts)):
        descend_one(0, row, firsts[row], states, children, logits, legal, edge_n, edge_w, value0, node_n, to_move,
                    used, path_nodes, path_actions, depth, pending, inputs, gumbel, considered, n_considered, table,
                    sigma, policy)


@kernel
def expand(tree, trees, sims, net_logits, net_values, moves):
    """What the network said of each waiting node (row ``r``'s in game ``trees[r]``'s
    tree) stored, its value backed up."""
    states, _, logits, legal, edge_n, edge_w, value0, node_n, to_move, _ = tree
    path_nodes, path_actions, depth, pending, _ = sims
    for row in range(len(trees)):
        leaf, b = pending[row], trees[row]
        if leaf < 0:
            continue
        legal[b, leaf, :] = False
        for i in range(legal_actions(states[b, leaf], moves)):
            legal[b, leaf, moves[i]] = True
        logits[b, leaf, :] = net_logits[row]
        value = net_values[row] if to_move[b, leaf] == 0 else -net_values[row]
        value0[b, leaf] = value
        backup(b, row, depth[row], leaf, value, path_nodes, path_actions, edge_n, edge_w, node_n)
        pending[row] = -1


@kernel
def write_inputs(states, out):
    """The network input of every row of ``states`` into the rows of ``out`` (n, size)."""
    for i in range(states.shape[0]):
        write_input(states[i], out[i])


@njit(cache=True)
def consider(tree, games, halving, max_considered):
    """Each root's considered actions: its ``max_considered`` best by gumbel + logits."""
    _, _, logits, legal, _, _, _, _, _, _ = tree
    gumbel, considered, n_considered, _ = halving
    for b in range(games):
        considered[b, :] = False
        legal_count = 0
        for a in range(logits.shape[2]):
            if legal[b, 0, a]:
                legal_count += 1
        m = min(max_considered, legal_count)
        n_considered[b] = m
        for _ in range(m):
            best, best_score = -1, -np.inf
            for a in range(logits.shape[2]):
                if legal[b, 0, a] and not considered[b, a] and gumbel[b, a] + logits[b, 0, a] > best_score:
                    best, best_score = a, gumbel[b, a] + logits[b, 0, a]
            considered[b, best] = True


@njit(cache=True)
def results(tree, games, halving, policy_out, actions_out, values_out, sigma):
    """Each root's improved policy (the training target), the move to play and the
    root's value for its mover (the visited children's mean, the network's before any)."""
    _, _, all_logits, all_legal, all_edge_n, all_edge_w, value0, _, to_move, _ = tree
    gumbel, considered, _, _ = halving
    for b in range(games):
        logits, legal, edge_n, edge_w = all_logits[b, 0], all_legal[b, 0], all_edge_n[b, 0], all_edge_w[b, 0]
        visits = _sigma(logits, legal, edge_n, edge_w, value0[b, 0], to_move[b, 0], sigma)
        _improved(logits, legal, sigma, policy_out[b])
        sign = 1.0 if to_move[b, 0] == 0 else -1.0
        values_out[b] = sign * (edge_w.sum() / visits if visits else value0[b, 0])
        best, best_score = -1, -np.inf
        most = 0
        for a in range(len(logits)):
            if considered[b, a]:
                most = max(most, edge_n[a])
        for a in range(len(logits)):
            if considered[b, a] and edge_n[a] == most:
                score = gumbel[b, a] + logits[a] + sigma[a]
                if score > best_score:
                    best, best_score = a, score
        actions_out[b] = best


# --- the driver ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SearchResult:
    """Per game: the move chosen, the improved policy over the actions, the root's value
    for its mover, and the simulations run."""

    actions: np.ndarray
    policy: np.ndarray
    values: np.ndarray
    simulations: int


class BatchedGumbelSearch:
    """Searches for ``batch`` positions of one compiled game at once, the network asked
    about every game's new leaf in one call per simulation. Capacity grows as the trees
    do (a time budget has no simulation count to size it by). ``tree`` is the forest
    (:class:`Forest`) the last search grew."""

    def __init__(self, game_name: str, num_actions: int, input_shape: tuple[int, ...], state_length: int,
                 batch: int, max_considered: int = 16, capacity: int = 64):
        self.kernels = kernels(game_name)
        if self.kernels.game.network_input is None:
            raise ValueError(f"the Gumbel search plays games a network learns, not {game_name}")
        self.num_actions, self.input_shape = num_actions, tuple(input_shape)
        self.batch, self.max_considered = batch, max_considered
        self.state_length = state_length
        self._use_forest(self._forest(0, None))
        self._allocate(capacity)
        # A simulation's rows (its path, its leaf waiting for the network): one a game, or
        # one a considered move when a single game's sweep runs at once.
        rows = max(batch, max_considered)
        self._use_simulations(self._simulations(rows, 64))  # paths grown to the longest game searched
        self.net_logits = np.zeros((rows, num_actions), dtype=np.float32)
        self.net_values = np.zeros(rows, dtype=np.float32)
        self._games = np.arange(rows, dtype=np.int64)  # row r is game r's
        self._game_zero = np.zeros(rows, dtype=np.int64)  # every row is game 0's
        self.scratch = Scratch(np.zeros(num_actions), np.zeros(num_actions))
        self._moves = np.zeros(num_actions, dtype=np.int64)
        self._gumbel = np.zeros((batch, num_actions), dtype=np.float64)
        self._considered = np.zeros((batch, num_actions), dtype=np.bool_)
        self._n_considered = np.zeros(batch, dtype=np.int64)

    def _simulations(self, rows: int, longest: int) -> Simulations:
        return Simulations(np.zeros((rows, longest), dtype=np.int64), np.zeros((rows, longest), dtype=np.int64),
                           np.zeros(rows, dtype=np.int64), np.full(rows, -1, dtype=np.int64),
                           np.zeros((rows, int(np.prod(self.input_shape))), dtype=np.float32))

    def _forest(self, capacity: int, old: Forest | None) -> Forest:
        """A forest of ``capacity`` nodes a game, holding the nodes of ``old``."""
        def grown(field: str, width: tuple[int, ...], dtype: type, fill: float) -> np.ndarray:
            array: np.ndarray = np.full((self.batch, capacity, *width), fill, dtype=dtype)
            if old is not None:
                kept = getattr(old, field)
                array[:, :kept.shape[1]] = kept
            return array

        a = (self.num_actions,)
        return Forest(grown("states", (self.state_length,), np.int64, 0), grown("children", a, np.int64, -1),
                      grown("logits", a, np.float32, 0), grown("legal", a, np.bool_, False),
                      grown("edge_n", a, np.int64, 0), grown("edge_w", a, np.float64, 0),
                      grown("value0", (), np.float64, 0), grown("node_n", (), np.int64, 0),
                      grown("to_move", (), np.int64, TERMINAL),
                      np.zeros(self.batch, dtype=np.int64) if old is None else old.used)

    # Plain attributes, each set with the tuple the kernels take (a property's call costs
    # as much as a simulation's work in a single position's search).
    def _use_forest(self, forest: Forest) -> None:
        self.tree, self._tree_args = forest, tuple(forest)
        self.capacity = int(forest.states.shape[1])

    def _use_simulations(self, simulations: Simulations) -> None:
        self.sims, self._sims_args = simulations, tuple(simulations)

    def _allocate(self, capacity: int) -> None:
        """Room for ``capacity`` nodes a game, keeping the nodes there are."""
        self._use_forest(self._forest(capacity, self.tree if self.capacity else None))

    def run(self, roots: np.ndarray, evaluate: Evaluator, simulations: int, gumbel: np.ndarray | None = None,
            deadline: float | None = None, sweeps: bool = True) -> SearchResult:
        """Search every root (``roots[b]``, compiled positions with a player to move) for
        ``simulations`` simulations (at least 1), by sequential halving over the
        ``gumbel`` noise given (none: zeros); a ``deadline`` (``time.perf_counter``) stops
        it early (after at least one simulation), its move then the most visited among
        the actions still considered. A caller with a time budget plans ``simulations``
        to fit it (the agent does, from its measured speed), the deadline a safety stop.
        A single root's search runs each sweep of the schedule that may go at once as one
        step (:meth:`_sweep`; ``sweeps=False`` runs every simulation alone, the same
        search, for the tests): the network is called a quarter as often."""
        n = len(roots)
        core = self.kernels.core
        if roots.ndim != 2 or not 1 <= n <= self.batch or roots.shape[1] != self.state_length:
            raise ValueError(f"roots must have shape (1..{self.batch}, {self.state_length}), got {roots.shape}")
        if not core.input_fits(roots, self.sims.inputs.shape[1]):
            raise ValueError(f"network inputs of shape {self.input_shape} do not fit these positions (another game, "
                             "board size, or a pile beyond the largest)")
        longest = int(core.remaining_moves(roots).max()) + 1  # a path never outlasts the game
        if longest > self.sims.path_nodes.shape[1]:
            self._use_simulations(self._simulations(len(self.sims.pending), longest))
        self._gumbel[:n] = 0.0 if gumbel is None else gumbel
        halving = Halving(self._gumbel, self._considered, self._n_considered,
                          considered_visits(self.max_considered, simulations))
        roots = np.ascontiguousarray(roots, dtype=np.int64)
        # The kernels take the structures as plain tuples: numba unpacks those arguments
        # at a third of a named tuple's cost a call (the single position's search makes
        # hundreds of calls a move).
        halving_args, scratch_args = tuple(halving), tuple(self.scratch)
        self.kernels.plant(self._tree_args, roots, self._sims_args)
        self._evaluate_and_expand(evaluate, self._games[:n])
        consider(self._tree_args, n, halving_args, self.max_considered)
        done = 0
        while done < simulations and (deadline is None or done == 0 or time.perf_counter() < deadline):
            sweep = self._sweep(halving, done) if n == 1 and sweeps else None
            needed = int(self.tree.used[:n].max()) + (1 if sweep is None else len(sweep))  # a row adds a node at most
            if needed > self.capacity:
                self._allocate(max(2 * self.capacity, needed))
            if sweep is None:
                self.kernels.descend(self._tree_args, n, self._sims_args, halving_args, scratch_args)
                self._evaluate_and_expand(evaluate, self._games[:n])
                done += 1
            else:
                self.kernels.descend_sweep(self._tree_args, sweep, self._sims_args, halving_args, scratch_args)
                self._evaluate_and_expand(evaluate, self._game_zero[:len(sweep)])
                done += len(sweep)
        policy = np.zeros((n, self.num_actions))
        actions = np.zeros(n, dtype=np.int64)
        values = np.zeros(n)
        results(self._tree_args, n, halving_args, policy, actions, values, self.scratch.sigma)
        return SearchResult(actions, policy, values, done)

    def _sweep(self, halving: Halving, done: int) -> np.ndarray | None:
        """The root moves of a single game's next simulations when they may run at once,
        else None: the schedule's next ``k`` simulations ask for the same visits and
        exactly ``k`` considered moves have them, so one after the other the simulations
        visit each of those moves once, whatever order the root's rule picks them in. Each
        runs in its move's own subtree, untouched by the others', so together they leave
        the tree as one after the other would, and the network judges their leaves in one
        call."""
        table = halving.table
        if done >= table.shape[1]:
            return None
        row = table[halving.n_considered[0]]
        wanted = row[done]
        k = 1
        while done + k < len(row) and row[done + k] == wanted:
            k += 1
        if k < 2:
            return None
        moves = np.flatnonzero(halving.considered[0] & (self.tree.edge_n[0, 0] == wanted))
        return moves if len(moves) == k else None

    def _evaluate_and_expand(self, evaluate: Evaluator, trees: np.ndarray) -> None:
        """The network judges the leaves waiting in rows ``0..len(trees)-1``, all at
        once; each row's leaf joins game ``trees[row]``'s tree."""
        rows = len(trees)
        waiting = np.flatnonzero(self.sims.pending[:rows] >= 0)
        if len(waiting):
            logits, values = evaluate(self.sims.inputs[waiting].reshape(len(waiting), *self.input_shape))
            self.net_logits[waiting] = logits
            self.net_values[waiting] = values
        self.kernels.expand(self._tree_args, trees, self._sims_args, self.net_logits, self.net_values, self._moves)
