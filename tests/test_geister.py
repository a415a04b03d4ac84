"""Geister: every rule on a worked position, the tournament board string, hidden
information that never leaks, beliefs, invariants under random play, the env and agents."""

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pettingzoo_checks import check_api

from boardzoo import arena
from boardzoo.agents import make
from boardzoo.envs import geister_v0
from boardzoo.errors import BoardzooWarning, IllegalActionError, SpecError
from boardzoo.games.geister import (
    CAPTURED,
    ESCAPED,
    MOVE_ACTIONS,
    NUM_ACTIONS,
    RED_SETS,
    GeisterState,
    GeisterView,
    board_string,
    placement_action,
    position_from_board_string,
)
from boardzoo.games.model import CHANCE
from boardzoo.strategy.geister.beliefs import BELIEFS
from boardzoo.strategy.geister.players import rushing_action

START = "14R24R34R44R15B25B35B45B41u31u21u11u40u30u20u10u"
N, E, S, W = range(4)


def move(ghost: str, direction: int) -> int:
    return 4 * "ABCDEFGH".index(ghost) + direction


def position(text: str, plies: int = 0, max_turns: int = 200) -> GeisterState:
    """A full state from a board string that shows every colour (player_0 to move)."""
    return position_from_board_string(text, plies, max_turns)


def started(red0="ABCD", red1="ABCD", max_turns=200) -> GeisterState:
    game = GeisterState(max_turns)
    game.apply(placement_action([("ABCDEFGH".index(c)) for c in red0]))
    game.apply(placement_action([("ABCDEFGH".index(c)) for c in red1]))
    return game


# --- the board string of the tournament protocol -------------------------------------------
def test_both_seats_receive_the_protocols_start_string():
    game = started()
    assert board_string(game, 0) == START
    assert board_string(game, 1) == START
    assert game.current_player() == 0 and game.plies == 0


def test_a_move_seen_from_both_seats():
    game = started()
    game.apply(move("A", N))  # player_0's A: (1,4) -> (1,3) in its frame
    assert board_string(game, 0)[:3] == "13R"
    # player_1 sees that ghost as its opponent's a, turned by 180 degrees: (4,2)
    assert board_string(game, 1)[24:27] == "42u"
    game.apply(move("A", N))  # player_1's A: its (1,4) -> (1,3), i.e. (4,2) for player_0
    assert board_string(game, 1)[:3] == "13R" and board_string(game, 0)[24:27] == "42u"


def test_the_board_string_round_trips():
    game = started("BDEG", "ACFH")
    rng = random.Random(3)
    for _ in range(30):
        game.apply(rng.choice(game.legal_actions()))
        if game.is_terminal():
            break
    game.player = 0  # parse as player_0 to move
    rebuilt = position(board_string(game, 0, reveal=True), game.plies)
    assert rebuilt.pos == game.pos and rebuilt.red == game.red and rebuilt.lost == game.lost


@pytest.mark.parametrize("text, message", [
    ("14R24R", "48 characters"),
    (START[:-1] + "x", "colour 'x'"),
    ("77" + START[2:], "position '77'"),
    ("24R" + START[3:], "two pieces on square"),
    ("14u" + START[3:], "own but its colour is 'u'"),
    (START[:24] + "99u" + START[27:], "captured but its colour is 'u'"),
    (START.replace("B", "R"), "more than 4 ghosts of one colour"),
])
def test_malformed_board_strings_are_refused_clearly(text, message):
    with pytest.raises(ValueError, match=message):
        position_from_board_string(text)


# --- moves, captures, escapes, the end ------------------------------------------------------
def test_a_ghost_cannot_step_onto_its_own_ghost_or_off_the_board():
    game = started()
    assert not game.is_legal(move("E", N))  # A stands there
    assert "onto its own ghost" in game.explain_illegal(move("E", N))
    assert not game.is_legal(move("E", S))
    assert "off the board" in game.explain_illegal(move("E", S))
    assert set(game.legal_actions()) == {a for a in range(NUM_ACTIONS) if game.is_legal(a)}


