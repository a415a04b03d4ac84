"""
# Cantris (`boardzoo.envs.cantris_v0`)

| Import             | `from boardzoo.envs import cantris_v0`                         |
|--------------------|----------------------------------------------------------------|
| Agents             | `["player_0", "player_1"]` (`player_0` moves first)              |
| Action space       | `Discrete(cols)`: the column whose bottom tile to take           |
| Observation shape  | `(rows * cols + 2,)` int64                                       |
| Parameters         | `board="8x4"`, `rows`, `cols`, `bonus_turn`, `tile_scores`, `deal`, `render_mode` |

The two-player scoring tile game of source 001 ("Candy Crush" + "Tetris"). The source
gives the board sizes, the deal and the first-mover statistics but not every rule; these
are **this project's reconstruction**, first fitted to the published random-play table
alone. `cantris_v1` plays the presets that fit all the study's tables best; v0 stays as
it was so that earlier results can be re-run.

1. R rows x C columns (R even, at least 4; C at least 3); values 1..R/2, 0 = empty.
   The `board` presets are `6x3`, `8x4` (the default) and `10x5`; `rows`, `cols` override.
2. The deal: each column holds 1..R/2 twice each in random order, redrawn until the board
   is *stable* (no horizontal or vertical line of three or more equal adjacent values).
   It comes from the env's seeded generator: same seed, same deal.
3. A move takes the **bottom** tile of a non-empty column and scores its value; the tiles
   above fall one cell.
4. Then every cell on a horizontal or vertical line of three or more equal values is
   cleared at once and the mover scores their sum; tiles fall and clearing repeats
   until the board is stable (cascades).
5. Bonus turn (`bonus_turn`): a move that cleared at least one line is followed by
   another move of the same agent (`agent_selection` stays on it). Presets: off for
   `6x3` and `8x4`, on for `10x5`.
6. The game ends when the board is empty; the higher score wins.

Two rule options serve the rules fit (`boardzoo experiment run cantris-rules-fit`) and
are off by default: `tile_scores=False` (the taken tile scores nothing; only cleared lines
score) and `deal="halves"` (the study's deal code read under Python 3 true division: each
column holds 1, 1.5, .., (R+1)/2 once, shown and scored in units of one half).

## Observation
A flat int64 vector from the observing agent's side: the board row by row from the
bottom (`rows * cols` values, 0 = empty; entry `r * cols + c` is row `r`, column `c`),
then the observer's score, then the opponent's. Cantris has no hidden information.

## Action mask
int8 of length `cols`: 1 for every non-empty column (for the agent to move; zeros for
the other agent and after the game).

## Rewards and info
+1 for the higher final score, -1 for the lower, 0 each for a tie. `infos[agent]`
holds `{"scores": {"player_0": ..., "player_1": ...}, "last_points": ...}`.
Spectators: `env.unwrapped.board` is the `(rows, cols)` int array (row 0 the bottom)
and `env.unwrapped.scores` the points per agent.

## Version history
* v0: first release (the reconstructed rules, presets, bonus turns); later the `tile_scores`
  and `deal` options, whose defaults are the v0 rules, and `render_mode="svg"`.
* v1: the same rules with the presets of the rules fit (no bonus turn on 10x5 either).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
from gymnasium import spaces

from boardzoo.envs import svg
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.render import BLACK, WHITE, canvas, paint
from boardzoo.envs.wrapper import wrap
from boardzoo.games.cantris import DEALS, PRESETS, CantrisState, check_size, column_values, observation_of
from boardzoo.games.cantris import deal as stable_deal

CELL = 32
PALETTE = [(230, 230, 230), (220, 60, 60), (60, 160, 70), (60, 100, 220), (240, 190, 40), (160, 80, 200),
           (40, 190, 200), (240, 120, 40), (120, 120, 120), (200, 200, 90)]


class raw_env(BoardGameEnv[CantrisState]):
    metadata = {**BoardGameEnv.metadata, "name": "cantris_v0"}
    #: board name -> (rows, cols, bonus turn); a later version may change the presets.
    presets = PRESETS
    default_notes: ClassVar[Mapping[str, str]] = {
        "rows": "the board's", "cols": "the board's", "bonus_turn": "the board's (true on 10x5 in v0 only)"}

    def __init__(self, board: str = "8x4", rows: int | None = None, cols: int | None = None,
                 bonus_turn: bool | None = None, tile_scores: bool = True, deal: str = "pairs",
                 render_mode: str | None = None):
        super().__init__(render_mode)
        name = self.metadata["name"]
        if board not in self.presets:
            raise ValueError(f"{name}: unknown board {board!r}; presets are {', '.join(self.presets)}")
        preset_rows, preset_cols, preset_bonus = self.presets[board]
        self.rows = preset_rows if rows is None else rows
        self.cols = preset_cols if cols is None else cols
        check_size(self.rows, self.cols)
        if bonus_turn is not None and not isinstance(bonus_turn, bool):
            raise ValueError(f"{name}: bonus_turn must be True or False, got {bonus_turn!r}")
        self.bonus_turn = preset_bonus if bonus_turn is None else bonus_turn
        if not isinstance(tile_scores, bool):
            raise ValueError(f"{name}: tile_scores must be True or False, got {tile_scores!r}")
        if deal not in DEALS:
            raise ValueError(f"{name}: unknown deal {deal!r}; deals are {', '.join(DEALS)}")
        self.tile_scores, self.deal = tile_scores, deal
        values = column_values(self.rows, deal)
        total = self.cols * sum(values)  # the most points a player can hold
        layout = spaces.Box(low=0, high=max(total, *values), shape=(self.rows * self.cols + 2,), dtype=np.int64)
        self._set_spaces(layout, self.cols)

    def _new_game(self, options: dict) -> CantrisState:
        return CantrisState(stable_deal(self.rows, self.cols, self.np_random, self.deal), self.rows,
                            self.bonus_turn, self.tile_scores)

    def _update_infos(self) -> None:
        scores, points = self.scores, self._live.last_points
        for agent in self.agents:
            self.infos[agent] = {"scores": dict(scores), "last_points": points}

    @property
    def board(self) -> np.ndarray:
        """The board for spectators: (rows, cols), row 0 the bottom, 0 = empty."""
        return np.array(self._require_reset().board(), dtype=np.int64)

    @property
    def scores(self) -> dict[str, int]:
        s0, s1 = self._require_reset().scores
        return {"player_0": s0, "player_1": s1}

    def _observation(self, player: int) -> np.ndarray:
        return observation_of(self._live, player)

    def state(self) -> np.ndarray:
        self._require_reset()
        return self._observation(0)

    def _render_text(self) -> str:
        s0, s1 = self._live.scores
        return (f"{self._live.to_text()}\nscores: player_0 {s0}, player_1 {s1}   "
                f"{self._status_line()}")

    def _render_rgb(self) -> np.ndarray:
        image = canvas(self.rows * CELL, self.cols * CELL, WHITE)
        tile = np.ones((CELL - 4, CELL - 4), dtype=bool)
        board = self._live.board()
        for r in range(self.rows):
            for c in range(self.cols):
                value = board[r][c]
                colour = PALETTE[value % len(PALETTE)] if value else BLACK
                paint(image, (self.rows - 1 - r) * CELL + 2, c * CELL + 2, tile, colour)
        return image

    def _render_svg(self, view: int | None, animate: bool) -> svg.SvgImage:
        game, size, top = self._live, SVG_CELL, 40
        board = game.board()
        last = next((action for player, action in reversed(self.history) if player >= 0), None)
        s0, s1 = game.scores
        body = [svg.text(self.cols * size / 2, 16, f"player_0 {s0} : {s1} player_1", 16, weight="bold",
                         css_class="scores")]
        playing = not game.is_terminal()
        for c in range(self.cols):
            x = c * size
            if c == last:
                body.append(f'<rect x="{x + 1}" y="{top - 2}" width="{size - 2}" height="{self.rows * size + 4}" '
                            f'fill="none" stroke="{svg.INK}" stroke-dasharray="4 3" class="last"/>')
            for r in range(self.rows):
                value = board[r][c]
                y = top + (self.rows - 1 - r) * size
                if not value:
                    continue
                colour = "#{:02x}{:02x}{:02x}".format(*PALETTE[value % len(PALETTE)])
                edge = f' stroke="{svg.INK}" stroke-width="3"' if r == 0 and playing else ""  # the tile a move takes
                body.append(f'<rect x="{x + 3}" y="{y + 3}" width="{size - 6}" height="{size - 6}" rx="5" '
                            f'fill="{colour}"{edge} class="tile"/>')
                body.append(svg.text(x + size / 2, y + size / 2, str(value), size * 0.4, fill="#ffffff",
                                     weight="bold"))
            label = game.action_label(c)
            body.append(svg.text(x + size / 2, top + self.rows * size + 14, label, 13))
            empty = not game.is_legal(c) and playing
            body.append(f'<rect x="{x}" y="{top}" width="{size}" height="{self.rows * size + 24}" fill="transparent" '
                        f'class="column{" full" if empty else ""}" data-action="{c}" data-label="{label}"/>')
        title = (f"Cantris {self.rows}x{self.cols}, scores {s0}:{s1}: {self._status_line()} "
                 "(a move takes a column's bottom tile)")
        return svg.document(self.cols * size, top + self.rows * size + 30, body, title, "board-cantris",
                            game="cantris")


#: Pixels per cell of the SVG drawing.
SVG_CELL = 48


def env(**kwargs) -> BoardGameEnv:
    """The env with PettingZoo's usual checks (illegal move = loss); see ``raw_env``."""
    return wrap(raw_env(**kwargs))
