"""Geister's board: its squares, the ghosts and their letters, the actions, where each
step leads and the exits (see the package docstring for frames and actions)."""

from __future__ import annotations

from itertools import combinations

#: The classic game's board side, ghosts per side and their letters.
SIZE = 6
GHOSTS = 8
LETTERS = "ABCDEFGH"
DIRECTIONS = ("NORTH", "EAST", "SOUTH", "WEST")
CAPTURED, ESCAPED = -1, -2
EMPTY = -1
#: The most ghosts a side may have in a variant (their letters A..P).
MAX_GHOSTS = 16
#: The most squares a side of the board may have in a variant.
MAX_SIDE = 12

#: (dx, dy) of NORTH, EAST, SOUTH, WEST in a seat's own frame (x right, y down from the far side).
OWN_STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))


class Layout:
    """One member of the Geister family: the board (``rows`` x ``cols``), each side's
    ``blue`` and ``red`` ghosts, and its ``exits`` (2: both of the opponent's back
    corners, the classic game; 1: the left one, as each seat sees it), with everything
    the rules derive from them. Build one with :func:`layout` (one object per family
    member, shared by every state of it).

    Squares are ``y * cols + x`` in player_0's frame; player_1's own frame is player_0's
    turned by 180 degrees (``squares - 1 - square``). A side's ghosts start in the rows
    nearest its own edge, the first ghosts (A, B, ...) in the front row, left to right
    from its own side, each row centred between the corners (which stay free: the
    opponent's exits). Actions: ``4 * ghosts`` moves (ghost ``a // 4``, direction
    ``a % 4``), then one placement per set of ``red`` ghosts (lexicographic order)."""

    __slots__ = ("rows", "cols", "blue", "red", "exits", "ghosts", "squares", "letters", "move_actions",
                 "red_sets", "red_set_index", "num_actions", "homes", "target", "exit_squares", "home_rows")

    def __init__(self, rows: int, cols: int, blue: int, red: int, exits: int):
        self.rows, self.cols, self.blue, self.red, self.exits = rows, cols, blue, red, exits
        self.ghosts = blue + red
        self.squares = rows * cols
        self.letters = "ABCDEFGHIJKLMNOP"[:self.ghosts]
        self.move_actions = 4 * self.ghosts
        self.red_sets: list[tuple[int, ...]] = list(combinations(range(self.ghosts), red))
        self.red_set_index = {reds: k for k, reds in enumerate(self.red_sets)}
        self.num_actions = self.move_actions + len(self.red_sets)
        width = cols - 2
        self.home_rows = -(-self.ghosts // width)
        homes = []
        for i in range(self.ghosts):
            row, place = divmod(i, width)
            in_row = min(width, self.ghosts - row * width)
            homes.append((rows - self.home_rows + row) * cols + 1 + (width - in_row) // 2 + place)
        self.homes = tuple(homes)  # own frame
        self.target, self.exit_squares = self._targets()

    def to_own(self, seat: int, square: int) -> int:
        """A square of player_0's frame in ``seat``'s own frame (and back: an involution)."""
        return square if seat == 0 else self.squares - 1 - square

    def home_square(self, seat: int, ghost: int) -> int:
        return self.to_own(seat, self.homes[ghost])

    def _targets(self) -> tuple[list, list]:
        """target[seat][square][direction]: the square reached, ESCAPED for a move off the
        board through an exit, None off the board elsewhere; the exits of each seat."""
        cols, rows = self.cols, self.rows
        target, exits = [], []
        for seat in (0, 1):
            table = []
            for square in range(self.squares):
                own = self.to_own(seat, square)
                x, y = own % cols, own // cols
                row: list[int | None] = []
                for d, (dx, dy) in enumerate(OWN_STEPS):
                    nx, ny = x + dx, y + dy
                    if 0 <= nx < cols and 0 <= ny < rows:
                        row.append(self.to_own(seat, ny * cols + nx))
                    elif y == 0 and (x == 0 and d in (0, 3) or x == cols - 1 and d in (0, 1) and self.exits == 2):
                        row.append(ESCAPED)
                    else:
                        row.append(None)
                table.append(tuple(row))
            target.append(table)
            exits.append(tuple(self.to_own(seat, x) for x in ((0, cols - 1) if self.exits == 2 else (0,))))
        return target, exits

    @property
    def classic(self) -> bool:
        return self is CLASSIC

    def __reduce__(self):
        # One object per member of the family, across copies and processes too: the code
        # tells the classic game by identity (``shape is CLASSIC``).
        return layout, (self.rows, self.cols, self.blue, self.red, self.exits)

    def parameters(self) -> dict[str, int]:
        return {"rows": self.rows, "cols": self.cols, "blue": self.blue, "red": self.red, "exits": self.exits}

    def __repr__(self) -> str:
        return (f"Layout(rows={self.rows}, cols={self.cols}, blue={self.blue}, red={self.red}, "
                f"exits={self.exits})")


_LAYOUTS: dict[tuple[int, ...], Layout] = {}


def layout(rows: int = 6, cols: int = 6, blue: int = 4, red: int = 4, exits: int = 2) -> Layout:
    """The family member of these parameters (one shared object each); a ValueError that
    names the rule a bad combination breaks."""
    for name, value, low, high in (("rows", rows, 3, MAX_SIDE), ("cols", cols, 3, MAX_SIDE), ("blue", blue, 1,
                                   MAX_GHOSTS - 1), ("red", red, 1, MAX_GHOSTS - 1), ("exits", exits, 1, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"geister: {name} must be a whole number in {low}..{high}, got {value!r}")
    if blue + red > MAX_GHOSTS:
        raise ValueError(f"geister: at most {MAX_GHOSTS} ghosts a side, got {blue} blue and {red} red")
    home_rows = -(-(blue + red) // (cols - 2))
    if 2 * home_rows >= rows:
        raise ValueError(f"geister: {blue + red} ghosts a side fill {home_rows} rows of a {cols}-column board "
                         f"(its corners stay free), so it needs more than {2 * home_rows} rows, got {rows}")
    key = (rows, cols, blue, red, exits)
    if key not in _LAYOUTS:
        _LAYOUTS[key] = Layout(*key)
    return _LAYOUTS[key]


CLASSIC = layout()
SQUARES = CLASSIC.squares
MOVE_ACTIONS = CLASSIC.move_actions
RED_SETS: list[tuple[int, ...]] = CLASSIC.red_sets
RED_SET_INDEX = CLASSIC.red_set_index
NUM_ACTIONS = CLASSIC.num_actions
TARGET, EXITS = CLASSIC.target, list(CLASSIC.exit_squares)


def to_own(seat: int, square: int) -> int:
    """A square of player_0's frame in ``seat``'s own frame in the classic game (and
    back: it is an involution)."""
    return square if seat == 0 else SQUARES - 1 - square


def home_square(seat: int, ghost: int) -> int:
    """Start square of ``seat``'s ghost ``ghost`` (0..7 = A..H) in the classic game: A..D
    on own-frame (1..4, 4), E..H on (1..4, 5)."""
    return CLASSIC.home_square(seat, ghost)


def move_target(seat: int, g: int, d: int, pos: list[int], board: list[int], red: list,
                shape: Layout = CLASSIC) -> int | None:
    """The movement rule, the one place it is written: where ghost ``g`` of ``seat``
    lands moving in direction ``d`` (:data:`ESCAPED` off the board through an exit), or
    None when that move is illegal: the ghost is off the board, the step leaves the board
    elsewhere, a red ghost would escape, or an own ghost stands on the target."""
    square = pos[g]
    if square < 0:
        return None
    target = shape.target[seat][square][d]
    if target is None:
        return None
    if target == ESCAPED:
        return None if red[g] else ESCAPED
    occupant = board[target]
    return target if occupant < 0 or occupant // shape.ghosts != seat else None


def parse_red(text: str, shape: Layout = CLASSIC) -> tuple[int, ...]:
    """``"ABCD"`` -> (0, 1, 2, 3): the red ghosts' letters, distinct, any order,
    case-insensitive (as many as the layout has reds)."""
    letters = text.strip().upper() if isinstance(text, str) else None
    if (not letters or len(letters) != shape.red or len(set(letters)) != shape.red
            or any(c not in shape.letters for c in letters)):
        example = shape.letters[:shape.red]
        raise ValueError(f"geister: red ghosts must be {shape.red} distinct letters of {shape.letters[0]}.."
                         f"{shape.letters[-1]} (e.g. {example!r}), got {text!r}")
    return tuple(sorted(shape.letters.index(c) for c in letters))


def red_letters(reds) -> str:
    return "".join("ABCDEFGHIJKLMNOP"[i] for i in sorted(reds))


def placement_action(reds, shape: Layout = CLASSIC) -> int:
    return shape.move_actions + shape.red_set_index[tuple(sorted(reds))]
