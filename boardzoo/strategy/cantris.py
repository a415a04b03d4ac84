"""What players know of Cantris: the greedy rule (most points now) and alpha-beta's
score evaluator."""

from __future__ import annotations

from boardzoo.games.cantris import CantrisState
from boardzoo.strategy.knowledge import GameKnowledge, register


def score_difference(state: CantrisState, player: int, max_depth: int) -> float:
    """Alpha-beta's leaf evaluator: the score difference, scaled into (-max_depth, max_depth)
    so that a proven win (scored 2*depth - plies >= depth) always outranks any lead."""
    lead = state.scores[player] - state.scores[1 - player]
    return (max_depth - 1) * lead / max(state.total, 1)


register(GameKnowledge(
    game=CantrisState.game_name,
    greedy=CantrisState.greedy_action,
    evaluators={"score": score_difference},
))
