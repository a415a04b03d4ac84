"""The compiled engine against the Python reference: the same rules move by move, the
same exact solver scores, the same search statistics, equal strength at equal iterations.

Skipped as a whole when the ``fast`` extra (numba) is not installed; CI installs it."""

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from purple_positions import random_position

pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")

from boardzoo import (
    arena,  # noqa: E402
    envs,
)
from boardzoo.agents import make  # noqa: E402
from boardzoo.errors import SpecError  # noqa: E402
from boardzoo.fast import rollouts  # noqa: E402
from boardzoo.fast.core import core_of, kernels_for  # noqa: E402
from boardzoo.games import ConnectFourState, NimState  # noqa: E402
from boardzoo.games.geister.rules import GeisterState  # noqa: E402
from boardzoo.games.model import CHANCE, TERMINAL  # noqa: E402
from boardzoo.games.model import play_out as python_play_out  # noqa: E402
from boardzoo.games.registry import variants  # noqa: E402
from boardzoo.stats import wilson  # noqa: E402
from boardzoo.strategy.connect_four.compiled_solver import CompiledSolver  # noqa: E402
from boardzoo.strategy.connect_four.solver import Solver, parse_moves  # noqa: E402
from boardzoo.strategy.geister.compiled_purple import CompiledPurpleSearch  # noqa: E402
from boardzoo.strategy.geister.purple import PurpleSearch  # noqa: E402
from boardzoo.strategy.geister.purple_position import Position, board_key, squares_of  # noqa: E402
from boardzoo.strategy.knowledge import knowledge_of  # noqa: E402

#: Every variant of every game the compiled engine has, from the game registry.
VARIANTS = {name: (lambda seed, game=game, key=key: game.variant_state(key, random.Random(seed)))
            for name, (game, key) in variants().items() if game.compiled_core is not None}
GAMES = {"geister": 300}  # Geister games are long: fewer of them, ~30,000 moves all told


# --- the rules, move by move ------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_compiled_cores_play_the_same_games(variant):
    """Thousands of random games on both cores: after every move the compiled position
    equals the Python one's encoding (so pieces, scores, whose turn, the winner), the
    legal moves agree in order (increasing, as a mask lists them), and so do the player
    to move and the returns."""
    moves = np.empty(128, dtype=np.int64)
    checked = 0
    for seed in range(GAMES.get(variant, 1000)):
        state = VARIANTS[variant](seed)
        core = kernels_for(state).core
        compiled = core.encode(state)
        rng = random.Random(seed)
        while True:
            player = state.current_player()
            assert core.current_player(compiled) == player
            assert core.returns0(compiled) == state.returns()[0]
            if player == TERMINAL:
                break
            n = core.legal_actions(compiled, moves)
            legal = state.legal_actions()
            assert list(moves[:n]) == legal
            assert all(a < b for a, b in zip(legal, legal[1:]))  # the mask's order (the one-call step's draws)
            action = state.sample_chance(rng) if player == CHANCE else rng.choice(legal)
            state.apply(action)
            core.apply(compiled, action)
            assert np.array_equal(compiled, core.encode(state)), (variant, seed)
            checked += 1
    assert checked > 5000


@pytest.mark.parametrize("variant, policy", [("connect_four", "random"), ("cantris-10x5-bonus", "random"),
                                             ("nim-coin", "random"), ("nim", "strategic"),
                                             ("geister", "random"), ("geister", "forward"),
                                             ("geister", "rushing"), ("geister", "baiting")])
def test_compiled_rollouts_score_like_the_python_ones(variant, policy):
    """Roll-outs from one position by both engines: the mean returns agree (a two-sample
    z-test at |z| < 4 over 3,000 roll-outs each)."""
    start = VARIANTS[variant](7)
    python_rng = random.Random(1)
    searcher = start.current_player() if policy in knowledge_of(start).searcher_only else -1
    leaf = rollouts.compiled_rollout(start.game_name, policy, 0, random.Random(2), searcher)
    from boardzoo.agents.mcts.evaluation import rollout_function

    python_leaf = rollout_function(start, policy, python_rng)
    n = 3000
    ours = [leaf(start.clone())[0] for _ in range(n)]
    theirs = [python_leaf(start.clone())[0] for _ in range(n)]
    spread = math.sqrt((np.var(ours) + np.var(theirs)) / n) or 1e-9
    assert abs(np.mean(ours) - np.mean(theirs)) / spread < 4, (np.mean(ours), np.mean(theirs))


