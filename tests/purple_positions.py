"""Random purple positions for the tests of the purple search (Python and compiled)."""

import random

from boardzoo.games.geister import GeisterState, GeisterView
from boardzoo.strategy.geister.purple_position import Position, position_of


def random_position(seed: int, plies: int) -> Position:
    """The purple position of player_0's view after ``plies`` random moves from a seeded
    start, every unknown ghost given seeded odds of blue (a doubtful threat reading too)."""
    rng = random.Random(seed)
    while True:
        state = GeisterState(300, {0: tuple(rng.sample(range(8), 4)), 1: tuple(rng.sample(range(8), 4))})
        for _ in range(plies + plies % 2):  # an even number: player_0 to move
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            break
    view = GeisterView(state, 0)
    unknown = view.unknown_ghosts()
    blue = {g: rng.random() for g in unknown}
    threat = {g: max(q, rng.random()) for g, q in blue.items()}
    marked = {g for g in unknown if rng.random() < 0.15}
    return position_of(view, marked, blue, threat)
