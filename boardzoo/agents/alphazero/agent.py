"""A player from a self-trained policy-value network and Gumbel AlphaZero's search.

    make("alphazero")                                   # the shipped network, 800 simulations
    make("alphazero:iterations=0")                      # the network's own move, no search
    make("alphazero:time=0.1")                          # as many simulations as 0.1 s allows
    make("alphazero:weights=runs/c4/weights/latest.npz,iterations=200")

``weights`` is a network file written by ``boardzoo train`` (none: the network shipped
with boardzoo for the game played: Connect Four 6x7, Nim with k=3, Cantris 8x4). The
network is evaluated with NumPy; the search (:mod:`boardzoo.fast.gumbel`, the ``fast``
extra) runs ``iterations`` simulations by sequential halving without noise; with
``time``, as many as the agent's measured speed fits into the time (``iterations`` then
caps them), the time itself a hard stop. The
games it plays: perfect information without chance (Connect Four, Nim without the coin,
Cantris), each as its network was trained (board size, Nim's k and largest pile).
``mirror=true`` asks the network about each position and its mirror image and plays
by the mean of the two answers (Connect Four and Cantris, whose actions are the board's
columns): each simulation costs two network passes, and the agent errs less at the same
number of simulations. ``sample_moves=N`` draws the agent's first N moves of each game
from its improved policy (the network's own with ``iterations=0``) with its seeded
generator, instead of playing the best: otherwise the agent plays the same game every
time against a player that does the same (alpha-beta), and four hundred games are two.
``stats`` holds the simulations, the root's value and improved policy; ``tree_json``
gives the tree to the browser's tree view.
"""

from __future__ import annotations

import heapq
import time
from typing import Any

import numpy as np

from boardzoo.agents.alphazero.evaluator import (
    SHIPPED,
    check_position,
    load_network,
    network_input,
    one_blas_thread,
    shipped_path,
)
from boardzoo.agents.alphazero.network import MIRRORED, MirrorAveraged, Network, move_probabilities
from boardzoo.agents.base import MAX_SECONDS, Agent
from boardzoo.errors import install_hint
from boardzoo.fast import available
from boardzoo.fast.cached_evaluator import CachedEvaluator, Evaluator
from boardzoo.games.model import GameState
from boardzoo.values import seconds, whole

#: The most simulations a move may ask for (a tree of as many nodes, about 350 bytes each).
MAX_ITERATIONS = 200_000
#: The share of a move's time its planned simulations may fill (the rest is margin: the
#: deadline stops a search that runs slower than the last one).
TIME_SHARE = 0.9
#: Simulations of the short search that measures the speed before a first timed move.
SPEED_PROBE = 8
#: Positions whose network answers a player remembers (about 100 bytes each): a move's
#: search starts where the last one looked.
REMEMBERED = 1 << 16
#: Positions searched together by act_batch (their trees together: about 70 MB at 800
#: simulations each).
BATCH = 256


