"""Monte Carlo tree search on the search model, with every variant of the source documents.

    make("mcts:iterations=2000")                        # UCB1, c = sqrt(2), random roll-outs
    make("mcts:time=0.01,reuse=true")                   # 10 ms a move, keep the played subtree
    make("mcts:policy=ucbv,c=1.4,zeta=0.5")             # UCB-V (seed 003)
    make("mcts:policy=ucb-minimal,c1=11,c2=1")          # UCB-Minimal (seed 003)
    make("mcts:q=win-lose,c=1.414,final=value,c_final=0,iterations=500")   # seed 001
    make("mcts:nthr=5,max_rollout=200")                 # seed 004's expansion threshold
    make("mcts:rollout=strategic")                      # a game's own roll-out policy
    make("mcts:solver=true")                            # MCTS-Solver
    make("mcts:belief=behaviour,rollout=forward")       # Geister: determinized MCTS

Iteration: *selection* from the root while the node is fully expanded (chance nodes:
an outcome drawn by its probability), *expansion* (``nthr=0``: one untried move per
iteration, seed 000; ``nthr=N``: a leaf gets all its children once it has N visits,
seed 004, and is evaluated by a roll-out until then), *simulation* (a roll-out to the
end, or ``max_rollout`` moves then a draw), *back-propagation* of the payoff to every
node on the path, each from the point of view of the player who chose the move into it.

Payoffs: ``q=win-lose`` gives +1/0/-1 for a win/draw/loss (values in [-1, 1], the
default); ``q=wins`` gives 1 for a win and 0 otherwise (seed 001's ``q = win``).

Selection (children not yet visited are tried first, in a random order; no infinities):
    ``ucb1``         mean + c * sqrt(ln N / n)
    ``ucbv``         mean + sqrt(2 var eps / n) + c * 3 eps / n, eps = zeta * ln N
    ``ucb-minimal``  mean + c1 / n ** c2
Seed 001 writes UCB1 as ``q/n + c*sqrt(2 ln N / n)``: its c = 1.0 is our c = 1.414.

Final move: ``final=visits`` (most visited child) or ``final=value`` (the best UCB1 score
with its own exploration constant ``c_final``, 0 = best mean). Budgets: ``iterations``
and/or ``time`` (seconds per move), whichever ends first.

Hidden information (a model with ``determinize``, e.g. a Geister seat's view): every
iteration starts from a full state sampled from the model under ``belief`` (the game's
named beliefs; Geister: ``uniform``, ``nearest-blue``, ``behaviour``), and the tree is
one tree over moves shared by all samples (single-observer information-set MCTS): at each
node only the children legal in this iteration's sample compete, and a move legal only in
some samples is added when a sample first allows it. Roll-outs, budgets, ``nthr``,
``final`` and ``reuse`` work as usual; the solver needs perfect information.

After each decision ``agent.stats`` holds the search statistics, and ``tree_text()`` /
``tree_dot()`` show the tree.
"""

from __future__ import annotations

import gc
import math
import time
from statistics import median
from typing import Callable

from boardzoo.agents.base import Agent, check_budget
from boardzoo.games import check_known
from boardzoo.games.model import CHANCE, TERMINAL, GameState, play_out

POLICIES = ("ucb1", "ucbv", "ucb-minimal")
PAYOFFS = ("win-lose", "wins")
FINALS = ("visits", "value")
#: How many events after our own move a reused tree is searched for the new position.
REUSE_DEPTH = 4


