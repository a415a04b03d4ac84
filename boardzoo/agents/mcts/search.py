"""The search loop: iterations over the parts, and nothing else.

One iteration: a state from the root sampling; *selection* down the tree while nodes
are expanded (at a chance node an outcome drawn by its probability); *expansion* by the
expansion part; *leaf evaluation* of the new leaf (a finished game scores itself);
*backup* of the returns along the path, and proofs when the solver is on.
"""

from __future__ import annotations

import random
import time
from typing import cast

from boardzoo.agents.mcts.backup import Backup, Proofs
from boardzoo.agents.mcts.evaluation import LeafEvaluation
from boardzoo.agents.mcts.expansion import AllChildren, OneChildPerIteration
from boardzoo.agents.mcts.sampling import DeterminizedRoot, OpenChanceRoot, PositionRoot
from boardzoo.agents.mcts.selection import Select
from boardzoo.agents.mcts.tree import Node
from boardzoo.games.model import CHANCE, TERMINAL, GameState


class Search:
    """A tree search composed of its parts; :meth:`run` grows the tree under ``root``."""

    def __init__(self, sampling: PositionRoot | DeterminizedRoot, select: Select,
                 expansion: OneChildPerIteration | AllChildren, leaf: LeafEvaluation, backup: Backup,
                 proofs: Proofs | None, rng: random.Random):
        self.sampling, self.select, self.expansion = sampling, select, expansion
        #: A selection part may choose differently at the root (PUCT's forced playouts).
        self.select_at_root: Select = getattr(select, "at_root", select)
        self.leaf, self.backup, self.proofs, self.rng = leaf, backup, proofs, rng
        #: Nodes created so far (the caller sets the count of a reused tree).
        self.size = 0

    def run(self, root: Node, limit: float, deadline: float | None) -> list[int]:
        """Iterate until ``limit`` iterations or the ``deadline`` (or a proven root);
        returns each iteration's path length."""
        clock = time.perf_counter
        searching = clock()
        depths: list[int] = []
        iterate, proofs = self.iterate, self.proofs
        done = 0
        while done < limit:
            if deadline is not None and done:
                # Stop when one more iteration (at 1.5x the mean pace so far, for the
                # spread of iteration times) would overrun the budget: the mean decision
                # time then stays within it, not just near it.
                now = clock()
                if now + 1.5 * (now - searching) / done > deadline:
                    break
            depths.append(iterate(root))
            done += 1
            if proofs is not None and root.proven is not None:
                break
        return depths

    def iterate(self, root: Node) -> int:
        sampling, expansion, select, proofs, rng = self.sampling, self.expansion, self.select, self.proofs, self.rng
        state = sampling.sample()
        node, path = root, [root]
        threshold = expansion.threshold
        # Perfect information (the common case) asks the node itself, without a call;
        # a tree shared by determinizations, or by runs of chance outcomes, asks the
        # sampling part what this sample allows.
        determinized = cast("DeterminizedRoot | OpenChanceRoot", sampling) if sampling.shared else None
        open_chance = sampling.open_chance
        while True:
            # The sample decides who moves here: under determinization one sample's game
            # may be over where another's goes on.
            to_move = state.current_player()
            node.to_move = to_move
            if to_move < 0:
                if to_move == TERMINAL:
                    break
                if open_chance:  # drawn and played, kept in no node
                    state.apply(state.sample_chance(rng))
                    continue
                node = self._chance_child(node, state)
                path.append(node)
                continue
            if node.children is None:
                if node.visits < threshold:
                    break  # a leaf below the expansion threshold: evaluate it as it is
                self.size += expansion.open(node, state, to_move)
            if determinized is not None:
                action = determinized.new_action(node, state, rng)
            else:
                untried = node.untried
                action = untried.pop() if untried else None
            if action is not None:  # one new child per iteration
                children = node.children
                child = Node(action, to_move, 1.0 / (len(children) + 1))  # type: ignore[arg-type]
                children.append(child)  # type: ignore[union-attr]
                self.size += 1
                state.apply(action)
                path.append(child)
                node = child
                break
            children = (node.children or []) if determinized is None else determinized.candidates(node, state)
            if proofs is not None:
                children = proofs.candidates(node, children)
            node = (select if node is not root else self.select_at_root)(children, node.visits)
            state.apply(node.action)
            path.append(node)
            if node.visits == 0:
                break  # a child created by a full expansion: evaluate it
        if state.is_terminal():
            node.to_move = TERMINAL
            returns = state.returns()
            if proofs is not None:
                proofs.prove(path, returns[0])
        else:
            node.to_move = state.current_player()
            returns = self.leaf(state)
        self.backup(path, returns)
        return len(path) - 1

    def open_root(self, root: Node, state: GameState) -> None:
        """Expand the root at once, whatever the threshold: a decision needs children."""
        player = state.current_player()
        root.to_move = player
        if root.children is None and player >= 0:
            self.size += self.expansion.open(root, state, player)

    def _chance_child(self, node: Node, state: GameState) -> Node:
        if node.children is None:
            node.children = []
            node.untried = [outcome for outcome, _ in state.chance_outcomes()]
        outcome = state.sample_chance(self.rng)
        state.apply(outcome)
        for child in node.children:
            if child.action == outcome:
                return child
        child = Node(outcome, CHANCE)
        node.children.append(child)
        assert isinstance(node.untried, list)  # listed with the node's first outcome
        node.untried.remove(outcome)
        self.size += 1
        return child
