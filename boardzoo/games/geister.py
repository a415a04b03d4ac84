"""Geister: 6x6, two players with 4 blue and 4 red ghosts each, the colours of the
opponent's ghosts hidden (``shared/docs/rules-geister.md``, seed 004).

Frames. Squares are ``y * 6 + x`` in **player_0's frame** (x to the east, y to the
south, player_0's home rows y = 4, 5). Each seat sees itself at the bottom, as on the
tournament server: player_1's own frame is player_0's turned by 180 degrees, which on
square numbers is ``35 - square``. Directions are the mover's own: NORTH = toward the
opponent.

Ghosts. ``g = 8 * seat + i``; ``i`` = 0..7 are the protocol letters A..H of that seat (A..D
its front row, E..H its back row, left to right from its own side). ``pos[g]`` is a square,
:data:`CAPTURED` or :data:`ESCAPED`.

Actions (``Discrete(102)``, the same for both seats)
    0..31    move ghost ``a // 4`` (A..H) one square ``a % 4`` = NORTH, EAST, SOUTH, WEST.
             From the opponent's back corner (own-frame (0, 0) with NORTH or WEST, (5, 0)
             with NORTH or EAST) a blue ghost moves off the board: an escape.
    32..101  the placement: ``RED_SETS[a - 32]``, the 4 ghosts that are red (70 sets of
             4 of the 8 letters, in lexicographic order: ABCD, ABCE, ..., EFGH).
The game opens with player_0's placement, then player_1's, then player_0 moves.

A move onto an opponent ghost captures it (any colour; its colour becomes public). A seat
wins when one of its blue ghosts escapes, when it captured all 4 opponent blues, or when
the opponent captured all 4 of its reds. After ``max_turns`` moves (plies, placements not
counted) without a winner the game is a draw; a win on the last ply counts.

Hidden information: :class:`GeisterState` is the whole truth (for the referee, spectators
and determinized search). A seat gets :class:`GeisterView` instead: everything that seat
has seen, the opponent's on-board colours unknown, and :meth:`GeisterView.determinize` to
sample full states consistent with it under a *belief* (:data:`BELIEFS`).
"""

from __future__ import annotations

import random
from itertools import combinations

from boardzoo.games.model import TERMINAL, GameState, check_int, returns_of_winner

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

_OWN_STEP = ((0, -1), (1, 0), (0, 1), (-1, 0))  # NORTH, EAST, SOUTH, WEST in the own frame


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
            row = []
            for d, (dx, dy) in enumerate(_OWN_STEP):
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


