"""Every bad input gets a clear, specific error, and leaves the env as it was."""

import numpy as np
import pytest

from boardzoo.envs import connect_four_v0, make, nim_v0
from boardzoo.errors import BoardzooWarning, IllegalActionError, InvalidActionError, ResetNeededError, SpecError


@pytest.mark.parametrize("factory", [connect_four_v0.env, connect_four_v0.raw_env, nim_v0.env, nim_v0.raw_env])
@pytest.mark.parametrize("call", ["step", "observe", "last", "render", "state", "model"])
def test_use_before_reset(factory, call):
    env = factory()
    arguments = {"step": (0,), "observe": ("player_0",), "model": ("player_0",)}.get(call, ())
    with pytest.raises(ResetNeededError, match="reset"):
        getattr(env, call)(*arguments)


def test_attributes_before_reset_are_a_clear_attribute_error():
    env = connect_four_v0.env()
    with pytest.raises(AttributeError, match="before reset"):
        env.rewards  # noqa: B018 (reading the attribute is the test)
    assert not hasattr(env, "agent_selection")


@pytest.mark.parametrize("factory", [connect_four_v0.env, connect_four_v0.raw_env])
@pytest.mark.parametrize("action, message", [
    (7, r"action 7 is outside the action space Discrete\(7\)"),
    (-1, r"action -1 is outside"),
    ("3", r"an action must be an int in 0..6, got '3' of type str"),
    (2.0, r"got 2.0 of type float"),
    (True, r"of type bool"),
    (None, r"got None"),
])
def test_actions_outside_the_action_space(factory, action, message):
    env = factory()
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match=message):
        env.step(action)
    assert env.unwrapped.game.plies == 0 and env.agent_selection == "player_0"


def test_numpy_integers_are_accepted():
    env = connect_four_v0.env()
    env.reset(seed=0)
    env.step(np.int64(3))
    env.step(np.array(3))
    assert env.unwrapped.game.plies == 2


def test_raw_env_raises_on_a_masked_out_action_naming_it_and_why():
    env = nim_v0.raw_env(n=2, k=3)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError) as caught:
        env.step(2)
    error = caught.value
    assert (error.agent, error.action) == ("player_0", 2)
    assert str(error) == "nim_v0: player_0 cannot play action 2 ('take 3'): it takes 3 pawns but only 2 are left"
    assert env.game.pawns == 2 and not any(env.terminations.values())


def test_env_ends_the_game_with_minus_one_for_an_illegal_move():
    env = connect_four_v0.env()
    env.reset(seed=0)
    for _ in range(6):
        env.step(0)
    with pytest.warns(BoardzooWarning, match="illegal action 0"):
        env.step(0)  # player_0 plays into the full column
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env._cumulative_rewards == {"player_0": -1, "player_1": 0}
    assert env.infos["player_1"]["forfeit"]["agent"] == "player_0"
    final = {}
    for agent in env.agent_iter():
        _, reward, termination, _, _ = env.last()
        final[agent] = reward
        env.step(None)
    assert final == {"player_0": -1, "player_1": 0}


def test_stepping_a_finished_game_needs_none():
    env = nim_v0.env(n=1)
    env.reset(seed=0)
    env.step(0)
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)


@pytest.mark.parametrize("name, kwargs, message", [
    ("connect_four_v0", {"rows": 3}, "rows must be an int from 4 to 32"),
    ("connect_four_v0", {"cols": 40}, "cols must be an int from 4 to 32"),
    ("connect_four_v0", {"rows": "6"}, "rows must be an int"),
    ("connect_four_v0", {"render_mode": "rgb"}, "render_mode must be one of"),
    ("nim_v0", {"n": 0}, "n must be an int >= 1"),
    ("nim_v0", {"n": (9, 3)}, "range 9..3 is empty"),
    ("nim_v0", {"n": (1, 2, 3)}, "int or a"),
    ("nim_v0", {"k": 0}, "k must be an int >= 1"),
    ("nim_v0", {"k": 2.5}, "k must be an int"),
    ("nim_v0", {"coin": "yes"}, "coin must be True or False"),
])
def test_bad_constructor_arguments(name, kwargs, message):
    with pytest.raises(ValueError, match=message):
        make(name, **kwargs)


def test_unknown_constructor_keyword_and_unknown_env():
    with pytest.raises(TypeError, match="size"):
        connect_four_v0.env(size=7)
    with pytest.raises(SpecError, match="unknown env 'chess'; envs are: connect_four_v0, nim_v0"):
        make("chess")


def test_reset_option_outside_the_observation_space():
    env = nim_v0.env(n=(5, 10))
    with pytest.raises(ValueError, match="n=11 exceeds this env's largest pile 10"):
        env.reset(options={"n": 11})


def test_unknown_agent_name_for_observe():
    env = connect_four_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent 'player_2'"):
        env.observe("player_2")


def test_core_apply_refuses_illegal_moves_instead_of_corrupting_the_state():
    env = connect_four_v0.env()
    env.reset(seed=0)
    model = env.unwrapped.model("player_0")
    for _ in range(6):
        model.apply(1)
    before = model.key()
    with pytest.raises(ValueError, match="illegal action 1: column 2 is full"):
        model.apply(1)
    with pytest.raises(ValueError, match=r"illegal action 9: there is no column 10 \(columns are 1..7\)"):
        model.apply(9)
    assert model.key() == before


def test_numpy_integers_are_ints_wherever_a_seed_or_a_size_is_taken():
    """A seed or a count drawn by NumPy is an int like Python's, and plays the same games
    (they were refused: gymnasium's seeding and random.Random take only Python's ints)."""
    import gymnasium

    from boardzoo import arena, vector
    from boardzoo.agents import make as make_agent

    for seed in (np.int64(5), np.uint32(5)):
        env, plain = make("nim_v0"), make("nim_v0")
        env.reset(seed=seed)
        plain.reset(seed=5)
        assert np.array_equal(env.observe("player_0")["observation"], plain.observe("player_0")["observation"])
    games = vector.make("connect_four_v0", batch=np.int64(3))
    assert games.reset(seed=np.int64(2)).current_player.shape == (3,)
    agent = make_agent("random", seed=np.int64(3))
    agent.reset(np.int32(4))
    records = arena.run("nim_v0", "greedy", "random", np.int64(2), seed=np.int64(1), progress=False)
    assert [r["moves"] for r in records] == [r["moves"] for r in arena.run("nim_v0", "greedy", "random", 2, seed=1,
                                                                            progress=False)]
    single = gymnasium.make("boardzoo/nim-v0")
    assert single.reset(seed=np.int64(1))[0].shape == single.reset(seed=1)[0].shape
    batched = gymnasium.make_vec("boardzoo/nim-v0", num_envs=np.int64(3), vectorization_mode="vector_entry_point")
    assert batched.reset(seed=np.int64(1))[0].shape[0] == 3
    with pytest.raises(ValueError, match="seed must be an int >= 0, got np.True_"):
        make("nim_v0").reset(seed=np.bool_(True))


def test_a_huge_unsigned_action_is_reported_as_given_not_as_minus_one():
    from boardzoo import vector

    games = vector.make("connect_four_v0", batch=2)
    batch = games.reset(seed=0)
    with pytest.raises(ValueError, match="game 1: action 18446744073709551615 is not legal \\(no such action\\)"):
        games.step(batch, np.array([0, 2**64 - 1], dtype=np.uint64))
    env = connect_four_v0.env()
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="action 18446744073709551615 is outside"):
        env.step(np.uint64(2**64 - 1))