class Node:
    """One node of the tree. ``mover`` chose the move into it (CHANCE for an outcome);
    ``total``/``sum_sq`` accumulate the mover's payoffs, ``wins`` the mover's wins.

    Nodes hold no parent pointer: an iteration keeps its root-to-leaf path instead, so a
    tree has no reference cycles and is freed the moment it is dropped."""

    __slots__ = ("action", "mover", "to_move", "children", "untried",
                 "visits", "total", "sum_sq", "wins", "proven", "proof_plies")

    def __init__(self, action: int, mover: int, to_move: int):
        self.action = action
        self.mover = mover
        self.to_move = to_move  # player to move here, CHANCE or TERMINAL
        self.children: list[Node] | None = None  # None until expanded
        self.untried: list[int] | None = None
        self.visits = 0
        self.total = 0.0
        self.sum_sq = 0.0
        self.wins = 0
        self.proven: float | None = None  # exact value for player 0, once proven (solver)
        self.proof_plies = 0

    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0

    def win_ratio(self) -> float:
        return self.wins / self.visits if self.visits else 0.0


# --- selection policies: (children, parent visits) -> child --------------------------------
def ucb1(c: float) -> Callable[[list[Node], int], Node]:
    sqrt = math.sqrt

    def select(children: list[Node], parent_visits: int) -> Node:
        log_n = math.log(parent_visits or 1)
        best, best_score = children[0], -math.inf
        for child in children:
            n = child.visits
            if n == 0:
                return child
            score = child.total / n + c * sqrt(log_n / n)
            if score > best_score:
                best, best_score = child, score
        return best

    return select


def ucbv(c: float, zeta: float) -> Callable[[list[Node], int], Node]:
    def select(children: list[Node], parent_visits: int) -> Node:
        eps = zeta * math.log(parent_visits or 1)
        best, best_score = children[0], -math.inf
        for child in children:
            n = child.visits
            if n == 0:
                return child
            mean = child.total / n
            variance = max(child.sum_sq / n - mean * mean, 0.0)
            score = mean + math.sqrt(2 * variance * eps / n) + c * 3 * eps / n
            if score > best_score:
                best, best_score = child, score
        return best

    return select


def ucb_minimal(c1: float, c2: float) -> Callable[[list[Node], int], Node]:
    def select(children: list[Node], parent_visits: int) -> Node:
        best, best_score = children[0], -math.inf
        for child in children:
            n = child.visits
            if n == 0:
                return child
            score = child.total / n + c1 / n**c2
            if score > best_score:
                best, best_score = child, score
        return best

    return select


