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

import numpy as np
from numba import njit

import boardzoo.fast.cache  # noqa: F401  (guards numba's disk cache; before any njit)
from boardzoo.fast.games import (
    C4_CELLS,
    C4_PLIES,
    CANTRIS,
    CONNECT_FOUR,
    CT_LEFT,
    NIM,
    NIM_PAWNS,
    TERMINAL,
    apply,
    current_player,
    legal_actions,
    returns0,
)
from boardzoo.fast.network_input import input_fits, write_input

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


# --- the three passes ---------------------------------------------------------------------------------
@njit(cache=True)
def plant(game, roots, states, children, edge_n, edge_w, node_n, to_move, used, inputs, pending, depth):
    """Every game's tree becomes its root alone (``roots[b]``, a position someone is to
    move in), its input written to be evaluated."""
    for b in range(roots.shape[0]):
        states[b, 0, :] = roots[b]
        children[b, 0, :] = -1
        edge_n[b, 0, :] = 0
        edge_w[b, 0, :] = 0.0
        node_n[b, 0] = 0
        to_move[b, 0] = current_player(game, roots[b])
        used[b] = 1
        depth[b] = 0
        pending[b] = 0
        write_input(game, states[b, 0], inputs[b])


@njit(cache=True)
def consider(logits, legal, gumbel, max_considered, considered, n_considered):
    """Each root's considered actions: its ``max_considered`` best by gumbel + logits."""
    for b in range(logits.shape[0]):
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
def _backup(b, row, leaf, value, path_nodes, path_actions, d, edge_n, edge_w, node_n):
    """Game ``b``'s tree takes a simulation's value along the path kept in ``row``."""
    for i in range(d):
        node, action = path_nodes[row, i], path_actions[row, i]
        edge_n[b, node, action] += 1
        edge_w[b, node, action] += value
        node_n[b, node] += 1
    node_n[b, leaf] += 1


@njit(cache=True)
def _descend_one(game, b, row, first, states, children, logits, legal, edge_n, edge_w, value0, node_n, to_move,
                 used, gumbel, considered, n_considered, table, path_nodes, path_actions, depth, pending, inputs,
                 sigma, policy):
    """One simulation's way down game ``b``'s tree, kept in ``row`` of the path, pending
    and input arrays; its root move is ``first``, or the root's rule's when -1."""
    node, d = 0, 0
    pending[row] = -1
    while True:
        if d == 0 and first >= 0:
            action = first
        elif d == 0:
            action = _root_choice(b, logits[b, 0], legal[b, 0], edge_n[b, 0], edge_w[b, 0], value0[b, 0],
                                  to_move[b, 0], gumbel, considered, n_considered, table, node_n[b, 0] - 1,
                                  sigma, policy)
        else:
            action = _below_root_choice(logits[b, node], legal[b, node], edge_n[b, node], edge_w[b, node],
                                        value0[b, node], to_move[b, node], sigma, policy)
        path_nodes[row, d], path_actions[row, d] = node, action
        d += 1
        child = children[b, node, action]
        if child < 0:
            child = used[b]
            used[b] += 1
            children[b, node, action] = child
            states[b, child, :] = states[b, node, :]
            apply(game, states[b, child], action)
            children[b, child, :] = -1
            edge_n[b, child, :] = 0
            edge_w[b, child, :] = 0.0
            node_n[b, child] = 0
            to_move[b, child] = current_player(game, states[b, child])
            if to_move[b, child] == TERMINAL:
                value0[b, child] = returns0(game, states[b, child])
                _backup(b, row, child, value0[b, child], path_nodes, path_actions, d, edge_n, edge_w, node_n)
            else:
                write_input(game, states[b, child], inputs[row])
                pending[row] = child
            break
        if to_move[b, child] == TERMINAL:
            _backup(b, row, child, value0[b, child], path_nodes, path_actions, d, edge_n, edge_w, node_n)
            break
        node = child
    depth[row] = d


