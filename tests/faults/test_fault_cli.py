"""Faults against the command line: every bad input is one clear line and exit 2; a bug
in boardzoo shows its traceback and asks for a report; pipes that close are no error."""

from __future__ import annotations

import subprocess

import pytest
from helpers import CLI, assert_clean_error, run_cli

from boardzoo import arena
from boardzoo.cli import main


@pytest.mark.parametrize("spec, fragment", [
    ("mcts:c=1..2", "mcts: parameter c: expected a number, got '1..2'"),
    ("mcts:iterations=1..5", "expected an int"),
    ("alphabeta:random_first=maybe", "expected true or false"),
    ("sb3:path=../x.zip", "no saved model at '../x.zip'"),  # a path, not a range
    ("mcts:" + "c=1," * 400, "at most 1000 characters"),
])
def test_spec_values_are_converted_by_their_declared_types(spec, fragment):
    assert_clean_error(run_cli("arena", "nim_v0", spec, "random", "--games", "1"), fragment)


def test_an_internal_bug_shows_its_traceback_and_asks_for_a_report(monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise ValueError("an internal invariant broke")

    monkeypatch.setattr(arena, "run", broken)
    assert main(["arena", "nim_v0", "random", "random", "--games", "1"]) == 70
    err = capsys.readouterr().err
    assert "Traceback" in err and "an internal invariant broke" in err
    assert "this is a bug in boardzoo" in err and "please report it" in err


def test_a_closed_pipe_is_not_an_error():
    shell = f"{' '.join(CLI)} list | head -n 1"
    result = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, timeout=60)
    assert result.stdout.count("\n") == 1
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr
    shell = f"{' '.join(CLI)} arena nim_v0 random random --games 50 --json | head -c 10"
    result = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=60)
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args, fragment", [(["arena", "nim_v0", "greedy", "random", "--workers", "0"],
                                             "workers must be an int from 1 to"),
                                            (["arena", "nim_v0", "greedy", "random", "--games", "10000000000"],
                                             "games must be an int from 1 to 10,000,000"),
                                            (["arena", "nim_v0", "greedy", "random", "--seed", "-1"],
                                             "seed must be an int >= 0"),
                                            (["play", "nim_v0", "greedy", "random", "--seed", "-5"],
                                             "seed must be an int >= 0"),
                                            (["experiment", "run", "nim-mcts", "--games", "0"],
                                             "--games must be an int from 1 to")])
def test_bad_numbers_are_refused(args, fragment):
    assert_clean_error(run_cli(*args), fragment)


@pytest.mark.parametrize("typed", ["", "q\n", "1\nquit\n"])
def test_a_person_leaves_a_terminal_game_by_typing_q_or_ending_the_input(typed):
    result = subprocess.run([*CLI, "play", "nim_v0", "human", "greedy"], input=typed, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert result.stderr.strip().endswith("you left the game" + (" (the input ended)" if not typed else ""))
