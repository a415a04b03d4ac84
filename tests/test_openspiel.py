"""boardzoo's games in OpenSpiel: OpenSpiel's own checks of a game, OpenSpiel's own
tic-tac-toe and Connect Four as referees of ours, parameters through the game string,
and OpenSpiel's algorithms (MCTS, exploitability) run on them."""

import pickle
import random
from collections import Counter

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed (pip install '.[openspiel]')")

from boardzoo import envs  # noqa: E402
from boardzoo.games.registry import games  # noqa: E402
from boardzoo.interop import openspiel as adapter  # noqa: E402

#: Every game, its default and some of its variants.
EVERY_GAME = ["boardzoo_tic_tac_toe", "boardzoo_connect_four(rows=4,cols=5)", "boardzoo_connect_four",
              "boardzoo_nim(n=9,coin=true)", "boardzoo_nim(n=30,k=5)", "boardzoo_cantris",
              "boardzoo_cantris(rows=10,cols=5,bonus_turn=true)", "boardzoo_cantris(deal=halves,tile_scores=false)",
              "boardzoo_geister(max_turns=60)", "boardzoo_geister(rows=5,cols=4,blue=2,red=2,max_turns=30)",
              "boardzoo_geister(rows=3,cols=4,blue=1,red=1,max_turns=8,placement=dealt)",
              "boardzoo_geister(rows=7,cols=5,blue=3,red=2,exits=1,max_turns=40,placement=dealt)"]


def test_every_game_is_checked():
    assert {name.split("(")[0] for name in EVERY_GAME} == {f"boardzoo_{name}" for name in games()}


@pytest.mark.parametrize("name", EVERY_GAME)
def test_openspiels_own_checks_of_a_game_pass(name):
    """OpenSpiel's random-simulation test: the API's consistency over random games,
    serialising and deserialising every state on the way."""
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=5, serialize=True, verbose=False)


def test_every_game_is_registered_with_its_true_type():
    names = adapter.register()
    assert names == sorted(f"boardzoo_{name}" for name in games())
    kinds = pyspiel.GameType
    nim = pyspiel.load_game("boardzoo_nim").get_type()
    assert nim.chance_mode == kinds.ChanceMode.EXPLICIT_STOCHASTIC
    assert nim.information == kinds.Information.PERFECT_INFORMATION
    four = pyspiel.load_game("boardzoo_connect_four").get_type()
    assert four.chance_mode == kinds.ChanceMode.DETERMINISTIC and four.utility == kinds.Utility.ZERO_SUM
    assert four.dynamics == kinds.Dynamics.SEQUENTIAL and four.reward_model == kinds.RewardModel.TERMINAL


def test_parameters_pass_through_the_game_string():
    game = pyspiel.load_game("boardzoo_connect_four(rows=5,cols=6)")
    assert game.num_distinct_actions() == 6 and game.observation_tensor_shape() == [5, 6, 2]
    assert game.max_game_length() == 30
    nim = pyspiel.load_game("boardzoo_nim(n=7,k=2,coin=true)")
    assert nim.get_parameters() == {"n": 7, "k": 2, "coin": True}
    assert nim.max_chance_outcomes() == 2 and nim.num_distinct_actions() == 2
    state = nim.new_initial_state()
    state.apply_action(1)  # take 2 of 7: the coin
    assert state.is_chance_node() and state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    with pytest.raises(Exception, match="rows"):
        pyspiel.load_game("boardzoo_connect_four(rows=99)")
    with pytest.raises(Exception, match="(?i)unknown parameter 'depth'"):
        pyspiel.load_game("boardzoo_nim(depth=3)")


@pytest.mark.parametrize("ours, theirs", [("boardzoo_tic_tac_toe", "tic_tac_toe"),
                                          ("boardzoo_connect_four", "connect_four")])
