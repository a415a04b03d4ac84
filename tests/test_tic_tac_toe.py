"""Tic-tac-toe, the game added in one folder: its rules against independent facts, and
the whole library -- env, agents, arena, command line, docs -- taking it up from its
declaration alone."""

from __future__ import annotations

import random
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from boardzoo import arena
from boardzoo.agents import make
from boardzoo.envs import ENVS
from boardzoo.envs import make as make_env
from boardzoo.games.model import TERMINAL
from boardzoo.games.registry import game
from boardzoo.games.tic_tac_toe import TicTacToeState

PACKAGE = Path(__file__).resolve().parent.parent / "boardzoo"


def winner_by_lines(cells: tuple[int, ...]) -> int:
    """An independent referee: the mark (1 or 2) holding a full row, column or diagonal."""
    grid = [cells[0:3], cells[3:6], cells[6:9]]
    lines = [*grid, *zip(*grid), [grid[i][i] for i in range(3)], [grid[i][2 - i] for i in range(3)]]
    return next((line[0] for line in lines if line[0] and len(set(line)) == 1), 0)


def walk(state: TicTacToeState, games: dict) -> int:
    """How many games there are from ``state`` to their ends, each position once (``games``
    keeps the count of every position reached); each ending checked by the referee."""
    key = state.key()
    if key in games:
        return games[key]
    assert (state.current_player() == TERMINAL) == (winner_by_lines(key) > 0 or 0 not in state.cells)
    if state.is_terminal():
        assert state.returns() == {0: (0.0, 0.0), 1: (1.0, -1.0), 2: (-1.0, 1.0)}[winner_by_lines(key)]
        games[key] = 1
        return 1
    total = 0
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        total += walk(child, games)
    games[key] = total
    return total


def test_the_rules_give_the_known_counts_of_games_and_positions():
    """255,168 possible games and 5,478 reachable positions (the empty one included):
    the counts every account of the game gives, each ending checked by a referee of its own."""
    games: dict = {}
    assert walk(TicTacToeState(), games) == 255_168
    assert len(games) == 5_478


@cache
def value(cells: tuple[int, ...], player: int) -> int:
    """Negamax value for ``player`` to move, by the referee's rules alone."""
    if winner_by_lines(cells):
        return -1  # the previous player completed a line
    if 0 not in cells:
        return 0
    return max(-value(cells[:i] + (player + 1,) + cells[i + 1:], 1 - player) for i in range(9) if not cells[i])


def test_perfect_play_draws_and_alphabeta_plays_perfectly():
    assert value((0,) * 9, 0) == 0
    for seed in range(6):
        records = arena.run("tic_tac_toe_v0", "alphabeta:depth=9", "alphabeta:depth=9", games=2, seed=seed,
                            progress=False)
        assert all(r["winner"] is None for r in records)
    state, rng = TicTacToeState(), random.Random(0)
    agent = make("alphabeta:depth=9", seed=0)
    while not state.is_terminal():  # every move alpha-beta makes keeps the referee's value
        if state.current_player() == 0:
            action = agent.act(None, state)
            best = max(-value(tuple(state.cells[:a] + [1] + state.cells[a + 1:]), 1) for a in state.legal_actions())
            assert -value(tuple(state.cells[:action] + [1] + state.cells[action + 1:]), 1) == best
        else:
            action = rng.choice(state.legal_actions())
        state.apply(action)


def test_search_agents_never_lose_to_random_and_random_loses_often():
    records = arena.run("tic_tac_toe_v0", "mcts:iterations=1000", "random", games=40, seed=1, progress=False)
    assert not any(r["winner"] == "b" for r in records)
    assert sum(r["winner"] == "a" for r in records) >= 30


def test_illegal_moves_are_explained_in_the_players_terms():
    state = TicTacToeState()
    state.apply(4)
    with pytest.raises(ValueError, match="5 is not a legal move: that cell is taken"):
        state.apply(4)
    with pytest.raises(ValueError, match="type a number from 1 to 9"):
        state.parse_action("10")
    assert state.parse_action(" 9 ") == 8 and state.action_label(8) == "9"


