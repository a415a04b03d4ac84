"""Hostile requests against a real ``boardzoo serve`` on loopback: pages of other sites,
requests that would start unbounded work, malformed input, and a Ctrl-C mid-search. The
server runs as a user starts it, in a process of its own; requests go over a socket."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from helpers import CLI, assert_clean_error, run_cli

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

#: The server's limit on one move in these tests.
MOVE_SECONDS = 1.5
#: A search that would take minutes: it can only end by the server's limit.
ENDLESS = "minimax:depth=10"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """``boardzoo serve`` in a process of its own, and requests to it."""

    def __init__(self, folder: Path, *options: str, port: int | None = None):
        self.port = port or free_port()
        self.host = f"127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [*CLI, "serve", "--port", str(self.port), "--replays", str(folder), *options],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, self.process.communicate()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)

    def request(self, method: str, path: str, body: bytes | dict | None = None, headers: dict | None = None,
                timeout: float = 60) -> tuple[int, dict, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        sent = {"Host": self.host}
        if isinstance(body, dict):
            body = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in sent.items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        answer = connection.getresponse()
        result = answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
        connection.close()
        return result

    def json(self, method: str, path: str, body=None, headers=None, timeout: float = 60) -> tuple[int, dict]:
        status, _, raw = self.request(method, path, body, headers, timeout)
        return status, json.loads(raw)

    def searches_busy(self) -> float:
        """The CPU seconds the server's search processes spend in the next half second."""
        def used() -> float:
            total = 0.0
            for child in _children(self.process.pid):
                try:
                    fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            return total

        before = used()
        time.sleep(0.5)
        return used() - before

    def stop(self) -> tuple[int, str]:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            _, err = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
            return -9, err
        return self.process.returncode, err


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.fixture
def server(tmp_path):
    running = Server(tmp_path, "--searches", "1", "--move-seconds", str(MOVE_SECONDS))
    yield running
    status, err = running.stop()
    assert "Traceback" not in err, err


