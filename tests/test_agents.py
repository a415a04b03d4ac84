"""Agents: spec strings, the greedy rules, the human agent, seeded randomness."""

import io

import pytest

from boardzoo.agents import AGENTS, make
from boardzoo.envs import cantris_v0, connect_four_v0, geister_v0, nim_v0
from boardzoo.errors import PlayerQuit, SpecError
from boardzoo.games import ConnectFourState
from boardzoo.games.model import play_sequence


def test_make_builds_registered_agents_and_reports_mistakes():
    assert make("random").name == "random"
    assert make(" greedy ").spec == "greedy"
    with pytest.raises(SpecError, match="unknown agent 'mtcs'; agents are: random, greedy, human"):
        make("mtcs:iterations=5")
    with pytest.raises(SpecError, match="random: unknown parameter 'depth'; parameters are: none"):
        make("random:depth=3")
    with pytest.raises(SpecError, match="not of the form key=value"):
        make("random:depth")
    with pytest.raises(SpecError, match="non-empty"):
        make("")


def test_spec_values_are_typed_by_the_constructor_defaults():
    from boardzoo.spec import build

    def factory(iterations=100, c=1.4, reuse=False, policy="ucb1", n=(1, 2)):
        return None

    kwargs = build(factory, "x", {"iterations": "500", "c": "2", "reuse": "true", "policy": "ucbv", "n": "3..9"})
    assert kwargs == {"iterations": 500, "c": 2.0, "reuse": True, "policy": "ucbv", "n": (3, 9)}
    with pytest.raises(SpecError, match="x: parameter iterations: expected an int, got 'many'"):
        build(factory, "x", {"iterations": "many"})
    with pytest.raises(SpecError, match="expected true or false"):
        build(factory, "x", {"reuse": "maybe"})


def test_random_agent_is_seeded_and_uniform_over_legal_actions():
    env = nim_v0.env(n=30, k=3)
    env.reset(seed=0)
    observation = env.observe("player_0")
    picks = [make("random", seed=s).act(observation, None) for s in range(600)]
    assert set(picks) == {0, 1, 2}
    assert all(150 < picks.count(a) < 250 for a in (0, 1, 2))
    assert [make("random", seed=7).act(observation, None) for _ in range(5)] == [
        make("random", seed=7).act(observation, None) for _ in range(5)
    ]


def test_connect_four_greedy_wins_now_then_blocks_then_plays_centre():
    greedy = make("greedy", seed=0)
    # player 0 to move with three on the bottom row: it completes the four
    assert greedy.act(None, play_sequence(ConnectFourState(), [0, 6, 1, 6, 2, 5])) == 3
    # player 1 to move, player 0 threatens column 3: block it
    assert greedy.act(None, play_sequence(ConnectFourState(), [0, 6, 1, 6, 2])) == 3
    # winning beats blocking: player 1 has three stacked in column 6 and also must block 3
    assert greedy.act(None, play_sequence(ConnectFourState(), [0, 6, 1, 6, 2, 6, 5])) == 6
    # nothing urgent: the centre column
    assert greedy.act(None, ConnectFourState()) == 3
    # centre full: one of the two next-most central columns, chosen by the seeded rng
    full_centre = play_sequence(ConnectFourState(), [3] * 6)
    choices = {make("greedy", seed=s).act(None, full_centre) for s in range(20)}
    assert choices == {2, 4}


def test_connect_four_greedy_beats_random_nearly_always():
    env = connect_four_v0.env()
    greedy, rand = make("greedy", seed=1), make("random", seed=2)
    wins = 0
    for game in range(60):
        env.reset(seed=game)
        seats = {"player_0": greedy, "player_1": rand} if game % 2 else {"player_0": rand, "player_1": greedy}
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                wins += seats[agent] is greedy and reward == 1
                env.step(None)
            else:
                env.step(seats[agent].act(observation, env.unwrapped.model(agent)))
    assert wins >= 54


def test_human_agent_re_asks_until_the_move_is_legal():
    env = connect_four_v0.env()
    env.reset(seed=0)
    for _ in range(6):
        env.step(0)
    out = io.StringIO()
    human = make("human", stdin=io.StringIO("left\n9\n1\n4\n"), stdout=out)
    action = human.act(env.observe("player_0"), env.unwrapped.model("player_0"))
    assert action == 3  # "4" is the fourth column, 0-based 3
    text = out.getvalue()
    assert "'left' is not a column: type a number from 1 to 7" in text
    assert "'9' is not a column" in text
    assert "'1' is not legal here: column 1 is full" in text
    assert text.count("your move (2, 3, 4, 5, 6, 7; q quits)") == 4


