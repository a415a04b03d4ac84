"""What players know of Geister: the rushing player (the greedy rule), the roll-out
policies (forward, rushing, baiting; and the tight play-out loop steered forward or
tactically), the beliefs about hidden colours (:mod:`.beliefs`, with the learned colour
model of :mod:`.learned`) and escape threats read the worse way, the race to the exits
that a search adjudicates and the guard of our exits at its root (:mod:`.race`), the
purple search (:mod:`.purple`), and the opponent profile (:mod:`.profile`, with the
tells of :mod:`.tells`), which a search's belief is weighed against over a match."""

from __future__ import annotations

import random

from boardzoo.games.geister.rules import GeisterState, playout
from boardzoo.strategy.geister.beliefs import BELIEFS, CAPTURE_READINGS, THREAT_READINGS
from boardzoo.strategy.geister.players import baiting_action, forward_policy, rushing_action
from boardzoo.strategy.geister.profile import MatchReading
from boardzoo.strategy.geister.purple import PurpleSearch
from boardzoo.strategy.geister.race import GUARDS, escape_race
from boardzoo.strategy.knowledge import GameKnowledge, register


def fast_random(state: GeisterState, rng: random.Random, limit: int = 0) -> tuple[float, float]:
    return playout(state, rng, limit)


def fast_forward(state: GeisterState, rng: random.Random, limit: int = 0) -> tuple[float, float]:
    return playout(state, rng, limit, forward=0.5)


def fast_tactical(state: GeisterState, rng: random.Random, limit: int = 0) -> tuple[float, float]:
    return playout(state, rng, limit, forward=0.5, tactics=True)


register(GameKnowledge(
    game=GeisterState.game_name,
    greedy=rushing_action,
    rollouts={"forward": forward_policy, "rushing": rushing_action, "baiting": baiting_action},
    fast_rollouts={"random": fast_random, "forward": fast_forward, "tactical": fast_tactical},
    beliefs=BELIEFS,
    adjudicators={"race": escape_race},
    guards=GUARDS,
    threat_readings=THREAT_READINGS,
    capture_readings=CAPTURE_READINGS,
    match_reading=MatchReading,
))


def make_purple_search(engine: str, **options) -> PurpleSearch:
    """The purple search on ``engine`` (``python`` or ``compiled``, as
    :func:`boardzoo.strategy.engine.choose_engine` reads an ``engine=`` option)."""
    if engine == "compiled":
        from boardzoo.strategy.geister.compiled_purple import CompiledPurpleSearch

        return CompiledPurpleSearch(**options)
    return PurpleSearch(**options)