def test_openspiels_own_game_referees_ours(ours, theirs):
    """Random games played move for move in OpenSpiel's C++ game and ours (the same
    action numbers): the same legal moves at every step and the same result."""
    rng = random.Random(5)
    for _ in range(40):
        a, b = pyspiel.load_game(ours).new_initial_state(), pyspiel.load_game(theirs).new_initial_state()
        while not b.is_terminal():
            assert not a.is_terminal() and a.current_player() == b.current_player()
            assert a.legal_actions() == b.legal_actions()
            action = rng.choice(b.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
        assert a.is_terminal() and a.returns() == b.returns()


def test_all_of_tic_tac_toes_states_are_openspiels():
    from open_spiel.python.algorithms.get_all_states import get_all_states

    ours = get_all_states(pyspiel.load_game("boardzoo_tic_tac_toe"), to_string=str)
    theirs = pyspiel.load_game("tic_tac_toe")
    assert len(ours) == len(get_all_states(theirs, to_string=str)) == 5478
    for state in ours.values():
        again = theirs.new_initial_state()
        for action in state.history():
            again.apply_action(action)
        assert again.returns() == state.returns() and again.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("env_name, name", [("connect_four_v0", "boardzoo_connect_four"),
                                            ("tic_tac_toe_v0", "boardzoo_tic_tac_toe"),
                                            ("nim_v0", "boardzoo_nim")])
def test_a_seats_observation_tensor_is_what_the_env_shows_it(env_name, name):
    env = envs.make(env_name)
    env.reset(seed=3)
    first = env.unwrapped.model(env.agent_selection)
    state = pyspiel.load_game(name, {"n": first.pawns} if "nim" in name else {}).new_initial_state()
    rng = random.Random(3)
    while not state.is_terminal():
        seat = state.current_player()
        observed = env.observe(env.agent_selection)["observation"]
        assert env.agent_selection.endswith(str(seat))
        assert np.array_equal(np.asarray(state.observation_tensor(seat)).reshape(observed.shape), observed)
        action = rng.choice(state.legal_actions())
        env.step(action)
        state.apply_action(action)


def test_cantris_deals_as_chance_events_as_boardzoo_deals():
    """The deal drawn tile by tile in OpenSpiel against boardzoo's own deal: the bottom
    row of a 6x3 board (where a line of three is barred) comes out alike."""
    from scipy.stats import chi2_contingency

    from boardzoo.games.cantris import deal

    rng = random.Random(7)
    game = pyspiel.load_game("boardzoo_cantris(rows=6,cols=3)")
    drawn, dealt = Counter(), Counter()
    for _ in range(6000):
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes, odds = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, odds)[0])
        drawn[tuple(state.core.board()[0])] += 1
        dealt[tuple(column[0] for column in deal(6, 3, rng))] += 1
    assert all(len(set(row)) > 1 for row in drawn)  # never a line of three
    cells = sorted(set(drawn) | set(dealt))
    assert len(cells) == 24
    assert chi2_contingency([[drawn[c] for c in cells], [dealt[c] for c in cells]]).pvalue > 0.001


def test_states_clone_pickle_and_serialise_to_the_same_game():
    game = pyspiel.load_game("boardzoo_nim(n=11,coin=true)")
    state = game.new_initial_state()
    for action in (2, 1, 0):
        state.apply_action(action)
    for copy in (state.clone(), pickle.loads(pickle.dumps(state)),
                 pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]):
        assert copy.history() == state.history() and str(copy) == str(state)
        copy.apply_action(copy.legal_actions()[0] if not copy.is_chance_node() else 0)
        assert copy.history() != state.history()  # an independent copy


def test_openspiels_mcts_plays_our_connect_four():
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("boardzoo_connect_four")
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = mcts.MCTSBot(game, uct_c=2, max_simulations=200, evaluator=evaluator,
                       random_state=np.random.RandomState(2))
    rng = random.Random(4)
    won = 0
    for game_number in range(4):
        state = game.new_initial_state()
        seat = game_number % 2
        while not state.is_terminal():
            state.apply_action(bot.step(state) if state.current_player() == seat else rng.choice(state.legal_actions()))
        won += state.returns()[seat] == 1
    assert won >= 3


