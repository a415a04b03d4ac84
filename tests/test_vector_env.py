"""The Gymnasium face of the batched games (boardzoo.training.vector_env): registered for
every env, played against an AEC env stepped by hand, seeded, and refusing bad input."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import boardzoo  # noqa: F401  (registers the envs)
from boardzoo.envs import ENVS, pettingzoo_id
from boardzoo.envs import make as make_env
from boardzoo.envs.aec import AGENTS
from boardzoo.errors import BoardzooWarning
from boardzoo.training.single_agent import SingleAgentEnv
from boardzoo.training.vector_env import LearnerVectorEnv


def first_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A batched opponent: the lowest legal action of every game."""
    return np.argmax(masks, axis=1)


def random_learner(infos: dict, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in infos["action_mask"]])


@pytest.mark.parametrize("name", list(ENVS))
@pytest.mark.filterwarnings("ignore:.*out of date:DeprecationWarning")  # Gymnasium's word on cantris-v0 (v1 exists)
def test_every_env_is_registered_single_and_batched(name):
    env_id = pettingzoo_id(name)
    envs = gymnasium.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point", opponent="random")
    assert isinstance(envs, LearnerVectorEnv)
    observations, infos = envs.reset(seed=0)
    assert observations.shape == envs.observation_space.shape and observations in envs.observation_space
    assert infos["action_mask"].shape == (4, envs.single_action_space.n) and infos["action_mask"].any(axis=1).all()
    assert np.array_equal(envs.action_masks(), infos["action_mask"])
    observations, rewards, terminations, truncations, infos = envs.step(random_learner(infos, np.random.default_rng(0)))
    assert observations in envs.observation_space and rewards.shape == terminations.shape == (4,)
    single = gymnasium.make(env_id, opponent="random")
    assert isinstance(single.unwrapped, SingleAgentEnv)
    assert single.reset(seed=0)[0] in single.observation_space


@pytest.mark.parametrize("engine", ["python", "auto"])
@pytest.mark.parametrize("seat", ["player_0", "player_1"])
def test_the_learner_plays_the_games_an_aec_env_plays(engine, seat):
    """Each game of the batch against an AEC env stepped by hand with the same learner
    moves and the same opponent rule: the same observations, masks, rewards and endings,
    the ended game's last observation in final_obs, the next game starting at once."""
    envs = LearnerVectorEnv("connect_four_v0:rows=4,cols=5", num_envs=3, opponent=first_legal, seat=seat,
                            engine=engine)
    me = AGENTS.index(seat)
    aec = [make_env("connect_four_v0:rows=4,cols=5", raw=True) for _ in range(3)]

    def opponent_moves(env):
        while env.agent_selection != seat and not any(env.terminations.values()):
            env.step(int(np.argmax(env.observe(env.agent_selection)["action_mask"])))

    for env in aec:
        env.reset()
        opponent_moves(env)
    observations, infos = envs.reset(seed=1)
    rng, episodes = np.random.default_rng(1), 0
    for _ in range(60):
        for i, env in enumerate(aec):
            seen = env.observe(seat)
            assert np.array_equal(observations[i], seen["observation"])
            assert np.array_equal(infos["action_mask"][i], seen["action_mask"].astype(bool))
        actions = random_learner(infos, rng)
        observations, rewards, terminations, truncations, infos = envs.step(actions)
        for i, (env, action) in enumerate(zip(aec, actions.tolist())):
            env.step(action)
            opponent_moves(env)
            over = any(env.terminations.values())
            assert terminations[i] == over and not truncations[i]
            assert rewards[i] == (env.rewards[seat] if over else 0)
            if over:
                episodes += 1
                assert infos["_final_obs"][i]
                assert np.array_equal(infos["final_obs"][i], env.observe(seat)["observation"])
                env.reset()
                opponent_moves(env)
        assert (infos["seat"] == me).all()
    assert episodes > 10


