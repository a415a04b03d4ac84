"""Faults against resource bounds: the solver's memory and time, deal sizes, pile sizes,
budgets and options, all checked up front."""

from __future__ import annotations

import random
import subprocess
import sys
import time

import pytest
from helpers import CLI, assert_clean_error, run_cli

from boardzoo import arena
from boardzoo.agents import make
from boardzoo.envs import cantris_v0, nim_v0
from boardzoo.errors import BudgetError, SpecError
from boardzoo.games.cantris import MAX_SIDE, deal, is_stable
from boardzoo.strategy.connect_four import solver as connect_four_solver
from boardzoo.strategy.connect_four.solver import Solver, parse_moves

# Positions with their exact scores, from the benchmark set (bench/data).
MIDDLE = [("21146345777762137235", -11), ("265726746372573", -12), ("35632356547774", 13)]


def test_the_solver_tables_take_the_memory_asked_for_and_no_more():
    small = Solver(memory_mb=4)
    taken = (small.keys.itemsize * len(small.keys) + small.values.itemsize * len(small.values)
             + small.threat_keys.itemsize * len(small.threat_keys)
             + small.threat_values.itemsize * len(small.threat_values))
    assert 3.5 * 2**20 < taken <= 4 * 2**20


def test_a_tiny_table_still_gives_exact_scores():
    # Slots overwritten all the time cost time, never correctness.
    tiny, roomy = Solver(memory_mb=1), Solver(memory_mb=64)
    rng = random.Random(3)
    for moves, score in MIDDLE:
        assert tiny.solve(parse_moves(moves)) == score == roomy.solve(parse_moves(moves))
    for _ in range(20):
        state = parse_moves("")
        for _ in range(rng.randrange(14, 30)):
            state.apply(rng.choice(state.legal_actions()))
            if state.is_terminal():
                break
        if not state.is_terminal():
            assert tiny.solve(state) == roomy.solve(state)


def test_the_solver_times_out_and_shows_progress(monkeypatch):
    # The clock is read every _TICK + 1 nodes; look every 1,024 so that several reports
    # come within the second on however slow a machine this runs.
    monkeypatch.setattr(connect_four_solver, "_TICK", 0x3FF)
    seen = []
    solver = Solver(timeout=1.0, progress=lambda nodes, seconds, low, high: seen.append((nodes, low, high)))
    start = time.perf_counter()
    with pytest.raises(BudgetError, match=r"no exact score within 1 s .* between -?\d+ and -?\d+"):
        solver.solve(parse_moves("4453"))
    assert time.perf_counter() - start < 3
    assert seen and all(low <= high for _, low, high in seen) and seen[-1][0] > seen[0][0]


def test_solve_command_timeout_goes_on_with_the_batch():
    easy, score = MIDDLE[0]
    result = run_cli("solve", "connect_four", "4453", easy, "--timeout", "0.5")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("4453 error: no exact score within 0.5 s")
    assert lines[1] == f"{easy} {score}"


@pytest.mark.parametrize("args, message", [(["--timeout", "inf"], "timeout must be a positive, finite"),
                                           (["--timeout", "0"], "timeout must be a positive, finite"),
                                           (["--memory", "0"], "memory must be a number of MB from 1 to"),
                                           (["--memory", "100000"], "memory must be a number of MB from 1 to")])
def test_solve_refuses_unbounded_settings(args, message):
    assert_clean_error(run_cli("solve", "connect_four", *args, MIDDLE[0][0]), message)


