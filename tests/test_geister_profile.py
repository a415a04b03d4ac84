"""belief=profile: the opponent model that learns each opponent's tells in the game and
over a match. Its readings against a referee that integrates the rates numerically, its
invariants on random evidence, what it learns from taught games, and the tournament
client teaching it between games; a search's belief weighed against it over a match."""

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardzoo.agents import make
from boardzoo.games.geister import GHOSTS, GeisterState, GeisterView
from boardzoo.strategy.geister.beliefs import blue_probabilities
from boardzoo.strategy.geister.profile import (
    DECLINED_BLUE,
    MAX_PRIOR_WEIGHT,
    Archetype,
    MatchReading,
    OpponentProfile,
    Rate,
)


def view_with(moved: dict[int, int], offered: dict[int, int], red: dict[int, bool] | None = None,
              declined: dict[int, int] | None = None) -> GeisterView:
    """Player_0's view at the start position with the opponent's (ghosts 8..15) evidence
    counters set; ``red``: opponent ghosts revealed (taken off the board) with their colour."""
    state = GeisterState(200, {0: (0, 1, 2, 3), 1: (0, 1, 2, 3)})
    for g, value in moved.items():
        state.moved[g] = value
    for g, value in offered.items():
        state.offered[g] = value
    for g, value in (declined or {}).items():
        state.declined[g] = value
    for g, is_red in (red or {}).items():
        state.board[state.pos[g]] = -1
        state.pos[g] = -1
        state.red[g] = is_red
        state.lost[1][1 if is_red else 0] += 1
    return GeisterView(state, 0)


def referee_probabilities(profile: OpponentProfile, view: GeisterView, unknown: list[int],
                          blues: int) -> list[float]:
    """P(blue) of each unknown ghost by brute force: every colouring, every archetype, and
    each rate integrated on a grid (the midpoint rule in t = sqrt(rate), which is smooth
    where a prior's density is not: a bluffer's blue rate has Beta(0.5, 9.5)), not by the
    beta function."""
    grid = [(i + 0.5) / 2000 for i in range(2000)]

    def integral(rate: Rate, hits: int, misses: int) -> float:
        a, b = rate.hits, rate.misses

        def mass(h: int, m: int) -> float:  # p = t^2, dp = 2 t dt
            return sum(2 * t * (t * t) ** (a - 1 + h) * (1 - t * t) ** (b - 1 + m) for t in grid)

        return mass(hits, misses) / mass(0, 0)

    known = [g for g in range(GHOSTS, 2 * GHOSTS) if view.red[g] is not None]
    weights = {}
    for blue_set in itertools.combinations(unknown, blues):
        colour = {g: g not in blue_set for g in unknown} | {g: bool(view.red[g]) for g in known}
        counts = {True: [0, 0], False: [0, 0]}
        for g, is_red in colour.items():
            counts[is_red][0] += view.offered[g]
            counts[is_red][1] += view.moved[g] - view.offered[g]
        prior = math.prod(math.exp(profile.slot_log_odds_blue(g % GHOSTS)) for g in blue_set)
        declined = math.prod(DECLINED_BLUE ** min(view.declined[g], 3) for g in blue_set)
        weights[blue_set] = prior * declined * sum(
            math.exp(a.log_weight) * integral(a.red_offers, *counts[True]) * integral(a.blue_offers, *counts[False])
            for a in profile.archetypes)
    total = sum(weights.values())
    return [sum(w for s, w in weights.items() if g in s) / total for g in unknown]


def test_readings_match_a_numerical_referee():
    view = view_with(moved={8: 5, 9: 4, 10: 2, 11: 0, 12: 6, 13: 1}, offered={8: 4, 9: 3, 10: 0, 12: 1, 13: 1},
                     red={14: True, 15: False}, declined={13: 1})
    unknown = view.unknown_ghosts()
    profile = OpponentProfile()
    ours, _ = profile.readings(view, unknown, 3)
    referee = referee_probabilities(profile, view, unknown, 3)
    assert ours == pytest.approx(referee, abs=2e-3)
    # the ghosts that offered most are the likeliest red, the one that declined an escape too
    assert ours[0] < ours[3] and ours[1] < ours[3] and ours[5] < 0.1


