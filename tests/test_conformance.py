"""One conformance suite for every game core: what the generic agents rely on.

Every game joins by itself: ``CORES`` is each game's declared variants (its ``Game``'s
``variants``, drawn parameters drawn from the test's seeded ``random.Random``). Each property is checked on positions
reached by seeded random play, hypothesis choosing the seeds and depths:

* clones are independent of the original;
* ``legal_actions()`` returns a fresh list, agrees with ``legal_mask()`` and ``is_legal``;
* the game's ``playout`` fast path plays the same game as the generic loop (the same
  outcome distribution from the same position);
* ``key()`` is the same for equal positions (reached by other move orders) and differs
  after a move;
* chance outcomes' probabilities sum to 1;
* returns are zero-sum, +1/-1/0 at the end and (0, 0) before;
* states survive pickling;
* hidden-information views depend on nothing hidden (Geister twin games).
"""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from boardzoo.games.geister import GeisterView, board_string
from boardzoo.games.model import CHANCE, TERMINAL, play_out
from boardzoo.games.registry import variants

#: Every game's variants, from the game registry (a new game joins by declaring itself).
CORES = {name: (lambda rng, game=game, key=key: game.variant_state(key, rng))
         for name, (game, key) in variants().items()}


def step(state, rng: random.Random) -> None:
    """One event of random play: a chance outcome by its probability, or a uniform move."""
    if state.current_player() == CHANCE:
        state.apply(state.sample_chance(rng))
    else:
        actions = state.legal_actions()
        state.apply(actions[rng.randrange(len(actions))])


def position(name: str, seed: int, depth: int):
    """The position after up to ``depth`` events of seeded random play (it may end sooner)."""
    rng = random.Random(seed)
    state = CORES[name](rng)
    for _ in range(depth):
        if state.is_terminal():
            break
        step(state, rng)
    return state


def snapshot(state) -> tuple:
    player = state.current_player()
    return (state.key(), player, state.legal_actions() if player != TERMINAL else [], state.returns())


positions = st.tuples(st.sampled_from(sorted(CORES)), st.integers(0, 2**32), st.integers(0, 60))


@settings(max_examples=150, deadline=None)
@given(positions)
def test_clones_are_independent(case):
    state = position(*case)
    assume(not state.is_terminal())
    before = snapshot(state)
    copy = state.clone()
    assert snapshot(copy) == before
    step(copy, random.Random(case[1]))
    assert snapshot(state) == before  # playing on the clone left the original alone


@settings(max_examples=150, deadline=None)
@given(positions)
def test_legal_actions_are_fresh_and_agree_with_the_mask(case):
    state = position(*case)
    player = state.current_player()
    mask = state.legal_mask()
    assert len(mask) == state.num_actions
    if player < 0:  # a chance event or the end: no move of a player is legal
        assert not any(mask) and not any(state.is_legal(a) for a in range(state.num_actions))
        return
    legal = state.legal_actions()
    assert legal and len(set(legal)) == len(legal)
    assert [a for a in range(state.num_actions) if mask[a]] == sorted(legal)
    assert all(state.is_legal(a) == bool(mask[a]) for a in range(state.num_actions))
    legal.append(-1)
    legal.clear()  # the caller owns the list: changing it changes nothing
    assert state.legal_actions() and state.legal_mask() == mask


@settings(max_examples=40, deadline=None)
@given(positions)
def test_returns_are_zero_sum_and_chance_sums_to_one(case):
    state = position(*case)
    rng = random.Random(case[1])
    while True:
        r0, r1 = state.returns()
        if not state.is_terminal():
            assert (r0, r1) == (0, 0)
        else:
            assert r0 + r1 == 0 and r0 in (-1, 0, 1)
            break
        if state.current_player() == CHANCE:
            outcomes = state.chance_outcomes()
            assert outcomes and abs(sum(p for _, p in outcomes) - 1) < 1e-12
            assert all(p > 0 for _, p in outcomes)
        step(state, rng)


@settings(max_examples=60, deadline=None)
@given(positions, st.integers(1, 6))
def test_keys_are_equal_for_equal_positions_and_change_with_a_move(case, replays):
    state = position(*case)
    assume(not state.is_terminal())
    again = position(*case)
    assert again.key() == state.key() and hash(state.key()) == hash(again.key())
    restored = pickle.loads(pickle.dumps(state))
    assert snapshot(restored) == snapshot(state)
    for seed in range(replays):
        child = state.clone()
        step(child, random.Random(seed))
        if child.current_player() != CHANCE and state.current_player() != CHANCE:
            assert child.key() != state.key()


@pytest.mark.parametrize("name", sorted(CORES))
def test_the_fast_playout_plays_the_same_game_as_the_generic_loop(name):
    start = position(name, 7, 4)
    if start.is_terminal():
        start = CORES[name](random.Random(7))
    n = 600
    fast_rng, slow_rng = random.Random(1), random.Random(2)
    fast = [start.clone().playout(fast_rng)[0] for _ in range(n)]
    slow = [play_out(start.clone(), slow_rng)[0] for _ in range(n)]
    for outcome in (-1.0, 0.0, 1.0):
        # Same distribution: shares within 4.5 standard errors (fixed seeds: no flakiness).
        p, q = fast.count(outcome) / n, slow.count(outcome) / n
        spread = max(((p * (1 - p) + q * (1 - q)) / n) ** 0.5, 1 / n)
        assert abs(p - q) <= 4.5 * spread, (outcome, p, q)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 40))
def test_geister_views_depend_on_nothing_hidden(seed, depth):
    state = position("geister", seed, depth)
    assume(all(state.placed))
    twin = state.clone()
    # Swap the colours of two of player_1's uncaptured ghosts of different colours: nothing
    # player_0 can see changes.
    alive = [g for g in range(8, 16) if state.pos[g] >= 0]
    reds = [g for g in alive if state.red[g]]
    blues = [g for g in alive if not state.red[g]]
    assume(reds and blues and not state.is_terminal())
    twin.red[reds[0]], twin.red[blues[0]] = False, True
    mine, theirs = GeisterView(state, 0), GeisterView(twin, 0)
    assert state.view_key(0) == twin.view_key(0) and mine.key() == theirs.key()
    assert mine.legal_actions() == theirs.legal_actions()
    assert board_string(state, 0) == board_string(twin, 0)
    assert pickle.dumps(mine) == pickle.dumps(theirs)
