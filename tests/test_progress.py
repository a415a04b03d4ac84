"""Progress of long jobs: tqdm's bar when installed, a plain line otherwise, a line a
minute in logs, and every long job (arena, experiments, solve) showing it."""

import io

import pytest

from boardzoo import arena, progress
from boardzoo.cli import main
from boardzoo.progress import ProgressBar


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_plain_line_on_a_terminal_counts_and_ends_with_a_newline(monkeypatch):
    monkeypatch.setattr(progress, "_tqdm_class", lambda: None)  # as without the extra
    screen = Terminal()
    with ProgressBar(4, "arena", "games", stream=screen) as bar:
        for n in range(4):
            bar.update(status=f"a {n + 1}")
    drawn = screen.getvalue()
    assert drawn.endswith("arena: 4/4 games [0s] a 4\x1b[K\n")
    assert drawn.startswith("\rarena: 1/4 games")


def test_a_status_line_is_wiped_when_it_closes(monkeypatch):
    monkeypatch.setattr(progress, "_tqdm_class", lambda: None)
    screen = Terminal()
    bar = ProgressBar(None, "solving", "nodes", stream=screen, leave=False)
    bar.set(1_234_567, "score in [-3, 5]")
    assert "solving: 1,234,567 nodes [0s] score in [-3, 5]" in screen.getvalue()
    bar.close()
    assert screen.getvalue().endswith("\r\x1b[K")


def test_a_log_gets_a_line_a_minute_and_the_last_count(monkeypatch):
    clock = iter(range(0, 10_000, 25))  # each reading of the clock: 25 s later
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    log = io.StringIO()
    bar = ProgressBar(100, "nim-mcts", "games", initial=40, stream=log)
    assert not bar.interactive
    for _ in range(6):
        bar.update()
    bar.close()
    lines = log.getvalue().splitlines()
    # 25 s a game: a line after the 3rd game (75 s), then after the 5th (125 s from the last), then the end
    assert lines[0].startswith("nim-mcts: 43/100 games [1m15s, about 23m45s left]")
    assert lines[-1].startswith("nim-mcts: 46/100 games")
    assert len(lines) == 3


def test_a_short_job_logs_one_closing_line():
    log = io.StringIO()
    with ProgressBar(10, "arena", "games", stream=log) as bar:
        bar.update(10)
    # done within the minute: no line a minute, but the log still says it ran and how far
    assert log.getvalue() == "arena: 10/10 games [0s]\n"
    idle = io.StringIO()
    with ProgressBar(10, "arena", "games", stream=idle):
        pass
    assert idle.getvalue() == ""  # nothing done (all resumed from a file, say): nothing to say


def test_tqdm_draws_the_bar_when_installed():
    pytest.importorskip("tqdm", reason="tqdm is the optional progress extra")
    screen = Terminal()
    with ProgressBar(5, "arena", "games", stream=screen) as bar:
        for _ in range(5):
            bar.update(status="a 1  b 0")
    drawn = screen.getvalue()
    assert "arena: 100%" in drawn and "5/5" in drawn and "a 1  b 0" in drawn and "games" in drawn


@pytest.mark.parametrize("plain", [True, False])
def test_arena_and_experiment_runs_show_progress(monkeypatch, capsys, tmp_path, plain):
    if plain:
        monkeypatch.setattr(progress, "_tqdm_class", lambda: None)
    else:
        pytest.importorskip("tqdm", reason="tqdm is the optional progress extra")
    arena.run("nim_v0:n=5", "greedy", "random", games=6, seed=0, progress=True)
    err = capsys.readouterr().err
    assert "arena" in err and "6/6" in err and "ties" in err
    assert main(["experiment", "run", "cantris-mcts", "--games", "1", "--out", str(tmp_path / "cantris")]) == 0
    # not a terminal here: the run's first line and no bar (it took less than a minute)
    err = capsys.readouterr().err
    assert "cantris-mcts:" in err and "\r" not in err


def test_solve_shows_its_search_while_it_takes_long(monkeypatch, capsys):
    monkeypatch.setattr(progress, "_tqdm_class", lambda: None)
    monkeypatch.setattr("sys.stderr", Terminal())
    from boardzoo import cli

    watch = cli._SolveProgress()
    watch(10_000, 0.5, -5, 5)  # under a second: nothing yet
    assert capsys.readouterr().err == ""
    import sys

    watch(2_000_000, 1.5, -2, 4)
    assert "solving: 2,000,000 nodes" in sys.stderr.getvalue() and "score in [-2, 4]" in sys.stderr.getvalue()
    watch.clear()
    assert sys.stderr.getvalue().endswith("\r\x1b[K")
