"""Geister's rules: :class:`GeisterState`, the whole truth of a game, and what it shares
with a seat's view (the board itself is :mod:`.board`)."""

from __future__ import annotations

import random

from boardzoo.games.geister.board import (
    CAPTURED,
    CLASSIC,
    DIRECTIONS,
    EMPTY,
    ESCAPED,
    Layout,
    move_target,
    parse_red,
    placement_action,
    red_letters,
)
from boardzoo.games.model import CHANCE, TERMINAL, Capabilities, GameState, check_int, returns_of_winner


class GeisterPosition(GameState):
    """What a full state and a seat's view share: the public position, and the questions
    asked of it at a turn (whose move, which moves are legal, how moves are written).
    A view's unknown colours are None, which reads as blue here: only the seat's own
    ghosts move at its turn, and their colours it knows."""

    __slots__ = ()
    game_name = "geister"
    shape: Layout
    dealt: bool
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
    def num_actions(self) -> int:
        return self.shape.num_actions

    @property
    def placing(self) -> bool:
        return not (self.placed[0] and self.placed[1])

    def is_terminal(self) -> bool:
        return self.over

    def secret_choice(self) -> bool:
        return self.placing and not self.dealt and not self.over

    def current_player(self) -> int:
        if self.over:
            return TERMINAL
        return CHANCE if self.dealt and self.placing else self.player

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """A dealt game's placements: each seat's set of reds, every set alike."""
        if not (self.dealt and self.placing) or self.over:
            return []
        sets = len(self.shape.red_sets)
        return [(self.shape.move_actions + k, 1.0 / sets) for k in range(sets)]

    def legal_actions(self) -> list[int]:
        if self.over:
            return []
        shape = self.shape
        if self.placing:
            return list(range(shape.move_actions, shape.num_actions))
        seat, pos, board, red = self.player, self.pos, self.board, self.red
        base = shape.ghosts * seat
        return [action for action in range(shape.move_actions)
                if move_target(seat, base + (action >> 2), action & 3, pos, board, red, shape) is not None]

    def is_legal(self, action: int) -> bool:
        shape = self.shape
        if self.over or not 0 <= action < shape.num_actions or self.dealt and self.placing:
            return False  # a dealt placement is chance's, no player's move
        if self.placing:
            return action >= shape.move_actions
        if action >= shape.move_actions:
            return False
        seat = self.player
        return move_target(seat, shape.ghosts * seat + (action >> 2), action & 3, self.pos, self.board, self.red,
                           shape) is not None

    def explain_illegal(self, action: int) -> str:
        shape = self.shape
        if self.over:
            return "the game is over"
        if self.dealt and self.placing:
            return "the colours are being dealt (a chance event): no player moves yet"
        if not 0 <= action < shape.num_actions:
            return f"there is no action {action} (actions are 0..{shape.num_actions - 1})"
        if self.placing:
            return (f"player_{self.player} must first choose its red ghosts (e.g. 'red "
                    f"{shape.letters[:shape.red]}', actions {shape.move_actions}..{shape.num_actions - 1})")
        if action >= shape.move_actions:
            return "the red ghosts are already placed"
        seat, i, d = self.player, action // 4, action % 4
        g = shape.ghosts * seat + i
        square = self.pos[g]
        name = f"ghost {shape.letters[i]}"
        if square < 0:
            return f"{name} is {'captured' if square == CAPTURED else 'gone'}"
        target = shape.target[seat][square][d]
        if target is None:
            return f"{name} cannot move {DIRECTIONS[d]}: that is off the board"
        if target == ESCAPED:
            return f"{name} is red: only blue ghosts escape"
        return f"{name} cannot move {DIRECTIONS[d]} onto its own ghost"

    def returns(self) -> tuple[float, float]:
        return returns_of_winner(self.winner) if self.over else (0.0, 0.0)

    def action_label(self, action: int) -> str:
        shape = self.shape
        if action >= shape.move_actions:
            return "red " + red_letters(shape.red_sets[action - shape.move_actions])
        return f"{shape.letters[action // 4]},{DIRECTIONS[action % 4][0]}"

    def input_help(self) -> str:
        shape = self.shape
        if self.placing:
            example = shape.letters[:shape.red]
            return (f"choose your {shape.red} red ghosts by the letters on the board: 'red {example}' makes "
                    f"{', '.join(example)} red ({shape.letters[0]} is nearest the middle); the other "
                    f"{shape.blue} are blue")
        return ("a move is a ghost's letter and a direction, as your board is drawn: N = up (toward "
                "the opponent), S = down, E = right, W = left; 'A,N' or 'A north' moves ghost A up. "
                "A blue ghost on one of your exits (the top corners) escapes by stepping off the "
                "board: N, or W in the left corner, E in the right")

    def parse_action(self, text: str) -> int:
        """``"A,N"``, ``"A NORTH"``, ``"MOV:A,NORTH"`` for moves; ``"red ABCD"`` or
        ``"SET:ABCD"`` for the placement."""
        shape = self.shape
        raw = text.strip().upper()
        for prefix in ("SET:", "RED ", "RED:"):
            if raw.startswith(prefix):
                return placement_action(parse_red(raw[len(prefix):], shape), shape)
        if raw.startswith("MOV:"):
            raw = raw[4:]
        parts = raw.replace(",", " ").split()
        if len(parts) == 2 and parts[0] in shape.letters and len(parts[0]) == 1:
            for d, name in enumerate(DIRECTIONS):
                if parts[1] in (name, name[0]):
                    return 4 * shape.letters.index(parts[0]) + d
        raise ValueError(f"{text.strip()!r} is not a Geister move: write e.g. 'A,N' (ghost {shape.letters[0]}.."
                         f"{shape.letters[-1]}, direction N/E/S/W) or 'red {shape.letters[:shape.red]}'")

    def to_text(self, seat: int | None = None) -> str:
        """The board as text, two characters a square. ``seat``: that seat's view, from its
        side (its exits at the top corners): its own ghosts by letter and colour (``Ab`` is
        ghost A, blue; ``Cr`` ghost C, red; ``A.`` before the colours are chosen), the
        opponent's as ``??``. None: the all-seeing spectator view from player_0's side,
        player_0's ghosts in capitals (``Ab``) and player_1's in lower case (``ab``)."""
        shape = self.shape
        lines = []
        frame = 0 if seat is None else seat
        for y in range(shape.rows):
            row = []
            for x in range(shape.cols):
                g = self.board[shape.to_own(frame, y * shape.cols + x)]
                if g < 0:
                    row.append(" .")
                    continue
                owner = g // shape.ghosts
                if seat is not None and owner != seat:
                    row.append("??")
                    continue
                letter = shape.letters[g % shape.ghosts]
                colour = ("r" if self.red[g] else "b") if self.placed[owner] else "."
                row.append((letter if owner == frame else letter.lower()) + colour)
            lines.append(" ".join(row))
        return "\n".join(lines)