@given(st.integers(0, 40), st.integers(0, 2**63 - 1))
@settings(max_examples=60, deadline=None)
def test_the_compiled_shuffle_draws_as_numpy_does(length, seed):
    """Same order, and the generator left where NumPy's own shuffle leaves it (a Cantris
    deal is shuffle after shuffle: one draw apart and every later deal differs)."""
    from boardzoo.jit import shuffle

    ours, theirs = np.arange(length) * 3, np.arange(length) * 3
    ours_rng, theirs_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    shuffle(ours, ours_rng)
    theirs_rng.shuffle(theirs)
    assert ours.tolist() == theirs.tolist()
    assert ours_rng.integers(2**62) == theirs_rng.integers(2**62)


def test_a_rollout_limit_scores_a_draw():
    leaf = rollouts.compiled_rollout("connect_four", "random", 3, random.Random(0), 0)
    assert all(leaf(ConnectFourState()) == (0.0, 0.0) for _ in range(50))  # no four in three moves
    nim = rollouts.compiled_rollout("nim", "strategic", 0, random.Random(0), 0)
    # 21 pawns, k = 3: the searcher to move leaves multiples of 4 and always wins
    assert all(nim(NimState(21, 3)) == (1.0, -1.0) for _ in range(50))
    # the rule steers the searcher only: from 20 pawns (a loss against perfect play) the
    # searcher still wins whenever the random opponent fails to leave a multiple of 4
    losing = rollouts.compiled_rollout("nim", "strategic", 0, random.Random(0), 0)
    assert sum(losing(NimState(20, 3))[0] > 0 for _ in range(600)) > 400
    assert python_play_out(NimState(21, 3), random.Random(0), NimState.strategic_action) == (1.0, -1.0)


# --- the solver -------------------------------------------------------------------------------------
@pytest.mark.matrix
def test_compiled_and_python_solvers_agree():
    from test_solver import DATA, random_position

    compiled, python = CompiledSolver(memory_mb=64), Solver(memory_mb=64)
    positions = [line.split()[1] for line in DATA.read_text().splitlines()]
    for moves in positions[::3]:
        state = parse_moves(moves)
        assert compiled.solve(state) == python.solve(state), moves
    for seed in range(150):
        state = random_position(seed, 16, 40)
        if state is not None and not state.winning_columns(state.plies & 1):
            assert compiled.solve(state) == python.solve(state), seed


def test_the_compiled_solver_keeps_to_its_memory_and_reports_progress():
    from boardzoo.errors import BudgetError

    assert 3.5 * 2**20 < CompiledSolver(memory_mb=4).table_bytes() <= 4 * 2**20
    seen = []
    # 2 s, not less: its chunks of nodes double, and on a busy machine the first ones can
    # take half a second, so a shorter budget may end after a single progress report
    solver = CompiledSolver(timeout=2.0, progress=lambda nodes, seconds, low, high: seen.append((nodes, low, high)))
    with pytest.raises(BudgetError, match=r"no exact score within 2 s .* between -?\d+ and -?\d+"):
        solver.solve(parse_moves("44"))
    assert len(seen) >= 2 and seen[-1][0] > seen[0][0] and all(low <= high for _, low, high in seen)
    tiny = CompiledSolver(memory_mb=1)  # slots overwritten all the time: slower, still exact
    assert tiny.solve(parse_moves("21146345777762137235")) == -11


# --- the search ---------------------------------------------------------------------------------------
COMPILED_OPTIONS = [
    "", "policy=ucbv,c=1.0,zeta=0.5", "policy=ucb-minimal,c1=11,c2=1", "q=wins", "final=value,c_final=0.5",
    "nthr=3", "reuse=true", "nthr=2,reuse=true,q=wins,policy=ucbv", "max_rollout=5", "time=0.02", "q=score",
]


