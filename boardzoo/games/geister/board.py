"""Geister's board: its squares, the ghosts and their letters, the actions, where each
step leads and the exits (see the package docstring for frames and actions)."""

from __future__ import annotations

from itertools import combinations

SIZE = 6
SQUARES = SIZE * SIZE
GHOSTS = 8
LETTERS = "ABCDEFGH"
DIRECTIONS = ("NORTH", "EAST", "SOUTH", "WEST")
MOVE_ACTIONS = GHOSTS * 4
RED_SETS: list[tuple[int, ...]] = list(combinations(range(GHOSTS), 4))
RED_SET_INDEX = {reds: k for k, reds in enumerate(RED_SETS)}
NUM_ACTIONS = MOVE_ACTIONS + len(RED_SETS)
CAPTURED, ESCAPED = -1, -2
EMPTY = -1

#: (dx, dy) of NORTH, EAST, SOUTH, WEST in a seat's own frame (x right, y down from the far side).
OWN_STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))


def to_own(seat: int, square: int) -> int:
    """A square of player_0's frame in ``seat``'s own frame (and back: it is an involution)."""
    return square if seat == 0 else SQUARES - 1 - square


def home_square(seat: int, ghost: int) -> int:
    """Start square of ``seat``'s ghost ``ghost`` (0..7 = A..H): A..D on own-frame (1..4, 4),
    E..H on (1..4, 5)."""
    x, y = 1 + ghost % 4, 4 + ghost // 4
    return to_own(seat, y * SIZE + x)


def _targets() -> tuple[list, list]:
    """TARGET[seat][square][direction]: the square reached, or ESCAPED for a move off the
    board through an exit, or None off the board elsewhere; EXITS[seat]: seat's exit squares."""
    target, exits = [], []
    for seat in (0, 1):
        table = []
        for square in range(SQUARES):
            own = to_own(seat, square)
            x, y = own % SIZE, own // SIZE
            row: list[int | None] = []
            for d, (dx, dy) in enumerate(OWN_STEPS):
                nx, ny = x + dx, y + dy
                if 0 <= nx < SIZE and 0 <= ny < SIZE:
                    row.append(to_own(seat, ny * SIZE + nx))
                elif y == 0 and (x == 0 and d in (0, 3) or x == SIZE - 1 and d in (0, 1)):
                    row.append(ESCAPED)
                else:
                    row.append(None)
            table.append(tuple(row))
        target.append(table)
        exits.append((to_own(seat, 0), to_own(seat, SIZE - 1)))
    return target, exits


TARGET, EXITS = _targets()


def move_target(seat: int, g: int, d: int, pos: list[int], board: list[int], red: list) -> int | None:
    """The movement rule, the one place it is written: where ghost ``g`` of ``seat``
    lands moving in direction ``d`` (:data:`ESCAPED` off the board through an exit), or
    None when that move is illegal: the ghost is off the board, the step leaves the board
    elsewhere, a red ghost would escape, or an own ghost stands on the target."""
    square = pos[g]
    if square < 0:
        return None
    target = TARGET[seat][square][d]
    if target is None:
        return None
    if target == ESCAPED:
        return None if red[g] else ESCAPED
    occupant = board[target]
    return target if occupant < 0 or occupant // GHOSTS != seat else None


def parse_red(text: str) -> tuple[int, ...]:
    """``"ABCD"`` -> (0, 1, 2, 3); four distinct letters A..H, any order, case-insensitive."""
    letters = text.strip().upper() if isinstance(text, str) else None
    if not letters or len(letters) != 4 or len(set(letters)) != 4 or any(c not in LETTERS for c in letters):
        raise ValueError(f"geister: red ghosts must be 4 distinct letters of A..H (e.g. 'ABCD'), got {text!r}")
    return tuple(sorted(LETTERS.index(c) for c in letters))


def red_letters(reds) -> str:
    return "".join(LETTERS[i] for i in sorted(reds))


def placement_action(reds) -> int:
    return MOVE_ACTIONS + RED_SET_INDEX[tuple(sorted(reds))]