@njit(cache=True)
def descend(game, states, children, logits, legal, edge_n, edge_w, value0, node_n, to_move, used,
            gumbel, considered, n_considered, table, path_nodes, path_actions, depth, pending, inputs, sigma, policy):
    """One simulation's way down in every game (see the module docstring); ``pending[b]``
    is the new node waiting for the network, or -1 when the leaf's value was exact."""
    for b in range(states.shape[0]):
        _descend_one(game, b, b, -1, states, children, logits, legal, edge_n, edge_w, value0, node_n, to_move,
                     used, gumbel, considered, n_considered, table, path_nodes, path_actions, depth, pending, inputs,
                     sigma, policy)


@njit(cache=True)
def descend_sweep(game, firsts, states, children, logits, legal, edge_n, edge_w, value0, node_n, to_move, used,
                  gumbel, considered, n_considered, table, path_nodes, path_actions, depth, pending, inputs, sigma,
                  policy):
    """Game 0's simulations under each of the root moves ``firsts``, one a row: a sweep
    of sequential halving (see :meth:`BatchedGumbelSearch._sweep`)."""
    for row in range(len(firsts)):
        _descend_one(game, 0, row, firsts[row], states, children, logits, legal, edge_n, edge_w, value0, node_n,
                     to_move, used, gumbel, considered, n_considered, table, path_nodes, path_actions, depth, pending,
                     inputs, sigma, policy)


@njit(cache=True)
def expand(game, trees, states, logits, legal, value0, to_move, net_logits, net_values, pending, path_nodes,
           path_actions, depth, edge_n, edge_w, node_n, moves):
    """What the network said of each waiting node (row ``r``'s in game ``trees[r]``'s
    tree) stored, its value backed up."""
    for row in range(len(trees)):
        leaf, b = pending[row], trees[row]
        if leaf < 0:
            continue
        legal[b, leaf, :] = False
        for i in range(legal_actions(game, states[b, leaf], moves)):
            legal[b, leaf, moves[i]] = True
        logits[b, leaf, :] = net_logits[row]
        value0[b, leaf] = net_values[row] if to_move[b, leaf] == 0 else -net_values[row]
        _backup(b, row, leaf, value0[b, leaf], path_nodes, path_actions, depth[row], edge_n, edge_w, node_n)
        pending[row] = -1


@njit(cache=True)
def results(logits, legal, edge_n, edge_w, value0, to_move, gumbel, considered, policy_out, actions_out,
            values_out, sigma):
    """Each root's improved policy (the training target), the move to play and the
    root's value for its mover (the visited children's mean, the network's before any)."""
    for b in range(logits.shape[0]):
        visits = _sigma(logits[b, 0], legal[b, 0], edge_n[b, 0], edge_w[b, 0], value0[b, 0], to_move[b, 0], sigma)
        _improved(logits[b, 0], legal[b, 0], sigma, policy_out[b])
        sign = 1.0 if to_move[b, 0] == 0 else -1.0
        values_out[b] = sign * (edge_w[b, 0].sum() / visits if visits else value0[b, 0])
        best, best_score = -1, -np.inf
        most = 0
        for a in range(logits.shape[2]):
            if considered[b, a]:
                most = max(most, edge_n[b, 0, a])
        for a in range(logits.shape[2]):
            if considered[b, a] and edge_n[b, 0, a] == most:
                score = gumbel[b, a] + logits[b, 0, a] + sigma[a]
                if score > best_score:
                    best, best_score = a, score
        actions_out[b] = best