@pytest.mark.parametrize("options", COMPILED_OPTIONS)
@pytest.mark.parametrize("env", ["nim_v0:n=25", "nim_v0:n=25,coin=true", "connect_four_v0", "cantris_v0:board=10x5"])
def test_compiled_mcts_plays_every_option_with_consistent_statistics(env, options):
    spec = f"mcts:engine=compiled,iterations=300,{options}".rstrip(",")
    if env.startswith("nim") and "max_rollout" not in options:
        spec += ",rollout=strategic" if "q=wins" in options else ""
    game = envs.make(env)
    agent = make(spec, seed=5)
    agent.reset(5)
    game.reset(seed=5)
    decisions = 0
    for name in game.agent_iter():
        observation, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            game.step(None)
            continue
        model = game.unwrapped.model(name)
        action = agent.act(observation, model)
        assert model.is_legal(action)
        stats = agent.stats
        children = stats["children"]
        assert stats["action"] == action and children
        # every iteration of this search passed through exactly one root child
        visits = sum(c["visits"] for c in children)
        if stats["reused_tree"]:
            assert stats["iterations"] <= visits <= stats["root_visits"]
        else:
            assert stats["root_visits"] == stats["iterations"] == visits
        assert stats["tree_size"] >= 1 + len(children)
        assert stats["path_max"] >= 1
        decisions += 1
        game.step(action)
    assert decisions


def test_the_compiled_tree_counts_its_nodes():
    from boardzoo.fast.mcts import CREATED
    from boardzoo.fast.tree import CompiledTree, settings_array

    for expands_all in (False, True):
        settings = settings_array("nim", "ucb1", {}, "win-lose", 2 if expands_all else 0, expands_all,
                                  "random", 0)
        tree = CompiledTree(NimState(40, 3, coin=True), settings, random.Random(0))
        tree.open_root()
        tree.search(2000, None)
        created, stack = 0, [tree.root]
        while stack:
            row = stack.pop()
            created += 1
            stack.extend(tree.children(row))
        assert created == tree.size == int(tree.ints[: tree.meta[0], CREATED].sum()) + 1
        assert tree.ints[tree.root, 6] == 2000  # visits


@pytest.mark.parametrize("variant", ["nim-coin", "connect_four", "cantris-10x5-bonus"])
def test_compiled_leaf_depths_match_the_python_walk(variant):
    """The compiled walk finds the leaves (and their depths) the reference walk finds."""
    from boardzoo.agents.mcts.tree import leaf_depths
    from boardzoo.fast.tree import CompiledTree, settings_array

    state = VARIANTS[variant](3)
    for expands_all in (False, True):
        settings = settings_array(state.game_name, "ucb1", {}, "win-lose", 3 if expands_all else 0, expands_all,
                                  "random", 0)
        tree = CompiledTree(state, settings, random.Random(1))
        tree.open_root()
        tree.search(3000, None)
        compiled = tree.leaf_depths()
        assert sorted(compiled.tolist()) == sorted(leaf_depths(tree.root, tree.children))
        assert compiled.max() >= 2


def test_compiled_mcts_is_seeded():
    moves = []
    for _ in range(2):
        agent = make("mcts:engine=compiled,iterations=200", seed=11)
        state = ConnectFourState()
        played = []
        while not state.is_terminal():
            action = agent.act({}, state)
            played.append(action)
            state.apply(action)
        moves.append(played)
    assert moves[0] == moves[1]


def test_warming_up_leaves_the_compiled_games_as_they_were():
    """warm_up searches with a generator of its own: a warmed agent plays the seeded game."""
    def game(warm: bool) -> list[int]:
        agent = make("mcts:engine=compiled,iterations=200", seed=11)
        state = ConnectFourState()
        if warm:
            agent.warm_up(state)
        played = []
        while not state.is_terminal():
            played.append(agent.act({}, state))
            state.apply(played[-1])
        return played

    assert game(True) == game(False)
    geister = make("mcts:engine=compiled,iterations=20,rollout=forward", seed=0)
    geister.warm_up(geister_seat_view())  # compiled roll-outs on a determinized view


