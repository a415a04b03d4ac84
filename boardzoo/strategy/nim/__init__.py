"""What players know of Nim: source 000's greedy rule, the Nim study's strategic
play-out and its play-out schedules (:mod:`.study`)."""

from __future__ import annotations

from boardzoo.games.nim import NimState
from boardzoo.strategy.knowledge import GameKnowledge, register
from boardzoo.strategy.nim.study import TABLES, study_playouts

register(GameKnowledge(
    game=NimState.game_name,
    greedy=NimState.greedy_action,
    rollouts={"strategic": NimState.strategic_action},
    # The Nim study: "the opponent's behaviour stays random" in the strategic play-out.
    searcher_only=frozenset({"strategic"}),
    # The study's own play-out counts at each pile size (its Tables 1-4).
    schedules={f"study-{table}": study_playouts(table) for table in TABLES},
))
