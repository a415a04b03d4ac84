"""The Gymnasium single-agent wrapper: a seat of any env against a fixed opponent."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from boardzoo.envs import nim_v0
from boardzoo.errors import BoardzooWarning, IllegalActionError
from boardzoo.training.single_agent import SingleAgentEnv


@pytest.mark.parametrize("env_spec", ["connect_four_v0", "nim_v0:coin=true"])
def test_passes_gymnasiums_env_checker(env_spec):
    check_env(SingleAgentEnv(env_spec, opponent="random"), skip_render_check=True)


def play_episode(env, rng):
    observation, info = env.reset()
    assert env.observation_space.contains(observation)
    total, done = 0.0, False
    while not done:
        mask = env.action_masks()
        assert (mask == info["action_mask"].astype(bool)).all() and mask.any()
        observation, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        done = terminated or truncated
    return total


def test_rewards_seats_and_the_opponent():
    env = SingleAgentEnv(nim_v0.env(n=(10, 30)), opponent="greedy", seat="random")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    seats, totals = set(), []
    for _ in range(60):
        totals.append(play_episode(env, rng))
        seats.add(env.seat)
    assert seats == {"player_0", "player_1"}
    assert set(totals) <= {1.0, -1.0}
    assert totals.count(-1.0) > 45  # random moves rarely beat the perfect Nim player


def test_same_seed_same_episode():
    def episode(seed):
        env = SingleAgentEnv("connect_four_v0", opponent="random")
        observation, _ = env.reset(seed=seed)
        trace = [observation.tobytes()]
        done = False
        while not done:
            observation, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trace.append(observation.tobytes())
            done = terminated or truncated
        return trace

    assert episode(3) == episode(3)


def test_an_illegal_action_loses_by_default_or_raises_when_asked():
    """As PettingZoo's classic envs and boardzoo's AEC env: the episode ends with -1 and a
    warning naming the reason (the learner's own, so it may name its own secret)."""
    strict = SingleAgentEnv(nim_v0.env(n=2, k=3), opponent="random", seat="player_0", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="only 2 are left"):
        strict.step(2)
    lenient = SingleAgentEnv(nim_v0.env(n=2, k=3), opponent="random", seat="player_0")
    lenient.reset(seed=0)
    with pytest.warns(BoardzooWarning, match="player_0 played illegal action 2: .*only 2 are left.* and loses"):
        _, reward, terminated, _, _ = lenient.step(2)
    assert (reward, terminated) == (-1.0, True)
    with pytest.raises(RuntimeError, match="episode is over"):
        lenient.step(0)
    with pytest.raises(ValueError, match="seat must be"):
        SingleAgentEnv("nim_v0", seat="north")
