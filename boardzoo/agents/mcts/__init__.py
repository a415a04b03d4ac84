"""Monte Carlo tree search as small parts composed by one loop.

    selection.py   SELECTION: ucb1, ucbv, ucb-minimal, puct (``policy=``)
    expansion.py   one child per iteration, or all children at ``nthr`` visits
    evaluation.py  leaf values: roll-outs, heuristic values, evaluator objects
    backup.py      payoffs (``q=``) and MCTS-Solver proofs (``solver=true``)
    final.py       FINAL: visits, value (``final=``)
    sampling.py    root sampling: the position, or determinizations under a belief
    search.py      the loop over the parts
    agent.py       the ``mcts`` agent: spec parameters in, a move out
    tree.py        nodes and views of the tree
"""

from boardzoo.agents.mcts.agent import MCTSAgent
from boardzoo.agents.mcts.evaluation import HeuristicValue, PriorEvaluator, ValueEvaluator, rollout_function
from boardzoo.agents.mcts.final import FINAL
from boardzoo.agents.mcts.sampling import check_game_options, check_model_options, sampler
from boardzoo.agents.mcts.search import Search
from boardzoo.agents.mcts.selection import SELECTION
from boardzoo.agents.mcts.tree import Node

__all__ = ["FINAL", "SELECTION", "HeuristicValue", "MCTSAgent", "Node", "PriorEvaluator", "Search", "ValueEvaluator",
           "check_game_options", "check_model_options", "rollout_function", "sampler"]
