"""
# Connect Four (`boardzoo.envs.connect_four_v0`)

| Import             | `from boardzoo.envs import connect_four_v0`       |
|--------------------|---------------------------------------------------|
| Agents             | `["player_0", "player_1"]` (`player_0` moves first) |
| Action space       | `Discrete(cols)`: the column to drop a disc into    |
| Observation shape  | `(rows, cols, 2)`, int8 in {0, 1}                   |
| Parameters         | `rows=6`, `cols=7` (4..32 each), `render_mode`      |

Two players drop discs into a standing grid; a disc falls to the lowest free cell of its
column. Four of one's own discs in a row -- horizontally, vertically or diagonally --
wins. A full board without a four is a draw. A full column cannot be played.

## Observation
As PettingZoo's `connect_four_v3` (see "Differences from connect_four_v3" below): `{"observation", "action_mask"}`
where `observation[r, c, 0]` is 1 if the *observing* player has a disc at row `r` (row 0
is the top) and column `c`, and plane 1 holds the opponent's discs. `state()` gives the
same array from `player_0`'s side (plane 0 = `player_0`).

## Action mask
int8 of length `cols`: 1 for every column that is not full, for the agent to move; all
zeros for the other agent and once the game is over.

## Rewards
+1 to the player completing a four, -1 to the other, 0 each for a draw. With `env()`, a
masked-out action ends the game with -1 for the offender (0 for the other); `raw_env()`
raises `IllegalActionError` instead.

## Differences from connect_four_v3
The agents, observation layout, action mask while the game runs and reward values are
v3's. Two things differ: once the game is over the action mask is all zeros (v3 keeps
the columns that are not full), and rewards are floats (v3's are ints).

## Search model
`env.unwrapped.model(agent)` returns a `ConnectFourState` (bitboards) with `clone`,
`apply`, `legal_actions`, `returns`, a fast random `playout(rng)` and `key()`.

## Version history
* v0: first release (bitboard core, any size, deepcopy/pickle mid-game, numpy RGB render);
  later `render_mode="svg"` (the same env otherwise).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from boardzoo.envs import svg
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.render import BLUE, RED, WHITE, YELLOW, canvas, disc_mask, paint
from boardzoo.envs.wrapper import wrap
from boardzoo.games.connect_four import ConnectFourState, geometry

CELL = 40


class raw_env(BoardGameEnv[ConnectFourState]):
    metadata = {**BoardGameEnv.metadata, "name": "connect_four_v0"}
    seat_pieces = ("red discs", "yellow discs")

    def __init__(self, rows: int = 6, cols: int = 7, render_mode: str | None = None):
        super().__init__(render_mode)
        geometry(rows, cols)  # validates the size with a clear message
        self.rows, self.cols = rows, cols
        board = spaces.Box(low=0, high=1, shape=(rows, cols, 2), dtype=np.int8)
        self._set_spaces(board, cols)

    def _new_game(self, options: dict) -> ConnectFourState:
        # Each seat's observation kept up to date move by move: cheaper than rebuilding it.
        self._views = np.zeros((2, self.rows, self.cols, 2), dtype=np.int8)
        self._open_columns = np.ones(self.cols, dtype=np.int8)
        return ConnectFourState(self.rows, self.cols)

    def _after_apply(self, player: int, action: int) -> None:
        game = self._live
        row_from_top = self.rows - (game.heights[action] - game.geo.bottoms[action])
        self._views[player, row_from_top, action, 0] = 1
        self._views[1 - player, row_from_top, action, 1] = 1
        if row_from_top == 0:
            self._open_columns[action] = 0

    def _legal_mask(self) -> np.ndarray:
        return self._open_columns.copy()

    def _observation(self, player: int) -> np.ndarray:
        return self._views[player].copy()

    def state(self) -> np.ndarray:
        self._require_reset()
        return self._views[0].copy()

    def _render_text(self) -> str:
        return f"{self._live.to_text()}\n{self._status_line()}   (X = player_0, O = player_1)"

    def _render_rgb(self) -> np.ndarray:
        image = canvas(self.rows * CELL, self.cols * CELL, BLUE)
        disc = disc_mask(CELL, 4)
        colours = (WHITE, RED, YELLOW)
        for r in range(self.rows):
            for c in range(self.cols):
                paint(image, r * CELL, c * CELL, disc, colours[self._live.cell(r, c)])
        return image

    def _winning_cells(self) -> set[tuple[int, int]]:
        """The cells of the winner's fours (empty while nobody has won), drawn ringed."""
        game = self._live
        if game.winner < 0:
            return set()
        mine = game.winner + 1
        cells: set[tuple[int, int]] = set()
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    line = [(r + i * dr, c + i * dc) for i in range(4)]
                    if all(0 <= y < self.rows and 0 <= x < self.cols and game.cell(y, x) == mine for y, x in line):
                        cells.update(line)
        return cells

    def _render_svg(self, view: int | None, animate: bool) -> svg.SvgImage:
        game, size, top = self._live, SVG_CELL, SVG_CELL // 2
        last = self.history[-1][1] if self.history else None
        body = [f'<rect x="0" y="{top}" width="{self.cols * size}" height="{self.rows * size}" rx="8" '
                f'fill="{svg.BOARD_BLUE}"/>']
        colours = (svg.EMPTY, svg.RED, svg.YELLOW)
        names = ("empty", "player_0", "player_1")
        four = self._winning_cells()
        for c in range(self.cols):
            # The highest disc of the last move's column is the one just dropped.
            last_row = next((r for r in range(self.rows) if game.cell(r, c)), None) if c == last else None
            for r in range(self.rows):
                cell = game.cell(r, c)
                x, y = c * size + size / 2, top + r * size + size / 2
                just_played = r == last_row
                ring = ' stroke="#fff" stroke-width="5"' if (r, c) in four else ""
                body.append(f'<circle cx="{x:g}" cy="{y:g}" r="{size * 0.4:g}" fill="{colours[cell]}"{ring} '
                            f'class="disc {names[cell]}{" last" if just_played else ""}'
                            f'{" four" if (r, c) in four else ""}"'
                            + (f">{svg.animation('cy', top - size / 2, y)}</circle>" if just_played and animate
                               else "/>"))
            full = not game.is_legal(c) and not game.is_terminal()
            label = game.action_label(c)
            body.append(svg.text(c * size + size / 2, top + (self.rows + 0.45) * size, label, size * 0.3))
            body.append(f'<rect x="{c * size}" y="0" width="{size}" height="{(self.rows + 1) * size}" '
                        f'fill="transparent" class="column{" full" if full else ""}" data-action="{c}" '
                        f'data-label="{label}"/>')
        title = f"Connect Four, {self.rows}x{self.cols}: {self._status_line()} (red = player_0, yellow = player_1)"
        return svg.document(self.cols * size, top + (self.rows + 1) * size, body, title, "board-connect-four",
                            game="connect_four")


#: Pixels per cell of the SVG drawing (its viewBox scales to any size).
SVG_CELL = 60


def env(**kwargs) -> BoardGameEnv:
    """The env with PettingZoo's usual checks (illegal move = loss); see ``raw_env``."""
    return wrap(raw_env(**kwargs))
