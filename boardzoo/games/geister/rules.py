"""Geister's rules: :class:`GeisterState`, the whole truth of a game, and what it shares
with a seat's view (the board itself is :mod:`.board`)."""

from __future__ import annotations

import random

from boardzoo.games.geister.board import (
    CAPTURED,
    DIRECTIONS,
    EMPTY,
    ESCAPED,
    EXITS,
    GHOSTS,
    LETTERS,
    MOVE_ACTIONS,
    NUM_ACTIONS,
    RED_SET_INDEX,
    RED_SETS,
    SIZE,
    SQUARES,
    TARGET,
    home_square,
    move_target,
    parse_red,
    placement_action,
    red_letters,
    to_own,
)
from boardzoo.games.model import TERMINAL, Capabilities, GameState, check_int, returns_of_winner


class GeisterPosition(GameState):
    """What a full state and a seat's view share: the public position, and the questions
    asked of it at a turn (whose move, which moves are legal, how moves are written).
    A view's unknown colours are None, which reads as blue here: only the seat's own
    ghosts move at its turn, and their colours it knows."""

    __slots__ = ()
    game_name = "geister"
    num_actions = NUM_ACTIONS
    pos: list[int]
    red: list
    board: list[int]
    placed: list[bool]
    player: int
    plies: int
    max_turns: int
    winner: int
    over: bool
    lost: list[list[int]]
    advance: list[int]
    declined: list[int]
    moved: list[int]
    offered: list[int]

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
        seat, pos, board, red = self.player, self.pos, self.board, self.red
        base = GHOSTS * seat
        return [action for action in range(MOVE_ACTIONS)
                if move_target(seat, base + (action >> 2), action & 3, pos, board, red) is not None]

    def is_legal(self, action: int) -> bool:
        if self.over or not 0 <= action < NUM_ACTIONS:
            return False
        if self.placing:
            return action >= MOVE_ACTIONS
        if action >= MOVE_ACTIONS:
            return False
        seat = self.player
        return move_target(seat, GHOSTS * seat + (action >> 2), action & 3, self.pos, self.board, self.red) is not None

    def explain_illegal(self, action: int) -> str:
        if self.over:
            return "the game is over"
        if not 0 <= action < NUM_ACTIONS:
            return f"there is no action {action} (actions are 0..{NUM_ACTIONS - 1})"
        if self.placing:
            return (f"player_{self.player} must first choose its red ghosts (e.g. 'red ABCD', actions "
                    f"{MOVE_ACTIONS}..{NUM_ACTIONS - 1})")
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

    def returns(self) -> tuple[float, float]:
        return returns_of_winner(self.winner) if self.over else (0.0, 0.0)

    def action_label(self, action: int) -> str:
        if action >= MOVE_ACTIONS:
            return "red " + red_letters(RED_SETS[action - MOVE_ACTIONS])
        return f"{LETTERS[action // 4]},{DIRECTIONS[action % 4][0]}"

    def input_help(self) -> str:
        if self.placing:
            return ("choose your 4 red ghosts by the letters on the board: 'red ABCD' makes A, B, C "
                    "and D red (A-D is the row nearer the middle); the other 4 are blue")
        return ("a move is a ghost's letter and a direction, as your board is drawn: N = up (toward "
                "the opponent), S = down, E = right, W = left; 'A,N' or 'A north' moves ghost A up. "
                "A blue ghost on one of your exits (the top corners) escapes by stepping off the "
                "board: N, or W in the left corner, E in the right")

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

    def to_text(self, seat: int | None = None) -> str:
        """The board as text, two characters a square. ``seat``: that seat's view, from its
        side (its exits at the top corners): its own ghosts by letter and colour (``Ab`` is
        ghost A, blue; ``Cr`` ghost C, red; ``A.`` before the colours are chosen), the
        opponent's as ``??``. None: the all-seeing spectator view from player_0's side,
        player_0's ghosts in capitals (``Ab``) and player_1's in lower case (``ab``)."""
        lines = []
        frame = 0 if seat is None else seat
        for y in range(SIZE):
            row = []
            for x in range(SIZE):
                g = self.board[to_own(frame, y * SIZE + x)]
                if g < 0:
                    row.append(" .")
                    continue
                owner = g // GHOSTS
                if seat is not None and owner != seat:
                    row.append("??")
                    continue
                letter = LETTERS[g % GHOSTS]
                colour = ("r" if self.red[g] else "b") if self.placed[owner] else "."
                row.append((letter if owner == frame else letter.lower()) + colour)
            lines.append(" ".join(row))
        return "\n".join(lines)


