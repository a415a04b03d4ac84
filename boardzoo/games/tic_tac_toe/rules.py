"""Tic-tac-toe's rules: :class:`TicTacToeState` and what a seat observes of it."""

from __future__ import annotations

import numpy as np

from boardzoo.games.model import TERMINAL, Capabilities, GameState, returns_of_winner

#: The eight lines of three cells (cells numbered 0..8 row by row from the top left).
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
SYMBOLS = ".XO"


class TicTacToeState(GameState):
    """A position: ``cells[i]`` is 0 (empty), 1 (player 0's X) or 2 (player 1's O)."""

    __slots__ = ("cells", "player", "winner", "moves")
    game_name = "tic_tac_toe"
    num_actions = 9
    capabilities = Capabilities(key=True, initial=True)

    def __init__(self) -> None:
        self.cells = [0] * 9
        self.player, self.winner, self.moves = 0, -1, 0

    def current_player(self) -> int:
        return TERMINAL if self.winner >= 0 or self.moves == 9 else self.player

    def legal_actions(self) -> list[int]:
        if self.winner >= 0:
            return []
        return [cell for cell in range(9) if not self.cells[cell]]

    def apply(self, action: int) -> None:
        if not (0 <= action < 9 and self.current_player() >= 0 and not self.cells[action]):
            raise ValueError(f"tic_tac_toe: {self.action_label(action)} is not a legal move: "
                             f"{self.explain_illegal(action)}")
        self.cells[action] = self.player + 1
        self.moves += 1
        if any(all(self.cells[c] == self.player + 1 for c in line) for line in LINES if action in line):
            self.winner = self.player
        self.player = 1 - self.player

    def clone(self) -> TicTacToeState:
        other = TicTacToeState.__new__(TicTacToeState)
        other.cells, other.player, other.winner, other.moves = self.cells[:], self.player, self.winner, self.moves
        return other

    def returns(self) -> tuple[float, float]:
        return returns_of_winner(self.winner)

    def key(self) -> tuple:
        return tuple(self.cells)

    def is_initial(self) -> bool:
        return self.moves == 0

    def explain_illegal(self, action: int) -> str:
        if self.current_player() == TERMINAL:
            return "the game is over"
        if not 0 <= action < 9:
            return "cells are 1 to 9"
        return "that cell is taken"

    def action_label(self, action: int) -> str:
        return str(action + 1)  # people number the cells 1..9, as on a phone's keypad

    def parse_action(self, text: str) -> int:
        text = text.strip()
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 9:
            raise ValueError(f"{text!r} is not a cell: type a number from 1 to 9 (row by row from the top left)")
        return int(text) - 1

    def to_text(self) -> str:
        return "\n".join(" ".join(SYMBOLS[v] for v in self.cells[row:row + 3]) for row in (0, 3, 6))

    def __repr__(self) -> str:
        return f"TicTacToeState(moves={self.moves}, winner={self.winner})\n{self.to_text()}"


def observation_of(state: TicTacToeState, player: int) -> np.ndarray:
    """Seat ``player``'s observation: ``(3, 3, 2)`` int8, plane 0 its own marks, plane 1
    the opponent's (row 0 the top)."""
    cells = np.array(state.cells, dtype=np.int8).reshape(3, 3)
    return np.stack([cells == player + 1, cells == 2 - player], axis=-1).astype(np.int8)


def network_input(state: TicTacToeState, largest_pile: int = 0) -> np.ndarray:
    """What a learned network sees of the position: ``(2, 3, 3)`` float32, the mover's
    marks, then the opponent's (row 0 the top). The plain twin of the compiled writer
    (``boardzoo.games.tic_tac_toe.compiled``), which the tests hold to it."""
    cells = np.array(state.cells, dtype=np.int8).reshape(3, 3)
    mover = state.player
    return np.stack([cells == mover + 1, cells == 2 - mover]).astype(np.float32)