class MCTSAgent(Agent):
    name = "mcts"
    summary = ("Monte Carlo tree search: ucb1/ucbv/ucb-minimal, q=win-lose|wins, final=visits|value, "
               "iterations/time budgets, reuse, nthr expansion, roll-out policies, chance nodes, solver")

    def __init__(self, seed: int | None = None, iterations: int | None = None, time: float | None = None,
                 policy: str = "ucb1", c: float = math.sqrt(2), zeta: float = 1.0, c1: float = 1.0,
                 c2: float = 1.0, q: str = "win-lose", final: str = "visits", c_final: float = 0.0,
                 reuse: bool = False, nthr: int = 0, rollout: str = "random", max_rollout: int = 0,
                 solver: bool = False, belief: str | None = None):
        super().__init__(seed)
        if iterations is None and time is None:
            iterations = 1000
        check_budget("mcts", "iterations", iterations, time)
        for label, value, allowed in (("policy", policy, POLICIES), ("q", q, PAYOFFS), ("final", final, FINALS)):
            if value not in allowed:
                raise ValueError(f"mcts: {label} must be one of {', '.join(allowed)}, got {value!r}")
        for label, value in (("c", c), ("zeta", zeta), ("c1", c1), ("c2", c2), ("c_final", c_final)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise ValueError(f"mcts: {label} must be a finite number >= 0, got {value!r}")
        check_game_options("mcts", rollout, belief)
        if not isinstance(nthr, int) or nthr < 0:
            raise ValueError(f"mcts: nthr must be an int >= 0, got {nthr!r}")
        if not isinstance(max_rollout, int) or max_rollout < 0:
            raise ValueError(f"mcts: max_rollout must be an int >= 0 (0 = no limit), got {max_rollout!r}")
        self.iterations, self.time_budget = iterations, time
        self.policy_name, self.q, self.final, self.c_final = policy, q, final, c_final
        self.reuse, self.nthr, self.rollout_name, self.max_rollout = reuse, nthr, rollout, max_rollout
        self.solver, self.belief = solver, belief
        self._sample: Callable[[], GameState] | None = None  # set per decision for hidden information
        if policy == "ucb1":
            self.select = ucb1(c)
        elif policy == "ucbv":
            self.select = ucbv(c, zeta)
        else:
            self.select = ucb_minimal(c1, c2)
        self.root: Node | None = None
        self._tree_size = 0
        self._wrap_up = 0.0
        self.root_state: GameState | None = None
        self._kept: tuple[Node, GameState] | None = None

    def check(self, model: GameState) -> None:
        check_model_options("mcts", model, self.rollout_name, self.belief)
        self._check_solver(model)

    def _check_solver(self, model: GameState) -> None:
        if self.solver and getattr(model, "hidden_information", False):
            raise ValueError("mcts: solver=true needs perfect information; this game hides information")

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._kept = None
        self.root = self.root_state = None

    # --- one decision ----------------------------------------------------------------------
    def act(self, observation: dict, model: GameState) -> int:
        start = time.perf_counter()
        root = self._reused_root(model) if self.reuse else None
        reused = root is not None and root.visits > 0
        if root is None:
            root = Node(-1, -1, model.current_player())
            self._tree_size = 1
        elif not reused:
            self._tree_size = 1
        else:
            self._tree_size = tree_size(root)
        if root.to_move < 0:
            raise ValueError("mcts: asked to move in a finished game or at a chance event")
        self.root, self.root_state = root, model
        self._sample = self._sampler(model)
        rollout = self._rollout_function(model)
        self._expand(root, model if self._sample is None else self._sample())
        # The work after the search (final choice, statistics) is charged to the budget too,
        # at what it cost last time.
        deadline = None if self.time_budget is None else start + self.time_budget - self._wrap_up
        limit = self.iterations if self.iterations is not None else math.inf
        depths: list[int] = []
        clock = time.perf_counter
        # The tree has no reference cycles (see Node): the cyclic collector has nothing
        # to find in it, and its full passes over a large tree would stall the search.
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._search(root, model, rollout, limit, deadline, depths)
        finally:
            if collecting:
                gc.enable()
        done = len(depths)
        searched = clock()
        best = self._final_child(root)
        if self.reuse:
            after = model.clone() if self._sample is None else self._sample()
            after.apply(best.action)
            self._kept = (best, after)
        self.stats = self._statistics(root, best, done, clock() - start, depths, reused)
        self._wrap_up = clock() - searched
        return best.action

    def _search(self, root: Node, model: GameState, rollout, limit, deadline, depths: list[int]) -> None:
        """Iterate until the budget is spent; each iteration's path length goes to ``depths``."""
        clock = time.perf_counter
        searching = clock()
        done = 0
        while done < limit:
            if deadline is not None and done:
                # Stop when one more iteration (at 1.5x the mean pace so far, for the
                # spread of iteration times) would overrun the budget: the mean decision
                # time then stays within it, not just near it.
                now = clock()
                if now + 1.5 * (now - searching) / done > deadline:
                    break
            depths.append(self._iterate(root, model, rollout))
            done += 1
            if self.solver and root.proven is not None:
                break

    def _sampler(self, model: GameState) -> Callable[[], GameState] | None:
        self._check_solver(model)
        return sampler(model, self.rng, self.belief)

    def _iterate(self, root: Node, root_state: GameState, rollout) -> int:
        sample = self._sample
        node, path = root, [root]
        state = root_state.clone() if sample is None else sample()
        rng, select, solver = self.rng, self.select, self.solver
        while True:
            # A sampled state decides for itself whether the game is over here.
            to_move = node.to_move if sample is None else state.current_player()
            if to_move == TERMINAL:
                break
            if to_move == CHANCE:
                if node.children is None:
                    node.children = []
                    node.untried = [outcome for outcome, _ in state.chance_outcomes()]
                outcome = state.sample_chance(rng)
                state.apply(outcome)
                node = self._chance_child(node, outcome, state)
                path.append(node)
                continue
            if node.children is None:
                if node.visits < self.nthr:
                    break  # a leaf below the expansion threshold: evaluate it as it is
                self._expand(node, state)
            if sample is None:
                untried, children = node.untried, node.children
                action = untried.pop() if untried else None
            else:
                action, children = self._available(node, state)
            if action is not None:  # one new child per iteration
                state.apply(action)
                child = Node(action, to_move, state.current_player())
                node.children.append(child)
                self._tree_size += 1
                path.append(child)
                node = child
                break
            if solver:
                children = self._solver_candidates(node, children)
            node = select(children, node.visits)
            state.apply(node.action)
            path.append(node)
            if node.visits == 0:
                break  # a child created by a full expansion: evaluate it
        returns = state.returns() if state.is_terminal() else rollout(state)
        if solver and node.to_move == TERMINAL and node.proven is None:
            node.proven = returns[0]
            self._propagate_proof(path)
        self._backpropagate(path, returns)
        return len(path) - 1

    def _expand(self, node: Node, state: GameState) -> None:
        if node.children is not None or state.current_player() < 0:
            return
        actions = state.legal_actions()
        self.rng.shuffle(actions)
        node.children = []
        if self.nthr == 0:
            node.untried = actions
        else:
            for action in actions:
                child_state = state.clone()
                child_state.apply(action)
                node.children.append(Node(action, node.to_move, child_state.current_player()))
            node.untried = []
            self._tree_size += len(actions)

    def _available(self, node: Node, state: GameState) -> tuple[int | None, list[Node]]:
        """Under determinization: a random legal move of this sample that has no child yet
        (None when all have one), and the children whose moves this sample allows."""
        legal = state.legal_actions()
        have = {child.action: child for child in node.children}
        new = [action for action in legal if action not in have]
        if new:
            return new[int(self.rng.random() * len(new))], []
        return None, [have[action] for action in legal]

    def _chance_child(self, node: Node, outcome: int, state: GameState) -> Node:
        for child in node.children:
            if child.action == outcome:
                return child
        child = Node(outcome, CHANCE, state.current_player())
        node.children.append(child)
        node.untried.remove(outcome)
        self._tree_size += 1
        return child

    def _backpropagate(self, path: list[Node], returns) -> None:
        wins_only = self.q == "wins"
        for node in path:
            node.visits += 1
            mover = node.mover
            if mover >= 0:
                result = returns[mover]
                payoff = (1.0 if result > 0 else 0.0) if wins_only else result
                node.total += payoff
                node.sum_sq += payoff * payoff
                if result > 0:
                    node.wins += 1

    # --- roll-outs ---------------------------------------------------------------------------
    def _rollout_function(self, model: GameState) -> Callable[[GameState], tuple]:
        return rollout_function(model, self.rollout_name, self.rng, self.max_rollout)

    # --- MCTS-Solver ----------------------------------------------------------------------
    @staticmethod
    def _value_for(player: int, value0: float) -> float:
        return value0 if player == 0 else -value0

    def _solver_candidates(self, node: Node, children: list[Node]) -> list[Node]:
        player = node.to_move
        open_children = [c for c in children if c.proven is None or self._value_for(player, c.proven) > -1]
        return open_children or children

    def _propagate_proof(self, path: list[Node]) -> None:
        """After the leaf of ``path`` was proven, prove what follows up the path."""
        for node in reversed(path[:-1]):
            if node.proven is not None:
                return
            children = node.children or []
            if node.to_move == CHANCE:  # proven only when every outcome is, all alike
                values = {c.proven for c in children}
                if node.untried or None in values or len(values) != 1:
                    return
                node.proven = values.pop()
                node.proof_plies = 1 + max(c.proof_plies for c in children)
            else:
                player = node.to_move
                winning = [c for c in children if c.proven is not None and self._value_for(player, c.proven) == 1]
                if winning:
                    fastest = min(winning, key=lambda c: c.proof_plies)
                    node.proven, node.proof_plies = fastest.proven, 1 + fastest.proof_plies
                elif node.untried or any(c.proven is None for c in children) or not children:
                    return
                else:
                    best = max(children, key=lambda c: (self._value_for(player, c.proven), c.proof_plies))
                    node.proven, node.proof_plies = best.proven, 1 + best.proof_plies

    # --- the move to play -------------------------------------------------------------------
    def _final_child(self, root: Node) -> Node:
        children = [c for c in root.children if c.visits > 0] or root.children
        player = root.to_move
        if self.solver:
            winning = [c for c in children if c.proven is not None and self._value_for(player, c.proven) == 1]
            if winning:
                return min(winning, key=lambda c: c.proof_plies)
            children = self._solver_candidates(root, children)
        if self.final == "visits":
            return max(children, key=lambda c: (c.visits, c.mean()))
        log_n = math.log(max(root.visits, 1))
        return max(children, key=lambda c: c.mean() + self.c_final * math.sqrt(log_n / max(c.visits, 1)))

    # --- tree reuse -----------------------------------------------------------------------
    def _reused_root(self, model: GameState) -> Node | None:
        if self._kept is None:
            return None
        node, state = self._kept
        self._kept = None
        try:
            target = model.key()
        except NotImplementedError:
            return None
        # Hidden information: the kept state is one sample; compare what the seat knows.
        if getattr(model, "hidden_information", False):
            seat = model.current_player()
            key = lambda s: s.view_key(seat)  # noqa: E731
        else:
            key = lambda s: s.key()  # noqa: E731
        frontier = [(node, state)]
        for _ in range(REUSE_DEPTH + 1):
            following = []
            for candidate, candidate_state in frontier:
                if key(candidate_state) == target and candidate.to_move >= 0:
                    return candidate
                if candidate_state.is_terminal():
                    continue  # this sample ended here (another sample's game may go on)
                for child in candidate.children or []:
                    if candidate_state.current_player() >= 0 and not candidate_state.is_legal(child.action):
                        continue  # a move only other samples allow
                    child_state = candidate_state.clone()
                    child_state.apply(child.action)
                    following.append((child, child_state))
            frontier = following
        return None

    # --- statistics and views -----------------------------------------------------------------
    def _statistics(self, root: Node, best: Node, iterations: int, seconds: float,
                    depths: list[int], reused: bool) -> dict:
        label = self.root_state.action_label
        return {
            "iterations": iterations,
            "seconds": seconds,
            "tree_size": self._tree_size,
            "reused_tree": reused,
            "root_visits": root.visits,
            "action": best.action,
            "convincity": best.win_ratio(),
            "value": best.mean(),
            "path_mean": sum(depths) / len(depths) if depths else 0.0,
            "path_median": median(depths) if depths else 0,
            "path_max": max(depths) if depths else 0,
            "proven": None if root.proven is None else self._value_for(root.to_move, root.proven),
            "children": [
                {"action": c.action, "label": label(c.action), "visits": c.visits,
                 "value": c.mean(), "win_ratio": c.win_ratio(),
                 "proven": None if c.proven is None else self._value_for(root.to_move, c.proven)}
                for c in sorted(root.children, key=lambda c: -c.visits)
            ],
        }

    def tree_text(self, depth: int = 2, best: int = 3) -> str:
        """The last search tree as indented text: the ``best`` most visited children of
        every node, ``depth`` levels down."""
        if self.root is None:
            return "(no search yet)"
        lines = [f"root: {self.root.visits} visits, to move: {_who(self.root.to_move)}"]
        label = self.root_state.action_label

        def walk(node: Node, level: int) -> None:
            if level > depth or not node.children:
                return
            for child in sorted(node.children, key=lambda c: -c.visits)[:best]:
                lines.append(f"{'  ' * level}{_edge(child, label)}  {_describe(child)}")
                walk(child, level + 1)

        walk(self.root, 1)
        return "\n".join(lines)

    def tree_dot(self, depth: int = 3, min_visits: int = 1) -> str:
        """The last search tree in Graphviz DOT (nodes with at least ``min_visits`` visits)."""
        if self.root is None:
            return "digraph mcts {}"
        lines = ["digraph mcts {", '  node [shape=box, fontname="monospace"];',
                 f'  n0 [label="root\\n{self.root.visits} visits"];']
        label = self.root_state.action_label
        counter = [0]

        def walk(node: Node, name: str, level: int) -> None:
            if level >= depth:
                return
            for child in node.children or []:
                if child.visits < min_visits:
                    continue
                counter[0] += 1
                child_name = f"n{counter[0]}"
                lines.append(f'  {child_name} [label="{_describe(child)}"];')
                lines.append(f'  {name} -> {child_name} [label="{_edge(child, label)}", penwidth='
                             f'{1 + 4 * child.visits / max(node.visits, 1):.2f}];')
                walk(child, child_name, level + 1)

        walk(self.root, "n0", 0)
        lines.append("}")
        return "\n".join(lines)


def rollout_function(model: GameState, name: str, rng, limit: int = 0) -> Callable[[GameState], tuple]:
    """``f(state) -> returns``: a roll-out to the end by the game's policy ``name``
    (``random`` = uniform), scored as a draw after ``limit`` moves (0 = no limit)."""
    fast = getattr(model, "fast_rollouts", {}).get(name)
    if fast is not None:  # the game's own tight loop for this policy
        return lambda state: fast(state, rng, limit)
    if name == "random":
        if not limit:
            return lambda state: state.playout(rng)
        policy = None
    else:
        policies = getattr(model, "rollout_policies", {})
        if name not in policies:
            known = ", ".join(["random", *policies])
            raise ValueError(f"{model.game_name} has no roll-out policy {name!r}; policies are: {known}")
        policy = policies[name]
    return lambda state: play_out(state, rng, policy, limit)


def sampler(model: GameState, rng, belief: str) -> Callable[[], GameState] | None:
    """For a hidden-information model (one with ``determinize``), a function drawing one
    full state consistent with it under ``belief``; None for perfect information."""
    if not getattr(model, "hidden_information", False):
        return None
    belief = belief or "uniform"
    model.determinize(rng, belief)  # fails early and clearly on an unknown belief
    return lambda: model.determinize(rng, belief)


def check_game_options(agent: str, rollout: str, belief: str | None) -> None:
    """At construction: names that no game has are refused at once."""
    check_known(agent, "rollout", rollout)
    if belief is not None:
        check_known(agent, "belief", belief)


def check_model_options(agent: str, model: GameState, rollout: str, belief: str | None) -> None:
    """Before play: the roll-out policy and belief must be the game's own."""
    rollout_function(model, rollout, None)  # raises ValueError naming the game's policies
    if belief is not None and not getattr(model, "hidden_information", False):
        raise ValueError(f"{agent}: belief={belief} is for games with hidden information; "
                         f"{model.game_name} has none")


def _who(player: int) -> str:
    return {CHANCE: "chance", TERMINAL: "nobody (game over)"}.get(player, f"player_{player}")


def _edge(node: Node, label) -> str:
    return f"chance {node.action}" if node.mover == CHANCE else f"p{node.mover}:{label(node.action)}"


def _describe(node: Node) -> str:
    text = f"n={node.visits} mean={node.mean():+.3f} wins={node.win_ratio():.2f}"
    if node.proven is not None:
        text += f" proven={node.proven:+.0f}"
    return text


def tree_size(root: Node) -> int:
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        count += 1
        if node.children:
            stack.extend(node.children)
    return count
