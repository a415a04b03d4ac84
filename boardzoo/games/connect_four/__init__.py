"""Connect Four rules on bitboards (any size of at least 4x4).

Bit layout: column ``c`` owns bits ``c*H .. c*H+rows-1`` with ``H = rows + 1``; bit
``c*H + r`` is the cell ``r`` rows above the bottom. The extra bit on top of every column
stays 0, so the shifts of the four-in-a-row test never wrap from one column into the
next. One board per player; the player to move is ``plies % 2`` (player 0 starts).
"""

from __future__ import annotations

import random

import numpy as np

from boardzoo.games.model import TERMINAL, Capabilities, GameState, returns_of_winner
from boardzoo.games.registry import Game, Learning, Param
from boardzoo.values import whole

MIN_SIZE = 4
MAX_SIZE = 32


class Geometry:
    """Constants of one board size, shared by every state of that size: read-only (tuples,
    and no attribute can be set after construction), since every env and model of that
    size in the process sees the same object."""

    __slots__ = ("rows", "cols", "height", "tops", "bottoms", "centre_order", "cells", "board_mask")
    rows: int
    cols: int
    height: int
    cells: int
    tops: tuple[int, ...]
    bottoms: tuple[int, ...]
    board_mask: int
    centre_order: tuple[int, ...]

    def __init__(self, rows: int, cols: int):
        for name, value in (("rows", rows), ("cols", cols)):
            whole(f"connect_four: {name}", value, MIN_SIZE, MAX_SIZE, note=" (a four needs room in every direction)")
        height = rows + 1
        column = (1 << rows) - 1
        middle = (cols - 1) / 2
        fields: dict[str, object] = {
            "rows": rows, "cols": cols, "height": height, "cells": rows * cols,
            "tops": tuple(c * height + rows for c in range(cols)),  # first bit above each column
            "bottoms": tuple(c * height for c in range(cols)),
            "board_mask": sum(column << (c * height) for c in range(cols)),  # all playable cells
            "centre_order": tuple(sorted(range(cols), key=lambda c: abs(c - middle))),
        }
        for name, constant in fields.items():
            object.__setattr__(self, name, constant)

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"connect_four: the board geometry is shared and read-only (tried to set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"connect_four: the board geometry is shared and read-only (tried to delete {name!r})")

    def __reduce__(self):
        return (geometry, (self.rows, self.cols))


_GEOMETRIES: dict[tuple[int, int], Geometry] = {}


def geometry(rows: int, cols: int) -> Geometry:
    key = (rows, cols)
    if key not in _GEOMETRIES:
        _GEOMETRIES[key] = Geometry(rows, cols)
    return _GEOMETRIES[key]


