"""A client for the Geister tournament server (protocol: ``shared/docs/rules-geister.md``).

    boardzoo geister-client --host localhost --port 10000 --agent greedy --games 10

One game per connection: ``SET?`` -> ``SET:ABCD``; ``MOV?<board>`` -> ``MOV:A,NORTH``, each
acknowledged by ``OK``/``OKR``/``OKB`` or refused by ``NG``; the game ends with
``WON:``/``LST:``/``DRW:<board>``. Every board string is turned into the seat's
information set (a :class:`GeisterView`, the same model the env hands an agent), so any
boardzoo agent plays here exactly as it plays in the env.

Failures end the run with a :class:`ClientError` that says what happened: ``NG``, a
connection dropped mid-game, a malformed line, silence longer than ``timeout``, or a server
that kept refusing connections through every retry. Nothing loops on a bad move: an ``NG``
ends the run.
"""

from __future__ import annotations

import random
import socket
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from boardzoo.agents import make
from boardzoo.agents.base import Agent
from boardzoo.errors import BoardzooError
from boardzoo.envs.geister_v0 import encode_observation
from boardzoo.games.geister import (DIRECTIONS, GHOSTS, LETTERS, MOVE_ACTIONS, NUM_ACTIONS, RED_SETS, SIZE,
                                    GeisterState, GeisterView, home_square, parse_board_string, parse_red,
                                    position_from_board_string, red_letters)


class ClientError(BoardzooError):
    """The tournament client could not go on; the message says why."""


RESULTS = {"WON": "won", "LST": "lost", "DRW": "draw"}


@dataclass
class GameRecord:
    result: str  # won, lost or draw
    moves: int  # moves this client made
    board: str  # the final board string
    seat: str  # first or second mover
    captured: list[str] = field(default_factory=list)  # colours this client captured (OKR/OKB)


class Connection:
    """Lines over a TCP socket: CRLF on the wire, never an empty line, a read timeout."""

    def __init__(self, sock: socket.socket, timeout: float):
        self.sock = sock
        self.sock.settimeout(timeout)
        self.buffer = b""

    def read_line(self) -> str | None:
        """The next line without its CRLF; None when the server closed the connection."""
        while b"\n" not in self.buffer:
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                raise ClientError(f"the server sent nothing for {self.sock.gettimeout():g} s") from None
            except OSError as error:
                raise ClientError(f"the connection broke: {error}") from None
            if not chunk:
                if self.buffer.strip():
                    raise ClientError(f"the server closed the connection in the middle of a line: {self.buffer!r}")
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            return line.decode("ascii").rstrip("\r")
        except UnicodeDecodeError:
            raise ClientError(f"the server sent a line that is not ASCII: {line!r}") from None

    def send_line(self, text: str) -> None:
        if not text or text != text.strip():
            raise ValueError(f"refusing to send an empty line or trailing spaces: {text!r}")
        try:
            self.sock.sendall(text.encode("ascii") + b"\r\n")
        except OSError as error:
            raise ClientError(f"could not send {text!r}: {error}") from None

    def close(self) -> None:
        self.sock.close()


def connect(host: str, port: int, retries: int, backoff: float, timeout: float,
            sleep: Callable[[float], None] = time.sleep) -> Connection:
    """Connect, retrying refused connections with exponential back-off (the server
    refuses for a moment between games)."""
    delay = backoff
    last = None
    for attempt in range(retries + 1):
        try:
            return Connection(socket.create_connection((host, port), timeout=timeout), timeout)
        except OSError as error:  # refused, unreachable, timed out
            last = error
            if attempt < retries:
                sleep(delay)
                delay = min(delay * 2, 5.0)
    raise ClientError(f"could not connect to {host}:{port} after {retries + 1} attempts: {last}")


class GameTracker:
    """Turns the board strings of one game into the seat's information set, keeping the
    public evidence the beliefs use (which opponent ghost moved forward, which stood on an
    exit and did not escape)."""

    def __init__(self, max_turns: int):
        self.max_turns = max_turns
        self.turns = 0  # MOV? received
        self.first: bool | None = None
        self.previous: list | None = None
        self.advance = [0] * (2 * GHOSTS)
        self.declined = [0] * (2 * GHOSTS)

    def view(self, board: str) -> GeisterView:
        pieces = parse_board_string(board)  # raises ValueError on a malformed string
        if self.first is None:
            # Only the second mover can see an opponent ghost away from home at its first turn.
            self.first = all(pieces[GHOSTS + i][:2] == _xy(home_square(1, i)) for i in range(GHOSTS))
        if self.previous is not None:
            self._evidence(self.previous, pieces)
        self.previous = pieces
        plies = 2 * self.turns + (0 if self.first else 1)
        self.turns += 1
        state = position_from_board_string(board, plies, self.max_turns)
        state.advance, state.declined = self.advance[:], self.declined[:]
        return GeisterView(state, 0)

    def _evidence(self, before: list, after: list) -> None:
        exits = {(0, SIZE - 1), (SIZE - 1, SIZE - 1)}  # the opponent's exits, in our frame
        for i in range(GHOSTS):
            g = GHOSTS + i
            (x0, y0, _), (x1, y1, _) = before[g], after[g]
            if (x0, y0) in exits and x1 < 6:
                self.declined[g] += 1  # it could have left (if blue) and is still here
            if x0 < 6 and x1 < 6:
                self.advance[g] += y1 - y0  # the opponent's forward is our south


