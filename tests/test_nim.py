"""Nim and Nim with a coin: rules, known theory, the coin as a chance event."""

import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardzoo.agents import make
from boardzoo.envs import nim_v0
from boardzoo.games import CHANCE, TERMINAL, NimState
from boardzoo.games.nim import HEADS, TAILS


def play_env_game(env, agents, seed):
    """Play one game with ``agents`` = {seat: agent}; returns the final rewards."""
    env.reset(seed=seed)
    for index, agent in enumerate(agents.values()):
        agent.reset(seed + index)
    final = {}
    for seat in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            final[seat] = reward
            env.step(None)
        else:
            env.step(agents[seat].act(observation, env.unwrapped.model(seat)))
    return final


def test_taking_the_last_pawn_wins():
    state = NimState(5, k=3)
    state.apply(2)  # player 0 takes 3
    assert (state.pawns, state.current_player()) == (2, 1)
    assert state.legal_actions() == [0, 1]  # take 1 or 2, not 3
    state.apply(1)  # player 1 takes the last 2
    assert state.current_player() == TERMINAL and state.returns() == (-1.0, 1.0)


def test_observation_mask_and_rewards_through_the_env():
    env = nim_v0.raw_env(n=5, k=3)
    env.reset(seed=0)
    first = env.observe("player_0")
    assert first["observation"].tolist() == [5, 3]
    assert first["action_mask"].tolist() == [1, 1, 1]
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0, 0]
    env.step(2)
    assert env.observe("player_1")["action_mask"].tolist() == [1, 1, 0]
    with pytest.raises(ValueError, match="takes 3 pawns but only 2 are left"):
        env.step(2)
    env.step(1)
    assert env.rewards == {"player_0": -1, "player_1": 1}
    assert all(env.terminations.values()) and not any(env.truncations.values())


@pytest.mark.parametrize("k", [1, 2, 3, 4, 6])
def test_greedy_wins_every_game_from_a_winning_pile_against_random(k):
    env = nim_v0.env(n=(1, 60), k=k)
    greedy, rand = make("greedy"), make("random")
    games = 0
    for seed in range(400):
        env.reset(seed=seed)
        pawns = env.unwrapped.game.pawns
        if pawns % (k + 1) == 0:
            continue
        games += 1
        final = play_env_game(env, {"player_0": greedy, "player_1": rand}, seed)
        assert final == {"player_0": 1, "player_1": -1}, f"n={pawns}, k={k}"
    assert games > 150  # (k=1: half the piles are lost ones)


def test_greedy_loses_from_a_losing_pile_against_perfect_play():
    # From n % (k+1) == 0 every move leaves a winning pile, and greedy (as the opponent)
    # then always answers back into a multiple of k+1: the first mover loses.
    env = nim_v0.env(n=20, k=3)
    for seed in range(20):
        final = play_env_game(env, {"player_0": make("random"), "player_1": make("greedy")}, seed)
        assert final["player_1"] == 1


@given(st.integers(1, 80), st.integers(1, 7))
def test_greedy_rule_matches_theory(pawns, k):
    state = NimState(pawns, k)
    take = NimState.greedy_action(state, random.Random(0)) + 1
    assert take == (pawns % (k + 1) or 1)
    state.apply(take - 1)
    if pawns % (k + 1):
        assert state.pawns % (k + 1) == 0  # a winning move leaves a multiple of k+1


# --- the coin -------------------------------------------------------------------------
def test_coin_is_a_chance_event_in_the_model():
    state = NimState(10, k=3, coin=True)
    state.apply(0)  # player 0 takes 1, 9 left
    assert state.current_player() == CHANCE
    assert state.chance_outcomes() == [(TAILS, 0.5), (HEADS, 0.5)]
    heads = state.clone()
    heads.apply(HEADS)
    assert (heads.pawns, heads.current_player()) == (8, 1)
    state.apply(TAILS)
    assert (state.pawns, state.current_player()) == (9, 1)


def test_coin_taking_the_last_pawn_makes_the_mover_win():
    state = NimState(4, k=3, coin=True)
    state.apply(2)  # player 0 takes 3 of 4: one pawn left, coin pending
    assert state.current_player() == CHANCE
    state.apply(HEADS)
    assert state.is_terminal() and state.returns() == (1.0, -1.0)