def test_an_untaught_profile_without_evidence_reads_the_base_rate():
    view = view_with({}, {})
    probabilities, kinds = OpponentProfile().readings(view, view.unknown_ghosts(), 4)
    assert probabilities == pytest.approx([0.5] * 8)
    assert kinds == pytest.approx({"bluffer": 1 / 3, "plain": 1 / 3, "between": 1 / 3})


@settings(max_examples=60, deadline=None)
@given(moved=st.lists(st.integers(0, 20), min_size=8, max_size=8),
       offer_share=st.lists(st.floats(0, 1), min_size=8, max_size=8),
       revealed=st.lists(st.sampled_from([None, True, False]), min_size=8, max_size=8),
       taught=st.integers(0, 3), seed=st.integers(0, 1000))
def test_readings_are_probabilities_that_sum_to_the_blues_left(moved, offer_share, revealed, taught, seed):
    reds_revealed = [g for g in range(8) if revealed[g] is True][:3]
    blues_revealed = [g for g in range(8) if revealed[g] is False][:3]
    red = {GHOSTS + g: True for g in reds_revealed} | {GHOSTS + g: False for g in blues_revealed}
    view = view_with({GHOSTS + g: m for g, m in enumerate(moved)},
                     {GHOSTS + g: int(m * s) for g, (m, s) in enumerate(zip(moved, offer_share))}, red)
    profile = OpponentProfile()
    rng = random.Random(seed)
    for _ in range(taught):
        profile.learn(random_final(rng), 0)
    unknown = view.unknown_ghosts()
    blues = 4 - len(blues_revealed)
    probabilities, kinds = profile.readings(view, unknown, blues)
    assert all(0.0 <= p <= 1.0 for p in probabilities)
    assert sum(probabilities) == pytest.approx(blues)
    assert sum(kinds.values()) == pytest.approx(1.0)


def random_final(rng: random.Random, reds: tuple[int, ...] | None = None, red_offers: float = 0.5,
                 blue_offers: float = 0.1) -> GeisterState:
    """A finished game's last position as a match teaches it: the opponent (seat 1)
    placed ``reds`` (at random when None), and each of its ghosts moved a few times and
    offered itself in its colour's share of them (rounded)."""
    reds = reds if reds is not None else tuple(sorted(rng.sample(range(GHOSTS), 4)))
    state = GeisterState(200, {0: (0, 1, 2, 3), 1: reds})
    for g in range(GHOSTS, 2 * GHOSTS):
        state.moved[g] = rng.randrange(2, 12)
        rate = red_offers if state.red[g] else blue_offers
        state.offered[g] = round(rate * state.moved[g])
    return state


def test_a_match_teaches_where_the_opponent_puts_its_reds():
    rng = random.Random(1)
    profile = OpponentProfile()
    for _ in range(20):
        profile.learn(random_final(rng, reds=(0, 1, 2, 3)), 0)
    view = view_with({}, {})
    probabilities, _ = profile.readings(view, view.unknown_ghosts(), 4)
    assert max(probabilities[:4]) < 0.25 < 0.75 < min(probabilities[4:])


def test_a_match_teaches_the_opponents_offer_rates_and_kind():
    rng = random.Random(2)
    bluffer, plain = OpponentProfile(), OpponentProfile()
    for game in range(10):
        reds = (0, 1, 2, 3) if game % 2 else (4, 5, 6, 7)  # every square red in half the games
        bluffer.learn(random_final(rng, reds, red_offers=0.7, blue_offers=0.02), 0)
        plain.learn(random_final(rng, reds, red_offers=0.3, blue_offers=0.3), 0)
    view = view_with(moved={8: 4, 9: 4}, offered={8: 2, 9: 0})
    unknown = view.unknown_ghosts()
    as_bluffer, bluffer_kinds = bluffer.readings(view, unknown, 4)
    as_plain, plain_kinds = plain.readings(view, unknown, 4)
    assert max(bluffer_kinds, key=bluffer_kinds.get) == "bluffer"
    assert max(plain_kinds, key=plain_kinds.get) == "plain"
    # two offers in four moves: bait to a bluffer, nothing to a plain player
    assert as_bluffer[0] < 0.1 < 0.5 < as_bluffer[1]
    assert as_plain[0] == pytest.approx(as_plain[1], abs=0.1)