def wait_idle(server: Server, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while server.searches_busy() > 0.2:
        assert time.monotonic() < deadline, "a search went on after nobody waited for it"


# --- other web pages ------------------------------------------------------------------------------------
def test_a_page_of_another_site_reads_nothing_through_dns_rebinding(server, tmp_path):
    (tmp_path / "secret.jsonl").write_text("api_key=sk-live-0123456789\n")
    status, answer = server.json("GET", "/api/replays", headers={"Host": "attacker.example"})
    assert status == 400 and "secret" not in json.dumps(answer) and str(tmp_path) not in json.dumps(answer)
    status, answer = server.json("GET", "/api/replays/games?file=secret.jsonl",
                                 headers={"Host": f"attacker.example:{server.port}"})
    assert status == 400 and "sk-live" not in json.dumps(answer)
    # even asked from its own page, the server never shows what a foreign file holds
    status, answer = server.json("GET", "/api/replays/games?file=secret.jsonl")
    assert status == 422 and "sk-live" not in answer["error"] and "not a valid game record" in answer["error"]
    for name in ("localhost", "[::1]"):
        assert server.request("GET", "/api/catalogue", headers={"Host": f"{name}:{server.port}"})[0] == 200


def test_a_page_of_another_site_cannot_start_work(server):
    game = {"env": "nim_v0", "opponent": "random"}
    # a cross-site form or text/plain fetch: a "simple" request, sent without asking
    status, answer = server.json("POST", "/api/play", json.dumps(game).encode(), {"Content-Type": "text/plain"})
    assert status == 415 and "application/json" in answer["error"]
    status, answer = server.json("POST", "/api/play", game, {"Origin": "http://attacker.example"})
    assert status == 403 and "other pages" in answer["error"]
    status, _ = server.json("GET", "/api/replays", headers={"Sec-Fetch-Site": "cross-site"})
    assert status == 403
    # from its own page it works
    status, answer = server.json("POST", "/api/play", game, {"Origin": f"http://{server.host}",
                                                             "Sec-Fetch-Site": "same-origin"})
    assert status == 201 and answer["your_turn"]


def test_every_answer_forbids_framing_and_foreign_scripts(server):
    for path in ("/", "/api/catalogue", "/api/nothing", "/static/app.js"):
        _, headers, _ = server.request("GET", path)
        assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
        assert "script-src 'self'" in headers["content-security-policy"]
        assert "frame-ancestors 'none'" in headers["content-security-policy"]


def test_the_server_listens_beyond_this_machine_only_when_told_to():
    assert_clean_error(run_cli("serve", "--host", ""), "must name an address")
    assert_clean_error(run_cli("serve", "--host", "0.0.0.0"), "--allow-remote")
    assert_clean_error(run_cli("serve", "--move-seconds", "0"), "--move-seconds must be a number from 0.1")


# --- work without bounds ----------------------------------------------------------------------------------
def test_a_move_past_the_limit_ends_its_search_and_loses(server):
    started = time.monotonic()
    status, game = server.json("POST", "/api/play", {"env": "connect_four_v0", "opponent": ENDLESS,
                                                      "seat": "player_1", "seed": 1})
    took = time.monotonic() - started
    assert status == 201, game
    assert took < MOVE_SECONDS + 15  # the limit, process start and warm-up; the search alone takes minutes
    assert game["outcome"] == "won" and "ran past the server's limit of 1.5 s" in game["result"]
    wait_idle(server)


@pytest.mark.slow
def test_the_server_answers_while_searches_run_and_refuses_more_than_it_can_queue(server, tmp_path):
    answers: list[int] = []

    def start() -> None:
        status, _ = server.json("POST", "/api/play", {"env": "connect_four_v0", "opponent": ENDLESS,
                                                       "seat": "player_1", "seed": 2})
        answers.append(status)

    threads = [threading.Thread(target=start) for _ in range(14)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    started = time.monotonic()
    status, _, _ = server.request("GET", "/api/replays")
    assert status == 200 and time.monotonic() - started < 5  # not behind the searches
    for thread in threads:
        thread.join(120)
    # one search runs and eight wait: the rest are told at once that the server is busy
    assert answers.count(503) >= 14 - 9 and set(answers) <= {201, 503}, answers
    wait_idle(server)


@pytest.mark.slow
def test_a_stopped_watch_and_a_page_that_went_away_end_their_searches(server):
    status, watch = server.json("POST", "/api/watch", {"env": "connect_four_v0", "a": ENDLESS, "b": ENDLESS,
                                                       "games": 5, "delay": 0})
    assert status == 201
    time.sleep(0.8)
    assert server.searches_busy() > 0.2  # it thinks
    assert server.json("DELETE", f"/api/watch/{watch['id']}")[0] == 200
    wait_idle(server, 3)
    # a page that starts a game against a long search, then closes
    raw = socket.create_connection(("127.0.0.1", server.port))
    body = json.dumps({"env": "connect_four_v0", "opponent": "alphabeta:depth=9", "seat": "player_1"}).encode()
    raw.sendall(b"POST /api/play HTTP/1.1\r\nHost: " + server.host.encode() + b"\r\nContent-Type: application/json"
                b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    time.sleep(0.8)
    raw.close()
    wait_idle(server, 3)


def test_huge_games_are_refused_before_anything_is_built(server):
    for env, words in (("nim_v0:n=100000000", "n may be at most 10,000"),
                       ("connect_four_v0:rows=32,cols=32", "rows may be at most 16"),
                       ("cantris_v0:rows=64,cols=64", "at most 16")):
        started = time.monotonic()
        status, answer = server.json("POST", "/api/play", {"env": env, "opponent": "random"})
        assert status == 400 and words in answer["error"] and time.monotonic() - started < 5
    status, answer = server.json("POST", "/api/play", {"env": "connect_four_v0:rows=12,cols=10",
                                                        "opponent": "solver"})
    assert status == 400 and "64 bits" in answer["error"]


def test_a_replay_is_sent_in_bounded_parts(server, tmp_path):
    from boardzoo import arena
    from boardzoo.web.replays import MAX_REPLAY_CHARACTERS

    arena.run("cantris_v0:rows=64,cols=32", "random", "random", 1, seed=3, out=str(tmp_path / "big.jsonl"))
    status, _, raw = server.request("GET", "/api/replays/game?file=big.jsonl&index=0")
    assert status == 200 and len(raw) < MAX_REPLAY_CHARACTERS + 1_000_000
    part = json.loads(raw)
    positions = len(part["announces"])
    assert 1 <= len(part["frames"]) < positions  # a part, and the page asks for the rest
    status, later = server.json("GET", f"/api/replays/game?file=big.jsonl&index=0&start={positions - 1}")
    assert status == 200 and len(later["frames"]) == 1 and "game over" in later["announces"][-1]


# --- malformed input --------------------------------------------------------------------------------------
def test_malformed_requests_get_4xx_json_errors_never_500(server, tmp_path):
    (tmp_path / "loop.jsonl").symlink_to(tmp_path / "loop.jsonl")
    digits = "9" * 5001
    cases = [
        ("GET", "/api/replays/games?file=a%00b.jsonl", None),
        ("GET", "/api/replays/games?file=" + "x" * 300 + ".jsonl", None),
        ("GET", "/api/replays/games?file=loop.jsonl", None),
        ("GET", "/api/replays/game?file=x.jsonl&index=%C2%B2", None),
        ("GET", "/api/replays/game?file=x.jsonl&index=" + "1" * 4300, None),
        ("POST", "/api/play", ('{"env": "nim_v0", "opponent": "random", "seed": ' + digits + "}").encode()),
        ("POST", "/api/play", b"[" * 30000),
        ("POST", "/api/play", b"\xff\xfe"),
        ("GET", "/api/play/" + "k" * 5000, None),
    ]
    for method, path, body in cases:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        status, _, raw = server.request(method, path, body, headers)
        assert 400 <= status < 500, (path[:80], status, raw[:200])
        assert len(json.loads(raw)["error"]) < 300


@pytest.mark.parametrize("change, words", [
    ({"seed": -1}, "seed"),
    ({"moves": [[5, 0]], "plies": 1}, "move 0"),
    ({"decision_seconds": {"a": 5, "b": []}}, "decision_seconds"),
    ({"plies": 99}, "plies"),
])
def test_records_that_no_game_could_have_written_are_refused_by_meaning(server, tmp_path, change, words):
    from boardzoo import arena

    arena.run("nim_v0:n=5", "greedy", "random", 1, seed=1, out=str(tmp_path / "good.jsonl"))
    record = json.loads((tmp_path / "good.jsonl").read_text())
    (tmp_path / "bad.jsonl").write_text(json.dumps({**record, **change}) + "\n")
    status, answer = server.json("GET", "/api/replays/game?file=bad.jsonl&index=0")
    assert status == 422 and "not a valid game record" in answer["error"]
    result = run_cli("arena", "nim_v0:n=5", "greedy", "random", "--games", "2", "--out", str(tmp_path / "bad.jsonl"))
    assert_clean_error(result, words)


# --- hidden information -------------------------------------------------------------------------------------
def test_an_unseeded_game_draws_a_fresh_seed_told_only_at_the_end(server):
    seeds = set()
    for _ in range(3):
        status, game = server.json("POST", "/api/play", {"env": "nim_v0:n=3,k=3", "opponent": "random"})
        assert status == 201 and game["seed"] is None  # not told while it could tell secrets
        status, game = server.json("POST", f"/api/play/{game['id']}/move", {"action": 2})
        assert game["result"] is not None and isinstance(game["seed"], int)
        seeds.add(game["seed"])
    assert len(seeds) == 3
    status, game = server.json("POST", "/api/play", {"env": "nim_v0", "opponent": "random", "seed": 7})
    assert game["seed"] == 7


# --- stopping -------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_ctrl_c_stops_the_server_during_a_search_and_it_starts_again_at_once(tmp_path):
    running = Server(tmp_path, "--searches", "1")  # the default 10 s limit a move
    thread = threading.Thread(target=lambda: running.request(
        "POST", "/api/play", {"env": "connect_four_v0", "opponent": ENDLESS, "seat": "player_1"}), daemon=True)
    thread.start()
    time.sleep(2.0)
    started = time.monotonic()
    status, err = running.stop()
    assert status != -9 and time.monotonic() - started < 8, err
    assert "Traceback" not in err, err
    again = Server(tmp_path, port=running.port)  # the port its connections left in TIME_WAIT
    assert again.request("GET", "/api/catalogue")[0] == 200
    again.stop()
    assert_clean_error(run_cli("serve", "--host", "256.1.1.1", "--allow-remote"), "cannot listen")