def test_the_same_seed_gives_the_same_games():
    def play(seed):
        envs = LearnerVectorEnv("nim_v0:n=5..12,coin=true", num_envs=8, opponent="random")
        observations, infos = envs.reset(seed=seed)
        rng, seen = np.random.default_rng(0), [observations]
        for _ in range(30):
            observations, rewards, *_, infos = envs.step(random_learner(infos, rng))
            seen += [observations, rewards, infos["seat"]]
        return seen

    first, again, other = play(3), play(3), play(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


def test_random_seats_and_an_agent_opponent_that_wins():
    """Seats are drawn per game; greedy (a boardzoo agent, one per game) beats a random
    learner in Connect Four far more often than it loses."""
    envs = LearnerVectorEnv("connect_four_v0", num_envs=16, opponent="greedy")
    observations, infos = envs.reset(seed=5)
    assert 0 < infos["seat"].sum() < 16
    rng, results = np.random.default_rng(5), []
    while len(results) < 60:
        observations, rewards, terminations, _, infos = envs.step(random_learner(infos, rng))
        results += rewards[terminations].tolist()
    assert results.count(-1.0) > 3 * results.count(1.0)


def test_an_illegal_action_loses_that_game_only_or_raises_when_asked():
    """boardzoo's rule on every learner's face: the game with the illegal action ends with
    -1 for the learner (and starts afresh, its last observation in ``final_obs``), with a
    warning; the other games play on. ``illegal_action="raise"`` refuses the step instead."""
    envs = LearnerVectorEnv("nim_v0:n=2,k=3", num_envs=3, opponent=first_legal, seat="player_0")
    observations, infos = envs.reset(seed=0)
    with pytest.warns(BoardzooWarning, match="illegal action in 1 of 3 games, which it loses \\(game 1 first\\)"):
        _, rewards, terminations, truncations, infos = envs.step(np.array([1, 2, 0]))  # take 2, take 3 (of 2), take 1
    assert rewards.tolist() == [1.0, -1.0, -1.0]  # game 0 won, game 1 forfeited, game 2 lost to the reply
    assert terminations.all() and not truncations.any()
    assert np.array_equal(infos["final_obs"][1], observations[1])
    strict = LearnerVectorEnv("nim_v0:n=2,k=3", num_envs=3, opponent=first_legal, seat="player_0",
                              illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="game 1: action 2 is not legal"):
        strict.step(np.array([1, 2, 0]))
    with pytest.raises(ValueError, match="illegal_action must be 'raise' or 'lose'"):
        LearnerVectorEnv("nim_v0", illegal_action="ignore")


def test_bad_input_is_refused_and_leaves_the_games_as_they_were():
    envs = LearnerVectorEnv("connect_four_v0:rows=4,cols=4", num_envs=2, opponent=first_legal, seat="player_0")
    with pytest.raises(ValueError, match="call reset"):
        envs.step(np.zeros(2, dtype=np.int64))
    observations, infos = envs.reset(seed=0)
    with pytest.raises(ValueError, match="game 1: action 9 is not legal"):
        envs.step(np.array([0, 9]))
    with pytest.raises(ValueError, match="actions must be 2 ints"):
        envs.step(np.array([0]))
    again, *_ = envs.step(np.array([1, 1]))
    assert not np.array_equal(again, observations)
    with pytest.raises(ValueError, match="num_envs must be an int from 1 to 65,536, got 0"):
        gymnasium.make_vec("boardzoo/nim-v0", num_envs=0, vectorization_mode="vector_entry_point")
    with pytest.raises(ValueError, match="seat must be"):
        LearnerVectorEnv("nim_v0", seat="player_2")
    with pytest.raises(ValueError, match="opponent must be 'random', a boardzoo agent spec or a function"):
        LearnerVectorEnv("nim_v0", opponent=3)
    with pytest.raises(ValueError, match="needs the reference batch's search models"):
        LearnerVectorEnv("nim_v0", opponent="greedy", engine="compiled")
    with pytest.raises(ValueError, match="unknown agent"):
        LearnerVectorEnv("nim_v0", opponent="nobody")


@pytest.mark.parametrize("env", ["connect_four_v0:rows=4,cols=5", "nim_v0:n=5..12,coin=true", "cantris_v0:board=6x3",
                                 "geister_v0:max_turns=40"])
@pytest.mark.parametrize("seat", ["random", "player_1"])
def test_the_one_call_step_plays_the_games_of_the_generic_driver(env, seat):
    """Against the random opponent the compiled batch steps in one compiled call: from one
    seed it plays exactly the reference driver's games (seats, deals, chance, replies,
    forfeits of illegal moves, final observations), step by step."""
    pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")
    import warnings

    reference = LearnerVectorEnv(env, num_envs=16, opponent="random", seat=seat, engine="python")
    compiled = LearnerVectorEnv(env, num_envs=16, opponent="random", seat=seat, engine="compiled")
    assert reference.loop is None and compiled.loop is not None
    ours, theirs = compiled.reset(seed=5), reference.reset(seed=5)
    rng, ended = np.random.default_rng(1), 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BoardzooWarning)  # the illegal moves below are meant
        for _ in range(60):
            observations, infos = ours
            assert np.array_equal(observations, theirs[0])
            for key in ("action_mask", "seat"):
                assert np.array_equal(infos[key], theirs[1][key])
            actions = np.array([rng.choice(np.flatnonzero(mask)) if rng.random() > 0.05 else rng.integers(len(mask))
                                for mask in infos["action_mask"]])
            mine, reference_step = compiled.step(actions), reference.step(actions)
            for a, b in zip(mine[1:4], reference_step[1:4]):
                assert np.array_equal(a, b)
            ours, theirs = (mine[0], mine[4]), (reference_step[0], reference_step[4])
            assert ("final_obs" in ours[1]) == ("final_obs" in theirs[1])
            for i in np.flatnonzero(ours[1].get("_final_obs", [])):
                assert np.array_equal(ours[1]["final_obs"][i], theirs[1]["final_obs"][i])
                ended += 1
    assert ended > 30