def test_human_agent_nim_and_end_of_input():
    env = nim_v0.env(n=2, k=3)
    env.reset(seed=0)
    human = make("human", stdin=io.StringIO("take 3\ntake 2\n"), stdout=io.StringIO())
    assert human.act(env.observe("player_0"), env.unwrapped.model("player_0")) == 1
    silent = make("human", stdin=io.StringIO(""), stdout=io.StringIO())
    with pytest.raises(PlayerQuit, match="input ended"):
        silent.act(env.observe("player_0"), env.unwrapped.model("player_0"))
    leaving = make("human", stdin=io.StringIO("Q\n"), stdout=io.StringIO())
    with pytest.raises(PlayerQuit, match="you left the game"):
        leaving.act(env.observe("player_0"), env.unwrapped.model("player_0"))


@pytest.mark.matrix
def test_every_registered_agent_plays_legal_moves_on_every_env():
    for name, cls in AGENTS.items():
        if cls.interactive or name == "sb3":  # sb3 needs a trained model: tests/test_rl.py
            continue
        for factory in (connect_four_v0.env, lambda: nim_v0.env(coin=True), lambda: cantris_v0.env(board="6x3"),
                        lambda: geister_v0.env(max_turns=16)):
            env = factory()  # env() would turn an illegal move into a forfeit; check none happen
            env.reset(seed=0)
            agent = make("solver:time=0.05,depth=2" if name == "solver" else name, seed=0)
            model = env.unwrapped.model(env.agent_selection)
            if cls.games is not None and model.game_name not in cls.games:
                with pytest.raises(ValueError, match="only, not"):
                    agent.check(model)
                continue
            try:
                agent.check(env.unwrapped.model(env.agent_selection))
            except ValueError as refusal:
                env_name = env.unwrapped.metadata["name"]
                # alphazero's shipped networks play Connect Four 6x7, Nim without the coin, Cantris 8x4
                assert name in ("solver", "policy") and env_name != "connect_four_v0" or \
                    name == "alphazero" and env_name != "connect_four_v0" and ("coin" in str(refusal)
                                                                               or "board size" in str(refusal))
                continue
            for seat in env.agent_iter():
                observation, _, termination, truncation, info = env.last()
                assert "forfeit" not in info
                env.step(None if termination or truncation else agent.act(observation, env.unwrapped.model(seat)))


# --- the solver agent, the policy agent and presets --------------------------------------------
def test_the_solver_agent_plays_perfectly_on_a_small_board():
    """4x5 Connect Four is a draw: the solver agent never loses it, from either seat,
    against alpha-beta or random; each move it plays keeps the position's exact value."""
    from boardzoo import arena
    from boardzoo.strategy.connect_four.solver import Solver

    referee = Solver(rows=4, cols=5, memory_mb=8)
    for opponent in ("random", "alphabeta:depth=2"):
        records = arena.run("connect_four_v0:rows=4,cols=5", "solver:time=30", opponent, games=4, seed=1,
                            progress=False)
        assert all(record["winner"] != "b" for record in records)
    agent = make("solver:time=30", seed=0)
    state = ConnectFourState(4, 5)
    for move in (2, 2, 1):
        state.apply(move)
    best = agent.act(None, state)
    assert agent.stats["solved"]
    child = state.clone()
    child.apply(best)
    assert -referee.solve(child) == referee.solve(state) == agent.stats["value"]


def test_the_solver_agent_falls_back_to_alpha_beta_and_refuses_other_games():
    agent = make("solver:time=0.000001,depth=2", seed=0)
    env = connect_four_v0.env()
    env.reset(seed=0)
    action = agent.act(env.observe("player_0"), env.unwrapped.model("player_0"))
    assert agent.stats["solved"] is False and action in range(7)
    nim = nim_v0.env()
    nim.reset(seed=0)
    with pytest.raises(ValueError, match="nim has no exact solver"):
        agent.check(nim.unwrapped.model("player_0"))
    with pytest.raises(SpecError, match="time must be a positive number"):
        make("solver:time=0")