def _xy(square: int) -> tuple[int, int]:
    return square % SIZE, square // SIZE


def placement(agent: Agent, red: str | None, max_turns: int) -> str:
    """The 4 red letters: ``red`` when given, else the agent's choice in the placement phase."""
    if red is not None:
        return red_letters(parse_red(red))
    view = GeisterView(GeisterState(max_turns), 0)
    action = agent.act(observation_of(view), view)
    if not MOVE_ACTIONS <= action < NUM_ACTIONS:
        raise ClientError(f"agent {agent.spec} chose {action}, not a placement, when asked for its red ghosts")
    return red_letters(RED_SETS[action - MOVE_ACTIONS])


def observation_of(view: GeisterView) -> dict:
    """What the env would show this seat: the same arrays, so RL policies play here too."""
    mask = np.array(view.legal_mask(), dtype=np.int8)
    return {"observation": encode_observation(view, 0), "action_mask": mask}


def play_game(connection: Connection, agent: Agent, red: str | None, max_turns: int,
              log: Callable[[str], None] = lambda line: None) -> GameRecord:
    """Play one game on an open connection; raises ClientError on anything irregular."""
    tracker = GameTracker(max_turns)
    captured: list[str] = []
    pending: str | None = None  # the command waiting for its acknowledgement
    while True:
        line = connection.read_line()
        if line is None:
            raise ClientError("the server closed the connection before the game ended"
                              + (f" (after we sent {pending!r})" if pending else ""))
        log(f"< {line}")
        head, body = line[:4], line[4:]
        if pending is not None:
            if line.startswith("OK"):
                if line[2:3] in ("R", "B"):
                    captured.append("red" if line[2] == "R" else "blue")
                pending = None
                continue
            if line.startswith("NG"):
                raise ClientError(f"the server refused {pending!r} (NG)")
            raise ClientError(f"expected OK/NG after {pending!r}, got {line!r}")
        if line == "SET?":
            pending = f"SET:{placement(agent, red, max_turns)}"
        elif head == "MOV?":
            try:
                view = tracker.view(body)
            except ValueError as error:
                raise ClientError(f"malformed board from the server: {error}") from None
            observation = observation_of(view)
            action = agent.act(observation, view)
            if not (0 <= action < NUM_ACTIONS and observation["action_mask"][action]):
                raise ClientError(f"agent {agent.spec} chose illegal action {action}")
            pending = f"MOV:{LETTERS[action // 4]},{DIRECTIONS[action % 4]}"
        elif head[:3] in RESULTS and head[3:] == ":":
            try:
                parse_board_string(body)
            except ValueError as error:
                raise ClientError(f"malformed final board from the server: {error}") from None
            return GameRecord(RESULTS[head[:3]], tracker.turns, body,
                              "first" if tracker.first in (True, None) else "second", captured)
        else:
            raise ClientError(f"malformed line from the server: {line!r}")
        log(f"> {pending}")
        connection.send_line(pending)


def run(host: str, port: int, agent_spec: str, games: int, red: str | None = None, seed: int | None = None,
        max_turns: int = 300, retries: int = 8, backoff: float = 0.2, timeout: float = 60.0,
        out: Callable[[str], None] = print, log: Callable[[str], None] = lambda line: None) -> list[GameRecord]:
    """Play ``games`` games, one connection each; print one line per game."""
    if games < 1:
        raise ClientError(f"--games must be at least 1, got {games}")
    if red is not None:
        parse_red(red)  # a clear error before connecting
    agent = make(agent_spec, seed=seed)
    seeds = random.Random(seed)
    records = []
    for number in range(1, games + 1):
        agent.reset(seeds.randrange(2**32))
        connection = connect(host, port, retries, backoff, timeout)
        try:
            record = play_game(connection, agent, red, max_turns, log)
        finally:
            connection.close()
        records.append(record)
        extra = f", captured {'/'.join(record.captured)}" if record.captured else ""
        out(f"game {number}: {record.result} ({record.seat} mover, {record.moves} moves{extra})")
    return records

