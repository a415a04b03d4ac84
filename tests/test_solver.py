"""The exact Connect Four solver and `boardzoo solve`: scores against positions whose
values are derived by hand or by an independent exhaustive search."""

import pathlib
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from boardzoo.cli import main
from boardzoo.games import ConnectFourState
from boardzoo.strategy.connect_four import make_solver
from boardzoo.strategy.connect_four.solver import InvalidPosition, Solver, parse_moves, remaining_moves

DATA = pathlib.Path(__file__).parent.parent / "bench" / "data" / "connect_four_positions.txt"


def move_value(state: ConnectFourState, column: int, score_of) -> int:
    """The score of playing ``column``: an immediate win's, a full board's 0, or minus the
    score (``score_of``) of the position it leaves."""
    child = state.clone()
    child.apply(column)
    if child.winner >= 0:
        return (state.geo.cells + 1 - state.plies) // 2
    if child.is_terminal():
        return 0
    return -score_of(child)


def exhaustive_score(state: ConnectFourState) -> int:
    """Plain negamax over the whole remaining tree, memoised on the position: no bounds,
    no move ordering, nothing shared with the solver but the rules."""
    memo: dict[int, int] = {}

    def score(position: ConnectFourState) -> int:
        key = position.key()
        if key not in memo:
            memo[key] = max(move_value(position, column, score) for column in position.legal_actions())
        return memo[key]

    return score(state)


def random_position(seed: int, low: int, high: int) -> ConnectFourState | None:
    """A random unfinished position of ``low``..``high`` discs: moves that would end the
    game are avoided, so almost every seed gives one (None only when every move ends it)."""
    rng = random.Random(seed)
    state = ConnectFourState()
    target = rng.randint(low, high)
    while state.plies < target:
        going_on = []
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            if not child.is_terminal():
                going_on.append(child)
        if not going_on:
            return None
        state = going_on[rng.randrange(len(going_on))]
    return state


#: One solver for the property tests: its table is allocated once (and kept small).
SOLVER = Solver(memory_mb=16)


# --- worked examples ---------------------------------------------------------------------
@pytest.mark.parametrize("moves, score, why", [
    ("445566", 18, "X wins at once with its 4th disc (move 7): 22 - 4"),
    ("4455", 18, "X makes an open three on the bottom row and wins with its 4th disc"),
    ("44556", -18, "O cannot stop X's open three: X wins with its 4th disc"),
    ("4455661", -17, "X left two threats (columns 3 and 7) open: O blocks one, X wins with its 5th disc"),
])
def test_hand_derived_scores(moves, score, why):
    assert Solver().solve(parse_moves(moves)) == score, why


def test_forced_loss_and_near_full_draws():
    # the draw pattern of test_connect_four (no four anywhere) with the last k discs removed
    full = [0, 2, 1, 3, 4, 6, 5] * 6
    for k in range(1, 9):
        moves = "".join(str(c + 1) for c in full[:-k])
        assert Solver().solve(parse_moves(moves)) == 0, k


@settings(max_examples=25)
@given(st.integers(0, 10**9))
def test_end_game_scores_equal_an_exhaustive_search(seed):
    state = random_position(seed, 30, 41)
    assume(state is not None)  # every example counts: no silent early return
    assert SOLVER.solve(state) == exhaustive_score(state)


@settings(max_examples=15)
@given(st.integers(0, 10**9))
def test_middle_game_scores_are_consistent_with_their_children(seed):
    """score(P) = max over moves of (an immediate win's score, or -score(child))."""
    state = random_position(seed, 22, 30)
    assume(state is not None)
    best = max(move_value(state, column, SOLVER.solve) for column in state.legal_actions())
    assert SOLVER.solve(state) == best


@settings(max_examples=15)
@given(st.integers(0, 10**9), st.sampled_from(["python", "compiled"]))
def test_at_least_answers_as_the_exact_score_does(seed, engine):
    """One null-window search says whether the score reaches a threshold: the same answer
    as the exact score's at every threshold, on both engines, with a table warm or cold."""
    if engine == "compiled":
        pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")
    state = random_position(seed, 16, 30)
    assume(state is not None)
    solver = make_solver(engine, memory_mb=16)
    thresholds = range(-22, 23, 3)
    answers = [solver.at_least(state, threshold) for threshold in thresholds]
    score = solver.solve(state)
    assert answers == [score >= threshold for threshold in thresholds]