def test_no_coin_after_the_last_pawn():
    state = NimState(3, k=3, coin=True)
    state.apply(2)
    assert state.is_terminal() and state.chance_outcomes() == []


def test_coin_frequency_in_the_env_is_fair():
    env = nim_v0.raw_env(n=(20, 50), k=3, coin=True)
    flips = []
    for seed in range(300):
        env.reset(seed=seed)
        rng = random.Random(seed)
        while not any(env.terminations.values()):
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
        flips += [outcome for player, outcome in env.history if player == CHANCE]
    n = len(flips)
    assert n > 2000
    heads = sum(flips)
    # seeded, so deterministic; 5 standard deviations keeps the bound honest, not tuned
    assert abs(heads - n / 2) < 5 * math.sqrt(n / 4)


def test_coin_outcomes_are_public_history_and_reproducible():
    def history(seed):
        env = nim_v0.raw_env(n=30, k=3, coin=True)
        env.reset(seed=seed)
        while not any(env.terminations.values()):
            env.step(0)
        return env.history

    assert history(5) == history(5)
    assert history(5) != history(6)


def test_n_range_is_drawn_at_every_reset_from_the_seeded_generator():
    env = nim_v0.raw_env(n=(20, 50))
    env.reset(seed=1)
    piles = [env.game.pawns]
    for _ in range(200):
        env.reset()
        piles.append(env.game.pawns)
    assert min(piles) == 20 and max(piles) == 50
    env.reset(seed=1)
    assert env.game.pawns == piles[0]
    env.reset(options={"n": 21})
    assert env.game.pawns == 21


def test_playout_fast_path_ends_legally():
    for seed in range(200):
        for coin in (False, True):
            state = NimState(37, k=4, coin=coin)
            state.playout(random.Random(seed))
            assert state.pawns == 0 and state.is_terminal()
            assert state.returns() in ((1.0, -1.0), (-1.0, 1.0))


def test_text_and_rgb_render():
    env = nim_v0.env(n=7, k=3, render_mode="ansi")
    env.reset(seed=0)
    env.step(1)
    assert env.render().startswith("ooooo [5 left, take 1..3]")
    env = nim_v0.env(n=7, render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8


def test_strategic_rollouts_steer_the_searching_player_only():
    """The Nim study's strategic play-out: the searcher leaves multiples of K+1, the
    opponent stays random. From 20 pawns (lost against perfect play) the searcher to move
    still wins most roll-outs; were both sides strategic it would win none."""
    from boardzoo.agents.mcts.evaluation import rollout_function

    start = NimState(20, 3)
    leaf = rollout_function(start, "strategic", random.Random(0))
    wins = sum(leaf(start.clone())[0] > 0 for _ in range(600))
    assert 400 < wins < 600, wins
    # searched by player 1 (player 0 to move first, randomly): player 1 nearly always wins
    after = NimState(20, 3)
    after.apply(0)
    leaf = rollout_function(after, "strategic", random.Random(0))
    assert sum(leaf(NimState(20, 3))[1] > 0 for _ in range(600)) > 400


@pytest.mark.parametrize("mode", ["ansi", "svg", "rgb_array"])
def test_a_pile_of_a_billion_draws_as_quickly_as_a_small_one(mode):
    """Every picture shows a bounded window of the pile (a billion pawns had been 2.7 GB of SVG)."""
    env = nim_v0.env(n=10**9, render_mode=mode)
    env.reset(seed=1)
    env.step(2)
    picture = env.render()
    size = picture.size if mode == "rgb_array" else len(picture)
    small = nim_v0.env(n=nim_v0.MAX_DRAWN, render_mode=mode)
    small.reset(seed=1)
    small.step(2)
    drawn = small.render()
    assert size <= 2 * (drawn.size if mode == "rgb_array" else len(drawn))
    if mode == "svg":
        assert "999,999,997 left" in picture and "of 1,000,000,000 shown" in picture
        assert picture.count('data-action="') == 3  # the pawns a move can take stay clickable