def geister_seat_view():
    from boardzoo.games.geister.information import GeisterView

    return GeisterView(GeisterState(), 0)


def test_a_solver_timeout_cuts_the_next_call_to_the_time_left(monkeypatch):
    """The compiled search looks at the clock only between its calls, so each call's node
    budget is cut to what the time left allows at the rate searched so far."""
    from boardzoo.strategy.connect_four import compiled_solver as compiled

    solver = CompiledSolver(memory_mb=1, timeout=1.0)
    solver._started = 100.0
    solver.counters[compiled._NODES] = 2_000_000
    monkeypatch.setattr(compiled.time, "perf_counter", lambda: 100.5)  # 4 M nodes/s, 0.5 s left
    assert solver._within_timeout(1 << 24) == 2_000_000
    assert solver._within_timeout(1 << 20) == 1 << 20  # a smaller chunk stays as it is
    monkeypatch.setattr(compiled.time, "perf_counter", lambda: 101.2)  # past the timeout
    assert solver._within_timeout(1 << 24) == compiled._LAST_CHUNK
    solver.timeout = None
    assert solver._within_timeout(1 << 24) == 1 << 24


def test_compiled_reuse_keeps_the_subtree():
    agent = make("mcts:engine=compiled,iterations=500,reuse=true", seed=3)
    state = NimState(30, 3)
    agent.act({}, state)
    state.apply(agent.stats["action"])
    state.apply(0)
    agent.act({}, state)
    assert agent.stats["reused_tree"] and agent.stats["root_visits"] > 500


@pytest.mark.parametrize("spec, message", [
    ("mcts:engine=compiled,policy=puct", "policy=puct need engine=python"),
    ("mcts:engine=compiled,solver=true", "solver=true need engine=python"),
    ("mcts:engine=compiled,value=three", "value= need engine=python"),
    ("mcts:engine=turbo", "engine must be one of auto, python, compiled"),
])
def test_compiled_engine_refuses_what_it_does_not_run(spec, message):
    with pytest.raises(SpecError, match=message):
        make(spec)


def test_compiled_engine_refuses_a_game_or_policy_it_lacks():
    with pytest.raises(ValueError, match="roll-out policies random, forward, rushing, baiting for geister, not 'wild'"):
        rollouts.check_compiled("mcts", GeisterState(), "wild")
    with pytest.raises(ValueError, match="fits in 63 bits"):
        make("mcts:engine=compiled").check(ConnectFourState(8, 8))


def test_compiled_rollouts_serve_the_determinized_geister_search():
    game = arena.play_game("geister_v0:max_turns=60", "mcts:engine=compiled,iterations=50,belief=uniform,"
                           "rollout=forward,max_rollout=30", "random", 0)
    assert game["forfeit"] is None and game["plies"] > 0


@pytest.mark.slow
def test_compiled_and_python_mcts_are_equally_strong():
    """At equal iterations the engines are the same algorithm: 300 Connect Four games,
    seats alternating, and the compiled engine's score (a draw is half a win) has a 95 %
    interval containing 50 %."""
    games = 300
    summary = arena.summarize(arena.run("connect_four_v0", "mcts:engine=compiled,iterations=100",
                                        "mcts:iterations=100", games=games, seed=1, workers=1, progress=False))
    score = summary["a_wins"] + summary["ties"] / 2
    low, high = wilson(round(score), games)
    assert low <= 0.5 <= high, (summary["a_wins"], summary["ties"], summary["b_wins"])