def test_capture_makes_the_colour_public_and_counts():
    #                   A at (1,3) faces the opponent's red a at (1,2)
    text = "13R24R34R44R15B25B35B45B12r31b21b41r40r30b20b10r"
    game = position(text)
    game.apply(move("A", N))
    assert game.pos[8] == CAPTURED and game.lost[1] == [0, 1]
    assert board_string(game, 0)[24:27] == "99r"  # public now, lower case
    assert board_string(game, 1)[:3] == "99r"  # its owner sees its own A captured
    assert not game.is_terminal() and game.current_player() == 1


def test_capturing_the_fourth_blue_wins_and_taking_the_fourth_red_loses():
    # player_1 has lost 3 blues; its last blue b stands in front of A
    blues = "13R24R34R44R15B25B35B45B99r12b99b99b40r30r20r99b"
    game = position(blues)
    game.apply(move("A", N))
    assert game.is_terminal() and game.returns() == (1.0, -1.0)
    # player_1 has lost 3 reds; A takes its last red: player_1 wins
    reds = "13R24R34R44R15B25B35B45B12r99r99r99r40b30b20b10b"
    game = position(reds)
    game.apply(move("A", N))
    assert game.is_terminal() and game.returns() == (-1.0, 1.0)


def test_the_opponent_taking_all_my_reds_makes_me_win():
    # player_0's last red A at (1,3); player_1 (to move) has a ghost at (1,2) facing it
    text = "13R99r99r99r15B25B35B45B12b31b21b41b40r30r20r10r"
    game = position(text)
    game.player = 1
    game.apply(4 * 0 + N)  # player_1's A moves toward player_0: (1,2) -> (1,3)
    assert game.is_terminal() and game.returns() == (1.0, -1.0)


@pytest.mark.parametrize("square, directions", [("00", (N, W)), ("50", (N, E))])
def test_a_blue_ghost_escapes_through_an_exit(square, directions):
    text = f"24R34R44R14R{square}B25B35B45B41r31b21b11r40r30b20b13r"
    for direction in directions:
        game = position(text)
        assert game.is_legal(move("E", direction))
        game.apply(move("E", direction))
        assert game.is_terminal() and game.returns() == (1.0, -1.0)
        assert game.pos[4] == ESCAPED and board_string(game, 0)[12:15] == "88b"
    game = position(text)
    game.apply(move("E", S))  # stepping back along the edge is an ordinary move
    assert not game.is_terminal() and game.pos[4] >= 0


def test_a_red_ghost_cannot_escape():
    text = "00R24R34R44R14B25B35B45B41r31b21b11r40r30b20b13r"
    game = position(text)
    assert not game.is_legal(move("A", N)) and not game.is_legal(move("A", W))
    assert "only blue ghosts escape" in game.explain_illegal(move("A", N))


def test_no_escape_from_any_other_edge_square():
    text = "10B24R34R44R14R25B35B45B41r31b21b11r40r30b20b13r"
    game = position(text)
    assert not game.is_legal(move("A", N))
    assert "off the board" in game.explain_illegal(move("A", N))


def test_draw_at_the_ply_limit_but_a_win_on_the_last_ply_counts():
    game = started(max_turns=2)
    game.apply(move("A", N))
    game.apply(move("A", N))
    assert game.is_terminal() and game.returns() == (0.0, 0.0)
    text = "24R34R44R14R00B25B35B45B41r31b21b11r40r30b20b13r"
    game = position(text, plies=9, max_turns=10)
    game.apply(move("E", N))
    assert game.returns() == (1.0, -1.0)


