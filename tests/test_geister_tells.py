"""The opponent's tells learned over a match (``mcts:match=learn-tells``): untaught a coin;
taught games of an opponent whose colours show in how it moves, it reads fresh games of
that opponent better than a coin, whichever colour gives itself away; its fit is the
posterior's mode; what it keeps is bounded."""

import math
import random

import pytest

from boardzoo.games.geister import GeisterState, GeisterView
from boardzoo.strategy.geister.beliefs import colour_score
from boardzoo.strategy.geister.tells import FEATURES, TellsReading, ghost_features


def telling_game(rng: random.Random, busy_red: bool, plies: int = 80) -> tuple[list[GeisterView], GeisterState]:
    """Seat 0's view at each of its turns in a game where seat 0 moves at random and seat 1
    moves a ghost of one colour (red when ``busy_red``) nine times in ten when it can; and
    the last state, every colour in it."""
    state = GeisterState(200, {0: tuple(rng.sample(range(8), 4)), 1: tuple(rng.sample(range(8), 4))})
    views = []
    for _ in range(plies):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        if state.player == 0:
            views.append(GeisterView(state, 0))
        else:
            busy = [a for a in legal if state.red[8 + (a >> 2)] == busy_red]
            legal = busy if busy and rng.random() < 0.9 else legal
        state.apply(rng.choice(legal))
    return views, state


def teach(reader: TellsReading, games: int, busy_red: bool, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(games):
        views, final = telling_game(rng, busy_red)
        for view in views:
            unknown = view.unknown_ghosts()
            if unknown:
                reader(view, unknown, 4 - view.lost[1][0])
        reader.learn(final, 0)


def held_out_score(reader: TellsReading, busy_red: bool, seed: int, games: int = 20) -> tuple[float, float]:
    """The reader's and a coin's summed log-probability of every hidden ghost's colour, at
    seat 0's turns of fresh games (never taught)."""
    rng = random.Random(seed)
    ours = coin = 0.0
    for _ in range(games):
        views, final = telling_game(rng, busy_red)
        for view in views:
            unknown = view.unknown_ghosts()
            blues = 4 - view.lost[1][0]
            if not unknown:
                continue
            read = reader(view, unknown, blues)
            for g, p in zip(unknown, read):
                ours += colour_score(p, bool(final.red[g]))
                coin += colour_score(blues / len(unknown), bool(final.red[g]))
        reader.new_game()
    return ours, coin


def test_untaught_every_ghost_reads_as_a_coin():
    views, _ = telling_game(random.Random(1), busy_red=False)
    reader = TellsReading()
    for view in views[5:]:
        unknown = view.unknown_ghosts()
        blues = 4 - view.lost[1][0]
        assert reader(view, unknown, blues) == pytest.approx([blues / len(unknown)] * len(unknown))


@pytest.mark.parametrize("busy_red", [False, True])
def test_taught_an_opponent_that_moves_one_colour_it_reads_fresh_games_better_than_a_coin(busy_red):
    reader = TellsReading()
    teach(reader, 12, busy_red, seed=2)
    ours, coin = held_out_score(reader, busy_red, seed=3)
    assert ours > coin + 0.1 * abs(coin)
    moved = FEATURES.index("log(1 + moves)")
    assert (reader.weights[moved] < 0) == busy_red  # busy ghosts read red when reds are the busy ones


def test_its_fit_is_the_mode_of_the_posterior():
    """The gradient of the log posterior (logistic likelihood of the readings kept, normal
    prior), summed reading by reading, vanishes at the weights it learned."""
    reader = TellsReading(prior_spread=0.7)
    teach(reader, 4, busy_red=False, seed=5)
    gradient = [-w / 0.7 ** 2 for w in reader.weights]
    for row, blue in zip(reader.rows, reader.blue):
        p = 1 / (1 + math.exp(-sum(w * x for w, x in zip(reader.weights, row))))
        for k, x in enumerate(row):
            gradient[k] += (blue - p) * x
    assert max(abs(g) for g in gradient) < 1e-4


def test_it_keeps_the_newest_readings_and_no_more():
    reader = TellsReading(most_rows=300)
    teach(reader, 6, busy_red=False, seed=6)
    assert reader.games == 6 and len(reader.rows) == len(reader.blue) == 300
    assert reader.game_rows == []


def test_a_description_reads_the_view_alone():
    """Two full states that differ only in the opponent's hidden colours describe each
    hidden ghost alike."""
    rng = random.Random(9)
    views, final = telling_game(rng, busy_red=True)
    state = final.clone()
    flipped = state.clone()
    flipped.red = [not red if g >= 8 else red for g, red in enumerate(state.red)]
    a, b = GeisterView(state, 0), GeisterView(flipped, 0)
    unknown = a.unknown_ghosts()
    assert unknown and (ghost_features(a, unknown) == ghost_features(b, unknown)).all()
