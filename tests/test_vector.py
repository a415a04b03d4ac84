"""Batched games (boardzoo.vector): the reference batch against the AEC envs it is built
on, game by game and action by action; hidden information kept per seat; bad input
refused with a clear error."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.envs import make as make_env
from boardzoo.envs.aec import AGENTS
from boardzoo.games.geister import GeisterView, observation_of
from boardzoo.games.registry import games
from boardzoo.vector import MAX_BATCH, make

#: Every game's small envs, from the registry.
SMALL_ENVS = [spec for game in games().values() for spec in game.small_envs.values()]


def random_actions(batch, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in batch.legal_action_mask])


@pytest.mark.parametrize("spec", SMALL_ENVS)
def test_the_batch_plays_the_games_the_aec_envs_play(spec):
    """The same seeds and actions: the same observations of both seats, masks, player to
    move, rewards and endings as AEC envs stepped by hand; auto-reset starts new games."""
    batch_size, seed = 3, 11
    games_ = make(spec, batch=batch_size, auto_reset=True)
    seeds = np.random.default_rng(seed)
    envs = [make_env(spec, raw=True) for _ in range(batch_size)]

    def start(env):
        env.reset(seed=int(seeds.integers(2**63)))

    for env in envs:
        start(env)
    batch = games_.reset(seed=seed)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        for i, env in enumerate(envs):
            for seat, agent in enumerate(AGENTS):
                seen = env.observe(agent)
                assert np.array_equal(batch.observation[i, seat], seen["observation"])
                if seen["action_mask"].any():
                    assert batch.current_player[i] == seat
                    assert np.array_equal(batch.legal_action_mask[i], seen["action_mask"].astype(bool))
        actions = random_actions(batch, rng)
        batch = games_.step(actions)
        for i, (env, action) in enumerate(zip(envs, actions.tolist())):
            env.step(action)
            assert batch.rewards[i].tolist() == [env.rewards[agent] for agent in AGENTS]
            over = any(env.terminations.values()) or any(env.truncations.values())
            assert bool(batch.terminated[i] or batch.truncated[i]) == over
            if over:
                ended += 1
                assert batch.rewards[i].sum() == 0  # zero-sum
                start(env)
    assert ended > 0


def test_a_seat_observes_only_its_own_information_set():
    """Geister: each seat's observation is the one its view (which holds no hidden
    colour) gives, in every game of random batches."""
    games_ = make("geister_v0", batch=16, max_turns=40, auto_reset=True)
    batch = games_.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(60):
        for i, env in enumerate(games_.envs):
            for seat in (0, 1):
                view = GeisterView(env.unwrapped.game, seat)
                assert np.array_equal(batch.observation[i, seat], observation_of(view, seat))
        batch = games_.step(random_actions(batch, rng))


def test_the_same_seed_gives_the_same_games_and_another_seed_others():
    def play(seed):
        games_ = make("nim_v0:n=5..9,coin=true", batch=8, auto_reset=True)
        batch, rng, seen = games_.reset(seed=seed), np.random.default_rng(1), []
        for _ in range(20):
            batch = games_.step(random_actions(batch, rng))
            seen.append(batch.observation.copy())
        return np.stack(seen)

    assert np.array_equal(play(5), play(5)) and not np.array_equal(play(5), play(6))


@pytest.mark.parametrize("actions, words", [
    (np.zeros(3, dtype=np.int64), None),
    (np.zeros(4, dtype=np.int64), "actions must be 3 ints"),
    (np.zeros(3, dtype=np.float64), "actions must be 3 ints"),
    (np.array([0, 0, 99]), "game 2: action 99 is not legal \\(no such action\\); no game of the batch"),
])
def test_bad_actions_are_refused_naming_the_game(actions, words):
    games_ = make("connect_four_v0", batch=3, engine="python")
    games_.reset(seed=0)
    if words is None:
        games_.step(actions)
        return
    before = [env.game.key() for env in games_.envs]
    with pytest.raises(ValueError, match=words):
        games_.step(actions)
    assert [env.game.key() for env in games_.envs] == before  # nothing half-stepped


def test_an_illegal_move_in_one_game_steps_no_game():
    games_ = make("connect_four_v0:rows=4,cols=4", batch=2, engine="python")
    games_.reset(seed=0)
    for _ in range(4):
        games_.step(np.array([0, 1]))  # column 1 of game 0 is now full
    with pytest.raises(ValueError, match="game 0: action 0 is not legal"):
        games_.step(np.array([0, 2]))


def test_a_finished_game_is_not_stepped_without_auto_reset():
    games_ = make("nim_v0:n=1", batch=2)
    batch = games_.reset(seed=0)
    batch = games_.step(np.zeros(2, dtype=np.int64))  # one pawn: the first move wins
    assert batch.terminated.all() and batch.rewards.tolist() == [[1.0, -1.0], [1.0, -1.0]]
    assert (batch.current_player == -1).all() and not batch.legal_action_mask.any()
    with pytest.raises(ValueError, match="game 0 is over; reset"):
        games_.step(np.zeros(2, dtype=np.int64))


def test_sizes_and_order_are_checked():
    with pytest.raises(ValueError, match=f"batch must be an int from 1 to {MAX_BATCH:,}"):
        make("connect_four_v0", batch=0)
    with pytest.raises(ValueError, match="call reset"):
        make("connect_four_v0", batch=1).step(np.zeros(1, dtype=np.int64))
    with pytest.raises(ValueError, match="seed must be an int >= 0"):
        make("connect_four_v0", batch=1).reset(seed=-1)


# --- the compiled batch -----------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["connect_four_v0", "connect_four_v0:rows=4,cols=5"])
def test_the_compiled_batch_plays_the_reference_batchs_games(spec):
    """Field for field after every step: the player to move, both seats' observations, the
    masks, rewards and endings, with games ending and starting again mid-batch."""
    pytest.importorskip("numba", reason="the compiled batch needs the fast extra")
    compiled = make(spec, batch=32, auto_reset=True, engine="compiled")
    reference = make(spec, batch=32, auto_reset=True, engine="python")
    ours, theirs = compiled.reset(seed=1), reference.reset(seed=1)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(120):
        for field in ("current_player", "observation", "legal_action_mask", "rewards", "terminated", "truncated"):
            assert np.array_equal(getattr(ours, field), getattr(theirs, field)), field
        actions = random_actions(theirs, rng)
        ours, theirs = compiled.step(actions), reference.step(actions)
        ended += int(theirs.terminated.sum())
    assert ended > 20


def test_the_compiled_batch_refuses_what_the_reference_refuses():
    pytest.importorskip("numba", reason="the compiled batch needs the fast extra")
    games_ = make("connect_four_v0:rows=4,cols=4", batch=2, engine="compiled")
    games_.reset(seed=0)
    for _ in range(4):
        games_.step(np.array([0, 1]))
    before = games_.states.copy()
    with pytest.raises(ValueError, match="game 0: action 0 is not legal \\(that column is full\\)"):
        games_.step(np.array([0, 2]))
    with pytest.raises(ValueError, match="game 1: action 7 is not legal \\(no such action\\)"):
        games_.step(np.array([1, 7]))
    assert np.array_equal(games_.states, before)
    with pytest.raises(ValueError, match="engine=compiled plays connect_four_v0, not nim_v0"):
        make("nim_v0", batch=2, engine="compiled")
