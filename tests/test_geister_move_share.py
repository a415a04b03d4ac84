"""Which colour the opponent moves more (:class:`MoveShareReading`), and the readers
weighed within a game by the colours captures show (``mcts:match=learn-in-game``): the
reading against a referee that replays each move against the ghosts then alive, its
symmetry before any capture, and a rusher read after its reds were taken."""

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardzoo.games.geister import GeisterState, GeisterView
from boardzoo.strategy.geister.beliefs import blue_probabilities
from boardzoo.strategy.geister.move_share import PRIOR_SPREAD, MoveShareReading
from boardzoo.strategy.geister.profile import MatchReading


def play(rng: random.Random, plies: int, pick=None):
    """A game of the classic board from random placements, ``plies`` moves long at most
    (``pick(state, actions)`` chooses the moves, at random by default). Yields, at each of
    player_0's turns, the state, and keeps in ``moves`` each move of player_1: the ghost
    moved and the reds and blues it had on the board then."""
    state = GeisterState(200, {0: tuple(rng.sample(range(8), 4)), 1: tuple(rng.sample(range(8), 4))})
    moves = []
    for _ in range(plies):
        if state.is_terminal():
            return
        if state.player == 0 and not GeisterView(state, 0).placing:
            yield state, moves
        mover, before = state.player, state.moved[:]
        actions = state.legal_actions()
        state.apply(pick(state, actions) if pick else rng.choice(actions))
        moved = [g for g in range(8, 16) if state.moved[g] != before[g]]
        if mover == 1 and moved:
            moves.append((moved[0], 4 - state.lost[1][1], 4 - state.lost[1][0]))


def referee(view: GeisterView, moves, unknown: list[int], blues: int) -> list[float]:
    """The model computed from the moves one by one, log rho integrated on a fine grid."""
    log_rho = np.linspace(-4, 4, 3201)
    log_prior = -(log_rho / PRIOR_SPREAD) ** 2 / 2
    rho = np.exp(log_rho)
    totals = np.zeros(len(unknown))
    total = 0.0
    for blue_set in itertools.combinations(unknown, blues):
        red = {g: view.red[g] if view.red[g] is not None else g not in blue_set for g in range(8, 16)}
        log_likelihood = sum(np.log(np.where(red[g], rho, 1.0) / (rho * reds + blues_alive))
                             for g, reds, blues_alive in moves) if moves else np.zeros_like(rho)
        declined = math.prod(0.05 ** min(view.declined[g], 3) for g in blue_set)
        weight = np.exp(log_prior + log_likelihood).sum() * declined
        total += weight
        for i, g in enumerate(unknown):
            totals[i] += weight * (g in blue_set)
    return list(totals / total)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), plies=st.integers(10, 80))
def test_the_reading_matches_a_referee_that_replays_each_move(seed, plies):
    rng = random.Random(seed)
    reader = MoveShareReading()
    last = None
    for state, moves in play(rng, plies):
        view = GeisterView(state, 0)
        unknown = view.unknown_ghosts()
        blues = 4 - view.lost[1][0]
        last = (reader(view, unknown, blues), referee(view, moves, unknown, blues))
    if last is not None:
        assert last[0] == pytest.approx(last[1], abs=1e-3)


@settings(max_examples=30, deadline=None)
@given(moved=st.lists(st.integers(0, 12), min_size=8, max_size=8))
def test_before_any_capture_it_reads_no_colour(moved):
    """With every ghost on the board and nothing declined, the model cannot tell which
    colour is the busy one: each ghost is as likely blue as red, whatever the moves."""
    state = GeisterState(200, {0: (0, 1, 2, 3), 1: (0, 1, 2, 3)})
    state.moved[8:16] = moved
    view = GeisterView(state, 0)
    assert MoveShareReading()(view, view.unknown_ghosts(), 4) == pytest.approx([0.5] * 8)


def rusher(state: GeisterState, actions: list[int]) -> int:
    """Player_1 moves only its reds while it has any; player_0 takes what it can."""
    if state.player == 1:
        reds = [a for a in actions if state.red[8 + (a >> 2)]]
        return (reds or actions)[0]
    ghosts = state.shape.ghosts
    takes = [a for a in actions if (t := state.shape.target[0][state.pos[a >> 2]][a & 3]) is not None
             and t >= 0 and state.board[t] >= ghosts]
    return takes[0] if takes else actions[0]


def test_a_rushers_last_red_reads_red_once_its_other_reds_were_taken():
    for seed in range(40):
        reader = MoveShareReading()
        for state, _ in play(random.Random(seed), 200, rusher):
            view = GeisterView(state, 0)
            if view.lost[1] == [0, 3]:  # three reds taken, no blue: the busy ghost left is red
                unknown = view.unknown_ghosts()
                busy = max(unknown, key=lambda g: view.moved[g])
                if view.moved[busy] >= 3 and sum(view.moved[g] for g in unknown) == view.moved[busy]:
                    read = dict(zip(unknown, reader(view, unknown, 4)))
                    assert read[busy] < 0.2
                    return
    pytest.fail("no game reached three reds taken with one busy ghost left")


def test_within_a_game_a_belief_fooled_by_the_ghosts_shown_loses_its_weight():
    """A belief sure of the wrong colours: each capture that shows one scores it, within
    the game and without any game taught, and the next readings lean on the others."""
    rng = random.Random(4)
    final = next(s.clone() for s, _ in play(rng, 400) if sum(s.lost[1]) >= 2)
    fooled = MatchReading(lambda view, unknown: [99.0 if final.red[g] else 1 / 99 for g in unknown],
                          within_game=True)
    start = GeisterState(200, {0: (0, 1, 2, 3), 1: tuple(g - 8 for g in range(8, 16) if final.red[g])})
    prior_weights = fooled.weights()
    assert prior_weights[0] == pytest.approx(0.9)
    fooled(GeisterView(start, 0), GeisterView(start, 0).unknown_ghosts())
    assert fooled.weights() == pytest.approx(prior_weights)  # nothing shown yet
    view = GeisterView(final, 0)
    mixed = blue_probabilities(fooled(view, view.unknown_ghosts()), 4 - view.lost[1][0])
    assert fooled.weights()[0] < 0.01
    # the next reading is all but the others': the fooled belief's 0.99s are gone
    assert max(abs(p - 0.5) for p in mixed) < 0.45
    fooled.new_game()
    assert fooled.weights() == pytest.approx(prior_weights)  # a new game starts from the priors
