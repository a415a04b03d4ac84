"""Faults against the Geister tournament client: hostile or broken servers end the run
quickly, with a short message that says whose fault it was."""

from __future__ import annotations

import socket
import threading
import time

import pytest
from helpers import assert_clean_error, run_cli

from boardzoo.geister_client import ClientError, run

START = "14R24R34R44R15B25B35B45B41u31u21u11u40u30u20u10u"  # the first mover's opening board
# Opponent's 4 blue ghosts captured: the game is already decided in our favour.
DECIDED = "14R24R34R44R15B25B35B45B99b99b99b99b40u30u20u10u"


class HostileServer:
    """One connection on localhost; ``script(conn)`` plays the server's part."""

    def __init__(self, script):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.listener.settimeout(30)
        self.port = self.listener.getsockname()[1]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(script,), daemon=True)

    def _serve(self, script):
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        with conn:
            try:
                script(conn, self.stop)
            except (OSError, StopIteration):
                pass  # the client hung up, as it should

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.listener.close()
        self.thread.join(timeout=10)


def lines(conn):
    reader = conn.makefile("rb")
    while True:
        line = reader.readline()
        if not line:
            return
        yield line.decode().strip()


def placed(conn):
    """The opening: SET? answered and acknowledged."""
    conn.sendall(b"SET?\r\n")
    replies = lines(conn)
    next(replies)
    conn.sendall(b"OK \r\n")
    return replies


def play(script, agent="random", timeout=2.0, max_turns=300):
    with HostileServer(script) as server:
        start = time.monotonic()
        with pytest.raises(ClientError) as caught:
            run("127.0.0.1", server.port, agent, 1, seed=0, retries=0, timeout=timeout, max_turns=max_turns,
                out=lambda line: None)
        return str(caught.value), time.monotonic() - start


def test_a_server_that_drips_bytes_times_out_per_line():
    def drip(conn, stop):
        while not stop.is_set():
            conn.sendall(b"M")
            time.sleep(0.1)
    message, seconds = play(drip, timeout=1.0)
    assert "no complete line within 1 s" in message and seconds < 5


def test_a_huge_line_is_refused_at_once_with_a_short_message():
    def flood(conn, stop):
        chunk = b"X" * 65536
        for _ in range(256):  # 16 MiB, no newline
            if stop.is_set():
                return
            conn.sendall(chunk)
    message, seconds = play(flood, timeout=30)
    assert "longer than 256 bytes" in message and len(message) < 300 and seconds < 5


def test_an_unchanging_board_is_a_protocol_error():
    def stuck(conn, stop):
        replies = placed(conn)
        for _ in range(2000):
            conn.sendall(f"MOV?{START}\r\n".encode())
            next(replies)
            conn.sendall(b"OK \r\n")
    message, _ = play(stuck)
    assert "0 opponent ghosts moved since our move" in message


def test_more_requests_than_the_turn_limit_allows_are_refused():
    def greedy_server(conn, stop):
        replies = placed(conn)
        conn.sendall(f"MOV?{START}\r\n".encode())
        next(replies)
        conn.sendall(b"OK \r\n")
        conn.sendall(f"MOV?{START}\r\n".encode())
    message, _ = play(greedy_server, max_turns=2)
    assert "at most 1 per seat" in message


def test_a_verdict_before_the_game_began_is_a_protocol_error():
    message, _ = play(lambda conn, stop: conn.sendall(f"WON:{START}\r\n".encode()))
    assert "before it began" in message


def test_a_verdict_the_board_contradicts_is_a_protocol_error():
    message, _ = play(lambda conn, stop: (placed(conn), conn.sendall(f"LST:{DECIDED}\r\n".encode())))
    assert "shows a win for us" in message


def test_a_verdict_on_an_undecided_board_is_the_servers_ruling_even_instead_of_an_acknowledgement():
    # The reference server ends a game on a clock (and its clocks can outlive their game):
    # the verdict may come at any time, even where the acknowledgement of our move was due.
    def clock(conn, stop):
        replies = placed(conn)
        conn.sendall(f"MOV?{START}\r\n".encode())
        next(replies)
        conn.sendall(f"LST:{START}\r\n".encode())
    server = HostileServer(clock)
    server.thread.start()
    lines_out: list[str] = []
    records = run("127.0.0.1", server.port, "greedy", 1, seed=0, out=lines_out.append, retries=0, timeout=10)
    server.stop.set()
    assert records[0].result == "lost" and records[0].ruled and records[0].moves == 1
    assert "the server's ruling: the final board shows no winner" in lines_out[0]


def test_a_verdict_before_the_opponent_placed_is_the_servers_ruling():
    # A clock left over from an earlier game can end the next one right after our
    # placement: the reference server then shows the opponent's ghosts unplaced, eight of
    # one colour on their starting squares.
    unplaced = "14B24R34R44B15R25B35R45B41b31b21b11b40b30b20b10b"
    server = HostileServer(lambda conn, stop: (placed(conn), conn.sendall(f"WON:{unplaced}\r\n".encode())))
    server.thread.start()
    lines_out: list[str] = []
    records = run("127.0.0.1", server.port, "greedy", 1, seed=0, out=lines_out.append, retries=0, timeout=10)
    server.stop.set()
    assert records[0].result == "won" and records[0].moves == 0
    assert "the server's ruling: the opponent had not placed its ghosts" in lines_out[0]


def test_a_final_board_with_too_many_ghosts_of_a_colour_elsewhere_is_a_protocol_error():
    # eight blues, but not on the starting squares: no game and no server rule explains it
    board = "14B24R34R44B15R25B35R45B41b31b21b11b40b30b20b00b"
    message, _ = play(lambda conn, stop: (placed(conn), conn.sendall(f"WON:{board}\r\n".encode())))
    assert "malformed final board" in message


def test_acknowledgements_are_parsed_exactly():
    def okay(conn, stop):
        conn.sendall(b"SET?\r\n")
        next(lines(conn))
        conn.sendall(b"OKAY\r\n")
    message, _ = play(okay)
    assert "expected OK, OKR, OKB or NG" in message


@pytest.mark.parametrize("agent", ["greedy", "random", "mcts:iterations=10"])
def test_a_move_request_on_a_decided_board_is_the_servers_error(agent):
    def decided(conn, stop):
        placed(conn)
        conn.sendall(f"MOV?{DECIDED}\r\n".encode())
    message, _ = play(decided, agent=agent)
    assert "already decided" in message and "server error" in message


@pytest.mark.parametrize("args, fragment", [(["--port", "70000"], "--port must be an int from 1 to 65,535"),
                                            (["--timeout", "0"], "--timeout must be"),
                                            (["--timeout", "inf"], "--timeout must be"),
                                            (["--retries", "-1"], "--retries must be"),
                                            (["--max-turns", "0"], "--max-turns must be")])
def test_bad_settings_are_refused_before_connecting(args, fragment):
    started = time.monotonic()
    assert_clean_error(run_cli("geister-client", "--port", "9", *args), fragment)
    assert time.monotonic() - started < 20