class GeisterState(GeisterPosition):
    """The whole truth of a Geister game: positions, every colour, whose turn."""

    __slots__ = ("pos", "red", "board", "placed", "player", "plies", "max_turns", "winner", "over",
                 "lost", "advance", "declined", "moved", "offered")
    capabilities = Capabilities(fast_playout=True, key=True)

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
        # Public evidence about each ghost, for beliefs: net forward steps, how often it
        # stood on an exit at its owner's turn and did not escape, how often it moved, and
        # how often it stepped next to an opponent ghost (offering itself to be taken).
        self.advance = [0] * (2 * GHOSTS)
        self.declined = [0] * (2 * GHOSTS)
        self.moved = [0] * (2 * GHOSTS)
        self.offered = [0] * (2 * GHOSTS)

    def _place(self, seat: int, reds) -> None:
        reds = tuple(sorted(reds))
        if reds not in RED_SET_INDEX:
            raise ValueError(f"geister: a placement names 4 distinct ghosts of 0..7, got {reds}")
        for i in range(GHOSTS):
            self.red[GHOSTS * seat + i] = i in reds
        self.placed[seat] = True

    def clone(self) -> GeisterState:
        other = GeisterState.__new__(type(self))
        other.pos, other.red, other.board = self.pos[:], self.red[:], self.board[:]
        other.placed = self.placed[:]
        other.player, other.plies, other.max_turns = self.player, self.plies, self.max_turns
        other.winner, other.over = self.winner, self.over
        other.lost = [self.lost[0][:], self.lost[1][:]]
        other.advance, other.declined, other.moved = self.advance[:], self.declined[:], self.moved[:]
        other.offered = self.offered[:]
        return other

    # --- rules ----------------------------------------------------------------------------
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
        self.moved[g] += 1
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
        for neighbour in TARGET[seat][target]:
            if neighbour is not None and neighbour >= 0:
                other_ghost = board[neighbour]
                if other_ghost >= 0 and other_ghost // GHOSTS != seat:
                    self.offered[g] += 1
                    break
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

    def playout(self, rng: random.Random, limit: int = 0, forward: float = 0.0,
                tactics: bool = False) -> tuple[float, float]:
        """Random play to the end in place (see :func:`playout`)."""
        return playout(self, rng, limit, forward, tactics)

    def key(self) -> tuple:
        return (tuple(self.pos), tuple(self.red), tuple(self.placed), self.player, self.plies)

    def view_key(self, seat: int) -> tuple:
        """What ``seat`` knows of this position (equal to its view's :meth:`GeisterView.key`)."""
        colours = tuple(self.red[g] if g // GHOSTS == seat or self.pos[g] < 0 else None
                        for g in range(2 * GHOSTS))
        return (tuple(self.pos), colours, tuple(self.placed), self.player, self.plies)

    # --- people and protocols -------------------------------------------------------------


# --- the fast play-out: the tight loop MCTS roll-outs spend their time in --------------------
# It picks uniformly among the legal moves by rejection (draw any of the 32 move actions
# until one is legal), which is cheaper than listing the legal moves every ply. The
# conformance suite checks it against the plain loop over ``legal_actions()``/``apply``.
def _guards() -> list[list[tuple[int, list[tuple[int, int]]]]]:
    """GUARDS[seat]: for each of the opponent's exits (``seat``'s home corners), the
    (square, direction) moves by which a ghost of ``seat`` steps onto that corner."""
    guards = []
    for seat in (0, 1):
        corners = []
        for corner in EXITS[1 - seat]:
            steps = [(square, d) for square in range(SQUARES) for d in range(4) if TARGET[seat][square][d] == corner]
            corners.append((corner, steps))
        guards.append(corners)
    return guards


GUARDS = _guards()


def playout(state: GeisterState, rng: random.Random, limit: int = 0, forward: float = 0.0,
            tactics: bool = False) -> tuple[float, float]:
    """Random play of ``state`` to the end in place. ``limit``: after that many moves a
    draw. ``forward``: the probability of choosing among the forward moves only (when the
    mover has one), source 004's cure for back-and-forth play-outs. ``tactics``: both
    players also see one move ahead, as any sensible player does -- a blue ghost on an
    exit escapes, and an opponent ghost standing on one's own corner (about to escape) is
    taken when a ghost can reach it. Without it a play-out lets a ghost sit on the exit it
    could leave by, and lets the opponent's do the same, which hides the game's main threat."""
    if state.placing:
        rand = rng.random
        while state.placing:
            state.apply(MOVE_ACTIONS + int(rand() * len(RED_SETS)))
    rand = rng.random
    moves = 0
    move, pos, board, red = state._move, state.pos, state.board, state.red
    while not state.over:
        if limit and moves >= limit:
            return (0.0, 0.0)
        seat = state.player
        base, targets = GHOSTS * seat, TARGET[seat]
        action = -1
        if tactics:
            for exit_square in EXITS[seat]:
                g = board[exit_square]
                if g >= 0 and g // GHOSTS == seat and not red[g]:
                    action = 4 * (g - base)  # NORTH leaves the board from either exit
                    break
            else:
                for corner, steps in GUARDS[seat]:
                    g = board[corner]
                    if g >= 0 and g // GHOSTS != seat:
                        for square, d in steps:
                            guard = board[square]
                            if guard >= 0 and guard // GHOSTS == seat:
                                action = 4 * (guard - base) + d
                                break
                    if action >= 0:
                        break
        if action < 0 and forward and rand() < forward:
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
    return returns_of_winner(state.winner)
