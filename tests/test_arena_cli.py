"""Arena: reproducible games, serial == parallel, resumable JSON lines; the CLI on top."""

import json

import pytest

from boardzoo import arena, envs
from boardzoo.cli import main
from boardzoo.errors import ResultsFileError, SpecError


def without_timing(records):
    return [{k: v for k, v in r.items() if k not in arena.TIMING_FIELDS} for r in records]


def read_lines(path):
    """The records of a results file in game order (workers append them as they finish)."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return without_timing(sorted(records, key=lambda record: record["game"]))


def test_same_seed_same_games_and_serial_equals_parallel(tmp_path):
    spec = ("connect_four_v0", "greedy", "random")
    serial = tmp_path / "serial.jsonl"
    again = tmp_path / "again.jsonl"
    parallel = tmp_path / "parallel.jsonl"
    arena.run(*spec, games=12, seed=5, out=str(serial))
    arena.run(*spec, games=12, seed=5, out=str(again))
    arena.run(*spec, games=12, seed=5, workers=2, out=str(parallel))
    assert read_lines(serial) == read_lines(again) == read_lines(parallel)
    other = arena.run(*spec, games=12, seed=6)
    assert without_timing(other) != read_lines(serial)


def test_records_alternate_seats_and_describe_the_game(tmp_path):
    records = arena.run("nim_v0:coin=true", "greedy", "random", games=6, seed=1)
    assert [r["seat_of_a"] for r in records] == ["player_0", "player_1"] * 3
    assert [r["first_mover"] for r in records] == ["a", "b"] * 3
    for record in records:
        assert record["winner"] in ("a", "b")  # Nim has no draws
        assert record["returns"][record["winner"]] == 1.0
        assert record["winner_seat"] == (record["seat_of_a"] if record["winner"] == "a"
                                         else ({"player_0", "player_1"} - {record["seat_of_a"]}).pop())
        player_moves = [m for m in record["moves"] if m[0] >= 0]
        assert record["plies"] == len(player_moves)
        assert len(record["decision_seconds"]["a"]) + len(record["decision_seconds"]["b"]) == record["plies"]
        assert any(m[0] == -1 for m in record["moves"])  # the coin is recorded


def test_replaying_a_record_reproduces_the_game():
    from boardzoo.envs import nim_v0
    from boardzoo.games import NimState

    record = arena.run("nim_v0:n=30,coin=true", "random", "random", games=1, seed=3)[0]
    state = NimState(30, 3, coin=True)
    for _, action in record["moves"]:
        state.apply(action)
    assert state.is_terminal()
    winner_seat = 0 if state.returns()[0] > 0 else 1
    assert record["winner_seat"] == f"player_{winner_seat}"
    assert nim_v0  # the env module named in the record exists


def test_interrupted_run_resumes_to_the_same_result(tmp_path):
    spec = ("nim_v0", "random", "greedy")
    whole = tmp_path / "whole.jsonl"
    arena.run(*spec, games=10, seed=2, out=str(whole))
    lines = whole.read_text().splitlines(keepends=True)
    partial = tmp_path / "partial.jsonl"
    partial.write_text("".join(lines[:4]) + lines[4][: len(lines[4]) // 2])  # torn last line
    records = arena.run(*spec, games=10, seed=2, out=str(partial))
    assert read_lines(partial) == read_lines(whole)
    assert without_timing(records) == read_lines(whole)


def test_a_terminated_parallel_run_stops_its_workers_and_resumes_to_the_same_result(tmp_path, terminated_run):
    """SIGTERM (kill's default, a batch queue's stop) unwinds as Ctrl-C does: the workers
    stop, the command says so and exits 143, and the same command finishes the file."""
    import signal
    import subprocess
    import sys

    command = [sys.executable, "-m", "boardzoo", "arena", "connect_four_v0", "mcts:iterations=400", "random",
               "--games", "24", "--seed", "4", "--workers", "2"]
    cut = tmp_path / "cut.jsonl"
    status, err = terminated_run([*command, "--out", str(cut)], 2, cut)
    assert status == 128 + signal.SIGTERM, err
    assert "boardzoo arena: terminated" in err
    assert "Traceback" not in err and "leaked" not in err
    assert 2 <= len(read_lines(cut)) < 24
    subprocess.run([*command, "--out", str(cut)], check=True, capture_output=True)
    whole = tmp_path / "whole.jsonl"
    subprocess.run([*command, "--out", str(whole)], check=True, capture_output=True)
    assert read_lines(cut) == read_lines(whole)


def test_resume_refuses_a_file_of_another_run(tmp_path):
    out = tmp_path / "games.jsonl"
    arena.run("nim_v0", "random", "greedy", games=2, seed=2, out=str(out))
    with pytest.raises(ResultsFileError, match="belongs to another run"):
        arena.run("nim_v0", "random", "random", games=2, seed=2, out=str(out))


def test_summary_counts_per_agent_and_seat():
    records = arena.run("nim_v0", "greedy", "random", games=20, seed=0)
    summary = arena.summarize(records)
    assert summary["games"] == 20 and summary["a_wins"] + summary["b_wins"] + summary["ties"] == 20
    for label in ("a", "b"):
        seats = [summary[f"{label}_as_player_0"], summary[f"{label}_as_player_1"]]
        assert sum(s["games"] for s in seats) == 20
        assert sum(s["wins"] for s in seats) == summary[f"{label}_wins"]
    assert summary["a_as_player_0"]["wins"] == summary["b_as_player_1"]["losses"]
    table = arena.format_summary(summary)
    assert "a: greedy" in table and "b: random" in table


def test_summary_table_shows_long_specs_whole():
    """Two MCTS settings that differ only past the 28th character stay distinguishable."""
    a, b = "mcts:iterations=20,policy=ucb1,c=0.5", "mcts:iterations=20,policy=ucb1,c=2.0"
    summary = arena.summarize(arena.run("nim_v0:n=5", a, b, games=2, seed=0))
    rows = arena.format_summary(summary).splitlines()
    assert any(row.startswith(f"a: {a} ") for row in rows) and any(row.startswith(f"b: {b} ") for row in rows)
    header, row_a, row_b = rows[1:4]
    assert len(header) == len(row_a) == len(row_b)  # the columns still line up


def test_arena_refuses_bad_arguments():
    with pytest.raises(SpecError, match="needs a person"):
        arena.run("nim_v0", "human", "random", games=1)
    with pytest.raises(SpecError, match="games must be an int from 1 to"):
        arena.run("nim_v0", "random", "random", games=0)
    with pytest.raises(SpecError, match="nim_v0: unknown parameter 'pile'; parameters are: n, k, coin"):
        arena.run("nim_v0:pile=3", "random", "random", games=1)
    with pytest.raises(SpecError, match="connect_four_v0:rows=2: connect_four: rows must be an int from"):
        envs.make("connect_four_v0:rows=2")


# --- the command line -------------------------------------------------------------------------
def test_cli_arena_json_summary(tmp_path, capsys):
    out = tmp_path / "g.jsonl"
    code = main(["arena", "nim_v0", "greedy", "random", "--games", "8", "--seed", "3",
                 "--workers", "2", "--out", str(out), "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert {"games", "a_wins", "b_wins", "ties"} <= set(summary)
    assert summary["games"] == 8 and summary["a_wins"] + summary["b_wins"] + summary["ties"] == 8
    assert len(out.read_text().splitlines()) == 8


def test_cli_arena_table_and_play(capsys):
    assert main(["arena", "connect_four", "greedy", "random", "--games", "4"]) == 0
    assert "a: greedy" in capsys.readouterr().out
    assert main(["play", "connect_four_v0", "greedy", "random", "--render"]) == 0
    out = capsys.readouterr().out
    assert "player_0: greedy (a)" in out and "1 2 3 4 5 6 7" in out
    assert out.strip().splitlines()[-1].startswith("result: greedy (a) wins after")


def test_cli_play_with_a_human(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("x\n3\n"))
    assert main(["play", "nim_v0:n=4,k=3", "human", "random"]) == 0
    out = capsys.readouterr().out
    assert "oooo [4 left, take 1..3]" in out  # the board is shown for the human
    assert "'x' is not a move: type how many pawns to take, 1 to 3" in out
    assert out.count("your move (take 1, take 2, take 3; q quits)") == 2
    assert "result: random (b) wins after 2 plies" in out  # one pawn left for random


def test_cli_play_announces_both_players_moves_and_waits_after_a_machine(monkeypatch, capsys):
    import io

    pauses = []
    monkeypatch.setattr("boardzoo.terminal.time.sleep", pauses.append)
    monkeypatch.setattr("sys.stdin", io.StringIO("2\n"))
    assert main(["play", "nim_v0:n=5,k=3", "human", "greedy", "--delay", "0.25"]) == 0
    out = capsys.readouterr().out
    # greedy takes n % 4 = 3 of the 3 left after the human's 2: it wins
    assert 0 < out.index("player_0, human (a), takes 2") < out.index("player_1, greedy (b), takes 3")
    assert pauses == []  # the machine's move ended the game: no pause before the result
    assert main(["play", "connect_four_v0", "greedy", "random", "--delay", "0.5"]) == 0
    out = capsys.readouterr().out
    moves = [line for line in out.splitlines() if line.startswith("player_")]
    plies = int(out.strip().splitlines()[-1].split("after ")[1].split()[0])
    assert len(moves) == plies and all(" plays " in line for line in moves)
    assert moves[0].startswith("player_0, greedy (a), plays ") and moves[1].startswith("player_1, random (b), plays ")
    assert pauses == [0.5] * (plies - 1)  # after every machine move but the last


def test_cli_play_refuses_a_bad_delay(capsys):
    for bad in ("-1", "61", "soon"):
        with pytest.raises(SystemExit) as stop:
            main(["play", "nim_v0", "random", "random", "--delay", bad])
        assert stop.value.code == 2
        assert "argument --delay: expected seconds" in capsys.readouterr().err


def test_cli_list_and_errors(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("connect_four_v0", "nim_v0", "random", "greedy", "human", "n=20..50", "coin=false",
                 "iterations=1000 without time=", "depth=4 without time=", "playouts=30 without time="):
        assert name in out
    assert "None" not in out and "(20, 50)" not in out
    assert main(["arena", "nim_v0", "wizard", "random", "--games", "1"]) == 2
    assert "unknown agent 'wizard'" in capsys.readouterr().err


def test_cli_play_lets_a_human_leave_by_ending_the_input(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "nim_v0", "human", "random"]) == 0  # Ctrl-D: leaving, not a failure
    assert capsys.readouterr().err == "boardzoo play: you left the game (the input ended)\n"


def test_cli_list_writes_defaults_a_spec_accepts(capsys):
    """Every plainly listed default, copied into a spec, builds the env or agent it lists."""
    from boardzoo.agents import make as make_agent
    from boardzoo.envs import make as make_env

    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    checked = 0
    for line, following in zip(lines, lines[1:]):
        if not following.strip().startswith("parameters:") or line.strip().startswith("sb3"):
            continue
        name = line.split()[0]
        listed = following.split("parameters:", 1)[1]
        while "[" in listed:  # a part chooser's list of parts
            listed = listed[:listed.index("[")] + listed[listed.index("]") + 1:]
        plain = [item.strip() for item in listed.split(",") if " " not in item.strip() and "=" in item]
        spec = f"{name}:{','.join(plain)}"
        if name.endswith(tuple(f"_v{v}" for v in range(3))):
            make_env(spec)
        else:
            make_agent(spec)
        checked += len(plain)
    assert checked > 30


def test_random_openings_are_shared_by_a_pair_and_make_deterministic_agents_play_distinct_games(tmp_path):
    spec = ("connect_four_v0", "alphabeta:depth=1", "alphabeta:depth=2")
    plain = arena.summarize(arena.run(*spec, games=12, seed=3, progress=False))
    assert plain["distinct_games"] == 2
    out = tmp_path / "openings.jsonl"
    records = arena.run(*spec, games=12, seed=3, out=str(out), progress=False, opening_plies=3)
    assert arena.summarize(records)["distinct_games"] == 12
    openings = [tuple(map(tuple, r["moves"][:3])) for r in records]
    for even, odd in zip(records[::2], records[1::2]):
        # Both seatings of a pair start from one opening, each agent on each side of it.
        assert even["moves"][:3] == odd["moves"][:3] and even["seat_of_a"] != odd["seat_of_a"]
    assert len(set(openings[::2])) == 6
    for record in records:
        assert record["opening_plies"] == 3 and [seat for seat, _ in record["moves"][:3]] == [0, 1, 0]
        # The opening's plies are nobody's decisions.
        assert len(record["decision_seconds"]["a"]) + len(record["decision_seconds"]["b"]) == record["plies"] - 3
    # The same run again, in two workers, plays the same games; another seed other openings.
    again = arena.run(*spec, games=12, seed=3, workers=2, progress=False, opening_plies=3)
    assert without_timing(again) == read_lines(out)
    other = arena.run(*spec, games=12, seed=4, progress=False, opening_plies=3)
    assert [tuple(map(tuple, r["moves"][:3])) for r in other] != openings
    # Its file is its own: without openings, or with others, the run is another one.
    for plies in (0, 2):
        with pytest.raises(ResultsFileError, match="random openings of 3 plies"):
            arena.run(*spec, games=12, seed=3, out=str(out), progress=False, opening_plies=plies)


def test_an_opening_that_ends_the_game_counts_it_and_bad_openings_are_refused(tmp_path, capsys):
    records = arena.run("nim_v0:n=4", "greedy", "greedy", games=4, seed=0, progress=False, opening_plies=10)
    for record in records:
        assert record["plies"] <= 4 and record["winner"] is not None
        assert record["decision_seconds"] == {"a": [], "b": []}
    with pytest.raises(SpecError, match="opening plies must be an int from 0 to 1,000"):
        arena.run("nim_v0", "greedy", "random", games=2, opening_plies=-1)
    assert main(["arena", "nim_v0", "greedy", "random", "--opening-plies", "1001"]) == 2
    assert "opening plies must be an int from 0 to 1,000" in capsys.readouterr().err
    out = tmp_path / "games.jsonl"
    assert main(["arena", "nim_v0", "greedy", "random", "--games", "2", "--opening-plies", "2",
                 "--out", str(out)]) == 0
    assert "each pair from a random opening of 2 plies" in capsys.readouterr().out
    record = json.loads(out.read_text().splitlines()[0])
    for bad in (-1, "2", 2.0, None):
        out.write_text(json.dumps({**record, "opening_plies": bad}) + "\n")
        assert main(["arena", "nim_v0", "greedy", "random", "--games", "2", "--opening-plies", "2",
                     "--out", str(out)]) == 2
        assert "'opening_plies' is" in capsys.readouterr().err
