"""SVG drawings (render_mode="svg"), the search views the browser shows, and move texts."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

from boardzoo.agents import make
from boardzoo.envs import cantris_v1, connect_four_v0, geister_v0, nim_v0
from boardzoo.envs.svg import SvgImage

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("module, kwargs", [(connect_four_v0, {}), (nim_v0, {"coin": True}), (cantris_v1, {}),
                                            (geister_v0, {"view": "player_0"})])
def test_every_env_draws_well_formed_svg_whose_clicks_are_its_legal_moves(module, kwargs):
    env = module.env(render_mode="svg", **kwargs)
    env.reset(seed=4)
    rng = random.Random(0)
    for _ in range(12):
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        picture = env.render()
        assert isinstance(picture, SvgImage) and picture._repr_svg_() == str(picture)
        root = ElementTree.fromstring(picture)  # well-formed XML
        assert root.tag == f"{SVG}svg" and root.find(f"{SVG}title").text
        legal = set(np.flatnonzero(env.observe(agent)["action_mask"]).tolist())
        clickable = {int(e.get("data-action")) for e in root.iter() if e.get("data-action") is not None
                     and "full" not in (e.get("class") or "")}
        if module is not geister_v0:
            assert clickable == legal  # nim: exactly the takes that are legal
        env.step(rng.choice(sorted(legal)))


def test_a_geister_seat_drawing_does_not_depend_on_the_opponents_colours():
    drawings = []
    for reds in ("ABCD", "EFGH"):
        env = geister_v0.env()
        env.reset(seed=1, options={"red": {"player_0": "ABEF", "player_1": reds}})
        for action in (4 * 1 + 0, 4 * 1 + 0, 4 * 2 + 0):  # B north, B north (player_1), C north
            env.step(action)
        drawings.append(env.unwrapped.svg("player_0", animate=True))
        spectator = env.unwrapped.svg(None)
        assert spectator.count("<desc>red</desc>") == 8  # the spectator sees every colour
    assert drawings[0] == drawings[1]
    assert drawings[0].count("<desc>unknown</desc>") == 8 and drawings[0].count("<desc>red</desc>") == 4


def test_geister_move_texts_never_tell_a_seat_the_opponents_secret():
    env = geister_v0.env()
    env.reset(seed=0)
    placement = 32  # red ABCD
    assert env.unwrapped.move_text("player_0", placement, "player_1") == "chooses its red ghosts"
    assert env.unwrapped.move_text("player_0", placement, "player_0") == "chooses red ABCD"
    env.step(placement)
    env.step(placement)
    assert env.unwrapped.move_text("player_0", 0, "player_0") == "moves A north"
    assert env.unwrapped.move_text("player_0", 0, "player_1") == "moves a ghost toward you"


def test_geister_text_board_labels_the_seats_own_ghosts():
    env = geister_v0.env(render_mode="ansi", view="player_1")
    env.reset(seed=0, options={"red": {"player_0": "ABCD", "player_1": "EFGH"}})
    rows = env.render().splitlines()[1:7]
    assert rows[4].split() == [".", "Ab", "Bb", "Cb", "Db", "."]
    assert rows[5].split() == [".", "Er", "Fr", "Gr", "Hr", "."]
    assert rows[0].split() == [".", "??", "??", "??", "??", "."]


def test_the_mcts_tree_view_is_bounded_and_follows_the_move_played():
    env = connect_four_v0.env()
    env.reset(seed=0)
    agent = make("mcts:iterations=500", seed=2)
    action = agent.act(env.observe("player_0"), env.unwrapped.model("player_0"))
    tree = agent.tree_json(max_nodes=40)

    def nodes(node):
        return [node] + [n for child in node["children"] for n in nodes(child)]

    shown = nodes(tree)
    assert len(shown) == 40
    assert tree["visits"] >= sum(c["visits"] for c in tree["children"]) >= 499
    chosen = [c for c in tree["children"] if c["chosen"]]
    assert [c["label"] for c in chosen] == [str(action + 1)]
    # every shown node has at least the visits of any node left out below its parent
    assert all(n["visits"] > 0 for n in shown)


def test_alphabeta_principal_variation_is_a_legal_line_starting_with_its_move():
    env = connect_four_v0.env()
    env.reset(seed=0)
    for column in (3, 3, 2):
        env.step(column)
    agent = make("alphabeta:depth=6", seed=0)
    model = env.unwrapped.model(env.agent_selection)
    action = agent.act(env.observe(env.agent_selection), model)
    line = agent.principal_variation()
    assert line[0] == str(action + 1) and 1 <= len(line) <= 6
    for label in line:  # a playable line
        model.apply(model.parse_action(label))
