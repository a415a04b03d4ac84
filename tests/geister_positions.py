"""Random Geister positions and recolourings for the tests that hold a player to its view,
and the placements a player draws."""

import random

from boardzoo.agents import make
from boardzoo.games.geister import GeisterState, GeisterView


def random_midgames(rng: random.Random, count: int, most_plies: int = 60) -> list[GeisterState]:
    """Up to ``count`` positions of the classic game, each after a few random moves from a
    random placement (games that ended on the way are left out)."""
    found = []
    for _ in range(count):
        state = GeisterState(200, {0: tuple(rng.sample(range(8), 4)), 1: tuple(rng.sample(range(8), 4))})
        for _ in range(rng.randrange(2, most_plies)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            found.append(state)
    return found


def recoloured(state, rng: random.Random, own: bool = False):
    """``state`` with the colours of the opponent's ghosts still on the board shuffled
    (the mover's own colours, and those captures made public, as they were); with ``own``,
    the mover's own ghosts' instead."""
    ghosts = state.shape.ghosts
    seat = state.player if own else 1 - state.player
    on_board = [g for g in range(ghosts * seat, ghosts * (seat + 1)) if state.pos[g] >= 0]
    other = state.clone()
    colours = [state.red[g] for g in on_board]
    rng.shuffle(colours)
    for g, red in zip(on_board, colours):
        other.red[g] = red
    return other


def decides_alike_recoloured(agent, state, rng: random.Random, seed: int = 9) -> bool:
    """Whether ``agent``, handed ``seed``, plays the same move at the mover's view of
    ``state`` and of ``state`` recoloured: it reads nothing the seat cannot see."""
    from boardzoo.games.geister import GeisterView

    seat, decisions = state.player, []
    for full in (state, recoloured(state, rng)):
        agent.reset(seed=seed)
        decisions.append(agent.act({}, GeisterView(full, seat)))
    return decisions[0] == decisions[1]


def placements_drawn(spec: str, games: int) -> list[int]:
    """The red sets one agent chooses at Geister's start over ``games`` games, seeded 0, 1,
    ..., alternately as player_0 (the first placement) and player_1 (the second)."""
    agent, chosen = make(spec), []
    for game in range(games):
        state = GeisterState(max_turns=200)
        if game % 2:
            state.apply(state.legal_actions()[game % 70])
        agent.reset(seed=game)
        chosen.append(agent.act(None, GeisterView(state, game % 2)))
    return chosen
