"""
# Cantris (`boardzoo.envs.cantris_v1`)

| Import             | `from boardzoo.envs import cantris_v1`                         |
|--------------------|----------------------------------------------------------------|
| Agents             | `["player_0", "player_1"]` (`player_0` moves first)              |
| Action space       | `Discrete(cols)`: the column whose bottom tile to take           |
| Observation shape  | `(rows * cols + 2,)` int64                                       |
| Parameters         | `board="8x4"`, `rows`, `cols`, `bonus_turn=False`, `tile_scores`, `deal`, `render_mode` |

The two-player scoring tile game of source 001 ("Candy Crush" + "Tetris"). The source
gives the board sizes, the deal, the outline of the scoring and its published results,
but not every rule. These are **this project's reconstruction**, the candidate rule set
that fits **all** the study's tables best (random play with the first mover's split and
three MCTS settings on both boards, each figure weighted by its sampling error; the fit
and every candidate are in `docs/experiments/cantris-rules-fit/report.md`). It is the
best of the candidates tried, not a good fit: see `docs/rules-cantris.md`.

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
5. The players alternate. (`bonus_turn=True` gives a move that cleared a line another
   move of the same agent, as `cantris_v0` does on 10x5; no preset uses it.)
6. The game ends when the board is empty; the higher score wins.

`tile_scores=False` (only cleared lines score) and `deal="halves"` (each column holds 1,
1.5, .., (R+1)/2 once, in units of one half) are the fit's other candidates.

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
* v0: first release: the rules fitted to the random-play table, a bonus turn on 10x5.
* v1: the presets of the fit to every published table: no bonus turn on any board.
"""

from __future__ import annotations

from boardzoo.envs import cantris_v0
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.wrapper import wrap
from boardzoo.games.cantris import PRESETS_V1

observation_of = cantris_v0.observation_of


class raw_env(cantris_v0.raw_env):
    metadata = {**cantris_v0.raw_env.metadata, "name": "cantris_v1"}
    presets = PRESETS_V1


def env(**kwargs) -> BoardGameEnv:
    """The env with PettingZoo's usual checks (illegal move = loss); see ``raw_env``."""
    return wrap(raw_env(**kwargs))