def test_the_solver_agents_time_covers_its_fallback(monkeypatch):
    """time= is the whole move: the solver gets 0.8 of it, alpha-beta the rest."""
    import dataclasses

    from boardzoo.agents import solver as solver_module
    from boardzoo.errors import BudgetError

    asked = []

    def out_of_time(state, seconds, engine):
        asked.append(seconds)
        raise BudgetError("no exact values")

    knowledge = dataclasses.replace(solver_module.knowledge_of(ConnectFourState()), solve_moves=out_of_time)
    monkeypatch.setattr(solver_module, "knowledge_of", lambda model: knowledge)
    agent = make("solver:time=0.5,depth=3", seed=0)
    assert agent.act(None, ConnectFourState()) in range(7)
    assert asked == [pytest.approx(0.5 * (1 - solver_module.FALLBACK_SHARE))]
    assert agent.stats["solved"] is False and 1 <= agent.stats["depth"] <= 3
    assert agent.fallback.time_budget == pytest.approx(0.5 * solver_module.FALLBACK_SHARE)


def test_agents_are_warmed_up_once_before_their_first_move(monkeypatch):
    """The arena calls warm_up (compiling, tables) before any move is timed; over
    isolation too. The solver agent's warm-up builds the solver it will play with."""
    from boardzoo import arena
    from boardzoo.agents.simple import RandomAgent
    from boardzoo.isolation import IsolatedAgent
    from boardzoo.strategy import connect_four

    calls = []
    monkeypatch.setattr(RandomAgent, "warm_up", lambda self, model: calls.append(("warm", model.game_name)))
    original_act = RandomAgent.act
    monkeypatch.setattr(RandomAgent, "act", lambda self, *args: calls.append(("act",)) or original_act(self, *args))
    arena.run("connect_four_v0", "random", "random", games=2, seed=0, progress=False)
    assert calls[:2] == [("warm", "connect_four"), ("warm", "connect_four")]
    assert calls.count(("warm", "connect_four")) == 2 and ("act",) in calls[2:]
    connect_four._PLAYING.clear()
    make("solver:engine=python", seed=0).warm_up(ConnectFourState())
    assert (6, 7, "python") in connect_four._PLAYING
    isolated = IsolatedAgent("solver:time=0.5")
    try:
        isolated.warm_up(ConnectFourState())  # an unknown request would fail over there
        assert isolated.act(None, ConnectFourState()) in range(7)
    finally:
        isolated.close()


def test_the_policy_agent_plays_a_games_rollout_policy():
    from boardzoo import arena

    records = arena.run("geister_v0", "policy:rollout=baiting", "random", games=10, seed=0, progress=False)
    assert sum(record["winner"] == "a" for record in records) >= 7
    env = connect_four_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="connect_four has no move-by-move roll-out policy 'baiting'"):
        make("policy:rollout=baiting").check(env.unwrapped.model("player_0"))
    with pytest.raises(SpecError, match="rollout"):
        make("policy:rollout=nonsense")


def test_a_preset_is_its_spec_with_overrides():
    from boardzoo.agents import PRESETS, catalogue, expand

    expert = make("geister-expert", seed=0)
    assert expert.name == "purple" and expert.spec == "geister-expert"
    assert expand("geister-expert") == PRESETS["geister-expert"].spec
    tuned = make("geister-expert:time=0.05", seed=0)
    assert tuned.time_budget == 0.05 and expand("geister-expert:time=0.05").count("time=") == 1
    assert any(name == "geister-expert" and params.startswith("= purple:") for name, params, _ in catalogue())
    with pytest.raises(SpecError, match="unknown parameter 'iterations'"):
        make("geister-expert:iterations=3")


def test_a_preset_refuses_a_game_it_does_not_play_by_its_own_name():
    from boardzoo.agents import PRESETS, agent_games

    env = connect_four_v0.env()
    env.reset(seed=0)
    model = env.unwrapped.model(env.agent_selection)
    for name in PRESETS:
        games = agent_games(name)
        assert games is not None and "connect_four" not in games  # both presets are Geister's
        agent = make(name, seed=0)
        with pytest.raises(ValueError, match=f"^{name}: plays geister only, not connect_four$"):
            agent.check_once(model)
        with pytest.raises(ValueError, match=f"^{name}: plays geister only, not connect_four$"):
            make(f"{name}:time=0.05", seed=0).check_once(model)