# --- placement -----------------------------------------------------------------------------
def test_placement_is_the_first_action_of_each_seat():
    game = GeisterState()
    assert game.current_player() == 0 and game.legal_actions() == list(range(MOVE_ACTIONS, NUM_ACTIONS))
    assert not game.is_legal(move("A", N))
    assert "must first choose its red ghosts" in game.explain_illegal(move("A", N))
    game.apply(placement_action((4, 5, 6, 7)))
    assert game.current_player() == 1 and game.red[:8] == [False] * 4 + [True] * 4
    game.apply(MOVE_ACTIONS)  # RED_SETS[0] = ABCD
    assert RED_SETS[0] == (0, 1, 2, 3) and game.red[8:] == [True] * 4 + [False] * 4
    assert game.current_player() == 0 and len(game.legal_actions()) > 0
    assert not game.is_legal(MOVE_ACTIONS)
    assert game.parse_action("red EFGH") == placement_action((4, 5, 6, 7)) == game.parse_action("SET:HGFE")


def test_a_chosen_placement_is_a_secret_choice_for_both_seats_and_nothing_after_it_is():
    game = GeisterState()
    assert game.secret_choice() and GeisterView(game, 0).secret_choice()
    game.apply(placement_action((4, 5, 6, 7)))
    assert game.secret_choice() and GeisterView(game, 1).secret_choice()
    game.apply(MOVE_ACTIONS)
    assert not game.secret_choice() and not GeisterView(game, 0).secret_choice()
    dealt = GeisterState(dealt=True)  # chance deals the colours: no player chooses a secret
    assert dealt.current_player() == CHANCE and not dealt.secret_choice()


def test_env_reset_option_fixes_red_ghosts():
    env = geister_v0.env()
    env.reset(seed=1, options={"red": {"player_0": "EFGH", "player_1": "random"}})
    game = env.unwrapped.game
    assert not game.placing and game.red[:8] == [False] * 4 + [True] * 4
    env.reset(seed=1, options={"red": {"player_0": "EFGH", "player_1": "random"}})
    assert env.unwrapped.game.red == game.red  # the random placement comes from the seed
    env.reset(seed=1, options={"red": {"player_1": "ABCD"}})
    assert env.agent_selection == "player_0" and env.unwrapped.game.placing
    obs, *_ = env.last()
    assert obs["action_mask"][:MOVE_ACTIONS].sum() == 0 and obs["action_mask"][MOVE_ACTIONS:].all()
    for bad in ({"player_0": "ABC"}, {"player_0": "ABCZ"}, {"player_0": "AABC"}, {"player_2": "ABCD"}, "ABCD"):
        with pytest.raises(ValueError, match="red"):
            env.reset(options={"red": bad})


# --- hidden information -------------------------------------------------------------------
def twin_envs(view=None):
    """Two games identical but for player_1's hidden colours, after the same moves."""
    envs = []
    for red1 in ("ABCD", "EFGH"):
        env = geister_v0.env(render_mode="ansi", view=view)
        env.reset(seed=5, options={"red": {"player_0": "ACEG", "player_1": red1}})
        envs.append(env)
    return envs


def test_a_seat_sees_nothing_of_the_opponents_hidden_colours():
    one, two = twin_envs(view="player_0")
    rng = random.Random(0)
    for _ in range(40):
        if one.terminations["player_0"]:
            break
        views = [env.unwrapped.model("player_0") for env in (one, two)]
        assert views[0].key() == views[1].key()
        assert all(views[0].red[g] is None for g in views[0].unknown_ghosts())
        samples = [v.determinize(random.Random(7)).red for v in views]
        assert samples[0] == samples[1]  # the same draws: the truth is not consulted
        obs = [env.observe("player_0") for env in (one, two)]
        assert np.array_equal(obs[0]["observation"], obs[1]["observation"])
        assert np.array_equal(obs[0]["action_mask"], obs[1]["action_mask"])
        assert one.infos["player_0"] == two.infos["player_0"]
        assert one.render() == two.render()
        assert one.unwrapped.board_string("player_0") == two.unwrapped.board_string("player_0")
        # both games take the same moves, chosen from what player_0 and player_1 may see
        agent = one.agent_selection
        legal = np.flatnonzero(one.observe(agent)["action_mask"])
        legal_two = np.flatnonzero(two.observe(agent)["action_mask"])
        common = sorted(set(legal) & set(legal_two))  # an escape may exist in one game only
        action = int(rng.choice(common))
        one.step(action)
        two.step(action)
        if one.unwrapped.game.lost != two.unwrapped.game.lost:
            break  # a capture revealed different colours: the twins may now differ