def test_benchmark_end_game_scores_agree_with_an_exhaustive_search():
    lines = [line.split() for line in DATA.read_text().splitlines() if line.startswith("end ")]
    # The exhaustive search is quick from 32 discs on: check 13 of those, spread over the set.
    deep = [(moves, int(score)) for _, moves, score in lines if len(moves) >= 32]
    assert len(deep) >= 13
    for moves, score in deep[:: len(deep) // 13][:13]:
        assert exhaustive_score(parse_moves(moves)) == score, moves


def test_remaining_moves():
    assert remaining_moves(18, 6) == 1   # win with the next disc
    assert remaining_moves(-18, 5) == 2  # O to move loses to X's 4th disc, two moves on
    assert remaining_moves(0, 30) == 12
    assert remaining_moves(1, 0) == 41   # the first player wins with its 21st disc


@pytest.mark.parametrize("moves, message", [
    ("44x", "move 3 is 'x', not a column from 1 to 7"),
    ("48", "move 2 is '8', not a column from 1 to 7"),
    ("4444444", "move 7 plays column 4, which is full"),
    ("1212121", "the game is over"),
    ("12121213", "the game is already over before move 8"),
])
def test_invalid_positions(moves, message):
    with pytest.raises(InvalidPosition, match=message):
        parse_moves(moves)


def test_cli_solve_reads_stdin_ignores_extra_fields_and_reports_bad_lines(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("445566 18\n\n44x\n1212121 whatever\n44556\n"))
    assert main(["solve", "connect_four"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "445566 18",
        "44x error: move 3 is 'x', not a column from 1 to 7",
        "1212121 error: the game is over: a finished position has no score to solve",
        "44556 -18",
    ]


def test_cli_solve_arguments_and_verbose(capsys):
    assert main(["solve", "connect_four", "445566", "4455", "--verbose"]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert first.split()[:2] == ["445566", "18"] and second.split()[:2] == ["4455", "18"]
    nodes, ms = second.split()[2:]
    assert nodes.startswith("nodes=") and int(nodes[6:]) > 0 and ms.startswith("ms=") and float(ms[3:]) >= 0


@pytest.mark.parametrize("rows, cols", [(4, 4), pytest.param(4, 5, marks=pytest.mark.slow),
                                        pytest.param(5, 4, marks=pytest.mark.slow)])
def test_the_empty_board_is_solved_like_any_position(rows, cols):
    # The empty board's key is 0: an empty table slot must not read as its entry.
    empty = parse_moves("", rows, cols)
    assert Solver(rows, cols).solve(empty) == exhaustive_score(empty)


MISTAKE_SETS = pathlib.Path(__file__).parent.parent / "bench" / "data" / "connect_four_mistake_sets.txt"
#: bench/make_mistake_sets.py's sets: (fewest discs, most discs, fewest moves left, most moves left).
MISTAKE_SET_RANGES = {"end-easy": (28, 41, 0, 13), "middle-easy": (14, 27, 0, 13), "middle-medium": (14, 27, 14, 27),
                      "begin-easy": (6, 13, 0, 13), "begin-medium": (6, 13, 14, 27), "begin-hard": (6, 13, 28, 42)}


@pytest.mark.skipif(not MISTAKE_SETS.exists(), reason="the mistake-rate sets are not generated yet")
def test_the_mistake_sets_hold_what_their_lines_say():
    """Every line: a position of its set's range, its score the best of its moves' scores,
    exactly the full columns marked '.'; a spread of the quicker positions re-solved."""
    lines = [line.split() for line in MISTAKE_SETS.read_text().splitlines()]
    assert lines and len({fields[1] for fields in lines}) == len(lines)  # no position twice
    for name, moves, score, *values in lines:
        state = parse_moves(moves)
        low, high, fewest, most = MISTAKE_SET_RANGES[name]
        assert low <= state.plies <= high and fewest <= remaining_moves(int(score), state.plies) <= most
        assert [v == "." for v in values] == [not state.is_legal(c) for c in range(7)]
        assert int(score) == max(int(v) for v in values if v != ".")
    quick = [fields for fields in lines if len(fields[1]) >= 14]
    solver = make_solver()  # compiled where installed: the scores are exact either way
    for _name, moves, _score, *values in quick[:: max(1, len(quick) // 10)][:10]:
        state = parse_moves(moves)
        for column in state.legal_actions():
            assert move_value(state, column, solver.solve) == int(values[column]), (moves, column)
