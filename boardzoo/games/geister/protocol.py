"""The tournament server's board strings: 16 pieces of ``x y colour``, as a seat
receives them (its own ghosts A..H, then the opponent's a..h, in its own frame)."""

from __future__ import annotations

from boardzoo.games.geister.rules import CAPTURED, EMPTY, ESCAPED, GHOSTS, SIZE, SQUARES, GeisterState, to_own


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