def test_the_spectator_state_and_render_show_everything_and_say_so():
    one, two = twin_envs()
    assert not np.array_equal(one.state(), two.state())
    assert one.render() != two.render() and "ALL colours" in one.render()
    view = geister_v0.env(render_mode="ansi", view="player_1")
    view.reset(seed=0, options={"red": {"player_0": "ABCD", "player_1": "ABCD"}})
    text = view.render()
    assert "player_1's view" in text and "?" in text and "r" not in text.split("\n", 1)[1].split("\n")[0]
    image = geister_v0.env(render_mode="rgb_array", view="player_0")
    image.reset(seed=0)
    assert image.render().shape == (288, 288, 3)


def test_a_seats_view_cannot_play_moves_and_agents_determinize_it():
    env = geister_v0.env()
    env.reset(seed=0, options={"red": {"player_0": "ABCD", "player_1": "ABCD"}})
    view = env.unwrapped.model("player_0")
    assert isinstance(view, GeisterView) and view.legal_actions() == env.unwrapped.game.legal_actions()
    with pytest.raises(NotImplementedError, match="determinize"):
        view.apply(view.legal_actions()[0])
    with pytest.raises(SpecError, match="unknown belief 'psychic'"):
        make("mcts:belief=psychic,iterations=5")
    assert view.determinize(random.Random(0)).key() != view.key()  # a full state: colours drawn


def test_observation_layout():
    env = geister_v0.env(max_turns=50)
    env.reset(seed=0, options={"red": {"player_0": "ABCD", "player_1": "EFGH"}})
    obs = env.observe("player_1")["observation"]
    planes = obs[:396].reshape(11, 6, 6)
    assert planes[0][4][1] == 1  # own A on its own (1, 4)
    assert planes[9].sum() == 4 and planes[9][5].sum() == 4  # reds E..H on the back row
    assert planes[8][4].sum() == 4 and planes[10][:2].sum() == 8
    assert list(obs[396:]) == [0, 0, 0, 0, 0, 50, 0, 1]


# --- beliefs -------------------------------------------------------------------------------
def test_nearest_blue_assumes_the_most_advanced_ghosts_are_blue():
    # player_1's ghosts a..d advanced to row 3 (our side), e..h stayed home
    text = "14R24R34R44R15B25B35B45B43u33u23u13u40u30u20u10u"
    view = GeisterView(position(text), 0)
    sample = view.determinize(random.Random(0), BELIEFS["nearest-blue"])
    assert sample.red[8:] == [False] * 4 + [True] * 4


def test_uniform_belief_samples_every_consistent_assignment():
    text = "14R24R34R44R15B25B35B45B99r99b21u11u40u30u20u10u"  # one red, one blue public
    view = GeisterView(position(text), 0)
    rng = random.Random(0)
    seen = set()
    for _ in range(400):
        red = view.determinize(rng).red[10:]
        assert red.count(False) == 3 and red.count(True) == 3
        seen.add(tuple(red))
    assert len(seen) == 20  # C(6, 3): all of them


def test_behaviour_belief_reads_a_declined_escape_as_red():
    # player_1's E stands on one of player_1's exits ((5, 5) in player_0's frame) at its
    # turn and steps away instead of escaping
    text = "14R24R34R44R15B25B35B45B41r31r21r11r55b30b20b10b"
    state = position(text)
    state.player = 1
    state.apply(move("E", S))
    declined_ghost = 8 + 4
    assert state.declined[declined_ghost] == 1
    rng = random.Random(1)
    red = sum(GeisterView(state, 0).determinize(rng, BELIEFS["behaviour"]).red[declined_ghost] for _ in range(300))
    uniform = sum(GeisterView(state, 0).determinize(rng, BELIEFS["uniform"]).red[declined_ghost] for _ in range(300))
    assert red > 250 and uniform < 200


