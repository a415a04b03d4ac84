"""Faults against shared state and hidden information: nobody changes an env from outside
it, and no seat learns a hidden colour through a message, a board or its own memory."""

from __future__ import annotations

import gc
import io
import random
import sys

import pytest

from boardzoo import arena, envs
from boardzoo.agents import AGENTS, Agent
from boardzoo.cli import main
from boardzoo.envs import connect_four_v0, geister_v0
from boardzoo.errors import BoardzooWarning, ResetNeededError
from boardzoo.games.geister import GeisterState, position_from_board_string


# --- shared state -----------------------------------------------------------------------------------
def test_the_connect_four_geometry_cannot_be_changed_through_a_model():
    env = connect_four_v0.env()
    env.reset(seed=0)
    model = env.unwrapped.model("player_0")
    with pytest.raises(TypeError):
        model.geo.tops[3] = model.geo.bottoms[3]
    with pytest.raises(AttributeError, match="read-only"):
        model.geo.tops = model.geo.bottoms
    fresh = connect_four_v0.env()
    fresh.reset(seed=1)
    assert fresh.observe("player_0")["action_mask"][3] == 1


def test_the_spectator_game_is_a_copy():
    env = connect_four_v0.env()
    env.reset(seed=0)
    env.step(3)
    view = env.unwrapped.game
    view.playout(random.Random(0))  # a documented in-place method
    assert view.is_terminal()
    assert not env.unwrapped.game.is_terminal() and env.unwrapped.game.plies == 1
    env.step(2)  # the env goes on as if nothing happened
    assert env.unwrapped.game.plies == 2


def test_geister_seats_do_not_share_info_objects():
    env = geister_v0.env()
    env.reset(seed=0)
    infos = env.unwrapped.infos
    assert infos["player_0"]["lost"] is not infos["player_1"]["lost"]
    infos["player_0"]["lost"]["player_1"]["blue"] = 99
    assert infos["player_1"]["lost"]["player_1"]["blue"] == 0


@pytest.mark.parametrize("bad", [{"red": "ABCD"}, {"red": {"player_2": "ABCD"}}, "not a dict"])
def test_a_failed_first_reset_leaves_an_env_that_asks_for_a_reset(bad):
    env = geister_v0.env()
    with pytest.raises(ValueError):
        env.reset(seed=0, options=bad)
    with pytest.raises(ResetNeededError):
        env.step(0)
    with pytest.raises(ResetNeededError):
        env.last()
    env.reset(seed=0)  # and a good reset then works
    assert env.agent_selection == "player_0"


def test_a_failed_later_reset_changes_nothing():
    env = geister_v0.env()
    env.reset(seed=0)
    env.step(env.unwrapped.action_space("player_0").n - 1)
    before = (env.unwrapped.game.key(), env.agent_selection, env.unwrapped.np_random.bit_generator.state)
    with pytest.raises(ValueError):
        env.reset(options={"red": {"player_0": "ABCZ"}})
    assert (env.unwrapped.game.key(), env.agent_selection, env.unwrapped.np_random.bit_generator.state) == before


def test_single_agent_step_before_reset_asks_for_a_reset():
    from boardzoo.training.single_agent import SingleAgentEnv

    with pytest.raises(ResetNeededError, match="call reset"):
        SingleAgentEnv("connect_four_v0").step(0)


# --- forfeit reasons --------------------------------------------------------------------------------
RED_AT_EXIT = "01R24R34R44R15B25B35B45B41u31u21u11u40u30u20u10u"  # own ghost A, red, on the exit (0, 0)


def test_a_forfeit_names_no_hidden_colour_to_the_other_seat(recwarn):
    env = geister_v0.env()
    env.reset(seed=0, options={"red": {"player_0": "ABCD", "player_1": "EFGH"}})
    state = position_from_board_string(RED_AT_EXIT.replace("01R", "00R"))
    state.red = [g in (0, 1, 2, 3, 12, 13, 14, 15) for g in range(16)]
    state.placed = [True, True]
    env.unwrapped._game = state  # a position where ghost A (red) stands on an exit
    env.unwrapped._mask = None
    env.step(3)  # A west: an escape, which only a blue ghost may make
    assert env.rewards["player_0"] == -1
    private, public = env.infos["player_0"]["forfeit"]["reason"], env.infos["player_1"]["forfeit"]["reason"]
    assert "red" in private
    for told in (public, *(str(w.message) for w in recwarn)):
        assert "red" not in told and "blue" not in told