class GeisterState(GeisterPosition):
    """The whole truth of a Geister game: positions, every colour, whose turn."""

    __slots__ = ("shape", "dealt", "pos", "red", "board", "placed", "player", "plies", "max_turns", "winner",
                 "over", "lost", "advance", "declined", "moved", "offered")
    capabilities = Capabilities(fast_playout=True, key=True, chance=True)

    def __init__(self, max_turns: int = 200, red: dict[int, tuple[int, ...]] | None = None,
                 shape: Layout = CLASSIC, dealt: bool = False):
        """``shape``: the family member (:func:`boardzoo.games.geister.board.layout`);
        ``dealt``: the colours are dealt at random (chance events, one per seat) rather
        than chosen by the players."""
        check_int("geister", "max_turns", max_turns, 1)
        self.shape, self.dealt = shape, dealt
        self.max_turns = max_turns
        ghosts = shape.ghosts
        self.pos = [shape.home_square(g // ghosts, g % ghosts) for g in range(2 * ghosts)]
        self.board = [EMPTY] * shape.squares
        for g, square in enumerate(self.pos):
            self.board[square] = g
        self.red = [False] * (2 * ghosts)
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
        self.advance = [0] * (2 * ghosts)
        self.declined = [0] * (2 * ghosts)
        self.moved = [0] * (2 * ghosts)
        self.offered = [0] * (2 * ghosts)

    def _place(self, seat: int, reds) -> None:
        shape = self.shape
        reds = tuple(sorted(reds))
        if reds not in shape.red_set_index:
            raise ValueError(f"geister: a placement names {shape.red} distinct ghosts of 0..{shape.ghosts - 1}, "
                             f"got {reds}")
        for i in range(shape.ghosts):
            self.red[shape.ghosts * seat + i] = i in reds
        self.placed[seat] = True

    def clone(self) -> GeisterState:
        other = GeisterState.__new__(type(self))
        other.shape, other.dealt = self.shape, self.dealt
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
        shape = self.shape
        if self.dealt and self.placing and not self.over:
            if not shape.move_actions <= action < shape.num_actions:
                raise ValueError(f"geister: the deal's outcomes are the placements {shape.move_actions}.."
                                 f"{shape.num_actions - 1}, got {action}")
        elif not self.is_legal(action):
            raise ValueError(f"geister: illegal action {action}: {self.explain_illegal(action)}")
        if action >= shape.move_actions:
            self._place(self.player, shape.red_sets[action - shape.move_actions])
            self.player = 0 if not self.placed[0] else 1 if not self.placed[1] else 0
            return
        self._move(action)

    def _move(self, action: int) -> None:
        """Play a legal move (no checks: play-outs call this directly)."""
        seat, shape = self.player, self.shape
        ghosts = shape.ghosts
        g = ghosts * seat + (action >> 2)
        d = action & 3
        pos, board = self.pos, self.board
        square = pos[g]
        target = shape.target[seat][square][d]
        for exit_square in shape.exit_squares[seat]:  # evidence: an own ghost on an exit that doesn't escape
            ghost = board[exit_square]
            if ghost >= 0 and ghost // ghosts == seat and (ghost != g or target != ESCAPED):
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
        for neighbour in shape.target[seat][target]:
            if neighbour is not None and neighbour >= 0:
                other_ghost = board[neighbour]
                if other_ghost >= 0 and other_ghost // ghosts != seat:
                    self.offered[g] += 1
                    break
        if victim >= 0:
            pos[victim] = CAPTURED
            other = 1 - seat
            lost = self.lost[other]
            if self.red[victim]:
                lost[1] += 1
                if lost[1] == shape.red:
                    self.winner, self.over = other, True
                    return
            else:
                lost[0] += 1
                if lost[0] == shape.blue:
                    self.winner, self.over = seat, True
                    return
        if self.plies >= self.max_turns:
            self.over = True

    def how_it_ended(self) -> str:
        """Why the game is over: ``"escape"`` (a blue left through an exit), ``"blues
        taken"`` (the winner took every blue of the loser), ``"reds taken"`` (the loser took
        every red of the winner) or ``"turn limit"`` (a draw); ``""`` before the end."""
        if not self.over:
            return ""
        if self.winner < 0:
            return "turn limit"
        if ESCAPED in self.pos[self.shape.ghosts * self.winner:self.shape.ghosts * (self.winner + 1)]:
            return "escape"
        return "reds taken" if self.lost[self.winner][1] == self.shape.red else "blues taken"

    def playout(self, rng: random.Random, limit: int = 0, forward: float = 0.0,
                tactics: bool = False) -> tuple[float, float]:
        """Random play to the end in place (see :func:`playout`)."""
        return playout(self, rng, limit, forward, tactics)

    def key(self) -> tuple:
        return (tuple(self.pos), tuple(self.red), tuple(self.placed), self.player, self.plies)

    def view_key(self, seat: int) -> tuple:
        """What ``seat`` knows of this position (equal to its view's :meth:`GeisterView.key`)."""
        ghosts = self.shape.ghosts
        colours = tuple(self.red[g] if g // ghosts == seat or self.pos[g] < 0 else None
                        for g in range(2 * ghosts))
        return (tuple(self.pos), colours, tuple(self.placed), self.player, self.plies)

    # --- people and protocols -------------------------------------------------------------


# --- the fast play-out: the tight loop MCTS roll-outs spend their time in --------------------
# It picks uniformly among the legal moves by rejection (draw any of the 32 move actions
# until one is legal), which is cheaper than listing the legal moves every ply. The
# conformance suite checks it against the plain loop over ``legal_actions()``/``apply``.
_GUARDS: dict[Layout, list] = {}


def guards(shape: Layout) -> list[list[tuple[int, list[tuple[int, int]]]]]:
    """guards(shape)[seat]: for each of the opponent's exits (``seat``'s home corners), the
    (square, direction) moves by which a ghost of ``seat`` steps onto that corner."""
    if shape not in _GUARDS:
        table = []
        for seat in (0, 1):
            corners = []
            for corner in shape.exit_squares[1 - seat]:
                steps = [(square, d) for square in range(shape.squares) for d in range(4)
                         if shape.target[seat][square][d] == corner]
                corners.append((corner, steps))
            table.append(corners)
        _GUARDS[shape] = table
    return _GUARDS[shape]


def playout(state: GeisterState, rng: random.Random, limit: int = 0, forward: float = 0.0,
            tactics: bool = False) -> tuple[float, float]:
    """Random play of ``state`` to the end in place. ``limit``: after that many moves a
    draw. ``forward``: the probability of choosing among the forward moves only (when the
    mover has one), source 004's cure for back-and-forth play-outs. ``tactics``: both
    players also see one move ahead, as any sensible player does -- a blue ghost on an
    exit escapes, and an opponent ghost standing on one's own corner (about to escape) is
    taken when a ghost can reach it. Without it a play-out lets a ghost sit on the exit it
    could leave by, and lets the opponent's do the same, which hides the game's main threat."""
    shape = state.shape
    ghosts, move_actions, exits, seat_guards = shape.ghosts, shape.move_actions, shape.exit_squares, guards(shape)
    rand = rng.random
    while state.placing:
        state.apply(move_actions + int(rand() * len(shape.red_sets)))
    moves = 0
    move, pos, board, red = state._move, state.pos, state.board, state.red
    while not state.over:
        if limit and moves >= limit:
            return (0.0, 0.0)
        seat = state.player
        base, targets = ghosts * seat, shape.target[seat]
        action = -1
        if tactics:
            for exit_square in exits[seat]:
                g = board[exit_square]
                if g >= 0 and g // ghosts == seat and not red[g]:
                    action = 4 * (g - base)  # NORTH leaves the board from either exit
                    break
            else:
                for corner, steps in seat_guards[seat]:
                    g = board[corner]
                    if g >= 0 and g // ghosts != seat:
                        for square, d in steps:
                            guard = board[square]
                            if guard >= 0 and guard // ghosts == seat:
                                action = 4 * (guard - base) + d
                                break
                    if action >= 0:
                        break
        if action < 0 and forward and rand() < forward:
            ahead = []
            for i in range(ghosts):
                square = pos[base + i]
                if square >= 0:
                    target = targets[square][0]
                    if target is not None and (target == ESCAPED and not red[base + i] or target >= 0 and (
                            board[target] < 0 or board[target] // ghosts != seat)):
                        ahead.append(4 * i)
            if ahead:
                action = ahead[int(rand() * len(ahead))]
        while action < 0:
            # Uniform over the legal moves by rejection: draw any of the 32 until legal
            # (there always is one), cheaper than listing them all every ply.
            candidate = int(rand() * move_actions)
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
            elif board[target] < 0 or board[target] // ghosts != seat:
                action = candidate
        move(action)
        moves += 1
    return returns_of_winner(state.winner)
