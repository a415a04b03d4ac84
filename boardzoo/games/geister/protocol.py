"""The tournament server's board strings: 16 pieces of ``x y colour``, as a seat
receives them (its own ghosts A..H, then the opponent's a..h, in its own frame)."""

from __future__ import annotations

from boardzoo.games.geister.board import (
    CAPTURED,
    EMPTY,
    ESCAPED,
    GHOSTS,
    MOVE_ACTIONS,
    RED_SET_INDEX,
    SIZE,
    SQUARES,
    to_own,
)
from boardzoo.games.geister.rules import GeisterState


def board_string(state: GeisterState, seat: int, reveal: bool = False) -> str:
    """The tournament server's 48-character board string as ``seat`` receives it: its
    ghosts A..H then the opponent's a..h, each ``x y colour`` in ``seat``'s frame.
    ``reveal`` shows the opponent's hidden colours too (spectators only)."""
    parts = []
    for owner in (seat, 1 - seat):
        for i in range(GHOSTS):
            g = GHOSTS * owner + i
            square = state.pos[g]
            colour = "r" if state.red[g] else "b"
            if square == CAPTURED:
                parts.append("99" + colour)
            elif square == ESCAPED:
                parts.append("88" + colour)
            else:
                own = to_own(seat, square)
                if owner == seat:
                    shown = colour.upper() if state.placed[seat] else "u"
                else:
                    shown = colour if reveal else "u"
                parts.append(f"{own % SIZE}{own // SIZE}{shown}")
    return "".join(parts)


def parse_board_string(text: str) -> list[tuple[int, int, str]]:
    """Check and split a 48-character board string into 16 ``(x, y, colour)``: x, y in
    0..5, or (9, 9) captured, or (8, 8) escaped. Raises ValueError saying what is wrong."""
    if not isinstance(text, str) or len(text) != 48:
        raise ValueError(f"a board string has 48 characters, got {len(text) if isinstance(text, str) else text!r}: "
                         f"{text!r}")
    pieces = []
    for k in range(16):
        x, y, colour = text[3 * k], text[3 * k + 1], text[3 * k + 2]
        if colour not in "RBrbu":
            raise ValueError(f"board string {text!r}: piece {k} has colour {colour!r}, expected R, B, r, b or u")
        if x + y in ("99", "88"):
            pieces.append((int(x), int(y), colour))
        elif x in "012345" and y in "012345":
            pieces.append((int(x), int(y), colour))
        else:
            raise ValueError(f"board string {text!r}: piece {k} has position {x + y!r}, expected x, y in 0..5, "
                             "99 (captured) or 88 (escaped)")
    return pieces


def position_from_board_string(text: str, plies: int = 0, max_turns: int = 200) -> GeisterState:
    """The position a board string describes, its receiver as player_0 (the receiver sits
    at the bottom of its own string, which is player_0's frame) and to move.

    Returns a :class:`GeisterState` whose ``red`` holds None for every ``u`` ghost: pass it
    to :class:`GeisterView` for the receiver's information set (what the tournament client
    does), or use it as a full state when the string shows every colour (tests, logs).
    Raises ValueError when the string is malformed or impossible."""
    pieces = parse_board_string(text)
    state = GeisterState(max_turns, {0: (0, 1, 2, 3), 1: (0, 1, 2, 3)})
    state.board = [EMPTY] * SQUARES
    state.plies, state.player = plies, 0
    red: list = [None] * (2 * GHOSTS)
    for g, (x, y, colour) in enumerate(pieces):
        owner = g // GHOSTS
        if colour == "u" and (owner == 0 or (x, y) == (9, 9)):
            raise ValueError(f"board string {text!r}: piece {g} is {'own' if owner == 0 else 'captured'} "
                             "but its colour is 'u'")
        red[g] = None if colour == "u" else colour in "Rr"
        if (x, y) == (9, 9):
            state.pos[g] = CAPTURED
            state.lost[owner][1 if red[g] else 0] += 1
        elif (x, y) == (8, 8):
            state.pos[g] = ESCAPED
        else:
            square = y * SIZE + x
            if state.board[square] >= 0:
                raise ValueError(f"board string {text!r}: two pieces on square ({x}, {y})")
            state.pos[g] = square
            state.board[square] = g
    for owner in (0, 1):
        known = [red[g] for g in range(GHOSTS * owner, GHOSTS * owner + GHOSTS) if red[g] is not None]
        if known.count(True) > 4 or known.count(False) > 4:
            raise ValueError(f"board string {text!r}: a seat has more than 4 ghosts of one colour")
    state.red = red
    for seat in (0, 1):
        if state.lost[seat][0] == 4 or state.lost[seat][1] == 4:
            state.over, state.winner = True, 1 - seat if state.lost[seat][0] == 4 else seat
    if ESCAPED in state.pos:
        state.over, state.winner = True, state.pos.index(ESCAPED) // GHOSTS
    return state