# --- invariants under random play -----------------------------------------------------------
@given(st.integers(0, 2**32 - 1), st.integers(1, 120))
def test_random_play_keeps_the_state_consistent(seed, moves):
    rng = random.Random(seed)
    game = GeisterState(max_turns=100)
    for _ in range(moves):
        if game.is_terminal():
            break
        legal = game.legal_actions()
        assert legal and set(legal) == {a for a in range(NUM_ACTIONS) if game.is_legal(a)}
        game.apply(rng.choice(legal))
        for g, square in enumerate(game.pos):
            assert square < 0 or game.board[square] == g
        assert sum(1 for g in game.board if g >= 0) == sum(1 for p in game.pos if p >= 0)
        for seat in (0, 1):
            assert game.lost[seat] == [sum(1 for g in range(8 * seat, 8 * seat + 8)
                                           if game.pos[g] == CAPTURED and game.red[g] == colour)
                                       for colour in (False, True)]
        if not game.placing and not game.is_terminal():
            seat = game.current_player()
            view = GeisterView(game, seat)
            sample = view.determinize(rng, BELIEFS[rng.choice(["uniform", "nearest-blue", "behaviour"])])
            assert sample.view_key(seat) == game.view_key(seat) == view.key()
            assert sample.red.count(True) == game.red.count(True)
            assert sample.legal_actions() == game.legal_actions()  # own moves never depend on the guess


# --- the env ------------------------------------------------------------------------------
def test_api_with_fixed_placements():
    class Fixed(geister_v0.raw_env):
        def reset(self, seed=None, options=None):
            super().reset(seed, {"red": {"player_0": "ABCD", "player_1": "random"}})

    check_api(Fixed(max_turns=30), num_cycles=200, probes_reset_options=False)


def test_illegal_moves_raise_or_forfeit():
    raw = geister_v0.raw_env()
    raw.reset(seed=0, options={"red": {"player_0": "ABCD", "player_1": "ABCD"}})
    with pytest.raises(IllegalActionError, match="off the board"):
        raw.step(move("E", S))
    wrapped = geister_v0.env()
    wrapped.reset(seed=0)
    with pytest.warns(BoardzooWarning, match="illegal move"):
        wrapped.step(move("A", N))
    assert wrapped.rewards == {"player_0": -1, "player_1": 0}
    # Only the forfeiter learns why: a reason may name its hidden colours.
    assert "must first choose" in wrapped.infos["player_0"]["forfeit"]["reason"]
    assert "must first choose" not in wrapped.infos["player_1"]["forfeit"]["reason"]


def test_bad_parameters():
    with pytest.raises(ValueError, match="max_turns must be an int >= 1"):
        geister_v0.env(max_turns=0)
    with pytest.raises(ValueError, match="view must be None"):
        geister_v0.env(view="player_2")


def test_same_seed_same_game():
    records = [arena.play_game("geister_v0:max_turns=60", "mcts:iterations=20", "random", 0, 11) for _ in range(2)]
    for record in records:
        del record["decision_seconds"]
    assert records[0] == records[1]


# --- agents ----------------------------------------------------------------------------------
def test_rushing_player_escapes_when_it_can():
    text = "24R34R44R14R00B25B35B45B41r31b21b11r40r30b20b13r"
    view = GeisterView(position(text), 0)
    assert rushing_action(view, random.Random(0)) in (move("E", N), move("E", W))


def test_rushing_player_beats_random():
    summary = arena.summarize(arena.run("geister_v0", "greedy", "random", 40, seed=3))
    assert summary["a_wins"] / summary["games"] >= 0.8


def test_determinized_mcts_beats_random():
    spec = "mcts:iterations=60,rollout=forward,max_rollout=40,belief=behaviour"
    summary = arena.summarize(arena.run("geister_v0:max_turns=120", spec, "random", 12, seed=1))
    assert summary["a_wins"] / summary["games"] >= 0.75


def test_flat_monte_carlo_and_alphabeta_play_legal_geister():
    for spec in ("flatmc:playouts=3,rollout=forward,max_rollout=30,belief=nearest-blue", "alphabeta:depth=2"):
        summary = arena.summarize(arena.run("geister_v0:max_turns=60", spec, "random", 4, seed=2))
        assert summary["games"] == 4 and summary["forfeits"] == 0


