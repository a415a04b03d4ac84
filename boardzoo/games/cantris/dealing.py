"""Cantris' deal as chance events, tile by tile, for libraries that want every draw of
chance in the game tree (OpenSpiel, whole-tree analysis). Play starts when the deal is
done; from then on :class:`DealtCantris` is the dealt :class:`CantrisState`.

The draws are those of :func:`boardzoo.games.cantris.deal`, so every deal has the same
probability as there: each column is a random order of its values (the next tile one of
the values still to come, by how many of it remain), and a deal that lays a horizontal
line of three is drawn again, from scratch, until :data:`WHOLE_DEAL_ATTEMPTS` deals were;
then column by column, a column that lays a line drawn again alone. A line is known at
the tile that completes it, so a doomed deal stops there rather than at its end (which
changes when the draws stop, not which deals come out, or how often).
"""

from __future__ import annotations

from collections import Counter

from boardzoo.games.cantris import WHOLE_DEAL_ATTEMPTS, CantrisState, column_values
from boardzoo.games.model import CHANCE, Capabilities, GameState


class DealtCantris(GameState):
    """A Cantris game from its first tile dealt: chance events until the board is full,
    then the game itself (every question answered by the dealt :class:`CantrisState`)."""

    __slots__ = ("rows", "cols", "bonus_turn", "tile_scores", "kind", "columns", "attempts", "game")
    game_name = "cantris"
    capabilities = Capabilities(key=True, chance=True)

    def __init__(self, rows: int, cols: int, bonus_turn: bool, tile_scores: bool, deal: str):
        self.rows, self.cols, self.bonus_turn, self.tile_scores, self.kind = rows, cols, bonus_turn, tile_scores, deal
        self.columns: list[list[int]] = [[]]
        self.attempts = 1  # whole deals begun
        self.game: CantrisState | None = None

    @property
    def num_actions(self) -> int:
        return self.cols

    def clone(self) -> DealtCantris:
        other = DealtCantris.__new__(DealtCantris)
        other.rows, other.cols, other.bonus_turn, other.tile_scores, other.kind = (
            self.rows, self.cols, self.bonus_turn, self.tile_scores, self.kind)
        other.columns = [column[:] for column in self.columns]
        other.attempts = self.attempts
        other.game = None if self.game is None else self.game.clone()
        return other

    # --- the deal --------------------------------------------------------------------------
    def _remaining(self) -> Counter:
        left = Counter(column_values(self.rows, self.kind))
        left.subtract(self.columns[-1])
        return +left

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.game is not None:
            return []
        left = self._remaining()
        total = sum(left.values())
        return [(value, count / total) for value, count in sorted(left.items())]

    def _lays_a_line(self) -> bool:
        """Whether the tile just dealt completes a horizontal line of three."""
        c, r = len(self.columns) - 1, len(self.columns[-1]) - 1
        return c >= 2 and self.columns[c - 1][r] == self.columns[c - 2][r] == self.columns[c][r]

    def apply(self, action: int) -> None:
        if self.game is not None:
            self.game.apply(action)
            return
        if self._remaining()[action] <= 0:
            raise ValueError(f"cantris: the next tile is one of {sorted(self._remaining())}, got {action}")
        self.columns[-1].append(int(action))
        if self._lays_a_line():
            if self.attempts < WHOLE_DEAL_ATTEMPTS:
                self.columns, self.attempts = [[]], self.attempts + 1  # the whole deal again
            else:
                self.columns[-1] = []  # past the attempts: this column again
            return
        if len(self.columns[-1]) == self.rows:
            if len(self.columns) == self.cols:
                self.game = CantrisState(self.columns, self.rows, self.bonus_turn, self.tile_scores)
            else:
                self.columns.append([])

    # --- the game once dealt ----------------------------------------------------------------
    def current_player(self) -> int:
        return CHANCE if self.game is None else self.game.current_player()

    def legal_actions(self) -> list[int]:
        if self.game is None:
            return [value for value, _ in self.chance_outcomes()]
        return self.game.legal_actions()

    def is_legal(self, action: int) -> bool:
        return self.game is not None and self.game.is_legal(action)

    def explain_illegal(self, action: int) -> str:
        return "the board is being dealt (a chance event)" if self.game is None else self.game.explain_illegal(action)

    def is_terminal(self) -> bool:
        return self.game is not None and self.game.is_terminal()

    def returns(self) -> tuple[float, float]:
        return (0.0, 0.0) if self.game is None else self.game.returns()

    def key(self) -> tuple:
        return ("dealing", self.attempts, tuple(map(tuple, self.columns))) if self.game is None else self.game.key()

    def action_label(self, action: int) -> str:
        return f"deal {action}" if self.game is None else self.game.action_label(action)

    @property
    def scores(self) -> list[int]:
        return [0, 0] if self.game is None else self.game.scores

    def board(self) -> list[list[int]]:
        """rows x cols, row 0 the bottom, 0 = empty (the tiles dealt so far while dealing)."""
        if self.game is not None:
            return self.game.board()
        columns = self.columns + [[]] * (self.cols - len(self.columns))
        return [[column[r] if r < len(column) else 0 for column in columns] for r in range(self.rows)]

    def to_text(self) -> str:
        if self.game is not None:
            return self.game.to_text()
        dealt = " | ".join(" ".join(map(str, column)) for column in self.columns)
        return f"dealing (deal {self.attempts}), columns bottom first: {dealt}"
