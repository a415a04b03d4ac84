"""What a network sees of a position: each learnable game's plain numpy input (declared
in its ``Game``) and the compiled writer the search uses, held equal value for value on
random positions of every variant, and of the same shape."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from boardzoo.fast.core import core_of  # noqa: E402
from boardzoo.games.model import CHANCE  # noqa: E402
from boardzoo.games.registry import games  # noqa: E402

LEARNED = [game for game in games().values() if game.network_input is not None]


def test_every_game_a_network_learns_declares_its_input():
    from boardzoo.training.alphazero.config import LEARNABLE

    assert sorted(game.name for game in LEARNED) == sorted(LEARNABLE)


@pytest.mark.parametrize("game", LEARNED, ids=lambda game: game.name)
def test_the_compiled_input_is_the_plain_one(game):
    rng = random.Random(7)
    core = core_of(game.name)
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