@pytest.mark.parametrize("shape", [{}, {"rows": 5, "cols": 4, "blue": 2, "red": 2, "placement": "dealt"}])
def test_a_geister_array_decodes_to_the_position_it_encodes(shape):
    """decode(encode(state)) is the state, every field, along random games of the classic
    game and of a smaller member dealt at random (what an agent in the trainer's league sees)."""
    from boardzoo.games.geister import GAME as GEISTER

    rng, checked = random.Random(5), 0
    for _ in range(20):
        state = GEISTER.new_initial_state(rng, **shape)
        template, core = state.clone(), kernels_for(state).core
        while True:
            decoded = core.decode(core.encode(state), template)
            assert [getattr(decoded, f) for f in GeisterState.__slots__] == [getattr(state, f)
                                                                            for f in GeisterState.__slots__]
            checked += 1
            if state.is_terminal():
                break
            if state.current_player() == CHANCE:
                state.apply(state.sample_chance(rng))
            else:
                state.apply(rng.choice(state.legal_actions()))
    assert checked > 500


@pytest.mark.parametrize("player", ["rushing", "baiting"])
def test_the_compiled_geister_players_choose_as_the_python_ones(player):
    """On positions of random Geister games, the moves the compiled rushing (bluffing)
    player picks over many draws are exactly those the Python one picks."""
    from boardzoo.strategy.geister import players

    geister = core_of("geister")
    python_action = getattr(players, f"{player}_action")
    candidates = getattr(geister, f"{player}_candidates")
    moves = np.empty(rollouts.scratch_size(GeisterState()), dtype=np.int64)
    rng, compared = random.Random(4), 0
    for game in range(30):
        state = GeisterState()
        while state.placing:
            state.apply(rng.choice(state.legal_actions()))
        while not state.is_terminal():
            compiled = geister.encode(state)
            first, count = candidates(compiled, moves)
            theirs = {python_action(state, random.Random(i)) for i in range(60)}
            ours = set(moves[first: first + count].tolist())
            assert theirs <= ours and (theirs == ours or count > 12), (game, state.plies)
            compared += 1
            state.apply(rng.choice(state.legal_actions()))
    assert compared > 1000


@pytest.mark.parametrize("rows, cols", [(4, 4), (4, 5), (5, 4), (5, 5)])
def test_the_solvers_agree_on_small_empty_boards(rows, cols):
    empty = parse_moves("", rows, cols)
    assert CompiledSolver(rows, cols, memory_mb=16).solve(empty) == Solver(rows, cols, memory_mb=16).solve(empty)


# --- the purple search ------------------------------------------------------------------------------
PURPLE_TERMS = [{}, {"hunt": 3.0, "race": 1.0, "red_pull": 0.6, "repeat": 40.0},
                {"hunt": 1.0, "bait": 50.0, "caution": 2.0, "race": 0.5}]


def varied(position: Position, rng: random.Random, tables: str, thinned: bool) -> Position:
    """``position`` with its odds tables as given (``both``), the threat reading left to
    the blue odds (``shared``), or some entries of each missing (``partial``: every
    reading then falls back to its own default); ``thinned``: some of our reds and of
    their ghosts taken, so that the last red's rules come into play (few random games
    get there)."""
    red, purple, marked = position.red, position.purple, position.marked
    takes, our_reds = position.takes, position.our_reds
    if thinned:
        for s in rng.sample(list(squares_of(red)), rng.randrange(bin(red).count("1"))):
            red, our_reds = red & ~(1 << s), our_reds - 1
        taken = takes - 1 if rng.random() < 0.5 else rng.randrange(takes)  # often down to their last red
        for s in rng.sample(list(squares_of(purple)), min(taken, bin(purple).count("1") - 1)):
            purple, marked, takes = purple & ~(1 << s), marked & ~(1 << s), takes - 1
    blue, threat = dict(position.blue_odds), dict(position.threat_odds)
    if tables == "partial":
        blue = {s: q for s, q in blue.items() if rng.random() < 0.6}
        threat = {s: q for s, q in threat.items() if rng.random() < 0.6}
    hidden_reds = max(0, takes - bin(marked).count("1"))
    return Position(red, position.blue, purple, marked, takes, hidden_reds, our_reds, position.our_blues,
                    position.gain, blue, None if tables == "shared" else threat)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 100_000), plies=st.integers(0, 90), depth=st.integers(1, 4),
       terms=st.sampled_from(range(len(PURPLE_TERMS))), boldness=st.sampled_from([0.0, 0.4, 1.0]),
       tables=st.sampled_from(["both", "shared", "partial"]), thinned=st.booleans(), repeats=st.integers(0, 3))