def test_mcts_tree_reuse_and_nthr_work_on_information_sets():
    env = geister_v0.env()
    env.reset(seed=4, options={"red": {"player_0": "ABCD", "player_1": "EFGH"}})
    agent = make("mcts:iterations=80,reuse=true,nthr=2,rollout=forward,max_rollout=30", seed=0)
    reused = []
    for _ in range(12):
        name = env.agent_selection
        if env.terminations[name]:
            break
        if name == "player_0":
            env.step(agent.act(env.observe(name), env.unwrapped.model(name)))
            reused.append(agent.stats["reused_tree"])
        else:
            env.step(rushing_action(env.unwrapped.model(name), random.Random(0)))
    assert any(reused[1:])
    with pytest.raises(ValueError, match="solver=true needs perfect information"):
        make("mcts:solver=true").act(env.observe(env.agent_selection), env.unwrapped.model(env.agent_selection))


@given(st.integers(0, 2**32 - 1), st.integers(0, 40), st.sampled_from([0.0, 0.5, 1.0]), st.booleans())
def test_fast_playouts_follow_the_rules(seed, opening, forward, tactics):
    rng = random.Random(seed)
    game = started("ABCD", "EFGH", max_turns=150)
    for _ in range(opening):
        if game.is_terminal():
            break
        game.apply(rng.choice(game.legal_actions()))
    reference = game.clone()
    returns = game.playout(rng, forward=forward, tactics=tactics)
    assert game.is_terminal() and returns == game.returns()
    for g, square in enumerate(game.pos):
        assert square < 0 or game.board[square] == g
    # what only legal moves can produce: no red ghost escaped, no count past its colour's 4
    assert all(game.red[g] is False for g, square in enumerate(game.pos) if square == ESCAPED)
    assert game.plies <= 150 and game.lost[0][0] <= 4 and game.lost[1][1] <= 4
    assert reference.plies <= game.plies
    limited = reference.clone()
    if not limited.is_terminal():
        assert limited.playout(rng, limit=1, forward=forward, tactics=tactics) in ((0.0, 0.0), limited.returns())
        assert limited.plies == reference.plies + 1


def test_tactical_playouts_escape_and_guard_the_exits():
    # player_0's blue E stands on its exit (0, 0): the tactical play-out leaves at once
    text = "14R24R34R44R00B25B35B45B41u31u21u11u40u30u20u10u"
    for seed in range(20):
        game = position(text)
        game.red[8:] = [True] * 4 + [False] * 4
        assert game.playout(random.Random(seed), limit=1, tactics=True) == (1.0, -1.0)
    # player_1's ghost a stands on (0, 5), its exit and player_0's corner; player_0's E on
    # (1, 5) takes it, every time, where a random play-out rarely does
    text = "14R24R34R44R15B25B35B45B05u31u21u11u40u30u20u10u"
    for seed in range(20):
        game = position(text)
        game.red[8:] = [False] * 4 + [True] * 4
        game.playout(random.Random(seed), limit=1, tactics=True)
        assert game.pos[8] == CAPTURED and game.pos[4] == 5 * 6
    taken = 0
    for seed in range(20):
        game = position(text)
        game.red[8:] = [False] * 4 + [True] * 4
        game.playout(random.Random(seed), limit=1)
        taken += game.pos[8] == CAPTURED
    assert taken < 10


def test_the_fast_playout_draws_uniformly_among_legal_moves():
    game = started()
    legal = game.legal_actions()
    counts = dict.fromkeys(legal, 0)
    rng = random.Random(0)
    for _ in range(len(legal) * 400):
        one = game.clone()
        one.playout(rng, limit=1)
        moved = next(g for g in range(8) if one.pos[g] != game.pos[g])
        direction = next(d for d in range(4) if game.is_legal(4 * moved + d) and
                         (lambda c: (c.apply(4 * moved + d), c.pos[moved])[1])(game.clone()) == one.pos[moved])
        counts[4 * moved + direction] += 1
    assert set(counts) == set(legal) and min(counts.values()) > 300 and max(counts.values()) < 500