def positions_of(text: str, our_seat: int) -> list[int]:
    """``pos`` (player_0's frame, as :class:`GeisterState` keeps it) of the board string a
    seat playing ``our_seat`` received: its own ghosts A..H are that seat's, a..h the other's."""
    pos = [0] * (2 * GHOSTS)
    for k, (x, y, _) in enumerate(parse_board_string(text)):
        owner = our_seat if k < GHOSTS else 1 - our_seat
        g = GHOSTS * owner + k % GHOSTS
        pos[g] = CAPTURED if (x, y) == (9, 9) else ESCAPED if (x, y) == (8, 8) else to_own(our_seat, y * SIZE + x)
    return pos


class HiddenColours(ValueError):
    """A final board that keeps some opponent colours hidden: the opponent's placement,
    and so its game, cannot be rebuilt (not a fault of the server's)."""


def moves_from_boards(first: bool, placement: int, actions: list[int], boards: list[str], final: str,
                      max_turns: int) -> list[list[int]]:
    """The whole game one seat played on the tournament server, as the env's ``[seat,
    action]`` moves (an arena record's ``moves``): that seat's ``placement`` and
    ``actions``, the boards it received before each of its moves and the ``final`` board
    of the verdict, which shows every colour (the reference server's does; one that does
    not raises :class:`HiddenColours`). The
    opponent's placement comes from those colours, each of its moves from the two boards
    around it. The game is played again under the rules as it is rebuilt, so a board
    that no legal move leads to raises ValueError, saying where."""
    pieces = parse_board_string(final)
    if any(colour == "u" for _, _, colour in pieces[GHOSTS:]):
        raise HiddenColours(f"the final board {final!r} does not show the opponent's colours")
    ours = 0 if first else 1
    their_reds = [i for i, (_, _, colour) in enumerate(pieces[GHOSTS:]) if colour == "r"]
    if len(their_reds) != 4:
        raise ValueError(f"the final board {final!r} shows {len(their_reds)} red opponent ghosts, not 4")
    state = GeisterState(max_turns)
    moves: list[list[int]] = []
    for seat in (0, 1):
        action = placement if seat == ours else MOVE_ACTIONS + RED_SET_INDEX[tuple(their_reds)]
        state.apply(action)
        moves.append([seat, action])

    def opponent_to(text: str, where: str) -> None:
        wanted = positions_of(text, ours)
        if state.pos == wanted or state.over:
            return  # the opponent did not move (the game ended with our move, or on a clock)
        for action in state.legal_actions():
            after = state.clone()
            after.apply(action)
            if after.pos == wanted:
                state.apply(action)
                moves.append([1 - ours, action])
                return
        raise ValueError(f"no legal move of the opponent leads to {where} {text!r}")

    for number, action in enumerate(actions):
        if number < len(boards):
            opponent_to(boards[number], f"the board of our move {number + 1}")
        if state.over or state.player != ours:
            raise ValueError(f"our move {number + 1} comes when the game is over or not ours to move")
        state.apply(action)
        moves.append([ours, action])
    if len(boards) > len(actions):
        raise ValueError(f"{len(boards)} boards for {len(actions)} moves of ours")
    opponent_to(final, "the final board")
    if state.pos != positions_of(final, ours):
        raise ValueError(f"the game played again does not end on the final board {final!r}")
    return moves