# --- the driver ------------------------------------------------------------------------------------------
def remaining_moves(game: int, roots: np.ndarray) -> np.ndarray:
    """The most moves left in each position (every move takes a pawn, fills a cell or
    takes a tile): the longest path a search from it can walk."""
    if game == NIM:
        return roots[:, NIM_PAWNS]
    if game == CONNECT_FOUR:
        return roots[:, C4_CELLS] - roots[:, C4_PLIES]
    if game == CANTRIS:
        return roots[:, CT_LEFT]
    raise ValueError(f"the Gumbel search plays Nim, Connect Four and Cantris, not compiled game {game}")



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
    do (a time budget has no simulation count to size it by)."""

    def __init__(self, game: int, num_actions: int, input_shape: tuple[int, ...], state_length: int, batch: int,
                 max_considered: int = 16, capacity: int = 64):
        self.game, self.num_actions, self.input_shape = game, num_actions, tuple(input_shape)
        self.batch, self.max_considered = batch, max_considered
        self.state_length = state_length
        self.capacity = 0
        self.states: np.ndarray
        self.children: np.ndarray
        self.logits: np.ndarray
        self.legal: np.ndarray
        self.edge_n: np.ndarray
        self.edge_w: np.ndarray
        self.value0: np.ndarray
        self.node_n: np.ndarray
        self.to_move: np.ndarray
        self._allocate(capacity)
        # A simulation's rows (its path, its leaf waiting for the network): one a game, or
        # one a considered move when a single game's sweep runs at once.
        rows = max(batch, max_considered)
        self.inputs = np.zeros((rows, int(np.prod(self.input_shape))), dtype=np.float32)
        self.pending = np.full(rows, -1, dtype=np.int64)
        self.depth = np.zeros(rows, dtype=np.int64)
        self.used = np.zeros(batch, dtype=np.int64)
        self.path_nodes = np.zeros((rows, 64), dtype=np.int64)  # grown to the longest game searched
        self.path_actions = np.zeros((rows, 64), dtype=np.int64)
        self.considered = np.zeros((batch, num_actions), dtype=np.bool_)
        self.n_considered = np.zeros(batch, dtype=np.int64)
        self.gumbel = np.zeros((batch, num_actions), dtype=np.float64)
        self.net_logits = np.zeros((rows, num_actions), dtype=np.float32)
        self.net_values = np.zeros(rows, dtype=np.float32)
        self._games = np.arange(rows, dtype=np.int64)  # row r is game r's
        self._game_zero = np.zeros(rows, dtype=np.int64)  # every row is game 0's
        self._sigma = np.zeros(num_actions)
        self._policy = np.zeros(num_actions)
        self._moves = np.zeros(num_actions, dtype=np.int64)

    def _allocate(self, capacity: int) -> None:
        """Room for ``capacity`` nodes a game, keeping the nodes there are."""
        def grown(old: np.ndarray | None, width: tuple[int, ...], dtype: type, fill: float) -> np.ndarray:
            array: np.ndarray = np.full((self.batch, capacity, *width), fill, dtype=dtype)
            if old is not None:
                array[:, :old.shape[1]] = old
            return array

        first = self.capacity == 0
        a = (self.num_actions,)
        self.states = grown(None if first else self.states, (self.state_length,), np.int64, 0)
        self.children = grown(None if first else self.children, a, np.int64, -1)
        self.logits = grown(None if first else self.logits, a, np.float32, 0)
        self.legal = grown(None if first else self.legal, a, np.bool_, False)
        self.edge_n = grown(None if first else self.edge_n, a, np.int64, 0)
        self.edge_w = grown(None if first else self.edge_w, a, np.float64, 0)
        self.value0 = grown(None if first else self.value0, (), np.float64, 0)
        self.node_n = grown(None if first else self.node_n, (), np.int64, 0)
        self.to_move = grown(None if first else self.to_move, (), np.int64, TERMINAL)
        self.capacity = capacity

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
        if roots.ndim != 2 or not 1 <= n <= self.batch or roots.shape[1] != self.state_length:
            raise ValueError(f"roots must have shape (1..{self.batch}, {self.state_length}), got {roots.shape}")
        if not input_fits(self.game, roots, self.inputs.shape[1]):
            raise ValueError(f"network inputs of shape {self.input_shape} do not fit these positions (another game, "
                             "board size, or a pile beyond the largest)")
        longest = int(remaining_moves(self.game, roots).max()) + 1  # a path never outlasts the game
        if longest > self.path_nodes.shape[1]:
            self.path_nodes = np.zeros((len(self.pending), longest), dtype=np.int64)
            self.path_actions = np.zeros((len(self.pending), longest), dtype=np.int64)
        self.gumbel[:n] = 0.0 if gumbel is None else gumbel
        table = considered_visits(self.max_considered, simulations)
        plant(self.game, roots, self.states[:n], self.children, self.edge_n, self.edge_w, self.node_n, self.to_move,
              self.used, self.inputs, self.pending, self.depth)
        self._evaluate_and_expand(evaluate, self._games[:n])
        consider(self.logits[:n], self.legal, self.gumbel, self.max_considered, self.considered, self.n_considered)
        done = 0
        while done < simulations and (deadline is None or done == 0 or time.perf_counter() < deadline):
            sweep = self._sweep(table, done) if n == 1 and sweeps else None
            needed = int(self.used[:n].max()) + (1 if sweep is None else len(sweep))  # each row adds a node at most
            if needed > self.capacity:
                self._allocate(max(2 * self.capacity, needed))
            if sweep is None:
                descend(self.game, self.states[:n], self.children, self.logits, self.legal, self.edge_n,
                        self.edge_w, self.value0, self.node_n, self.to_move, self.used, self.gumbel, self.considered,
                        self.n_considered, table, self.path_nodes, self.path_actions, self.depth, self.pending,
                        self.inputs, self._sigma, self._policy)
                self._evaluate_and_expand(evaluate, self._games[:n])
                done += 1
            else:
                descend_sweep(self.game, sweep, self.states[:1], self.children, self.logits, self.legal, self.edge_n,
                              self.edge_w, self.value0, self.node_n, self.to_move, self.used, self.gumbel,
                              self.considered, self.n_considered, table, self.path_nodes, self.path_actions,
                              self.depth, self.pending, self.inputs, self._sigma, self._policy)
                self._evaluate_and_expand(evaluate, self._game_zero[:len(sweep)])
                done += len(sweep)
        policy = np.zeros((n, self.num_actions))
        actions = np.zeros(n, dtype=np.int64)
        values = np.zeros(n)
        results(self.logits[:n], self.legal, self.edge_n, self.edge_w, self.value0, self.to_move,
                self.gumbel, self.considered, policy, actions, values, self._sigma)
        return SearchResult(actions, policy, values, done)

    def _sweep(self, table: np.ndarray, done: int) -> np.ndarray | None:
        """The root moves of a single game's next simulations when they may run at once,
        else None: the schedule's next ``k`` simulations ask for the same visits and
        exactly ``k`` considered moves have them, so one after the other the simulations
        visit each of those moves once, whatever order the root's rule picks them in. Each
        runs in its move's own subtree, untouched by the others', so together they leave
        the tree as one after the other would, and the network judges their leaves in one
        call."""
        if done >= table.shape[1]:
            return None
        row = table[self.n_considered[0]]
        wanted = row[done]
        k = 1
        while done + k < len(row) and row[done + k] == wanted:
            k += 1
        if k < 2:
            return None
        moves = np.flatnonzero(self.considered[0] & (self.edge_n[0, 0] == wanted))
        return moves if len(moves) == k else None

    def _evaluate_and_expand(self, evaluate: Evaluator, trees: np.ndarray) -> None:
        """The network judges the leaves waiting in rows ``0..len(trees)-1``, all at
        once; each row's leaf joins game ``trees[row]``'s tree."""
        rows = len(trees)
        waiting = np.flatnonzero(self.pending[:rows] >= 0)
        if len(waiting):
            logits, values = evaluate(self.inputs[waiting].reshape(len(waiting), *self.input_shape))
            self.net_logits[waiting] = logits
            self.net_values[waiting] = values
        expand(self.game, trees, self.states, self.logits, self.legal, self.value0, self.to_move, self.net_logits,
               self.net_values, self.pending, self.path_nodes, self.path_actions, self.depth, self.edge_n,
               self.edge_w, self.node_n, self._moves)