@pytest.mark.parametrize("spec", ["mcts:policy=ucbv,c=1.4,zeta=0.5,iterations=50",
                                  "mcts:policy=ucb-minimal,c1=11,c2=1,iterations=50",
                                  "mcts:time=0.02,q=wins,final=value,rollout=forward,max_rollout=20"])
def test_every_mcts_variant_searches_an_information_set(spec):
    env = geister_v0.env()
    env.reset(seed=0, options={"red": {"player_0": "ABCD", "player_1": "EFGH"}})
    agent = make(spec, seed=0)
    action = agent.act(env.observe("player_0"), env.unwrapped.model("player_0"))
    assert env.observe("player_0")["action_mask"][action] == 1
    assert agent.stats["iterations"] > 0 and sum(c["visits"] for c in agent.stats["children"]) > 0


def test_purple_belief_takes_the_worse_colour_for_us():
    """The study's "purple" view as a sample: ghosts we could take are red, so the blues
    are the far ones — the opposite of nearest-blue on the same board."""
    text = "14R24R34R44R15B25B35B45B43u33u23u13u40u30u20u10u"
    view = GeisterView(position(text), 0)
    for seed in range(5):
        sample = view.determinize(random.Random(seed), BELIEFS["purple"])
        assert sample.red[8:] == [True] * 4 + [False] * 4


def test_a_human_is_told_how_to_write_each_phase_s_moves_once():
    import io

    from boardzoo.agents.simple import HumanAgent

    out = io.StringIO()
    human = HumanAgent(stdin=io.StringIO("red ABCD\nA,X\nA north\n"), stdout=out)
    env = geister_v0.env()
    env.reset(seed=0, options={"red": {"player_1": "EFGH"}})
    env.step(human.act(env.last()[0], env.unwrapped.model("player_0")))
    env.step(env.unwrapped.model("player_1").legal_actions()[0])
    assert env.unwrapped.move_text("player_0", human.act(env.last()[0], env.unwrapped.model("player_0")),
                                   "player_0") == "moves A north"
    told = out.getvalue()
    assert told.count("how to move: choose your 4 red ghosts") == 1
    # the move help comes when moves start, and again after a move it could not read
    assert told.count("N = up (toward the opponent), S = down, E = right, W = left") == 2
    assert "'A,X' is not a Geister move" in told


# --- the learned colour model ------------------------------------------------------------------
def test_the_shipped_colour_model_loads_with_numpy_and_matches_its_features():
    from boardzoo.strategy.geister.learned import FEATURES, VERSION, load_weights, weights_path

    path = weights_path()
    assert path.name == f"colours-v{VERSION}.npz" and path.stat().st_size < 100_000
    weights = load_weights(path)
    assert len(weights) == len(FEATURES)
    with np.load(path) as data:
        assert tuple(data["features"]) == FEATURES and int(data["version"]) == VERSION


def test_colour_weights_for_other_features_are_refused(tmp_path):
    from boardzoo.strategy.geister.learned import FEATURES, load_weights

    stale = tmp_path / "old.npz"
    np.savez(stale, weights=np.zeros(len(FEATURES) - 1), features=np.array(FEATURES[:-1]))
    with pytest.raises(ValueError, match="retrain"):
        load_weights(stale)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a numpy file")
    with pytest.raises(ValueError, match="cannot read"):
        load_weights(junk)