def test_the_compiled_purple_search_visits_the_nodes_the_python_one_does(seed, plies, depth, terms, boldness,
                                                                          tables, thinned, repeats):
    """The same move, the same value to the last bit, the same nodes and depth, from
    random positions of every kind: ghosts known red, missing odds, a bold or cautious
    opponent, our last red, their last reds, positions visited before (charged by
    ``repeat``)."""
    rng = random.Random(seed)
    position = varied(random_position(seed, plies), rng, tables, thinned)
    python, compiled = PurpleSearch(**PURPLE_TERMS[terms]), CompiledPurpleSearch(**PURPLE_TERMS[terms])
    visited = {}
    for s, t in rng.sample(python.our_moves(position), min(repeats, len(python.our_moves(position)))):
        child = python.play_ours(position, s, t)
        if child is not None:
            visited[board_key(child)] = rng.randint(1, 6)
    expected = python.best_move(position, None, depth, boldness, visited)
    assert compiled.best_move(position, None, depth, boldness, visited) == expected
    assert (compiled.nodes, compiled.depth_done) == (python.nodes, python.depth_done)


def test_the_compiled_purple_search_stops_at_its_deadline_with_a_legal_move():
    position = random_position(3, 20)
    search = CompiledPurpleSearch(hunt=3.0, race=1.0)
    (s, t), _ = search.best_move(position, 1e-4, 40, 0.5)
    assert search.depth_done < 40 and (s, t) in search.our_moves(position)


def test_the_compiled_and_python_purple_players_play_the_same_games():
    """Untimed, the engine changes nothing: the same seed plays the same moves."""
    runs = [arena.run("geister_v0:max_turns=80", f"purple:time=none,depth=3,hunt=3,race=1,engine={engine}",
                      "mcts:iterations=30", 2, seed=9, progress=False) for engine in ("compiled", "python")]
    assert [r["moves"] for r in runs[0]] == [r["moves"] for r in runs[1]]


def test_the_purple_engine_auto_is_the_compiled_one_when_installed():
    assert make("geister-expert", seed=0).engine == "compiled"
    assert isinstance(make("purple:engine=python", seed=0).search, PurpleSearch)
    assert not isinstance(make("purple:engine=python", seed=0).search, CompiledPurpleSearch)