def test_openspiels_exploitability_of_a_perfect_player_is_zero():
    """Plain Nim, small enough for OpenSpiel's exact best response: source 000's greedy
    rule (leave a multiple of k+1) is perfect play, so nothing exploits it; the uniform
    player is exploitable."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.load_game("boardzoo_nim(n=15,k=3)")
    greedy = policy.TabularPolicy(game)
    for index, state in enumerate(greedy.states):
        greedy.action_probability_array[index] = 0.0
        greedy.action_probability_array[index, state.core.greedy_action(random.Random(0))] = 1.0
    assert exploitability.exploitability(game, greedy) == pytest.approx(0.0, abs=1e-12)
    assert exploitability.exploitability(game, policy.UniformRandomPolicy(game)) > 0.1


def test_an_openspiel_policy_is_measured_alike_by_both_libraries():
    """OpenSpiel's CFR+ on the smallest Geister: its average strategy carried into
    boardzoo's tree is exactly as exploitable by boardzoo's measure as by OpenSpiel's."""
    from open_spiel.python.algorithms import cfr
    from open_spiel.python.algorithms import exploitability as spiel_exploitability

    from boardzoo.exploitability import build_tree, exploitability

    params = {"rows": 3, "cols": 4, "blue": 1, "red": 1, "max_turns": 4, "placement": "dealt"}
    game = pyspiel.load_game("boardzoo_geister", params)
    solver = cfr.CFRPlusSolver(game)
    for _ in range(5):
        solver.evaluate_and_update_policy()
    tree = build_tree("geister", **params)
    theirs = spiel_exploitability.exploitability(game, solver.average_policy())
    assert exploitability(tree, adapter.tabular_policy(tree, game, solver.average_policy())) == pytest.approx(
        theirs, abs=1e-9)
    with pytest.raises(ValueError, match="cannot play geister"):
        adapter.tabular_policy(tree, pyspiel.load_game("boardzoo_nim"), solver.average_policy())


def test_a_geister_seats_information_state_is_its_own_observations_and_views_only():
    """Perfect recall: a seat's information state tensor is its env observations, a row a
    position, and its string its views; two games that differ only in the opponent's
    hidden colours give the seat the same information state, and its own colours differ."""
    params = {"rows": 5, "cols": 4, "blue": 2, "red": 2, "max_turns": 10}
    game = pyspiel.load_game("boardzoo_geister", params)
    size = game.observation_tensor_size()
    assert game.information_state_tensor_shape() == [game.max_game_length() + 1, size]
    rng = random.Random(2)
    placements = [game.new_initial_state().legal_actions()[k] for k in (0, 5)]
    moves = []
    state = game.new_initial_state()
    state.apply_action(placements[0])
    state.apply_action(placements[0])
    def lands_on_an_empty_square(core, action):
        shape = core.shape
        square = core.pos[shape.ghosts * core.player + action // 4]
        target = shape.target[core.player][square][action % 4]
        return target is not None and target >= 0 and core.board[target] < 0

    for _ in range(6):  # no capture: a capture makes the taken ghost's colour public
        quiet = [a for a in state.legal_actions() if lands_on_an_empty_square(state.core, a)]
        if state.is_terminal() or not quiet:
            break
        moves.append(rng.choice(quiet))
        state.apply_action(moves[-1])
    assert len(moves) >= 4

    def played(second_placement):
        other = game.new_initial_state()
        for action in [placements[0], second_placement, *moves]:
            other.apply_action(action)
        return other

    same, recoloured = played(placements[0]), played(placements[1])
    rows = np.array(same.information_state_tensor(0)).reshape(-1, size)
    seen = len(same.history()) + 1
    assert not rows[seen:].any() and rows[:seen].any(axis=1).all()
    assert np.array_equal(rows[seen - 1], same.observation_tensor(0))
    assert same.information_state_tensor(0) == recoloured.information_state_tensor(0)
    assert same.information_state_string(0) == recoloured.information_state_string(0)
    assert same.observation_string(0) == recoloured.observation_string(0)
    assert same.information_state_string(1) != recoloured.information_state_string(1)