def test_the_learned_belief_reads_a_rushing_opponent():
    # player_1 moved a..d toward us (as the rushing player does with its blues, never
    # next to our ghosts) and never moved e..h: the learned model makes a..d the likelier blues
    state = started("ABCD", "EFGH")
    rng = random.Random(0)
    for i in range(4):
        state.apply(rng.choice([a for a in state.legal_actions() if a // 4 >= 4 and a % 2]))  # sideways
        state.apply(move("ABCD"[i], N))
    assert state.advance[8:] == [1] * 4 + [0] * 4 and state.moved[12:] == [0] * 4 and not any(state.offered)
    view = GeisterView(state, 0)
    from boardzoo.strategy.geister.learned import belief_learned

    odds = belief_learned(view, view.unknown_ghosts())
    assert min(odds[:4]) > max(odds[4:])
    blue = sum(not view.determinize(rng, BELIEFS["learned"]).red[8 + i] for _ in range(200) for i in range(4))
    assert blue > 0.6 * 800  # uniform would give half


def test_the_colour_training_fits_known_weights():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parent.parent / "tools" / "train_geister_colours.py"
    spec = importlib.util.spec_from_file_location("train_geister_colours", path)
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    rng = np.random.default_rng(0)
    x = np.column_stack([np.ones(20000), rng.normal(size=(20000, 2))])
    truth = np.array([-0.5, 1.5, -2.0])
    y = (rng.random(20000) < 1 / (1 + np.exp(-x @ truth))).astype(float)
    assert np.allclose(train.fit(x, y, l2=0.0), truth, atol=0.1)
    probabilities = train.calibrated([1.0, 3.0, 0.5, 2.0], 2)
    assert abs(sum(probabilities) - 2) < 1e-6 and probabilities[1] == max(probabilities)


def test_the_offer_rates_tool_counts_what_the_boards_show(tmp_path):
    """tools/geister_offer_rates.py against a count of its own: after each move, is the
    mover's ghost next to an opponent ghost? The baiting player offers its reds and keeps
    its blues back, which the tool must see."""
    import importlib.util
    import pathlib

    from boardzoo import arena
    from boardzoo.games.geister import GeisterState
    from boardzoo.ledger import read_records

    path = pathlib.Path(__file__).parent.parent / "tools" / "geister_offer_rates.py"
    spec = importlib.util.spec_from_file_location("geister_offer_rates", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    out = tmp_path / "games.jsonl"
    arena.run("geister_v0", "policy:rollout=baiting", "greedy", 6, seed=3, out=str(out), progress=False)
    counts, skipped = tool.offer_counts([str(out)])
    expected = {"policy:rollout=baiting": [0, 0, 0, 0], "greedy": [0, 0, 0, 0]}
    for record in read_records(str(out), 100)[0]:
        state = GeisterState(200)
        seat_of_a = 0 if record["seat_of_a"] == "player_0" else 1
        for seat, action in record["moves"]:
            state.apply(action)
            if action >= 32:
                continue  # a placement
            g = 8 * seat + action // 4
            tally = expected[record["a"] if seat == seat_of_a else record["b"]]
            column = 0 if state.red[g] else 2
            tally[column + 1] += 1
            square = state.pos[g]
            if square >= 0:  # an escape is a move, not an offer
                x, y = square % 6, square // 6
                near = [state.board[(y + dy) * 6 + x + dx] for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0))
                        if 0 <= x + dx < 6 and 0 <= y + dy < 6]
                tally[column] += any(v >= 0 and v // 8 != seat for v in near)
    assert skipped == 0 and {k: list(v) for k, v in counts.items()} == expected
    red_offers, red_moves, blue_offers, blue_moves = counts["policy:rollout=baiting"]
    assert red_offers / red_moves > 0.5 > 0.2 > blue_offers / blue_moves


def test_a_member_of_the_family_is_one_object_across_copies_and_processes():
    """The code tells the classic game by identity: a copied or pickled position (a worker's,
    a vector env's) keeps its member's one shared layout, so that nothing mistakes the
    classic game for another member (the learned colour model refused it so)."""
    import copy
    import pickle

    from boardzoo.games.geister import CLASSIC, GeisterState, GeisterView, layout
    from boardzoo.strategy.geister.learned import _classic_only

    small = layout(5, 4, 2, 2, 1)
    for shape in (CLASSIC, small):
        assert copy.deepcopy(shape) is shape and pickle.loads(pickle.dumps(shape)) is shape
    state = pickle.loads(pickle.dumps(copy.deepcopy(GeisterState(40))))
    assert state.shape is CLASSIC
    assert _classic_only(GeisterView(state, 0)) is None