@pytest.fixture
def ctrl_c_raises():
    """Python's own Ctrl-C handler for the test: a shell starts background jobs with
    SIGINT ignored, and a process that inherits that never sees the interrupt."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_an_interrupt_stops_the_compiled_purple_search_as_a_keyboard_interrupt(ctrl_c_raises):
    """Ctrl-C during an untimed compiled search: the interrupt itself, not a SystemError."""
    import os
    import signal
    import threading

    from boardzoo.strategy.geister.compiled_purple import warm_up

    warm_up()  # compiled before the interrupt: one landing in numba's compiler is not this test's
    position = random_position(3, 20)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        CompiledPurpleSearch(hunt=3.0, race=1.0).best_move(position, None, 14, 0.5)
    timer.join()


def test_ctrl_c_stops_the_compiled_mcts_within_a_chunk_of_time_not_of_iterations(ctrl_c_raises):
    """Long play-outs (Nim with 100,000 pawns): 65,536 of them took most of a minute, and
    Ctrl-C waited for them; chunks now last about CHUNK_SECONDS."""
    import os
    import signal
    import threading
    import time


    env = envs.make("nim_v0:n=100000")
    env.reset(seed=0)
    agent = make("mcts:engine=compiled,iterations=10000000", seed=0)
    agent.warm_up(env.unwrapped.model("player_0"))
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        agent.act(env.observe("player_0"), env.unwrapped.model("player_0"))
    timer.join()
    assert time.perf_counter() - started < 5


@pytest.mark.slow
def test_a_damaged_compiled_cache_is_reported_and_compiled_again(tmp_path):
    """Cache files cut short or overwritten: one warning, the right answer, and the next
    run loads a sound cache (before: 'the input ended' or 'a bug', on every later run).
    The first compile is announced on a terminal only (it was 20-25 s of silence)."""
    import os
    import pty
    import subprocess
    import sys

    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    command = [sys.executable, "-m", "boardzoo", "solve", "connect_four", "4455443", "--engine", "compiled"]

    def solve() -> subprocess.CompletedProcess:
        return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=600)

    def solve_on_a_terminal() -> tuple[str, str]:
        """stdout, and what the terminal its stderr was showed."""
        terminal, side = pty.openpty()
        try:
            done = subprocess.run(command, stdout=subprocess.PIPE, stderr=side, text=True, env=environment,
                                  timeout=600)
        finally:
            os.close(side)
        shown = b""
        while True:
            try:
                chunk = os.read(terminal, 4096)
            except OSError:  # the other side closed: all read
                break
            if not chunk:
                break
            shown += chunk
        os.close(terminal)
        return done.stdout, shown.decode()

    first, shown = solve_on_a_terminal()
    assert first.split() == ["4455443", "-17"]
    assert "compiling the fast engine" in shown
    damaged = sorted(tmp_path.rglob("*.nbc"))
    assert damaged
    for number, path in enumerate(damaged):
        if number % 2:
            path.write_bytes(path.read_bytes()[:20])
        else:
            path.write_bytes(os.urandom(300))
    again = solve()
    assert again.returncode == 0 and again.stdout.split() == ["4455443", "-17"], again.stderr
    assert again.stderr.count("cache was damaged") == 1 and "Traceback" not in again.stderr
    assert "compiling the fast engine" not in again.stderr  # compiling again, but not on a terminal
    third, shown = solve_on_a_terminal()
    assert third.split() == ["4455443", "-17"] and "damaged" not in shown
    assert "compiling" not in shown  # a sound cache: nothing compiled, nothing announced


# --- one home per game: the kernels made for each game's core -------------------------------------
def test_a_game_the_engine_does_not_know_or_a_core_that_lacks_a_function_is_an_error(monkeypatch):
    from boardzoo.fast import core
    from boardzoo.fast.core import kernels

    with pytest.raises(ValueError, match="knows no game 'chess'; games with a compiled core: connect_four, nim"):
        kernels("chess")
    declaration = core.declared_game("connect_four")
    lacking = type(declaration)(**{**vars(declaration), "name": "lacking", "compiled_core": "boardzoo.games.model"})
    monkeypatch.setattr(core, "games", lambda: {"lacking": lacking})
    monkeypatch.setattr(core, "declared_game", lambda name: lacking)
    with pytest.raises(TypeError, match="boardzoo.games.model lacks encode, current_player"):
        core.core_of("lacking")


def test_each_games_kernels_read_the_shared_kernels_and_its_own_folder_only():
    """The cache stamps: an edit in one game's folder recompiles that game's kernels alone."""
    from boardzoo.fast.core import kernels
    from boardzoo.jit import reads

    for name in ("nim", "geister"):
        compiled = kernels(name)
        assert reads(compiled.step.py_func) == ("jit.py", "fast", f"games/{name}")
        assert reads(compiled.core.apply.py_func) == ("jit.py", f"games/{name}")
    assert kernels("nim").step is not kernels("geister").step


@pytest.mark.compile
def test_compiling_one_games_kernels_compiles_no_other_game(tmp_path):
    import os
    import subprocess
    import sys

    program = ("from boardzoo.vector import make, random_actions; import numpy as np; "
               "games = make('nim_v0:coin=true', batch=4, auto_reset=True, engine='compiled'); "
               "batch = games.reset(seed=0); rng = np.random.default_rng(0)\n"
               "for _ in range(20): batch = games.step(batch, random_actions(batch, rng))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    compiled = [str(path.relative_to(tmp_path)) for path in tmp_path.rglob("*.nbi")]
    assert any("nim" in path for path in compiled)
    assert not [path for path in compiled if any(other in path for other in ("connect_four", "cantris", "geister"))]
