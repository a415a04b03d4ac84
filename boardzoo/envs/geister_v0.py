"""
# Geister (`boardzoo.envs.geister_v0`)

| Import             | `from boardzoo.envs import geister_v0`                             |
|--------------------|--------------------------------------------------------------------|
| Agents             | `["player_0", "player_1"]` (`player_0` places first and moves first) |
| Action space       | `Discrete(102)`: 32 moves (ghost x direction) + 70 red placements    |
| Observation shape  | `(404,)` int32, from the observing seat's side                      |
| Parameters         | `max_turns=200`, `view=None`, `render_mode`                         |

Geister ("ghosts", seed 004): 6x6; each seat has 8 ghosts, 4 blue and 4 red, and sees only
its own colours. Ghosts start on the seat's two home rows, files b..e: A..D the front row
and E..H the back row, left to right from that seat's side (the letters of the tournament
protocol). A move takes one ghost one square NORTH (toward the opponent), EAST, SOUTH or
WEST onto an empty square or an opponent ghost, which is captured (its colour becomes
public). A blue ghost on one of the opponent's back corners may leave the board through
the corner's outer edge: an escape. A seat **wins** when its blue ghost escapes, when it
captured all 4 opponent blues, or when the opponent captured all 4 of its reds. After
`max_turns` plies (moves by either side; placements don't count) without a winner the
game is a **draw**: the rules end it, so it is a *termination*, not a truncation (a win on
the last ply still counts).

## Actions
* `0..31`: move ghost `a // 4` (0..7 = A..H) in direction `a % 4` (0..3 = N, E, S, W, the
  mover's own directions). Escapes are these moves too: from the own-frame corner (0, 0)
  NORTH or WEST, from (5, 0) NORTH or EAST, blue ghosts only.
* `32..101`: the placement, taken once by each seat before the first move:
  `boardzoo.games.geister.RED_SETS[a - 32]` are the ghosts that are red (all 70 sets of 4 of
  A..H in lexicographic order, ABCD first). `reset(options={"red": {"player_0": "ABCD",
  "player_1": "random"}})` fixes a seat's reds instead (letters or `"random"`, a seeded random
  placement) and that seat skips its placement action.

## Observation (the seat's own frame: it sits at the bottom, NORTH is up)
Eleven 6x6 planes flattened row by row from the top (index `plane * 36 + y * 6 + x`), then
eight counters:

| index | content |
|---|---|
| `0..287` | planes 0-7: where own ghost A..H stands (one-hot; all zero once it is off the board) |
| `288..323` | plane 8: own blue ghosts |
| `324..359` | plane 9: own red ghosts |
| `360..395` | plane 10: opponent ghosts (colour never shown: on the board it is always hidden) |
| `396, 397` | opponent blue, opponent red ghosts this seat captured |
| `398, 399` | own blue, own red ghosts the opponent captured |
| `400` | plies played |
| `401` | plies left before the draw |
| `402` | 1 while this seat still has to choose its reds |
| `403` | 1 once the opponent has chosen its reds |

Nothing in a seat's observation, its `infos`, its render (`view="player_0"`) or its search
model (`env.unwrapped.model(agent)`, a `GeisterView`) depends on a hidden opponent colour.
`state()` is the all-seeing spectator array (both seats' ghosts and colours from player_0's
side, 728 values: per seat 8 ghost planes + blue + red, then lost counts, plies, placed
flags, player to move) and `render()` without `view` is the spectator's board, labelled so.

## Action mask
int8 of length 102: during the placement the 70 placements, afterwards the legal moves.

## Rewards and info
+1 / -1 to the winner / loser, 0 each for a draw. `infos[agent]`: `{"plies", "lost"}` —
public facts only (`lost[agent] = {"blue": ..., "red": ...}` ghosts captured from agent).
`env.unwrapped.board_string(agent)` is the tournament server's 48-character board string
exactly as that seat would receive it.

## Version history
* v0: first release.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from boardzoo.envs.aec import AGENTS, SEAT_OF, BoardGameEnv, wrap
from boardzoo.envs.render import BLACK, BLUE, GREY, RED, WHITE, canvas, disc_mask, paint
from boardzoo.games.geister import (
    GHOSTS,
    NUM_ACTIONS,
    RED_SETS,
    SIZE,
    SQUARES,
    GeisterState,
    GeisterView,
    board_string,
    parse_red,
    to_own,
)
from boardzoo.games.model import check_int

PLANES = 11
OBSERVATION_SIZE = PLANES * SQUARES + 8
STATE_SIZE = 20 * SQUARES + 8
CELL = 48
MAX_TURNS_LIMIT = 100_000


class raw_env(BoardGameEnv[GeisterState]):
    metadata = {**BoardGameEnv.metadata, "name": "geister_v0"}
    reset_options = frozenset({"red"})
    hidden_information = True

    def __init__(self, max_turns: int = 200, view: str | None = None, render_mode: str | None = None):
        super().__init__(render_mode)
        check_int("geister_v0", "max_turns", max_turns, 1)
        if max_turns > MAX_TURNS_LIMIT:
            raise ValueError(f"geister_v0: max_turns must be at most {MAX_TURNS_LIMIT}, got {max_turns}")
        if view is not None and view not in AGENTS:
            raise ValueError(f"geister_v0: view must be None (spectator) or one of {AGENTS}, got {view!r}")
        self.max_turns, self.view = max_turns, view
        high = max(max_turns, 4)
        self._set_spaces(spaces.Box(0, high, shape=(OBSERVATION_SIZE,), dtype=np.int32), NUM_ACTIONS)
        self.state_space = spaces.Box(0, high, shape=(STATE_SIZE,), dtype=np.int32)

    def _new_game(self, options: dict) -> GeisterState:
        red = options.get("red") or {}
        if not isinstance(red, dict) or set(red) - set(AGENTS):
            raise ValueError(f"geister_v0: reset option 'red' must map agents {AGENTS} to 4 letters "
                             f"like 'ABCD' or 'random', got {red!r}")
        fixed = {}
        for agent, letters in red.items():
            if isinstance(letters, str) and letters.strip().lower() == "random":
                fixed[SEAT_OF[agent]] = RED_SETS[int(self.np_random.integers(len(RED_SETS)))]
            else:
                fixed[SEAT_OF[agent]] = parse_red(letters)
        return GeisterState(self.max_turns, fixed)

    def _update_infos(self) -> None:
        game = self._live
        for agent in self.agents:  # each seat its own dicts: one seat's code can't edit the other's
            lost = {other: {"blue": game.lost[seat][0], "red": game.lost[seat][1]} for other, seat in SEAT_OF.items()}
            self.infos[agent] = {"plies": game.plies, "lost": lost}

    def _observation(self, player: int) -> np.ndarray:
        return observation_of(self._live, player)

    def state(self) -> np.ndarray:
        """The spectator's array: every colour (never hand this to an agent)."""
        game = self._require_reset()
        out = np.zeros(STATE_SIZE, dtype=np.int32)
        for seat in (0, 1):
            offset = seat * 10 * SQUARES
            for i in range(GHOSTS):
                g = GHOSTS * seat + i
                square = game.pos[g]
                if square >= 0:
                    out[offset + i * SQUARES + square] = 1
                    if game.placed[seat]:
                        out[offset + (9 if game.red[g] else 8) * SQUARES + square] = 1
        out[720:724] = (*game.lost[0], *game.lost[1])
        out[724], out[725], out[726] = game.plies, game.placed[0], game.placed[1]
        out[727] = max(game.current_player(), 0)
        return out

    def model(self, agent: str) -> GeisterView:
        """``agent``'s information set: its own colours and the public facts only."""
        return GeisterView(self._require_reset(), self._seat(agent))

    def board_string(self, agent: str) -> str:
        """The tournament server's board string as ``agent``'s seat would receive it."""
        return board_string(self._require_reset(), self._seat(agent))

    # --- rendering ------------------------------------------------------------------------
    def _render_text(self) -> str:
        return self.render_view(self.view)

    def render_view(self, view: str | None) -> str:
        """The text board as seat ``view`` sees it (None: the spectator's, every colour)."""
        if view is not None and view not in AGENTS:
            raise ValueError(f"geister_v0: view must be None (spectator) or one of {AGENTS}, got {view!r}")
        game = self._require_reset()
        if view is None:
            title = "spectator view - ALL colours shown (player_0: B/R at the bottom, player_1: b/r)"
            board = game.to_text()
        else:
            title = f"{view}'s view (own ghosts B/R at the bottom, opponent ghosts ?)"
            board = game.to_text(SEAT_OF[view])
        lost = ", ".join(f"{agent} lost {game.lost[seat][0]} blue {game.lost[seat][1]} red"
                         for agent, seat in SEAT_OF.items())
        return f"{title}\n{board}\nply {game.plies}/{self.max_turns}; {lost}   {self._status_line()}"

    def _render_rgb(self) -> np.ndarray:
        game = self._live
        frame = 0 if self.view is None else SEAT_OF[self.view]
        image = canvas(SIZE * CELL, SIZE * CELL, WHITE)
        disc = disc_mask(CELL - 8, 2)
        ring = disc & ~disc_mask(CELL - 8, 8)
        for square in range(SQUARES):
            g = game.board[square]
            if g < 0:
                continue
            owner = g // GHOSTS
            own = to_own(frame, square)
            top, left = (own // SIZE) * CELL + 4, (own % SIZE) * CELL + 4
            hidden = not game.placed[owner] or (self.view is not None and owner != frame)
            colour = GREY if hidden else RED if game.red[g] else BLUE
            paint(image, top, left, disc, colour)
            if owner != frame:  # the far side's ghosts wear a black ring
                paint(image, top, left, ring, BLACK)
        return image


def observation_of(game, player: int) -> np.ndarray:
    """The observation array of seat ``player`` (layout in the module docstring), from the
    true state or from that seat's own :class:`GeisterView` alike: it reads only what the
    seat may know (its own colours, public counts)."""
    out = np.zeros(OBSERVATION_SIZE, dtype=np.int32)
    base, other = GHOSTS * player, GHOSTS * (1 - player)
    for i in range(GHOSTS):
        square = game.pos[base + i]
        if square >= 0:
            own = to_own(player, square)
            out[i * SQUARES + own] = 1
            if game.placed[player]:
                out[(9 if game.red[base + i] else 8) * SQUARES + own] = 1
        square = game.pos[other + i]
        if square >= 0:
            out[10 * SQUARES + to_own(player, square)] = 1
    opponent = 1 - player
    out[396:400] = (game.lost[opponent][0], game.lost[opponent][1], game.lost[player][0], game.lost[player][1])
    out[400], out[401] = game.plies, game.max_turns - game.plies
    out[402], out[403] = not game.placed[player], game.placed[opponent]
    return out


def env(**kwargs) -> BoardGameEnv:
    """The env with PettingZoo's usual checks (illegal move = loss); see ``raw_env``."""
    return wrap(raw_env(**kwargs))
