"""A small Geister tournament server for the client tests, written from the protocol
description in ``docs/rules-geister.md`` (not from our client).

Two listening ports: the first mover's and the second mover's. Each game accepts one
connection per remote seat; a seat can instead be played by the server itself (``bots``).
Faults on demand: ``NG`` for a move, a dropped connection, a malformed board string.
``stale_escape_ack`` answers an escape as the reference server (geister_server.java)
does: with the colour of the last ghost the escaping ghost captured, if any.
"""

from __future__ import annotations

import random
import socket
import threading

from boardzoo.games.geister import (
    DIRECTIONS,
    ESCAPED,
    GHOSTS,
    LETTERS,
    TARGET,
    GeisterState,
    board_string,
    placement_action,
)


def _listener() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    sock.settimeout(20)
    return sock


class Seat:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.file = sock.makefile("rb")
        self.sent: list[str] = []
        self.received: list[str] = []

    def send(self, text: str) -> None:
        self.sent.append(text)
        self.sock.sendall(text.encode() + b"\r\n")

    def read(self) -> str:
        raw = self.file.readline()
        assert raw.endswith(b"\r\n"), f"client line without CRLF: {raw!r}"
        line = raw[:-2].decode()
        assert line and line == line.strip(), f"empty line or trailing spaces: {line!r}"
        self.received.append(line)
        return line

    def close(self) -> None:
        self.file.close()
        self.sock.close()


class FakeServer:
    """Referees ``games`` games in a thread; ``results`` gets the server's view of each."""

    def __init__(self, games: int = 1, max_turns: int = 300, bots: dict | None = None,
                 ng_on_move: int | None = None, drop_after_moves: int | None = None,
                 malformed_board: bool = False, stale_escape_ack: bool = False, reveal_final: bool = True,
                 seed: int = 0):
        self.listeners = [_listener(), _listener()]
        self.ports = [s.getsockname()[1] for s in self.listeners]
        self.games, self.max_turns = games, max_turns
        self.bots = bots or {}  # seat -> f(state, rng) -> action
        self.ng_on_move, self.drop_after_moves = ng_on_move, drop_after_moves
        self.malformed_board = malformed_board
        self.stale_escape_ack = stale_escape_ack
        self.reveal_final = reveal_final  # the verdict's board shows every colour, as the reference server's does
        self.escape_acks: list[str] = []  # what each escape was acknowledged with
        self.rng = random.Random(seed)
        self.results: list[dict] = []
        self.errors: list[BaseException] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.thread.join(timeout=30)
        for sock in self.listeners:
            sock.close()

    def _serve(self) -> None:
        try:
            for _ in range(self.games):
                seats = {seat: Seat(self.listeners[seat].accept()[0]) for seat in (0, 1) if seat not in self.bots}
                try:
                    self.results.append(self._referee(seats))
                finally:
                    for seat in seats.values():
                        seat.close()
        except BaseException as error:  # surfaced by the tests
            self.errors.append(error)

    def _referee(self, seats: dict[int, Seat]) -> dict:
        state = GeisterState(self.max_turns)
        placements = {}
        history: list[list[int]] = []  # [seat, action] as the env numbers them
        for seat in (0, 1):
            if seat in seats:
                seats[seat].send("SET?")
                line = seats[seat].read()
                assert line.startswith("SET:"), line
                placements[seat] = line[4:]
                history.append([seat, placement_action([LETTERS.index(c) for c in line[4:]])])
                seats[seat].send("OK ")
            else:
                history.append([seat, placement_action(self.rng.sample(range(8), 4))])
            state.apply(history[-1][1])
        moves = 0
        last_taken: dict[int, str] = {}  # ghost -> the acknowledgement of its last capture
        while not state.is_terminal():
            seat = state.current_player()
            if seat not in seats:
                history.append([seat, self.bots[seat](state, self.rng)])
                state.apply(history[-1][1])
                continue
            client = seats[seat]
            board = "14R24R" if self.malformed_board else board_string(state, seat)
            client.send("MOV?" + board)
            if self.malformed_board:
                return {"ended": "malformed"}
            line = client.read()
            moves += 1
            if self.drop_after_moves is not None and moves > self.drop_after_moves:
                return {"ended": "dropped"}
            assert line.startswith("MOV:"), line
            letter, direction = line[4:].split(",")
            action = 4 * LETTERS.index(letter) + [d[0] for d in DIRECTIONS].index(direction[0])
            assert direction in DIRECTIONS or direction in "NESW", direction
            if moves == self.ng_on_move or not state.is_legal(action):
                client.send("NG ")
                return {"ended": "NG"}
            mover = GHOSTS * seat + action // 4
            square = TARGET[seat][state.pos[mover]][action % 4]
            target = state.board[square] if square is not None and square >= 0 else -1
            state.apply(action)
            history.append([seat, action])
            if target >= 0:
                last_taken[mover] = "OKR" if state.red[target] else "OKB"
            escaped = state.pos[mover] == ESCAPED
            ack = (last_taken.get(mover, "OK ") if escaped and self.stale_escape_ack
                   else "OK " if target < 0 else "OKR" if state.red[target] else "OKB")
            if escaped:
                self.escape_acks.append(ack)
            client.send(ack)
        r0, _ = state.returns()
        for seat, client in seats.items():
            mine = r0 if seat == 0 else -r0
            client.send(("WON:" if mine > 0 else "LST:" if mine < 0 else "DRW:")
                        + board_string(state, seat, reveal=self.reveal_final))
        return {"ended": "game", "returns": state.returns(), "plies": state.plies,
                "escaped": -2 in state.pos, "lost": state.lost, "placements": placements, "history": history}

