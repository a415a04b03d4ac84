"""Gumbel AlphaZero's search compiled (boardzoo/fast/gumbel.py): held to its plain
reference simulation for simulation, batched against one game at a time, the halving
schedule against a worked example, and what it finds and refuses."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")

from gumbel_reference import gumbel_search, halving_schedule  # noqa: E402

from boardzoo.fast.cached_evaluator import CachedEvaluator  # noqa: E402
from boardzoo.fast.core import core_of  # noqa: E402
from boardzoo.fast.gumbel import BatchedGumbelSearch, considered_visits  # noqa: E402
from boardzoo.games.registry import game  # noqa: E402

GAMES = {"connect_four": {}, "cantris": {"rows": 6, "cols": 3, "bonus_turn": True}, "nim": {"k": 3}}
LARGEST_PILE = 60


def encode(state) -> np.ndarray:
    """The compiled array of a Python position."""
    return core_of(state.game_name).encode(state)


def random_position(name: str, rng: random.Random):
    """A position someone is to move in, a few random moves into a game."""
    while True:
        state = game(name).new_initial_state(rng, **GAMES[name], **({"n": rng.randint(5, 40)}
                                                                      if name == "nim" else {}))
        for _ in range(rng.randint(0, 12)):
            if state.current_player() < 0:
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.current_player() >= 0:
            return state


class RowEvaluator:
    """A fixed random linear evaluator, row by row, so a row's output never depends on
    the batch it is evaluated in (a matrix product over a batch may round differently)."""

    def __init__(self, size: int, actions: int, seed: int):
        rng = np.random.default_rng(seed)
        self.weights = rng.normal(size=(size, actions)).astype(np.float32)
        self.value = rng.normal(size=size).astype(np.float32) * 0.3

    def __call__(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = inputs.reshape(len(inputs), -1)
        logits = np.stack([row @ self.weights for row in flat]).astype(np.float32)
        values = np.array([np.tanh(row @ self.value) for row in flat], dtype=np.float32)
        return logits, values


def shape_of(name: str, state) -> tuple[int, ...]:
    return game(name).input_shape(state, LARGEST_PILE)


def test_the_halving_schedule_is_the_worked_example():
    # Four actions, eight simulations: two rounds; each of the four once, then the best two twice each.
    assert considered_visits(4, 8)[4].tolist() == [0, 0, 0, 0, 1, 1, 2, 2]
    assert halving_schedule(4, 8) == [0, 0, 0, 0, 1, 1, 2, 2]
    assert considered_visits(1, 5)[1].tolist() == [0, 1, 2, 3, 4]
    for m in range(1, 9):
        for n in (1, 7, 32, 100):
            assert considered_visits(8, n)[m].tolist()[:n] == halving_schedule(m, n)


@pytest.mark.parametrize("name", list(GAMES))
def test_the_compiled_search_is_the_reference_simulation_for_simulation(name):
    rng = random.Random(7)
    for trial in range(6):
        state = random_position(name, rng)
        shape = shape_of(name, state)
        evaluate = RowEvaluator(int(np.prod(shape)), state.num_actions, trial)
        gumbel = np.random.default_rng(trial).gumbel(size=state.num_actions)
        simulations = [1, 5, 16, 40][trial % 4]

        def of_state(position, shape=shape, evaluate=evaluate):
            inputs = np.zeros(int(np.prod(shape)), dtype=np.float32)
            core_of(name).write_input(encode(position), inputs)
            logits, values = evaluate(inputs[None])
            return logits[0], values[0]

        action, policy, value = gumbel_search(state, of_state, simulations, gumbel, max_considered=4)
        search = BatchedGumbelSearch(name, state.num_actions, shape, len(encode(state)), 1,
                                     max_considered=4, capacity=4)
        result = search.run(encode(state)[None], evaluate, simulations, gumbel=gumbel[None])
        assert result.actions[0] == action
        np.testing.assert_allclose(result.policy[0], policy, atol=1e-9)
        assert result.values[0] == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize("name", list(GAMES))
def test_a_search_whose_sweeps_run_at_once_is_the_search_one_simulation_at_a_time(name):
    rng = random.Random(13)
    for trial in range(8):
        state = random_position(name, rng)
        shape = shape_of(name, state)
        row_evaluator = RowEvaluator(int(np.prod(shape)), state.num_actions, trial)
        calls = []

        def evaluate(inputs, row_evaluator=row_evaluator, calls=calls):
            calls.append(len(inputs))
            return row_evaluator(inputs)
        gumbel = np.random.default_rng(trial).gumbel(size=(1, state.num_actions))
        simulations, considered = [(16, 16), (50, 4), (200, 16), (7, 2), (100, 8), (1, 16), (33, 3), (64, 16)][trial]
        results = {}
        for sweeps in (True, False):
            calls.clear()
            search = BatchedGumbelSearch(name, state.num_actions, shape, len(encode(state)), 1,
                                         max_considered=considered, capacity=1)  # grown by whole sweeps
            results[sweeps] = (search.run(encode(state)[None], evaluate, simulations, gumbel=gumbel, sweeps=sweeps),
                               len(calls), sum(calls), search.tree.edge_n[0, 0].copy(), int(search.tree.used[0]))
        (swept, swept_calls, swept_leaves, swept_visits, swept_size), (alone, alone_calls, alone_leaves, visits, size) \
            = results[True], results[False]
        assert swept.actions[0] == alone.actions[0] and swept.simulations == alone.simulations == simulations
        np.testing.assert_array_equal(swept.policy[0], alone.policy[0])
        assert swept.values[0] == alone.values[0]
        np.testing.assert_array_equal(swept_visits, visits)
        assert swept_size == size and swept_leaves == alone_leaves  # the same nodes, the same questions
        legal = len(state.legal_actions())
        if simulations >= 2 * min(considered, legal) and min(considered, legal) > 1:  # a sweep at least
            assert swept_calls < alone_calls


@pytest.mark.parametrize("name", list(GAMES))
def test_a_batch_of_searches_is_each_search_alone(name):
    rng = random.Random(3)
    states = [random_position(name, rng) for _ in range(9)]
    if name == "cantris":  # one board size a batch: the deals differ, the size does not
        states = [s for s in states if (s.rows, s.cols) == (states[0].rows, states[0].cols)]
    roots = np.stack([encode(s) for s in states])
    shape = shape_of(name, states[0])
    actions = states[0].num_actions
    evaluate = RowEvaluator(int(np.prod(shape)), actions, 11)
    noise = np.random.default_rng(5).gumbel(size=(len(states), actions))
    batched = BatchedGumbelSearch(name, actions, shape, roots.shape[1], len(states), capacity=8)
    together = batched.run(roots, evaluate, 24, gumbel=noise)
    for i in range(len(states)):
        alone = BatchedGumbelSearch(name, actions, shape, roots.shape[1], 1, capacity=2)
        single = alone.run(roots[i:i + 1], evaluate, 24, gumbel=noise[i:i + 1])
        assert single.actions[0] == together.actions[i]
        np.testing.assert_array_equal(single.policy[0], together.policy[i])
        assert single.values[0] == together.values[i]


@given(batches=st.lists(st.lists(st.integers(0, 11), min_size=1, max_size=9), min_size=1, max_size=12),
       capacity=st.integers(1, 14), binary=st.booleans())
def test_the_cache_answers_as_the_network_would_and_asks_it_only_about_the_new(batches, capacity, binary):
    rng = np.random.default_rng(0)
    pool = rng.integers(0, 2, (12, 3, 2, 2)).astype(np.float32) if binary else rng.normal(size=(12, 3, 2, 2))
    pool = np.unique(pool.astype(np.float32), axis=0)  # distinct positions, each a key of its own
    network = RowEvaluator(12, 5, 1)
    asked: list[bytes] = []
    cached = CachedEvaluator(lambda inputs: (asked.extend(row.tobytes() for row in inputs), network(inputs))[1],
                             capacity)
    for batch in batches:
        inputs = pool[[i % len(pool) for i in batch]]
        (logits, values), (want_logits, want_values) = cached(inputs), network(inputs)
        np.testing.assert_array_equal(logits, want_logits)
        np.testing.assert_array_equal(values, want_values)
    everything = [i % len(pool) for batch in batches for i in batch]
    assert cached.asked == len(everything) and cached.evaluated == len(asked)
    if capacity >= len(pool):  # nothing forgotten: each position asked about once
        assert sorted(asked) == sorted(pool[i].tobytes() for i in set(everything))


def test_a_search_behind_the_cache_is_the_search_without_it():
    rng = random.Random(4)
    states = [random_position("connect_four", rng) for _ in range(6)]
    roots = np.stack([encode(s) for s in states])
    shape = shape_of("connect_four", states[0])
    evaluate = RowEvaluator(int(np.prod(shape)), 7, 2)
    cached = CachedEvaluator(evaluate, 1000)
    plain = BatchedGumbelSearch("connect_four", 7, shape, roots.shape[1], len(states), capacity=8)
    remembering = BatchedGumbelSearch("connect_four", 7, shape, roots.shape[1], len(states), capacity=8)
    for move in range(3):  # later searches meet positions the earlier ones asked about
        noise = np.random.default_rng(move).gumbel(size=(len(states), 7))
        want, got = plain.run(roots, evaluate, 24, gumbel=noise), remembering.run(roots, cached, 24, gumbel=noise)
        np.testing.assert_array_equal(got.actions, want.actions)
        np.testing.assert_array_equal(got.policy, want.policy)
        np.testing.assert_array_equal(got.values, want.values)
    assert cached.evaluated < cached.asked / 2


def test_the_search_finds_a_win_and_a_block_with_an_uninformed_network():
    uninformed = lambda inputs: (np.zeros((len(inputs), 7), np.float32), np.zeros(len(inputs), np.float32))  # noqa: E731
    connect_four = game("connect_four")
    for moves, best in (("1212120", 1), ("0103030", 0)):  # player 0 wins in column 1 / must block column 0
        state = connect_four.new_initial_state()
        for move in moves[:-1]:
            state.apply(int(move))
        search = BatchedGumbelSearch("connect_four", 7, (3, 6, 7), len(encode(state)), 1)
        result = search.run(encode(state)[None], uninformed, 200)
        assert result.actions[0] == best, moves


def test_a_search_deeper_than_its_first_paths_grows_them():
    # Nim with a pile of 900: a simulation may walk 900 plies (one pawn a move), past the
    # paths first allocated; the paths grow before the search, whatever the pile.
    state = game("nim").new_initial_state(n=900, k=1)
    greedy = lambda inputs: (np.zeros((len(inputs), 1), np.float32), np.zeros(len(inputs), np.float32))  # noqa: E731
    search = BatchedGumbelSearch("nim", 1, (901,), len(encode(state)), 1)
    result = search.run(encode(state)[None], greedy, 950)
    assert search.sims.path_nodes.shape[1] >= 901 and search.tree.node_n[0, 0] == 951
    # One line of 900 moves: the 900th simulation reaches the end (the second player takes
    # the last pawn), and so do the 50 after it; the 899 before it back up the network's 0.
    assert search.tree.used[0] == 901 and search.tree.edge_w[0, 0, 0] == -51
    assert result.values[0] == pytest.approx(-51 / 950)  # the mover, player 0, loses


def test_the_search_refuses_positions_its_inputs_cannot_hold():
    state = encode(game("connect_four").new_initial_state(rows=5, cols=6))
    search = BatchedGumbelSearch("connect_four", 6, (3, 6, 7), len(state), 1)
    with pytest.raises(ValueError, match="do not fit these positions"):
        search.run(state[None], RowEvaluator(126, 6, 0), 4)
    pile = encode(game("nim").new_initial_state(n=61, k=3))
    search = BatchedGumbelSearch("nim", 3, (61,), len(pile), 1)
    with pytest.raises(ValueError, match="beyond the largest"):
        search.run(pile[None], RowEvaluator(61, 3, 0), 4)
