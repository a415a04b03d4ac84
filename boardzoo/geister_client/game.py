"""One game against the tournament server: :class:`GameTracker` turns every board string
into the seat's information set, and :func:`play_game` answers the server's requests
with the agent's moves, checking that the server's boards follow the rules."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from boardzoo.agents.base import Agent
from boardzoo.games.geister import (
    DIRECTIONS,
    ESCAPED,
    GHOSTS,
    LETTERS,
    MOVE_ACTIONS,
    NUM_ACTIONS,
    RED_SETS,
    SIZE,
    TARGET,
    GeisterState,
    GeisterView,
    home_square,
    parse_board_string,
    parse_red,
    placement_action,
    position_from_board_string,
    red_letters,
)
from boardzoo.games.geister import observation_of as encode_observation
from boardzoo.geister_client.connection import ClientError, Connection, quoted

RESULTS = {"WON": "won", "LST": "lost", "DRW": "draw"}


@dataclass
class GameRecord:
    result: str  # won, lost or draw
    moves: int  # moves this client made
    board: str  # the final board string
    seat: str  # first or second mover
    captured: list[str] = field(default_factory=list)  # colours this client captured (OKR/OKB)
    #: Why the result is the server's ruling rather than what the final board shows ("" when
    #: the board shows it): the reference server's clocks can end a game at any time.
    ruled: str = ""
    placement: int | None = None  # our placement action (None: the game ended before it)
    actions: list[int] = field(default_factory=list)  # our moves, as env actions
    boards: list[str] = field(default_factory=list)  # the board of each MOV? before our move
    seconds: list[float] = field(default_factory=list)  # the agent's time for each decision
    #: The last position with every colour and the game's public evidence, for an agent
    #: that learns its opponent over the match (None: the final board hid colours).
    final: GeisterState | None = None


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
        self.moved = [0] * (2 * GHOSTS)
        self.offered = [0] * (2 * GHOSTS)

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
        state.advance, state.declined, state.moved = self.advance[:], self.declined[:], self.moved[:]
        state.offered = self.offered[:]
        return GeisterView(state, 0)

    def final(self, board: str) -> GeisterState | None:
        """The game's last position from the final board string, every colour as the
        board shows it, with the evidence of the whole game; None when the board hides
        a colour."""
        pieces = parse_board_string(board)
        if any(colour == "u" for _, _, colour in pieces):
            return None
        if self.previous is not None:
            self._evidence(self.previous, pieces)
            self.previous = pieces
        state = position_from_board_string(board, 2 * self.turns, self.max_turns)
        state.advance, state.declined, state.moved = self.advance[:], self.declined[:], self.moved[:]
        state.offered = self.offered[:]
        return state

    def _evidence(self, before: list, after: list) -> None:
        exits = {(0, SIZE - 1), (SIZE - 1, SIZE - 1)}  # the opponent's exits, in our frame
        for i in range(GHOSTS):
            g = GHOSTS + i
            (x0, y0, _), (x1, y1, _) = before[g], after[g]
            if (x0, y0) in exits and x1 < 6:
                self.declined[g] += 1  # it could have left (if blue) and is still here
            if x0 < 6 and x1 < 6 and (x0, y0) != (x1, y1):
                self.advance[g] += y1 - y0  # the opponent's forward is our south
                self.moved[g] += 1
                ours = {(x, y) for x, y, _ in after[:GHOSTS] if x < 6}
                self.offered[g] += any((x1 + dx, y1 + dy) in ours for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)))


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


ACKS = {"OK": None, "OKR": "red", "OKB": "blue"}


def _ack(line: str, pending: str, may_capture: bool, escaping: bool = False) -> str | None:
    """The colour an acknowledgement reports captured (None for a plain OK); a
    ClientError for NG or anything that is not exactly an acknowledgement.

    An escape captures nothing, but the reference server (geister_server.java) answers
    it with the colour of the last ghost the escaping ghost ever captured (it keeps that
    on the ghost and does not clear it when the ghost leaves the board), so after an
    escape any acknowledgement is accepted and its colour ignored."""
    word = line.rstrip(" ")  # the protocol pads OK to three characters: "OK "
    if word == "NG":
        raise ClientError(f"the server refused {pending!r} (NG)")
    if word not in ACKS:
        raise ClientError(f"expected OK, OKR, OKB or NG after {pending!r}, got {quoted(line)}")
    if escaping:
        return None
    if ACKS[word] is not None and not may_capture:
        raise ClientError(f"the server answered {word} (a capture) to {pending!r}, which captures nothing")
    return ACKS[word]


def check_successor(before: list, action: int, after: list) -> None:
    """Raise ValueError unless board ``after`` follows from board ``before`` by our
    ``action`` and then exactly one move of the opponent (pieces as parse_board_string
    gives them, in our frame)."""
    expected = [piece[:2] for piece in before]
    ghost, direction = action // 4, action % 4
    x, y = expected[ghost]
    target = TARGET[0][y * SIZE + x][direction] if x < SIZE else None
    if target is None or target < 0:
        raise ValueError(f"our move {LETTERS[ghost]},{DIRECTIONS[direction]} was not a move on the board")
    landing = (target % SIZE, target // SIZE)
    for g in range(GHOSTS, 2 * GHOSTS):
        if expected[g] == landing:
            expected[g] = (9, 9)  # we captured it
    expected[ghost] = landing
    now = [piece[:2] for piece in after]
    moved = [g for g in range(GHOSTS, 2 * GHOSTS) if now[g] != expected[g]]
    if len(moved) != 1:
        raise ValueError(f"{len(moved)} opponent ghosts moved since our move, not one")
    (x0, y0), (x1, y1) = expected[moved[0]], now[moved[0]]
    if x0 >= SIZE or x1 >= SIZE or abs(x1 - x0) + abs(y1 - y0) != 1:
        raise ValueError(f"opponent ghost {LETTERS[moved[0] - GHOSTS].lower()} went from {x0}{y0} to {x1}{y1}, "
                         "not one step")
    for g in range(GHOSTS):
        if now[g] != expected[g] and not (now[g] == (9, 9) and expected[g] == (x1, y1)):
            raise ValueError(f"our ghost {LETTERS[g]} went from {expected[g][0]}{expected[g][1]} to "
                             f"{now[g][0]}{now[g][1]} though we did not move it")
        if after[g][2].upper() != before[g][2].upper():
            raise ValueError(f"our ghost {LETTERS[g]} changed colour")


_VERDICT_WINNER = {"won": 0, "lost": 1, "draw": None}


def play_game(connection: Connection, agent: Agent, red: str | None, max_turns: int,
              log: Callable[[str], None] = lambda line: None) -> GameRecord:
    """Play one game on an open connection; raises ClientError on anything irregular:
    the server's lines are checked against the protocol and against the game itself."""
    tracker = GameTracker(max_turns)
    most_moves = (max_turns + 1) // 2  # moves of the first mover in max_turns plies
    game = GameRecord("", 0, "", "")
    captured = game.captured
    pending: str | None = None  # the command waiting for its acknowledgement
    may_capture = escaping = False
    placed = False
    last: tuple[list, int] | None = None  # (pieces, our action) of our previous move
    while True:
        line = connection.read_line()
        if line is None:
            raise ClientError("the server closed the connection before the game ended"
                              + (f" (after we sent {pending!r})" if pending else ""))
        log(f"< {line}")
        head, body = line[:4], line[4:]
        if pending is not None and not (head[:3] in RESULTS and head[3:] == ":"):
            # (a verdict may come instead of the acknowledgement: the server ends a game
            # on a clock, and the reference server's clocks can outlive their game)
            colour = _ack(line, pending, may_capture, escaping)
            if colour is not None:
                captured.append(colour)
            pending = None
            continue
        if line == "SET?":
            if placed:
                raise ClientError("the server asked for the red ghosts twice in one game")
            start = time.perf_counter()
            letters = placement(agent, red, max_turns)
            game.seconds.append(time.perf_counter() - start)
            game.placement = placement_action(parse_red(letters))
            pending, placed = f"SET:{letters}", True
            may_capture = escaping = False
        elif head == "MOV?":
            if not placed:
                raise ClientError("the server asked for a move before asking for the red ghosts")
            if tracker.turns >= most_moves:
                raise ClientError(f"the server asked for move {tracker.turns + 1}, but a game of {max_turns} plies "
                                  f"(--max-turns) has at most {most_moves} per seat: a server error")
            try:
                pieces = parse_board_string(body)
                if last is not None:
                    check_successor(last[0], last[1], pieces)
                view = tracker.view(body)
            except ValueError as error:
                raise ClientError(f"malformed board from the server: {error}") from None
            if view.is_terminal():
                raise ClientError(f"the server asked for a move on a board where the game is already decided "
                                  f"({body}): a server error")
            observation = observation_of(view)
            if not observation["action_mask"].any():
                raise ClientError(f"the server asked for a move on a board with no legal move ({body}): "
                                  "a server error")
            start = time.perf_counter()
            action = agent.act(observation, view)
            game.seconds.append(time.perf_counter() - start)
            if not (0 <= action < NUM_ACTIONS and observation["action_mask"][action]):
                raise ClientError(f"agent {agent.spec} chose illegal action {action}")
            game.boards.append(body)
            game.actions.append(action)
            last = (pieces, action)
            ghost = view.pos[action // 4]
            target = TARGET[0][ghost][action % 4]
            may_capture = target is not None and target >= 0 and view.board[target] >= GHOSTS
            escaping = target == ESCAPED
            pending = f"MOV:{LETTERS[action // 4]},{DIRECTIONS[action % 4]}"
        elif head[:3] in RESULTS and head[3:] == ":":
            result = RESULTS[head[:3]]
            if not placed:
                raise ClientError(f"the server declared the game {result} ({quoted(line)}) before it began")
            ruled = ""
            try:
                final = position_from_board_string(body, max_turns=max_turns)
                shown = final.winner if final.over else None
            except ValueError as error:
                if not _unplaced_opponent(body):
                    raise ClientError(f"malformed final board from the server: {error}") from None
                shown, ruled = None, "the opponent had not placed its ghosts (a clock ran out)"
            if shown is None and result != "draw" and not ruled:  # decided on the clock, not on the board
                ruled = "the final board shows no winner (a clock ran out)"
            if shown != _VERDICT_WINNER[result] and not ruled:
                what = "no winner" if shown is None else "a win for us" if shown == 0 else "a win for the opponent"
                raise ClientError(f"the server says we {result}, but its final board {body} shows {what}")
            game.result, game.moves, game.board, game.ruled = result, tracker.turns, body, ruled
            if not ruled:
                game.final = tracker.final(body)
            game.seat = "first" if tracker.first in (True, None) else "second"
            return game
        else:
            raise ClientError(f"malformed line from the server: {quoted(line)}")
        log(f"> {pending}")
        connection.send_line(pending)


def _unplaced_opponent(board: str) -> bool:
    """Is ``board`` the reference server's board of a game whose opponent never placed its
    ghosts (a clock ended the game first)? The server then shows the opponent's eight
    ghosts on their starting squares, all of one colour, a board no game can reach."""
    if len(board) != 48:
        return False
    theirs = [board[i:i + 3] for i in range(24, 48, 3)]
    return (len({entry[2] for entry in theirs}) == 1 and theirs[0][2] in "rb"
            and {entry[:2] for entry in theirs} == {f"{x}{y}" for x in range(1, 5) for y in (0, 1)})