def has_four(board: int, height: int) -> bool:
    """True when ``board`` holds four in a row in any of the four directions."""
    for shift in (1, height, height - 1, height + 1):  # vertical, horizontal, two diagonals
        pairs = board & (board >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


def completing_cells(discs: int, height: int) -> int:
    """Cells (empty or not, on the board or not) that would complete a four of ``discs``:
    for every direction, the cell that three discs in a row are missing, at either end or
    in the gap."""
    cells = (discs << 1) & (discs << 2) & (discs << 3)  # vertical: only upwards
    for shift in (height, height - 1, height + 1):  # horizontal and the two diagonals
        pair = (discs << shift) & (discs << 2 * shift)
        cells |= pair & (discs << 3 * shift)
        cells |= pair & (discs >> shift)
        pair = (discs >> shift) & (discs >> 2 * shift)
        cells |= pair & (discs << shift)
        cells |= pair & (discs >> 3 * shift)
    return cells


class ConnectFourState(GameState):
    """A Connect Four position; mutable, cheap to clone."""

    __slots__ = ("geo", "boards", "heights", "plies", "winner")
    game_name = "connect_four"
    capabilities = Capabilities(fast_playout=True, key=True, initial=True)

    def __init__(self, rows: int = 6, cols: int = 7):
        self.geo = geometry(rows, cols)
        self.boards = [0, 0]
        self.heights = list(self.geo.bottoms)  # next free bit of each column
        self.plies = 0
        self.winner = -1

    @property
    def num_actions(self) -> int:
        return self.geo.cols

    # --- the model interface --------------------------------------------------------
    def clone(self) -> ConnectFourState:
        other = ConnectFourState.__new__(ConnectFourState)
        other.geo = self.geo
        other.boards = self.boards[:]
        other.heights = self.heights[:]
        other.plies = self.plies
        other.winner = self.winner
        return other

    def current_player(self) -> int:
        if self.winner >= 0 or self.plies == self.geo.cells:
            return TERMINAL
        return self.plies & 1

    def is_terminal(self) -> bool:
        return self.winner >= 0 or self.plies == self.geo.cells

    def legal_actions(self) -> list[int]:
        if self.winner >= 0:
            return []
        tops = self.geo.tops
        return [c for c, h in enumerate(self.heights) if h < tops[c]]

    def legal_mask(self) -> list[int]:
        if self.winner >= 0:
            return [0] * self.geo.cols
        return [1 if h < t else 0 for h, t in zip(self.heights, self.geo.tops)]

    def is_legal(self, action: int) -> bool:
        return (
            self.winner < 0 and 0 <= action < self.geo.cols
            and self.heights[action] < self.geo.tops[action]
        )

    def explain_illegal(self, action: int) -> str:
        if self.is_terminal():
            return "the game is over"
        if not 0 <= action < self.geo.cols:
            return f"there is no column {action + 1} (columns are 1..{self.geo.cols})"
        return f"column {action + 1} is full"

    def apply(self, action: int) -> None:
        heights = self.heights
        if self.winner >= 0 or not 0 <= action < self.geo.cols or heights[action] >= self.geo.tops[action]:
            raise ValueError(f"connect_four: illegal action {action}: {self.explain_illegal(action)}")
        player = self.plies & 1
        bit = 1 << heights[action]
        heights[action] += 1
        board = self.boards[player] | bit
        self.boards[player] = board
        self.plies += 1
        if has_four(board, self.geo.height):
            self.winner = player

    def returns(self) -> tuple[float, float]:
        return returns_of_winner(self.winner)

    def key(self) -> int:
        # Player 0's discs plus the occupancy mask identify the position uniquely
        # (the standard trick of bitboard solvers), and the plies follow from the mask.
        return self.boards[0] + (self.boards[0] | self.boards[1])

    def playout(self, rng: random.Random) -> tuple[float, float]:
        # The hot loop of MCTS roll-outs: everything local, the win test inlined.
        if self.winner >= 0 or self.plies == self.geo.cells:
            return self.returns()
        rand = rng.random
        geo = self.geo
        height, tops = geo.height, geo.tops
        heights, boards = self.heights, self.boards
        up, right, diag1, diag2 = 1, height, height - 1, height + 1
        up2, right2, diag12, diag22 = 2, 2 * height, 2 * (height - 1), 2 * (height + 1)
        legal = [c for c, h in enumerate(heights) if h < tops[c]]
        open_count = len(legal)
        player = self.plies & 1
        me, opponent = boards[player], boards[player ^ 1]
        plies = self.plies
        while True:
            i = int(rand() * open_count)
            col = legal[i]
            h = heights[col]
            me |= 1 << h
            h += 1
            heights[col] = h
            if h == tops[col]:  # the column is full: swap it out of the open ones
                open_count -= 1
                legal[i] = legal[open_count]
            plies += 1
            if plies < 7:  # nobody has four discs yet
                me, opponent = opponent, me
                player ^= 1
                continue
            m = me & (me >> up)
            if m & (m >> up2):
                break
            m = me & (me >> right)
            if m & (m >> right2):
                break
            m = me & (me >> diag1)
            if m & (m >> diag12):
                break
            m = me & (me >> diag2)
            if m & (m >> diag22):
                break
            if not open_count:
                boards[player], boards[player ^ 1] = me, opponent
                player = -1  # full board: a draw
                break
            me, opponent = opponent, me
            player ^= 1
        if player >= 0:
            boards[player], boards[player ^ 1] = me, opponent
        self.plies = plies
        self.winner = player
        return self.returns()

    # --- game knowledge ----------------------------------------------------------------
    def is_initial(self) -> bool:
        return self.plies == 0

    def ordered_legal_actions(self) -> list[int]:
        """Legal columns from the centre out: the order that makes alpha-beta cut most."""
        if self.winner >= 0:
            return []
        heights, tops = self.heights, self.geo.tops
        return [c for c in self.geo.centre_order if heights[c] < tops[c]]

    def threat_cells(self, player: int) -> int:
        """Bitboard of the empty cells that would complete a four for ``player``: the empty
        cell of every 4-cell window holding three of its discs (playable now or not)."""
        empty = self.geo.board_mask & ~(self.boards[0] | self.boards[1])
        return completing_cells(self.boards[player], self.geo.height) & empty

    def winning_columns(self, player: int) -> list[int]:
        """Columns where ``player`` would complete a four with its next disc."""
        board, height, tops = self.boards[player], self.geo.height, self.geo.tops
        return [
            c for c, h in enumerate(self.heights)
            if h < tops[c] and has_four(board | (1 << h), height)
        ]

    def greedy_action(self, rng: random.Random) -> int:
        """Source 003's heuristic player: win now, else block an immediate loss, else centre."""
        player = self.plies & 1
        for candidates in (self.winning_columns(player), self.winning_columns(1 - player)):
            if candidates:
                return candidates[int(rng.random() * len(candidates))]
        legal = set(self.legal_actions())
        middle = (self.geo.cols - 1) / 2
        best = min(abs(c - middle) for c in legal)
        central = [c for c in self.geo.centre_order if c in legal and abs(c - middle) == best]
        return central[int(rng.random() * len(central))]

    def action_label(self, action: int) -> str:
        return str(action + 1)  # people number columns from 1, as solvers do

    def parse_action(self, text: str) -> int:
        text = text.strip()
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= self.geo.cols:
            raise ValueError(f"{text!r} is not a column: type a number from 1 to {self.geo.cols}")
        return int(text) - 1

    # --- views -----------------------------------------------------------------------
    def cell(self, row_from_top: int, col: int) -> int:
        """0 empty, 1 player 0's disc, 2 player 1's disc."""
        bit = 1 << (col * self.geo.height + self.geo.rows - 1 - row_from_top)
        if self.boards[0] & bit:
            return 1
        return 2 if self.boards[1] & bit else 0

    def to_text(self) -> str:
        symbols = ".XO"
        lines = [
            " ".join(symbols[self.cell(r, c)] for c in range(self.geo.cols))
            for r in range(self.geo.rows)
        ]
        lines.append(" ".join(str((c + 1) % 10) for c in range(self.geo.cols)))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"ConnectFourState(plies={self.plies}, winner={self.winner})\n{self.to_text()}"


def observation_of(state: ConnectFourState, player: int) -> np.ndarray:
    """Seat ``player``'s observation array of ``state``, built from scratch (the env keeps
    its own up to date move by move; a test checks that they agree)."""
    rows, cols = state.geo.rows, state.geo.cols
    cells = np.array([[state.cell(r, c) for c in range(cols)] for r in range(rows)], dtype=np.int8)
    return np.stack([cells == player + 1, cells == 2 - player], axis=-1).astype(np.int8)



def network_input(state: ConnectFourState, largest_pile: int = 0) -> np.ndarray:
    """What a learned network sees of the position, from the mover's side: (3, rows, cols)
    planes of the mover's discs, the opponent's (row 0 the top), and ones when the mover
    moved first (threats depend on a row's parity). The plain twin of the compiled
    writer (``boardzoo.games.connect_four.compiled``), which the tests hold to it."""
    geo = state.geo
    mover = state.plies & 1
    planes = np.zeros((3, geo.rows, geo.cols), dtype=np.float32)
    for c in range(geo.cols):
        for r in range(geo.rows):
            bit = 1 << (c * geo.height + geo.rows - 1 - r)
            if state.boards[mover] & bit:
                planes[0, r, c] = 1.0
            elif state.boards[1 - mover] & bit:
                planes[1, r, c] = 1.0
    if mover == 0:
        planes[2] = 1.0
    return planes


GAME = Game(
    name=ConnectFourState.game_name,
    title="Connect Four",
    state_class=ConnectFourState,
    make_state=lambda rng, rows, cols: ConnectFourState(rows, cols),
    parameters={"rows": Param(6, int, MIN_SIZE, MAX_SIZE, doc="board height"),
                "cols": Param(7, int, MIN_SIZE, MAX_SIZE, doc="board width")},
    max_length=lambda params: params["rows"] * params["cols"],
    envs={"connect_four_v0": "Connect Four on bitboards; plays like PettingZoo's connect_four_v3"},
    observation=observation_of,
    network_input=network_input,
    learning=Learning(
        env="connect_four_v0", shipped="connect_four.npz", generations=148, mirrored=True,
        settings={"sampled_plies": 12, "late_temperature": 0.4, "random_opening_share": 0.5,
                  "random_opening_plies": 20, "keep_every": 5,
                  "anchors": ("random", "alphabeta:depth=2,eval=three2", "alphabeta:depth=4,eval=three2",
                              "mcts:iterations=1000,engine=compiled")}),
    knowledge="boardzoo.strategy.connect_four",
    compiled_core="boardzoo.games.connect_four.compiled",
    variants={"": {}, "5x4": {"rows": 5, "cols": 4}},
    small_envs={"connect_four": "connect_four_v0:rows=4,cols=5"},
)