class AlphaZeroAgent(Agent):
    name = "alphazero"
    summary = ("a self-trained policy-value network (boardzoo train; shipped for Connect Four, Nim, Cantris) "
               "searched by Gumbel AlphaZero's sequential halving; iterations=0 plays the network's own move")
    games = frozenset(SHIPPED)
    default_notes = {"weights": "the network shipped for the game", "iterations": "800; with time=, up to 200,000"}

    def __init__(self, seed: int | None = None, weights: str | None = None, iterations: int | None = None,
                 time: float | None = None, considered: int = 16, sample_moves: int = 0, mirror: bool = False):
        super().__init__(seed)
        if not available():
            raise ValueError(f"alphazero: its search is compiled; install the fast extra: {install_hint('fast')}")
        self.iterations = 800 if iterations is None and time is None else iterations
        if self.iterations is not None:
            whole("alphazero: iterations", self.iterations, 0, MAX_ITERATIONS)
        self.time_budget = None if time is None else seconds("alphazero: time", time, MAX_SECONDS)
        self.considered = whole("alphazero: considered", considered, 1, 4096)
        self.sample_moves = whole("alphazero: sample_moves", sample_moves, 0, 10_000)
        if not isinstance(mirror, bool):
            raise ValueError(f"alphazero: mirror must be true or false, got {mirror!r}")
        self.mirror = mirror
        self._moves_played = 0
        self.weights = weights
        if weights is not None:
            self.network = load_network(weights)
        self._search: Any = None
        self._shape: tuple | None = None
        self._last: tuple[Any, GameState] | None = None
        self._speed: float | None = None  # simulations a second, as the last timed search ran
        self._remembered: tuple[Network, CachedEvaluator] | None = None
        #: The games the network was found to fit (check_position), each checked once, not each move.
        self._fitted: set = set()

    def network_for(self, model: GameState) -> Network:
        if self.weights is None:
            return load_network(shipped_path(model.game_name))
        return self.network

    def check(self, model: GameState) -> None:
        super().check(model)
        check_position("alphazero", self.network_for(model), model)
        if self.mirror and model.game_name not in MIRRORED:
            raise ValueError(f"alphazero: mirror=true is for games whose actions are the board's columns "
                             f"({', '.join(MIRRORED)}), not {model.game_name}")

    def warm_up(self, model: GameState) -> None:
        if model.current_player() >= 0:
            self._decide(model, time.perf_counter() + 0.001)
            self._speed = None  # measured while compiling: the first timed move measures again

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._moves_played = 0

    def act(self, observation: dict, model: GameState) -> int:
        if model.current_player() < 0:
            raise ValueError("alphazero: asked to move in a finished game or at a chance event")
        start = time.perf_counter()
        deadline = None if self.time_budget is None else start + self.time_budget
        action = self._decide(model, deadline, sample=self._moves_played < self.sample_moves)
        self._moves_played += 1
        self.stats["seconds"] = time.perf_counter() - start
        return action

    def act_batch(self, positions: list[tuple[dict, GameState]]) -> list[int]:
        """The moves for many positions of one game, searched together in batches of
        ``BATCH``: the network is asked for every position's leaf in one call. Each move
        is the one :meth:`act` would play with this agent's iterations (the best, never a
        sampled one); a time budget is per move, so an agent with ``time=`` refuses. The
        mistake-rate benchmarks judge thousands of positions so."""
        if self.time_budget is not None:
            raise ValueError("alphazero: act_batch runs a number of simulations; time= budgets one move")
        moves: list[int] = []
        with one_blas_thread():
            for start in range(0, len(positions), BATCH):
                moves += self._decide_batch([model for _, model in positions[start:start + BATCH]])
        return moves

    def _decide_batch(self, models: list[GameState]) -> list[int]:
        from boardzoo.fast.gumbel import BatchedGumbelSearch
        network = self.network_for(models[0])
        if self.iterations == 0:
            logits, _ = self._answers(network)(np.concatenate([network_input("alphazero", network, m, self._fitted)
                                                               for m in models]))
            return [int(max(m.legal_actions(), key=lambda a: row[a])) for m, row in zip(models, logits)]
        states = np.stack([check_position("alphazero", network, model, self._fitted) for model in models])
        search = BatchedGumbelSearch(models[0].game_name, network.num_actions, network.input_shape,
                                     states.shape[1], len(models), max_considered=self.considered, capacity=256)
        assert self.iterations is not None  # without time= the agent always has a number
        result = search.run(states, self._answers(network), self.iterations)
        return [int(action) for action in result.actions]

    def _decide(self, model: GameState, deadline: float | None, sample: bool = False) -> int:
        with one_blas_thread():
            return self._decide_in_one_thread(model, deadline, sample)

    def _decide_in_one_thread(self, model: GameState, deadline: float | None, sample: bool) -> int:
        network = self.network_for(model)
        state = check_position("alphazero", network, model, self._fitted)
        if self.iterations == 0:
            return self._network_move(network, model, sample)
        search = self._search_for(network, model.game_name, len(state))
        evaluate = self._evaluator_for(network)
        budget = self.iterations if deadline is None else self._timed_budget(search, state, evaluate, deadline)
        assert budget is not None  # without time= the agent always has a number
        start = time.perf_counter()
        result = search.run(state[None, :], evaluate, budget, deadline=deadline)
        if deadline is not None:
            self._speed = result.simulations / max(time.perf_counter() - start, 1e-6)
        self._last = (search, model)
        action = self._drawn(result.policy[0]) if sample else int(result.actions[0])
        self.stats = {"iterations": result.simulations, "planned": budget, "value": float(result.values[0]),
                      "action": action,
                      "policy": [round(float(p), 4) for p in result.policy[0]], "size": int(search.tree.used[0]),
                      "children": self._root_children(search, model)}
        return action

    def _answers(self, network: Network) -> Evaluator:
        """What the search asks: the network, or with ``mirror`` its mirror-averaged answers."""
        return MirrorAveraged(network) if self.mirror else network

    def _evaluator_for(self, network: Network) -> CachedEvaluator:
        """:meth:`_answers` behind a memory kept from move to move (the answers are the
        same; only the time they take changes)."""
        if self._remembered is None or self._remembered[0] is not network:
            self._remembered = (network, CachedEvaluator(self._answers(network), REMEMBERED))
        return self._remembered[1]

    def _timed_budget(self, search: Any, state: np.ndarray, evaluate: CachedEvaluator, deadline: float) -> int:
        """Simulations for a timed move: sequential halving needs its number in advance
        (searching until the clock runs out, with no plan, played far worse at equal
        time), so the time left is filled at the speed the last timed search ran; before
        the first, a short search measures it."""
        if self._speed is None:
            start = time.perf_counter()
            search.run(state[None, :], evaluate, SPEED_PROBE)
            self._speed = SPEED_PROBE / max(time.perf_counter() - start, 1e-6)
        planned = int(self._speed * (deadline - time.perf_counter()) * TIME_SHARE)
        return max(1, min(MAX_ITERATIONS if self.iterations is None else self.iterations, planned))

    @staticmethod
    def _root_children(search: Any, model: GameState) -> list[dict[str, Any]]:
        """The root's moves as the browser's table of children shows them: visits, the
        mover's mean value and its share of the way from -1 to 1, the network's prior."""
        legal = search.tree.legal[0, 0]
        priors = move_probabilities(search.tree.logits[0, 0], legal)
        sign = 1.0 if search.tree.to_move[0, 0] == 0 else -1.0
        rows = []
        for action, prior in zip(np.flatnonzero(legal), priors):
            visits = int(search.tree.edge_n[0, 0, action])
            value = sign * search.tree.edge_w[0, 0, action] / visits if visits else 0.0
            rows.append({"label": model.action_label(int(action)), "visits": visits, "value": round(value, 4),
                         "win_ratio": round((value + 1) / 2, 4), "prior": round(float(prior), 4), "proven": None})
        return sorted(rows, key=lambda row: -row["visits"])

    def _drawn(self, policy: np.ndarray) -> int:
        """A move drawn from ``policy`` by the agent's seeded generator."""
        return self.rng.choices(range(len(policy)), weights=policy.tolist())[0]

    def _network_move(self, network: Network, model: GameState, sample: bool) -> int:
        logits, values = self._answers(network)(network_input("alphazero", network, model, self._fitted))
        legal = model.legal_actions()
        if sample:
            policy = np.zeros(len(logits[0]))
            policy[legal] = move_probabilities(logits[0], legal)
            action = self._drawn(policy)
        else:
            action = int(max(legal, key=lambda a: logits[0, a]))
        self._last = None
        self.stats = {"iterations": 0, "value": float(values[0]), "action": action}
        return action

    def _search_for(self, network: Network, game: str, state_length: int):
        from boardzoo.fast.gumbel import BatchedGumbelSearch
        key = (game, network.input_shape, network.num_actions, state_length)
        if self._shape != key:
            self._search = BatchedGumbelSearch(game, network.num_actions, network.input_shape, state_length, 1,
                                               max_considered=self.considered, capacity=256)
            self._shape = key
        return self._search

    def tree_json(self, max_nodes: int = 300) -> dict | None:
        """The last search tree's most visited ``max_nodes`` nodes as nested dicts, in the
        form of the MCTS agent's (``value`` the mover's mean, ``wins`` its share of the
        way from -1 to 1), or None before a search."""
        if self._last is None:
            return None
        search, model = self._last
        tree = search.tree
        label = model.action_label
        sign = {0: 1.0, 1: -1.0}

        def view(node: int, parent: int, action: int) -> dict:
            mover = int(tree.to_move[0, parent]) if parent >= 0 else -1
            visits = int(tree.node_n[0, node])
            value = sign.get(mover, 0.0) * (tree.edge_w[0, parent, action] / max(tree.edge_n[0, parent, action], 1)
                                            if parent >= 0 else 0.0)
            return {"label": "root" if parent < 0 else label(action), "mover": mover, "visits": visits,
                    "value": round(float(value), 4), "wins": round(float(value + 1) / 2, 4), "proven": False,
                    "chosen": False, "children": [], "hidden": int((tree.children[0, node] >= 0).sum())}

        top = view(0, -1, -1)
        top["chosen"] = True
        frontier: list[tuple[int, int, int, int, dict, bool]] = []
        played = self.stats.get("action")

        def offer(node: int, shown: dict, on_path: bool, pick: int | None) -> None:
            actions = [a for a in range(search.num_actions) if tree.children[0, node, a] >= 0]
            if pick is None and actions:
                pick = max(actions, key=lambda a: tree.edge_n[0, node, a])
            for a in actions:
                child = int(tree.children[0, node, a])
                heapq.heappush(frontier, (-int(tree.node_n[0, child]), child, node, a, shown, on_path and a == pick))

        offer(0, top, True, played)
        count = 1
        while frontier and count < max_nodes:
            _, child, parent, action, shown, chosen = heapq.heappop(frontier)
            node = view(child, parent, action)
            node["chosen"] = chosen
            shown["children"].append(node)
            shown["hidden"] -= 1
            count += 1
            offer(child, node, chosen, None)
        return top