class GeisterState(GameState):
    """The whole truth of a Geister game: positions, every colour, whose turn."""

    __slots__ = ("pos", "red", "board", "placed", "player", "plies", "max_turns", "winner", "over",
                 "lost", "advance", "declined")
    game_name = "geister"
    num_actions = NUM_ACTIONS

    def __init__(self, max_turns: int = 200, red: dict[int, tuple[int, ...]] | None = None):
        check_int("geister", "max_turns", max_turns, 1)
        self.max_turns = max_turns
        self.pos = [home_square(g // GHOSTS, g % GHOSTS) for g in range(2 * GHOSTS)]
        self.board = [EMPTY] * SQUARES
        for g, square in enumerate(self.pos):
            self.board[square] = g
        self.red = [False] * (2 * GHOSTS)
        self.placed = [False, False]
        for seat, reds in (red or {}).items():
            self._place(seat, reds)
        self.player = 0 if not self.placed[0] else 1 if not self.placed[1] else 0
        self.plies = 0
        self.winner = -1  # 0 or 1 once someone won; -1 while playing and for a draw
        self.over = False
        self.lost = [[0, 0], [0, 0]]  # lost[seat] = [blue, red] ghosts of seat captured
        # Public evidence about each ghost, for beliefs: net forward steps, and how often it
        # stood on an exit at its owner's turn and did not escape.
        self.advance = [0] * (2 * GHOSTS)
        self.declined = [0] * (2 * GHOSTS)

    def _place(self, seat: int, reds) -> None:
        reds = tuple(sorted(reds))
        if reds not in RED_SET_INDEX:
            raise ValueError(f"geister: a placement names 4 distinct ghosts of 0..7, got {reds}")
        for i in range(GHOSTS):
            self.red[GHOSTS * seat + i] = i in reds
        self.placed[seat] = True

    def clone(self) -> "GeisterState":
        other = GeisterState.__new__(type(self))
        other.pos, other.red, other.board = self.pos[:], self.red[:], self.board[:]
        other.placed = self.placed[:]
        other.player, other.plies, other.max_turns = self.player, self.plies, self.max_turns
        other.winner, other.over = self.winner, self.over
        other.lost = [self.lost[0][:], self.lost[1][:]]
        other.advance, other.declined = self.advance[:], self.declined[:]
        return other

    # --- rules ----------------------------------------------------------------------------
    @property
    def placing(self) -> bool:
        return not (self.placed[0] and self.placed[1])

    def is_terminal(self) -> bool:
        return self.over

    def current_player(self) -> int:
        return TERMINAL if self.over else self.player

    def legal_actions(self) -> list[int]:
        if self.over:
            return []
        if self.placing:
            return list(range(MOVE_ACTIONS, NUM_ACTIONS))
        seat = self.player
        base = GHOSTS * seat
        pos, board, red, targets = self.pos, self.board, self.red, TARGET[seat]
        actions = []
        for i in range(GHOSTS):
            square = pos[base + i]
            if square < 0:
                continue
            for d, target in enumerate(targets[square]):
                if target is None:
                    continue
                if target == ESCAPED:
                    if not red[base + i]:
                        actions.append(4 * i + d)
                elif board[target] < 0 or (board[target] >= GHOSTS) != (seat == 1):
                    actions.append(4 * i + d)
        return actions

    def is_legal(self, action: int) -> bool:
        if self.over or not 0 <= action < NUM_ACTIONS:
            return False
        if self.placing:
            return action >= MOVE_ACTIONS
        if action >= MOVE_ACTIONS:
            return False
        seat, i, d = self.player, action // 4, action % 4
        g = GHOSTS * seat + i
        square = self.pos[g]
        if square < 0:
            return False
        target = TARGET[seat][square][d]
        if target is None:
            return False
        if target == ESCAPED:
            return not self.red[g]
        occupant = self.board[target]
        return occupant < 0 or occupant // GHOSTS != seat

    def explain_illegal(self, action: int) -> str:
        if self.over:
            return "the game is over"
        if not 0 <= action < NUM_ACTIONS:
            return f"there is no action {action} (actions are 0..{NUM_ACTIONS - 1})"
        if self.placing:
            return (f"player_{self.player} must first choose its red ghosts "
                    f"(actions {MOVE_ACTIONS}..{NUM_ACTIONS - 1})")
        if action >= MOVE_ACTIONS:
            return "the red ghosts are already placed"
        seat, i, d = self.player, action // 4, action % 4
        g = GHOSTS * seat + i
        square = self.pos[g]
        name = f"ghost {LETTERS[i]}"
        if square < 0:
            return f"{name} is {'captured' if square == CAPTURED else 'gone'}"
        target = TARGET[seat][square][d]
        if target is None:
            return f"{name} cannot move {DIRECTIONS[d]}: that is off the board"
        if target == ESCAPED:
            return f"{name} is red: only blue ghosts escape"
        return f"{name} cannot move {DIRECTIONS[d]} onto its own ghost"

    def apply(self, action: int) -> None:
        if not self.is_legal(action):
            raise ValueError(f"geister: illegal action {action}: {self.explain_illegal(action)}")
        if action >= MOVE_ACTIONS:
            self._place(self.player, RED_SETS[action - MOVE_ACTIONS])
            self.player = 0 if not self.placed[0] else 1 if not self.placed[1] else 0
            return
        self._move(action)

    def _move(self, action: int) -> None:
        """Play a legal move (no checks: play-outs call this directly)."""
        seat = self.player
        base = GHOSTS * seat
        g = base + (action >> 2)
        d = action & 3
        pos, board = self.pos, self.board
        square = pos[g]
        target = TARGET[seat][square][d]
        for exit_square in EXITS[seat]:  # evidence: an own ghost on an exit that doesn't escape
            ghost = board[exit_square]
            if ghost >= 0 and ghost // GHOSTS == seat and (ghost != g or target != ESCAPED):
                self.declined[ghost] += 1
        board[square] = EMPTY
        self.plies += 1
        if target == ESCAPED:
            pos[g] = ESCAPED
            self.winner, self.over = seat, True
            return
        if d == 0:
            self.advance[g] += 1
        elif d == 2:
            self.advance[g] -= 1
        victim = board[target]
        board[target] = g
        pos[g] = target
        self.player = 1 - seat
        if victim >= 0:
            pos[victim] = CAPTURED
            other = 1 - seat
            lost = self.lost[other]
            if self.red[victim]:
                lost[1] += 1
                if lost[1] == 4:
                    self.winner, self.over = other, True
                    return
            else:
                lost[0] += 1
                if lost[0] == 4:
                    self.winner, self.over = seat, True
                    return
        if self.plies >= self.max_turns:
            self.over = True

    def returns(self) -> tuple[float, float]:
        return returns_of_winner(self.winner) if self.over else (0.0, 0.0)

    def playout(self, rng: random.Random, limit: int = 0, forward: float = 0.0) -> tuple[float, float]:
        """Random play to the end in place. ``limit``: after that many moves a draw.
        ``forward``: the probability of choosing among the forward moves only (when the
        mover has one), seed 004's cure for back-and-forth play-outs."""
        if self.placing:
            rand = rng.random
            while self.placing:
                self.apply(MOVE_ACTIONS + int(rand() * len(RED_SETS)))
        rand = rng.random
        moves = 0
        move, pos, board, red = self._move, self.pos, self.board, self.red
        while not self.over:
            if limit and moves >= limit:
                return (0.0, 0.0)
            seat = self.player
            base, targets = GHOSTS * seat, TARGET[seat]
            action = -1
            if forward and rand() < forward:
                ahead = []
                for i in range(GHOSTS):
                    square = pos[base + i]
                    if square >= 0:
                        target = targets[square][0]
                        if target is not None and (target == ESCAPED and not red[base + i] or target >= 0 and (
                                board[target] < 0 or board[target] // GHOSTS != seat)):
                            ahead.append(4 * i)
                if ahead:
                    action = ahead[int(rand() * len(ahead))]
            while action < 0:
                # Uniform over the legal moves by rejection: draw any of the 32 until legal
                # (there always is one), cheaper than listing them all every ply.
                candidate = int(rand() * MOVE_ACTIONS)
                g = base + (candidate >> 2)
                square = pos[g]
                if square < 0:
                    continue
                target = targets[square][candidate & 3]
                if target is None:
                    continue
                if target == ESCAPED:
                    if not red[g]:
                        action = candidate
                elif board[target] < 0 or board[target] // GHOSTS != seat:
                    action = candidate
            move(action)
            moves += 1
        return returns_of_winner(self.winner)

    def key(self) -> tuple:
        return (tuple(self.pos), tuple(self.red), tuple(self.placed), self.player, self.plies)

    def view_key(self, seat: int) -> tuple:
        """What ``seat`` knows of this position (equal to its view's :meth:`GeisterView.key`)."""
        colours = tuple(self.red[g] if g // GHOSTS == seat or self.pos[g] < 0 else None
                        for g in range(2 * GHOSTS))
        return (tuple(self.pos), colours, tuple(self.placed), self.player, self.plies)

    # --- people and protocols -------------------------------------------------------------
    def action_label(self, action: int) -> str:
        if action >= MOVE_ACTIONS:
            return "red " + red_letters(RED_SETS[action - MOVE_ACTIONS])
        return f"{LETTERS[action // 4]},{DIRECTIONS[action % 4][0]}"

    def parse_action(self, text: str) -> int:
        """``"A,N"``, ``"A NORTH"``, ``"MOV:A,NORTH"`` for moves; ``"red ABCD"`` or
        ``"SET:ABCD"`` for the placement."""
        raw = text.strip().upper()
        for prefix in ("SET:", "RED ", "RED:"):
            if raw.startswith(prefix):
                return placement_action(parse_red(raw[len(prefix):]))
        if raw.startswith("MOV:"):
            raw = raw[4:]
        parts = raw.replace(",", " ").split()
        if len(parts) == 2 and parts[0] in LETTERS and len(parts[0]) == 1:
            for d, name in enumerate(DIRECTIONS):
                if parts[1] in (name, name[0]):
                    return 4 * LETTERS.index(parts[0]) + d
        raise ValueError(f"{text.strip()!r} is not a Geister move: write e.g. 'A,N' (ghost A..H, "
                         "direction N/E/S/W) or 'red ABCD'")

    def board_string(self, seat: int, reveal: bool = False) -> str:
        """The tournament server's 48-character board string as ``seat`` receives it: its
        ghosts A..H then the opponent's a..h, each ``x y colour`` in ``seat``'s frame.
        ``reveal`` shows the opponent's hidden colours too (spectators only)."""
        parts = []
        for owner in (seat, 1 - seat):
            for i in range(GHOSTS):
                g = GHOSTS * owner + i
                square = self.pos[g]
                colour = "r" if self.red[g] else "b"
                if square == CAPTURED:
                    parts.append("99" + colour)
                elif square == ESCAPED:
                    parts.append("88" + colour)
                else:
                    own = to_own(seat, square)
                    if owner == seat:
                        shown = colour.upper() if self.placed[seat] else "u"
                    else:
                        shown = colour if reveal else "u"
                    parts.append(f"{own % SIZE}{own // SIZE}{shown}")
        return "".join(parts)

    def to_text(self, seat: int | None = None) -> str:
        """The board as text. ``seat``: that seat's view (from its side, opponent colours
        hidden as ``?``); None: the all-seeing spectator view from player_0's side, the
        ghosts of player_0 in capitals (``B``/``R``) and of player_1 in lower case."""
        lines = []
        frame = 0 if seat is None else seat
        for y in range(SIZE):
            row = []
            for x in range(SIZE):
                g = self.board[to_own(frame, y * SIZE + x)]
                if g < 0:
                    row.append(".")
                    continue
                owner = g // GHOSTS
                if seat is not None and owner != seat:
                    row.append("?")
                    continue
                letter = "R" if self.red[g] else "B"
                if not self.placed[owner]:
                    letter = "G"
                row.append(letter if owner == frame else letter.lower())
            lines.append(" ".join(row))
        return "\n".join(lines)


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


def position_from_board_string(text: str, plies: int = 0, max_turns: int = 200) -> "GeisterState":
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


# --- information sets and beliefs ----------------------------------------------------------
def belief_uniform(view: "GeisterView", unknown: list[int]) -> list[float]:
    """Every assignment consistent with what was seen is equally likely."""
    return [1.0] * len(unknown)


def belief_nearest_blue(view: "GeisterView", unknown: list[int]) -> list[float]:
    """Seed 004's "decide by nearness": the opponent ghosts nearest our home rows are the
    blue ones (ties at random). Weights 1000 ** row make it a near-certain ordering."""
    seat = view.seat
    return [1000.0 ** (to_own(seat, view.pos[g]) // SIZE) for g in unknown]


def belief_behaviour(view: "GeisterView", unknown: list[int]) -> list[float]:
    """Learns from how the opponent moved its ghosts, by likelihood ratios.

    * Blue ghosts win by escaping, so players push them forward: each net step toward us
      multiplies the odds of blue by 1.5 (a step back divides them).
    * A blue ghost on one of our corners escapes and wins at once; a ghost that stood there
      at its owner's turn and was not taken off is almost surely red: odds / 20 each time.
    """
    return [1.5 ** max(min(view.advance[g], 8), -8) * 0.05 ** min(view.declined[g], 3) for g in unknown]


BELIEFS = {"uniform": belief_uniform, "nearest-blue": belief_nearest_blue, "behaviour": belief_behaviour}


def weighted_sample(items: list[int], weights: list[float], k: int, rng: random.Random) -> list[int]:
    """``k`` distinct items, each draw proportional to the weights of those left."""
    items, weights = list(items), list(weights)
    chosen = []
    for _ in range(k):
        x = rng.random() * sum(weights)
        for j, w in enumerate(weights):
            x -= w
            if x < 0:
                break
        chosen.append(items.pop(j))
        weights.pop(j)
    return chosen


class GeisterView(GameState):
    """What one seat knows: the search model handed to that seat.

    It has the public position, the seat's own colours and the colours made public by
    captures — never a hidden opponent colour (it is not even copied). It answers the
    questions an agent asks at its own turn (``legal_actions``, ``action_label``,
    ``greedy_action``...) and samples full states with :meth:`determinize`.
    """

    __slots__ = ("seat", "pos", "red", "board", "placed", "player", "plies", "max_turns", "over", "winner",
                 "lost", "advance", "declined", "belief")
    game_name = "geister"
    num_actions = NUM_ACTIONS
    #: Agents that need a full state sample one with :meth:`determinize`.
    hidden_information = True
    legal_actions = GeisterState.legal_actions
    is_legal = GeisterState.is_legal
    explain_illegal = GeisterState.explain_illegal
    action_label = GeisterState.action_label
    parse_action = GeisterState.parse_action
    board_string = GeisterState.board_string
    to_text = GeisterState.to_text
    placing = GeisterState.placing
    is_terminal = GeisterState.is_terminal
    current_player = GeisterState.current_player
    returns = GeisterState.returns

    def __init__(self, state: GeisterState, seat: int, belief: str = "uniform"):
        self.seat = seat
        self.pos, self.board = state.pos[:], state.board[:]
        # Unknown colours are None; an unplaced seat's colours are None too.
        self.red = [state.red[g] if state.placed[g // GHOSTS] and (g // GHOSTS == seat or state.pos[g] < 0)
                    else None for g in range(2 * GHOSTS)]
        self.placed = state.placed[:]
        self.player, self.plies, self.max_turns = state.player, state.plies, state.max_turns
        self.over, self.winner = state.over, state.winner
        self.lost = [state.lost[0][:], state.lost[1][:]]
        self.advance, self.declined = state.advance[:], state.declined[:]
        if belief not in BELIEFS:
            raise ValueError(f"geister: unknown belief {belief!r}; beliefs are {', '.join(BELIEFS)}")
        self.belief = belief  # the default of determinize()

    def clone(self) -> "GeisterView":
        other = GeisterView.__new__(GeisterView)
        for name in GeisterView.__slots__:
            value = getattr(self, name)
            setattr(other, name, value[:] if isinstance(value, list) and name != "lost" else value)
        other.lost = [self.lost[0][:], self.lost[1][:]]
        return other

    def apply(self, action: int) -> None:
        raise NotImplementedError("geister: a seat's view cannot play moves (their outcome may depend on "
                                  "hidden colours); sample a full state with determinize(rng) first")

    def key(self) -> tuple:
        return (tuple(self.pos), tuple(self.red), tuple(self.placed), self.player, self.plies)

    def unknown_ghosts(self) -> list[int]:
        """Opponent ghosts on the board whose colour this seat does not know."""
        base = GHOSTS * (1 - self.seat)
        return [g for g in range(base, base + GHOSTS) if self.red[g] is None and self.pos[g] >= 0]

    def determinize(self, rng: random.Random, belief: str | None = None) -> GeisterState:
        """A full state consistent with this view: the opponent's hidden blues drawn under
        ``belief`` (the view's own by default). An opponent that has not placed yet stays
        unplaced (its placement is still its own move to make)."""
        state = GeisterState.__new__(GeisterState)
        state.pos, state.board, state.placed = self.pos[:], self.board[:], self.placed[:]
        state.player, state.plies, state.max_turns = self.player, self.plies, self.max_turns
        state.over, state.winner = self.over, self.winner
        state.lost = [self.lost[0][:], self.lost[1][:]]
        state.advance, state.declined = self.advance[:], self.declined[:]
        belief = belief or self.belief
        if belief not in BELIEFS:
            raise ValueError(f"geister: unknown belief {belief!r}; beliefs are {', '.join(BELIEFS)}")
        red = [bool(v) for v in self.red]
        opponent = 1 - self.seat
        if self.placed[opponent]:
            unknown = self.unknown_ghosts()
            blues_left = 4 - self.lost[opponent][0]
            weights = BELIEFS[belief](self, unknown)
            blue = set(weighted_sample(unknown, weights, blues_left, rng))
            for g in unknown:
                red[g] = g not in blue
        state.red = red
        return state

    def __repr__(self) -> str:
        return f"GeisterView(seat={self.seat}, plies={self.plies})\n{self.to_text(self.seat)}"


def _exit_distance(seat: int, square: int) -> int:
    """Steps from ``square`` to the nearer of ``seat``'s exits, plus one to go off."""
    own = to_own(seat, square)
    x, y = own % SIZE, own // SIZE
    return y + min(x, SIZE - 1 - x) + 1


def rushing_action(state, rng: random.Random) -> int:
    """Seed 004's rushing player (猪突AI), on a full state or a seat's view.

    Places its reds at random. Then: escape when it can; capture an adjacent opponent ghost
    when that is safe by its own guess (no other opponent ghost can take back on that square,
    and not when that would be the 4th red it takes, if the colours are known); otherwise
    advance the blue ghost nearest an exit toward it (a random blue when blocked), avoiding
    squares next to opponent ghosts when it can.
    """
    if state.placing:
        return MOVE_ACTIONS + int(rng.random() * len(RED_SETS))
    seat = state.player
    actions = state.legal_actions()
    base = GHOSTS * seat
    pos, board, red = state.pos, state.board, state.red
    targets = TARGET[seat]

    def threatened(square: int, mover: int) -> bool:
        for neighbour in targets[square]:
            if neighbour is not None and neighbour >= 0:
                g = board[neighbour]
                if g >= 0 and g // GHOSTS != seat and g != mover:
                    return True
        return False

    escapes, captures, advances = [], [], []
    for action in actions:
        g = base + action // 4
        target = targets[pos[g]][action % 4]
        if target == ESCAPED:
            escapes.append(action)
            continue
        victim = board[target]
        if victim >= 0:
            last_red = red[victim] is True and state.lost[1 - seat][1] == 3
            if not last_red and not threatened(target, victim):
                captures.append(action)
        elif not red[g]:
            gain = _exit_distance(seat, pos[g]) - _exit_distance(seat, target)
            advances.append((gain, -_exit_distance(seat, target), not threatened(target, -1), action))
    for group in (escapes, captures):
        if group:
            return group[int(rng.random() * len(group))]
    forward = [a for a in advances if a[0] > 0]
    if forward:
        best = max((a[2], a[1]) for a in forward)
        choices = [a[3] for a in forward if (a[2], a[1]) == best]
        return choices[int(rng.random() * len(choices))]
    return actions[int(rng.random() * len(actions))]


def forward_policy(state, rng: random.Random, bias: float = 0.5) -> int:
    """Seed 004's forward-biased random play: with probability ``bias`` a random forward
    move (when there is one), else any random move."""
    actions = state.legal_actions()
    if not state.placing and rng.random() < bias:
        ahead = [a for a in actions if a < MOVE_ACTIONS and not a & 3]
        if ahead:
            actions = ahead
    return actions[int(rng.random() * len(actions))]


GeisterState.rollout_policies = {"forward": forward_policy, "rushing": rushing_action}
GeisterState.greedy_action = GeisterView.greedy_action = rushing_action
GeisterView.rollout_policies = GeisterState.rollout_policies


def _fast_forward(state: GeisterState, rng: random.Random, limit: int = 0) -> tuple[float, float]:
    return state.playout(rng, limit, forward=0.5)


def _fast_random(state: GeisterState, rng: random.Random, limit: int = 0) -> tuple[float, float]:
    return state.playout(rng, limit)


#: Roll-outs MCTS can run in one tight loop: name -> f(state, rng, limit) -> returns.
GeisterState.fast_rollouts = {"random": _fast_random, "forward": _fast_forward}
GeisterView.fast_rollouts = GeisterState.fast_rollouts