def test_the_generic_env_is_built_from_the_declaration():
    declared = game("tic_tac_toe")
    assert ENVS["tic_tac_toe_v0"] == declared.envs["tic_tac_toe_v0"]
    env = make_env("tic_tac_toe_v0", render_mode="ansi")
    env.reset(seed=0)
    assert env.observation_space("player_0")["observation"].shape == (3, 3, 2)
    env.step(4)
    assert env.render().startswith(". . .\n. X .\n. . .")
    assert env.observe("player_1")["observation"][1, 1].tolist() == [0, 1]
    with pytest.raises(ValueError, match="render_mode must be one of"):
        make_env("tic_tac_toe_v0", render_mode="svg")
    with pytest.raises(ValueError, match="unknown parameter 'rows'; parameters are: none"):
        make_env("tic_tac_toe_v0:rows=4")


def test_the_command_line_lists_and_plays_it():
    listing = subprocess.run([sys.executable, "-m", "boardzoo", "list"], capture_output=True, text=True, timeout=60)
    assert listing.returncode == 0 and "tic_tac_toe_v0" in listing.stdout
    played = subprocess.run([sys.executable, "-m", "boardzoo", "arena", "tic_tac_toe_v0", "alphabeta:depth=9",
                             "random", "--games", "4", "--seed", "0"], capture_output=True, text=True, timeout=60)
    assert played.returncode == 0, played.stderr
    assert "tic_tac_toe_v0" in played.stdout


def test_the_game_is_one_folder_and_one_line():
    """Nothing outside boardzoo/games/tic_tac_toe/ names the game but its line in the registry."""
    outside = [path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
               if "tic_tac_toe" in path.read_text(encoding="utf-8") and "tic_tac_toe" not in path.parts]
    assert outside == ["games/registry.py"]


def test_the_docs_have_its_env_page():
    sys.path.insert(0, str(PACKAGE.parent / "tools"))
    try:
        from docs_pages import env_page
    finally:
        sys.path.pop(0)
    page = env_page("tic_tac_toe_v0")
    assert page.startswith("# Tic-tac-toe") and "## Spec" in page and "adding a game" in page


# --- learned by self-play (the compiled core and the training preset from its folder) ----------------
def losses_against_every_opponent(agent, seat: int) -> tuple[int, int]:
    """(games lost, games) by ``agent`` at ``seat`` against every opponent there is: each
    of the opponent's moves is tried in every position the agent's moves lead to."""
    lost = played = 0
    stack = [TicTacToeState()]
    while stack:
        state = stack.pop()
        player = state.current_player()
        if player == TERMINAL:
            played += 1
            lost += state.returns()[seat] < 0
            continue
        for action in [agent.act({}, state.clone())] if player == seat else state.legal_actions():
            after = state.clone()
            after.apply(action)
            stack.append(after)
    return lost, played


def plays_perfectly(spec: str) -> None:
    summary = arena.summarize(arena.run("tic_tac_toe_v0", spec, "alphabeta:depth=9", games=200, seed=3, workers=1,
                                        progress=False))
    assert summary["ties"] == 200, summary  # from both seats: a draw every game, as perfect play is
    agent = make(spec, seed=0)
    for seat in (0, 1):
        lost, played = losses_against_every_opponent(agent, seat)
        assert lost == 0 and played > 100, (seat, lost, played)


def test_the_shipped_network_plays_perfectly():
    pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")
    plays_perfectly("alphazero")


@pytest.mark.training
def test_training_from_nothing_learns_perfect_play_in_minutes(tmp_path):
    """``boardzoo train tic_tac_toe`` as a user runs it: its preset, from an empty folder."""
    pytest.importorskip("torch", reason="the rl extra is not installed (pip install torch==2.13.0 && "
                                        "pip install '.[rl]')")
    pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")
    run = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "boardzoo", "train", "tic_tac_toe", "--run", str(run),
                           "--workers", "1"], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    plays_perfectly(f"alphazero:weights={run / 'weights' / 'averaged.npz'}")