def test_learning_keeps_each_prior_bounded():
    rng = random.Random(3)
    profile = OpponentProfile()
    for _ in range(200):
        profile.learn(random_final(rng), 0)
    for archetype in profile.archetypes:
        for rate in (archetype.red_offers, archetype.blue_offers):
            assert rate.hits + rate.misses <= MAX_PRIOR_WEIGHT + 1e-9
        assert archetype.log_weight >= -50.0


def test_an_archetype_is_a_beta_binomial():
    archetype = Archetype("x", Rate(2.0, 3.0), Rate(1.0, 1.0))
    # P(2 of 3 | Beta(2, 3)) without the binomial coefficient: B(4, 4) / B(2, 3)
    expected = math.log(math.gamma(4) ** 2 / math.gamma(8)) - math.log(math.gamma(2) * math.gamma(3) / math.gamma(5))
    assert archetype.log_evidence((3, 2, 0, 0)) == pytest.approx(expected)


def test_only_a_profile_agent_learns_and_reset_keeps_what_it_learned():
    rng = random.Random(4)
    learner, other = make("purple:belief=profile"), make("purple:belief=adaptive")
    final = random_final(rng, reds=(0, 1, 2, 3))
    learner.end_of_game(final, 0)
    other.end_of_game(final, 0)
    learner.reset(7)
    assert learner.profile.games == 1 and other.profile.games == 0


def colour_reader(final: GeisterState, right: bool):
    """A belief for these tests only: it reads ``final``'s true colours (``right``) or
    their opposite, with odds of 99 to 1."""
    def odds(view, unknown):
        return [99.0 if final.red[g] != right else 1 / 99 for g in unknown]
    return odds


@pytest.mark.parametrize("right", [True, False])
def test_a_match_weighs_the_belief_by_how_well_it_read_the_games(right):
    rng = random.Random(5)
    finals = [random_final(rng, red_offers=0.3, blue_offers=0.3) for _ in range(3)]  # no tell to read
    reading = MatchReading(colour_reader(finals[0], right))
    view = GeisterView(finals[0], 0)
    unknown = view.unknown_ghosts()
    # never taught: the belief's own odds, exactly (an untaught agent plays as without it)
    assert reading(view, unknown) == reading.belief(view, unknown)
    assert reading.weights() == (0.5, 0.5)
    for final in finals:
        reading.belief = colour_reader(final, right)
        reading(GeisterView(final, 0), unknown)
        reading(GeisterView(final, 0), unknown)
        reading.learn(final, 0)
    belief_weight, profile_weight = reading.weights()
    assert reading.games == 3 and reading.readings == []
    assert (belief_weight > 0.999) if right else (profile_weight > 0.999)
    # taught: the mixture of the two readings (here all but one of them), as odds for a
    # sampler that draws exactly the blues left, which moves each marginal a little
    view = GeisterView(finals[-1], 0)
    mixed = blue_probabilities(reading(view, unknown), 4)
    believed = blue_probabilities(reading.belief(view, unknown), 4)
    profiled, _ = reading.profile.readings(view, unknown, 4)
    expected = [belief_weight * b + profile_weight * p for b, p in zip(believed, profiled)]
    assert mixed == pytest.approx(expected, abs=0.02)
    assert reading.profile.games == 3  # the profile learned the games too


def test_a_game_counts_each_ghost_once_however_often_it_was_read():
    """A reader's score for a game is the mean over the readings of each ghost, so a
    game read at many moves weighs no more than one read at few."""
    rng = random.Random(6)
    final = random_final(rng)
    once, often = MatchReading(colour_reader(final, False)), MatchReading(colour_reader(final, False))
    view = GeisterView(final, 0)
    once(view, view.unknown_ghosts())
    for _ in range(5):
        often(view, view.unknown_ghosts())
    once.learn(final, 0)
    often.learn(final, 0)
    assert once.scores == pytest.approx(often.scores)
    assert once.scores[0] == pytest.approx(8 * math.log(0.01))  # eight confident misses, each clipped


def test_a_new_game_drops_the_readings_of_one_never_taught():
    reading = MatchReading(lambda view, unknown: [1.0] * len(unknown))
    view = view_with({}, {})
    reading(view, view.unknown_ghosts())
    reading.new_game()
    assert reading.readings == [] and reading.games == 0
