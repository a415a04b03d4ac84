"""A belief calibrated to an opponent over a match (``mcts:match=learn-calibrated``): a
belief surer than the opponent's play allows is flattened, one that misreads the ghosts
within reach is corrected the right way, one that is right is kept, and nothing changes
until a game is taught."""

import math
import random

import pytest

from boardzoo.games.geister import GeisterState, GeisterView
from boardzoo.strategy.geister.beliefs import blue_probabilities, takeable
from boardzoo.strategy.geister.calibration import MatchCalibration


def random_game(rng: random.Random, plies: int = 80) -> tuple[list[GeisterView], GeisterState]:
    """Seat 0's view at each of its turns in a game of random moves, and the last state
    (every colour in it)."""
    state = GeisterState(200, {0: tuple(rng.sample(range(8), 4)), 1: tuple(rng.sample(range(8), 4))})
    views = []
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.player == 0:
            views.append(GeisterView(state, 0))
        state.apply(rng.choice(state.legal_actions()))
    return views, state


def play_match(calibration: MatchCalibration, belief, games: int, seed: int) -> None:
    """``belief(view, unknown, final, game_rng) -> odds`` read at seat 0's every turn of
    ``games`` random games, each then taught."""
    rng = random.Random(seed)
    for _ in range(games):
        views, final = random_game(rng)
        game_rng = random.Random(rng.random())
        for view in views:
            unknown = view.unknown_ghosts()
            if unknown:
                calibration(view, unknown, belief(view, unknown, final, random.Random(game_rng.random())))
        calibration.learn(final)


def sure_of_a_coin(view, unknown, final, rng):
    """Odds of 20 or 1/20 by a coin: sure of what random play does not show."""
    return [20.0 if rng.random() < 0.5 else 0.05 for _ in unknown]


def sure_within_reach_are_blue(view, unknown, final, rng):
    return [20.0 if w else 1.0 for w in takeable(view, unknown)]


def sure_within_reach_are_red(view, unknown, final, rng):
    return [0.05 if w else 1.0 for w in takeable(view, unknown)]


def right(view, unknown, final, rng):
    """Odds of 3 for each ghost truly blue, 1/3 for each red: an oracle, mildly sure."""
    return [1 / 3 if final.red[g] else 3.0 for g in unknown]


def coin(view, unknown, final, rng):
    return [1.0] * len(unknown)


def held_out_score(calibration: MatchCalibration | None, belief, games: int, seed: int,
                   only_within: bool = False) -> float:
    """The mean log-probability of the true colour over every hidden ghost read (or
    every one within reach) at seat 0's turns in fresh games, by ``belief`` read again
    by ``calibration`` (as it stands: it is not taught these games)."""
    rng, total, count = random.Random(seed), 0.0, 0
    for _ in range(games):
        views, final = random_game(rng)
        game_rng = random.Random(rng.random())
        for view in views:
            unknown, blues = view.unknown_ghosts(), 4 - view.lost[1][0]
            if not 0 < blues < len(unknown):
                continue
            odds = belief(view, unknown, final, random.Random(game_rng.random()))
            if calibration is not None:
                odds = calibration(view, unknown, odds)
            within = takeable(view, unknown)
            for g, p, w in zip(unknown, blue_probabilities(odds, blues), within):
                if w or not only_within:
                    total += math.log(1 - p if final.red[g] else p)
                    count += 1
        if calibration is not None:
            calibration.new_game()
    return total / count


def test_a_belief_surer_than_the_play_allows_is_flattened():
    calibration = MatchCalibration()
    play_match(calibration, sure_of_a_coin, games=10, seed=1)
    assert calibration.games == 10 and calibration.temperature <= 0.3
    assert held_out_score(calibration, sure_of_a_coin, 10, 7) > held_out_score(None, sure_of_a_coin, 10, 7) + 0.5


@pytest.mark.parametrize("belief, direction", [(sure_within_reach_are_blue, -1), (sure_within_reach_are_red, 1)])
def test_a_belief_that_misreads_the_ghosts_within_reach_is_corrected_the_right_way(belief, direction):
    calibration = MatchCalibration()
    play_match(calibration, belief, games=12, seed=2)
    assert direction * math.log(calibration.factor) > 0
    gain = held_out_score(calibration, belief, 10, 8, only_within=True) - held_out_score(None, belief, 10, 8, True)
    assert gain > 0.3


@pytest.mark.parametrize("seed", [3, 4])
def test_a_belief_that_is_right_is_not_flattened_and_a_coin_is_left_near_even(seed):
    sharp, flat = MatchCalibration(), MatchCalibration()
    play_match(sharp, right, games=10, seed=seed)
    play_match(flat, coin, games=20, seed=seed)
    assert sharp.temperature >= 1.0
    assert abs(math.log(flat.factor)) <= 0.5


def test_untaught_it_reads_as_the_belief_and_taught_it_reads_it_again():
    rng = random.Random(5)
    calibration = MatchCalibration()
    views, final = random_game(rng)
    readings = [(view, view.unknown_ghosts()) for view in views
                if any(takeable(view, view.unknown_ghosts())) and 0 < 4 - view.lost[1][0] < len(view.unknown_ghosts())]
    assert readings
    belief = [(view, unknown, sure_of_a_coin(view, unknown, final, rng)) for view, unknown in readings]
    assert all(calibration(view, unknown, odds) == odds for view, unknown, odds in belief)
    play_match(calibration, sure_within_reach_are_blue, games=6, seed=6)
    assert calibration.temperature != 1.0 or calibration.factor != 1.0
    for view, unknown, odds in belief:
        read = calibration(view, unknown, odds)
        within, blues = takeable(view, unknown), 4 - view.lost[1][0]
        # odds are relative: the reading is the belief's odds to the power t, times c within reach
        top = max(odds)
        assert read == pytest.approx([(o / top) ** calibration.temperature * (calibration.factor if w else 1)
                                      for o, w in zip(odds, within)])
        assert sum(blue_probabilities(read, blues)) == pytest.approx(blues)
