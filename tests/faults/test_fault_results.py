"""Faults against results files: nothing finished is ever lost, nothing invalid is used,
nothing that is not a results file is written to."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import time

import pytest
from helpers import CLI, assert_clean_error, records_of, run_cli

from boardzoo import arena
from boardzoo.errors import ResultsFileError
from boardzoo.experiments import get, run
from boardzoo.experiments.framework import ExperimentError
from boardzoo.ledger import Ledger

NIM = ("nim_v0", "greedy", "random")


def test_a_smaller_games_count_keeps_every_record_on_disk(tmp_path):
    out = tmp_path / "games.jsonl"
    arena.run(*NIM, games=20, out=str(out))
    before = out.read_bytes()
    records = arena.run(*NIM, games=5, out=str(out))
    assert [r["game"] for r in records] == list(range(5))  # the summary covers the games asked for
    assert out.read_bytes() == before  # and the 20 on disk are all still there, untouched
    assert len(records_of(out)) == 20


def test_resume_cuts_a_torn_tail_and_never_rewrites_what_is_there(tmp_path):
    out = tmp_path / "games.jsonl"
    arena.run(*NIM, games=10, out=str(out))
    lines = out.read_bytes().splitlines(keepends=True)
    kept = b"".join(lines[:6])
    out.write_bytes(kept + lines[6][:25])  # killed in the middle of a write
    arena.run(*NIM, games=10, out=str(out))
    assert out.read_bytes().startswith(kept)  # the complete records were not rewritten
    assert sorted(r["game"] for r in records_of(out)) == list(range(10))


def _limit_file_size(blocks: int):
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (blocks * 512, blocks * 512))
    return limit


def test_a_full_disk_loses_nothing_and_the_run_resumes(tmp_path):
    out = tmp_path / "games.jsonl"
    games = "300"
    arena.run(*NIM, games=40, out=str(out))  # a file with records already in it
    before = out.read_bytes()
    # ``ulimit -f 64``: the file may not grow past 32 KiB, as on a full disk.
    full = run_cli("arena", *NIM, "--games", games, "--out", str(out), preexec_fn=_limit_file_size(64))
    assert_clean_error(full, "cannot write to", "resumes")
    assert out.read_bytes().startswith(before)
    resumed = run_cli("arena", *NIM, "--games", games, "--out", str(out), "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["games"] == 300
    assert out.read_bytes().startswith(before)
    records = records_of(out)
    assert sorted(r["game"] for r in records) == list(range(300))


def _processes_marked(mark: str) -> list[int]:
    """Processes whose environment carries ``mark`` (every process a run started inherits it)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                if mark.encode() in handle.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def _as_from_a_terminal() -> None:
    """The run starts as a shell starts it, Ctrl-C delivered: a test process may have
    come to ignore or block SIGINT (an agent process run in it ignores it), which a child
    would inherit."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@pytest.mark.parametrize("extra", [[], ["--workers", "2"], ["--workers", "2", "--isolate"]])
def test_ctrl_c_loses_nothing_and_the_run_resumes(tmp_path, extra):
    out = tmp_path / "games.jsonl"
    mark = f"BOARDZOO_FAULT_MARK={os.getpid()}-{len(extra)}-{time.monotonic_ns()}"
    env = {**os.environ, mark.split("=")[0]: mark.split("=")[1]}
    inherited = signal.getsignal(signal.SIGINT)
    process = subprocess.Popen([*CLI, "arena", "connect_four_v0", "mcts:iterations=200", "random", "--games",
                                "400", *extra, "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=_as_from_a_terminal)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.read_bytes().count(b"\n") < 5):
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    interrupted = time.monotonic()
    _, err = process.communicate(timeout=30)
    # Workers are stopped, not waited for: the 400 games would take minutes. (The bound
    # leaves room for a loaded machine: 5 s was exceeded with other jobs on both cores.)
    assert time.monotonic() - interrupted < 15
    assert process.returncode == 130 and "interrupted" in err and "Traceback" not in err, (inherited, err[-500:])
    if os.path.isdir("/proc"):  # no worker or agent process outlives the run
        deadline = time.monotonic() + 5
        while _processes_marked(mark) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _processes_marked(mark) == []
    played = records_of(out)
    assert len(played) >= 5
    before = out.read_bytes()
    arena.run("connect_four_v0", "mcts:iterations=200", "random", games=len(played) + 3, out=str(out))
    assert out.read_bytes().startswith(before)
    assert sorted(r["game"] for r in records_of(out)) == list(range(len(played) + 3))


def test_an_invalid_line_is_named_and_never_replaces_a_record(tmp_path):
    out = tmp_path / "games.jsonl"
    arena.run(*NIM, games=4, out=str(out))
    stub = {"game": 2, "env": "nim_v0", "a": "greedy", "b": "random", "base_seed": 0}
    with out.open("a") as handle:
        handle.write(json.dumps(stub) + "\n")
    before = out.read_bytes()
    with pytest.raises(ResultsFileError, match=r"games.jsonl:5: not a valid game record: missing 'seed'"):
        arena.run(*NIM, games=6, out=str(out))
    assert out.read_bytes() == before  # nothing changed: the user decides what to do with line 5
    result = run_cli("arena", *NIM, "--games", "6", "--out", str(out))
    assert_clean_error(result, "games.jsonl:5")


@pytest.mark.parametrize("line, problem", [
    ("[1, 2, 3]", "a JSON list, not an object"),
    ('{"game": 1, "env": "nim_v0"}', "missing 'a'"),
    ("not json at all", "not JSON"),
])
def test_bad_lines_get_short_clear_errors(tmp_path, line, problem):
    out = tmp_path / "games.jsonl"
    arena.run(*NIM, games=2, out=str(out))
    with out.open("a") as handle:
        handle.write(line + "\n")
    assert_clean_error(run_cli("arena", *NIM, "--games", "3", "--out", str(out)), problem, ":3")


def test_a_repeated_game_keeps_the_first_record(tmp_path):
    out = tmp_path / "games.jsonl"
    arena.run(*NIM, games=3, out=str(out))
    first = records_of(out)[1]
    altered = {**first, "winner": "b" if first["winner"] == "a" else "a"}
    with out.open("a") as handle:
        handle.write(json.dumps(altered) + "\n")
    notes = []
    records = arena.run(*NIM, games=3, out=str(out), log=notes.append)
    assert records[1] == first
    assert any("already recorded" in note for note in notes)


def test_a_file_that_is_not_a_results_file_is_refused_untouched(tmp_path):
    for content in (b"my thesis notes, no newline", b'{"title": "other data"}\n', b"\x00\x01binary",
                    b'{"game": "chess", "players": 2}'):
        out = tmp_path / "precious.txt"
        out.write_bytes(content)
        result = run_cli("arena", *NIM, "--games", "2", "--out", str(out))
        assert_clean_error(result, "not a boardzoo results file")
        assert out.read_bytes() == content


def test_a_last_record_without_its_newline_is_kept(tmp_path):
    out = tmp_path / "games.jsonl"
    arena.run(*NIM, games=3, out=str(out))
    out.write_bytes(out.read_bytes()[:-1])  # the newline of game 2 never made it
    arena.run(*NIM, games=5, out=str(out))
    assert [r["game"] for r in records_of(out)] == [0, 1, 2, 3, 4]


def test_a_huge_junk_line_is_refused_without_echoing_it(tmp_path):
    out = tmp_path / "games.jsonl"
    out.write_bytes(b"x" * (20 * 2**20))  # 20 MiB, no newline
    result = run_cli("arena", *NIM, "--games", "2", "--out", str(out))
    assert_clean_error(result, "longer than 16 MiB")


def test_a_second_run_on_the_same_file_is_refused(tmp_path):
    out = tmp_path / "games.jsonl"
    with Ledger(str(out), key=lambda record: record["game"]):  # another run holds the file
        with pytest.raises(ResultsFileError, match="in use by another boardzoo run"):
            arena.run(*NIM, games=2, out=str(out))
        assert_clean_error(run_cli("arena", *NIM, "--games", "2", "--out", str(out)), "in use")
    arena.run(*NIM, games=2, out=str(out))  # free again once that run ended


def test_bad_paths_are_one_line_errors(tmp_path):
    read_only = tmp_path / "read-only.jsonl"
    read_only.write_text("")
    read_only.chmod(0o444)
    for path, fragment in ((tmp_path / "missing" / "g.jsonl", "does not exist"),
                           (tmp_path, "is a directory"),
                           (read_only, "read-only")):
        result = run_cli("arena", *NIM, "--games", "2", "--out", str(path))
        assert_clean_error(result, fragment)
        assert len(result.stderr.strip().splitlines()) == 1


# --- experiments ---------------------------------------------------------------------------------
# cantris-mcts is the quickest experiment to play (under a second at one game a job); the
# checks below are the same for every experiment.
def quiet(line):
    pass


def test_experiment_resume_without_run_json_refuses_another_configuration(tmp_path):
    out = tmp_path / "run"
    run(get("cantris-mcts"), str(out), games=1, log=quiet, progress=False)
    (out / "run.json").unlink()
    before = (out / "games.jsonl").read_bytes()
    with pytest.raises(ResultsFileError, match="which this configuration does not have"):
        run(get("nim-mcts"), str(out), games=1, resume=True, log=quiet, progress=False)
    assert (out / "games.jsonl").read_bytes() == before
    # The same configuration resumes from games.jsonl alone.
    run(get("cantris-mcts"), str(out), games=1, resume=True, log=quiet, progress=False)
    assert (out / "games.jsonl").read_bytes() == before


def test_experiment_records_must_match_their_job(tmp_path):
    out = tmp_path / "run"
    run(get("cantris-mcts"), str(out), games=1, log=quiet, progress=False)
    records = records_of(out / "games.jsonl")
    records[0]["a"] = "mcts:iterations=7"  # a game of this job, played with other options
    (out / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (out / "run.json").unlink()
    with pytest.raises(ResultsFileError, match="other options"):
        run(get("cantris-mcts"), str(out), games=1, resume=True, log=quiet, progress=False)


@pytest.mark.parametrize("content, message", [("", "the file is empty"), ("{oops", "not JSON"),
                                              ("[1]", "no experiment and jobs")])
def test_corrupt_run_json_gets_a_clear_message(tmp_path, content, message):
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.json").write_text(content)
    with pytest.raises(ExperimentError, match=message):
        run(get("nim-mcts"), str(out), games=1, resume=True, log=quiet, progress=False)
    result = run_cli("experiment", "run", "nim-mcts", "--games", "1", "--out", str(out), "--resume")
    assert_clean_error(result, message)


def test_experiment_out_that_is_a_file_is_refused(tmp_path):
    out = tmp_path / "file"
    out.write_text("keep me")
    assert_clean_error(run_cli("experiment", "run", "nim-mcts", "--games", "1", "--out", str(out)), "is a file")
    assert out.read_text() == "keep me"


def test_reports_and_run_json_are_replaced_atomically(tmp_path, monkeypatch):
    out = tmp_path / "run"
    run(get("cantris-mcts"), str(out), games=1, log=quiet, progress=False)
    report = (out / "report.md").read_text()

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(ResultsFileError, match="No space left"):
        run(get("cantris-mcts"), str(out), games=1, resume=True, log=quiet, progress=False)
    assert (out / "report.md").read_text() == report  # the old report is whole
    assert not [name for name in os.listdir(out) if name.endswith(".tmp")]  # no temporary left behind


def test_an_atomic_replacement_is_whole_or_absent_for_text_and_bytes(tmp_path, monkeypatch):
    from boardzoo.ledger import write_atomic

    path = tmp_path / "weights.npz"
    write_atomic(str(path), b"\x00old\xff")
    write_atomic(str(path), b"\x00new\xff")
    assert path.read_bytes() == b"\x00new\xff"
    write_atomic(str(tmp_path / "report.md"), "résumé\n")
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == "résumé\n"

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(ResultsFileError, match="cannot write .*No space left"):
        write_atomic(str(path), b"torn")
    assert path.read_bytes() == b"\x00new\xff" and sorted(p.name for p in tmp_path.iterdir()) == [
        "report.md", "weights.npz"]  # the old file stands, no temporary file is left