class PlacesBadly(Agent):
    """Plays a move instead of choosing its red ghosts: always a forfeit."""

    name = "places-badly"

    def act(self, observation, model):
        return 0


def test_arena_records_carry_the_public_reason(monkeypatch):
    monkeypatch.setitem(AGENTS, PlacesBadly.name, PlacesBadly)  # registered for this test only
    with pytest.warns(BoardzooWarning, match="an illegal move"):
        record = arena.play_game("geister_v0", "places-badly", "random", 0)
    assert record["forfeit"]["by"] == "a"
    assert "must first choose" not in record["forfeit"]["reason"]


def test_two_humans_each_see_only_their_own_colours(monkeypatch, capsys):
    # Each seat: Enter to take the keyboard, then its placement. Then the input ends.
    monkeypatch.setattr(sys, "stdin", io.StringIO("\nred ABCD\n\nred EFGH\n\n"))
    assert main(["play", "geister_v0", "human", "human"]) == 0  # the input ended mid-game: they left
    out = capsys.readouterr().out
    assert "ALL colours" not in out
    assert out.count("player_0's view") >= 1 and out.count("player_1's view") >= 1
    assert "hand over the keyboard" in out
    # Each placement is announced to the other human without its colours.
    assert "player_0, human (a), chooses its red ghosts" in out and "chooses red" not in out


def test_one_human_sees_only_their_own_view_all_game(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("red ABCD\nA,N\nB,N\n"))
    main(["play", "geister_v0", "greedy", "human"])
    out = capsys.readouterr().out
    assert "ALL colours" not in out and "player_1's view" in out and "player_0's view" not in out
    assert "player_0, greedy (a), chooses its red ghosts" in out  # announced, colours untold
    assert "player_1, human (b), chooses red ABCD" in out  # the human's own choice, to the human
    assert "player_0, greedy (a), chooses red" not in out


# --- isolation ----------------------------------------------------------------------------------------
class Spy(Agent):
    """Looks through its own process for anything that holds the true colours."""

    name = "spy"

    def act(self, observation, model):
        from boardzoo.envs.aec import BoardGameEnv

        # issubclass(type(o)) rather than isinstance(o): isinstance reads o.__class__,
        # which some lazy module objects (torch's) answer with a deprecation warning.
        found = [type(o).__name__ for o in gc.get_objects() if issubclass(type(o), (GeisterState, BoardGameEnv))]
        cache = getattr(sys.modules.get("boardzoo.arena"), "_WORKER", {})
        self.stats = {"found": len(found) + ("env" in cache)}
        return int(observation["action_mask"].nonzero()[0][0])


def spy_probe(model, agent):
    return dict(agent.stats) if agent.spec == "spy" else None


@pytest.mark.parametrize("isolate", [False, True])
def test_an_isolated_agent_finds_no_true_state_in_its_process(isolate, monkeypatch):
    monkeypatch.setitem(AGENTS, Spy.name, Spy)
    env = envs.make("geister_v0:max_turns=20")
    agents = arena.make_agents("spy", "random", env, isolate=isolate)
    try:
        record = arena.play_game("geister_v0:max_turns=20", "spy", "random", 0, env=env, agents=agents,
                                 probe=spy_probe)
    finally:
        arena.close_agents(agents)
    found = [probe["found"] for probe in record["probes"]]
    assert found
    if isolate:
        assert found == [0] * len(found)
    else:  # in the referee's process the truth is right there: the spy's search works
        assert min(found) > 0


def test_isolated_runs_play_the_same_games(tmp_path):
    plain = arena.run("geister_v0:max_turns=30", "greedy", "mcts:iterations=10", games=2, seed=4)
    isolated = arena.run("geister_v0:max_turns=30", "greedy", "mcts:iterations=10", games=2, seed=4, isolate=True,
                         workers=2, out=str(tmp_path / "g.jsonl"))
    assert [r["moves"] for r in plain] == [r["moves"] for r in isolated]


def test_experiment_games_play_the_same_isolated():
    from boardzoo.experiments.framework import Job, play_task

    job = Job(key="k", env="geister_v0:max_turns=30", a="greedy", b="mcts:iterations=10", games=1, seed=3)
    try:
        isolated = play_task((job, 0, True))
    finally:
        arena.release_cached()
    assert isolated["moves"] == play_task((job, 0, False))["moves"] and isolated["job"] == "k"
