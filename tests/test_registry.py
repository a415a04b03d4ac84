"""The Game registry: each game declared once, and every list of games derived from it."""

from __future__ import annotations

import random

import pytest

from boardzoo.envs import ENVS, env_module, make
from boardzoo.games.model import CHANCE
from boardzoo.games.registry import GAME_MODULES, Param, game, games
from boardzoo.strategy.knowledge import all_knowledge

#: Small settings so that random games end quickly (a game's defaults otherwise).
SMALL = {"geister": {"max_turns": 40}, "nim": {"n": 30, "coin": True}}


def test_every_game_is_declared_once_and_the_lists_of_games_come_from_the_declarations():
    declared = games()
    assert len(declared) == len(GAME_MODULES) and set(declared) >= {"nim", "connect_four", "cantris", "geister"}
    assert ENVS == {name: summary for each in declared.values() for name, summary in each.envs.items()}
    assert set(all_knowledge()) == {name for name, each in declared.items() if each.knowledge}
    for name, each in declared.items():
        assert each.name == name == each.state_class.game_name
        for env in each.envs:
            assert env_module(env).raw_env.metadata["name"] == env
        assert env_module(name).raw_env.metadata["name"] == each.newest_env()  # a bare name: the newest


@pytest.mark.parametrize("name", list(games()))
def test_a_new_initial_state_plays_within_the_declared_length_and_payoffs(name):
    declared = game(name)
    params = declared.checked(SMALL.get(name, {}))
    low, high = declared.utility
    for seed in range(20):
        rng = random.Random(seed)
        state = declared.new_initial_state(rng, **params)
        assert isinstance(state, declared.state_class)
        moves = 0
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                assert declared.chance
            else:
                moves += 1
            state.apply(rng.choice(state.legal_actions()))
        assert moves <= declared.max_length(params)
        assert all(low <= value <= high for value in state.returns())
        if declared.zero_sum:
            assert sum(state.returns()) == 0


@pytest.mark.parametrize("name", list(games()))
def test_the_declared_observation_is_what_the_env_shows(name):
    declared = game(name)
    env = make(declared.newest_env())
    env.reset(seed=1)
    observation = env.observe(env.agent_selection)["observation"]
    seat = env.possible_agents.index(env.agent_selection)
    assert (declared.observation(env.unwrapped.game, seat) == observation).all()


def test_parameters_are_checked_against_their_declaration():
    nim = game("nim")
    assert nim.checked({}) == {"n": 21, "k": 3, "coin": False}
    for params, words in [({"n": 0}, "nim: n must be an int from 1 to 1,000,000,000, got 0"),
                          ({"k": 2.5}, "nim: k must be an int"),
                          ({"coin": 1}, "nim: coin must be True or False"), ({"n": True}, "nim: n must be an int"),
                          ({"pawns": 3}, "unknown parameter 'pawns'; parameters are n, k, coin")]:
        with pytest.raises(ValueError, match=words):
            nim.new_initial_state(**params)
    with pytest.raises(ValueError, match="connect_four: rows must be an int from 4 to 32, got 33"):
        game("connect_four").new_initial_state(rows=33)
    with pytest.raises(ValueError, match="cantris: deal must be one of pairs, halves, got 'thirds'"):
        game("cantris").new_initial_state(deal="thirds")
    with pytest.raises(ValueError, match="rows must be even"):  # a rule across parameters, from the rules
        game("cantris").new_initial_state(rows=7)
    with pytest.raises(ValueError, match="unknown game 'chess'; games are: connect_four, nim"):
        game("chess")
    assert Param(0.5, float, 0, 1).check("g", "p", 1) == 1


def test_a_dealt_game_is_the_same_from_the_same_seed():
    cantris = game("cantris")
    first = cantris.new_initial_state(random.Random(7), rows=6, cols=3)
    again = cantris.new_initial_state(random.Random(7), rows=6, cols=3)
    assert first.key() == again.key()