def test_solve_input_that_is_not_a_position():
    easy, score = MIDDLE[2]
    lines = f"4²\n٤٤\n{'x' * (8 * 2**20)}\n{easy}\n"  # superscript two, Arabic-Indic fours, 8 MB of junk
    result = subprocess.run([*CLI, "solve", "connect_four"], input=lines, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    out = result.stdout.splitlines()
    assert out[0] == "4² error: move 2 is '²', not a column from 1 to 7"
    assert out[1].startswith("٤٤ error: move 1 is '٤'")
    assert out[2].startswith("xxxx") and "longer than 1024 characters" in out[2] and len(out[2]) < 200
    assert out[3] == f"{easy} {score}"  # the rest of the batch is still solved
    assert len(result.stdout) < 1000


def test_cantris_deals_of_any_allowed_size_finish():
    start = time.perf_counter()
    for rows, cols in ((4, 40), (6, 64), (64, 64)):
        assert is_stable(deal(rows, cols, random.Random(rows * cols)))
    env = cantris_v0.env(rows=4, cols=40)
    env.reset(seed=1)
    assert time.perf_counter() - start < 10
    with pytest.raises(ValueError, match=f"at most {MAX_SIDE}"):
        cantris_v0.env(rows=4, cols=MAX_SIDE + 2)


def test_cantris_presets_deal_the_same_boards_as_before():
    # The bounded deal draws whole boards first, so seeded preset games are unchanged.
    env = cantris_v0.raw_env(board="8x4")
    env.reset(seed=0)
    first = env.game.columns
    env.reset(seed=0)
    assert env.game.columns == first and is_stable(first)


@pytest.mark.parametrize("kwargs, message", [({"n": (1, 10**30)}, "n must be at most"),
                                             ({"n": 10**12}, "n must be at most"),
                                             ({"k": 10**8}, "k must be at most")])
def test_nim_sizes_are_bounded(kwargs, message):
    with pytest.raises(ValueError, match=message):
        nim_v0.env(**kwargs)
    spec = "nim_v0:" + ",".join(f"{key}={value[0]}..{value[1]}" if isinstance(value, tuple) else f"{key}={value}"
                                for key, value in kwargs.items())
    assert_clean_error(run_cli("arena", spec, "random", "random", "--games", "1"), message)


@pytest.mark.parametrize("spec", ["mcts:time=inf", "alphabeta:time=inf", "flatmc:time=inf", "mcts:time=nan",
                                  "minimax:depth=1000", "mcts:iterations=100000000000"])
def test_budgets_must_be_finite(spec):
    with pytest.raises(SpecError):
        make(spec)
    assert_clean_error(run_cli("arena", "nim_v0", spec, "random", "--games", "1"), spec.split(":")[0])


@pytest.mark.parametrize("spec, message", [
    ("mcts:rollout=forwards", "unknown roll-out policy 'forwards'"),
    ("flatmc:belief=psychic", "unknown belief 'psychic'"),
    ("alphabeta:eval=three3", "unknown evaluator 'three3'"),
    ("mcts:policy=ucb-minimal,c2=-1", "c2 must be a finite number >= 0"),
    ("mcts:c2=1", "parameter 'c2' belongs to policy=ucb-minimal, not to policy=ucb1"),
    ("mcts:policy=ucbv,c_final=1", "parameter 'c_final' belongs to final=value"),
    ("mcts:c=inf", "c must be a finite number >= 0"),
])
def test_agent_options_are_checked_at_construction(spec, message):
    with pytest.raises(SpecError, match=message):
        make(spec)


@pytest.mark.parametrize("env, spec, message", [
    ("connect_four_v0", "mcts:belief=uniform", "belief=uniform is for games with hidden information"),
    ("nim_v0", "alphabeta:eval=three", "nim has no evaluator 'three'"),
    ("connect_four_v0", "mcts:rollout=rushing", "connect_four has no roll-out policy 'rushing'"),
    ("geister_v0", "mcts:solver=true", "solver=true needs perfect information"),
])
def test_options_that_do_not_fit_the_game_fail_before_any_game(tmp_path, env, spec, message):
    out = tmp_path / "g.jsonl"
    with pytest.raises(ValueError, match=message):
        arena.run(env, spec, "random", games=1, out=str(out))
    assert not out.exists() or out.read_text() == ""
    assert_clean_error(run_cli("arena", env, spec, "random", "--games", "1"), message)
    assert_clean_error(run_cli("play", env, spec, "random"), message)


def test_the_import_never_loads_heavy_modules():
    # The envs, `boardzoo list`, and a Python-engine game, all without numba (the fast extra).
    code = ("import boardzoo, boardzoo.cli, boardzoo.arena, boardzoo.envs, sys, contextlib, io; "
            "from boardzoo.envs import connect_four_v0, geister_v0; connect_four_v0.env().reset(seed=0); "
            "geister_v0.env().reset(seed=0); "
            "out = contextlib.redirect_stdout(io.StringIO()); out.__enter__(); boardzoo.cli.main(['list']); "
            "boardzoo.arena.play_game('connect_four_v0', 'mcts:iterations=20', 'random', 0); "
            "out.__exit__(None, None, None); "
            "print(sorted(m for m in ('numba', 'llvmlite', 'torch', 'ray', 'matplotlib') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr
