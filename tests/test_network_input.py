"""What a network sees of a position: each learnable game's plain numpy input (declared
in its ``Game``) and the compiled writer the search uses, held equal value for value on
random positions of every variant, and of the same shape."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")

from boardzoo.fast.core import kernels_for  # noqa: E402
from boardzoo.games.model import CHANCE  # noqa: E402
from boardzoo.games.registry import games  # noqa: E402

LEARNED = [game for game in games().values() if game.network_input is not None]


def test_every_game_a_network_learns_declares_its_input():
    """The searching trainer learns every such game of perfect information (a hidden-
    information game's search would read the colours its seat cannot see)."""
    from boardzoo.training.alphazero.config import LEARNABLE

    assert sorted(game.name for game in LEARNED if not game.hidden_information) == sorted(LEARNABLE)


def random_geister_positions(seed: int, count: int, **params):
    """Positions of random Geister games (placements and moves at random), at a seat's turn."""
    from boardzoo.games.geister import GAME

    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = GAME.new_initial_state(rng, **params)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply(state.sample_chance(rng))
                continue
            found.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
    return found[:count]


@pytest.mark.parametrize("params", [{}, {"rows": 5, "cols": 4, "blue": 2, "red": 2, "exits": 1}],
                         ids=["classic", "small"])
def test_a_geister_network_never_sees_a_hidden_colour(params):
    """The input is the same from the true state and from the mover's own view (which
    holds no hidden colour), and recolouring the opponent's ghosts on the board (any
    colouring with the same blues and reds still to find) never changes it."""
    from boardzoo.games.geister import GeisterView, network_input

    rng = random.Random(3)
    for state in random_geister_positions(11, 400, **params):
        seen = network_input(state)
        seat = state.player
        np.testing.assert_array_equal(seen, network_input(GeisterView(state, seat)))
        shape = state.shape
        other = range(shape.ghosts * (1 - seat), shape.ghosts * (2 - seat))
        on_board = [g for g in other if state.pos[g] >= 0]
        if not state.placed[1 - seat] or not on_board:
            continue
        recoloured = state.clone()
        colours = [state.red[g] for g in on_board]
        rng.shuffle(colours)
        for g, red in zip(on_board, colours):
            recoloured.red[g] = red
        np.testing.assert_array_equal(seen, network_input(recoloured))


@pytest.mark.parametrize("game", LEARNED, ids=lambda game: game.name)
def test_the_compiled_input_is_the_plain_one(game):
    rng = random.Random(7)
    largest_pile = 64
    checked = 0
    for key in game.variants:
        for _ in range(30):
            state = game.variant_state(key, rng)
            while True:
                if state.current_player() == CHANCE:
                    outcomes = state.chance_outcomes()
                    state.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
                    continue
                if state.current_player() >= 0:
                    plain = game.network_input(state, largest_pile)
                    core = kernels_for(state).core  # a family member's own
                    array = core.encode(state)
                    assert plain.shape == game.input_shape(state, largest_pile)
                    assert core.input_fits(array[None], plain.size)
                    compiled = np.full(plain.size, np.nan, dtype=np.float32)
                    core.write_input(array, compiled)
                    np.testing.assert_array_equal(compiled.reshape(plain.shape), plain)
                    checked += 1
                if state.current_player() < 0:
                    break
                state.apply(rng.choice(state.legal_actions()))
    assert checked > 100
