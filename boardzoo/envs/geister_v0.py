"""
# Geister (`boardzoo.envs.geister_v0`)

| Import             | `from boardzoo.envs import geister_v0`                             |
|--------------------|--------------------------------------------------------------------|
| Agents             | `["player_0", "player_1"]` (`player_0` places first and moves first) |
| Action space       | `Discrete(102)`: 32 moves (ghost x direction) + 70 red placements    |
| Observation shape  | `(404,)` int32, from the observing seat's side                      |
| Parameters         | `max_turns=200`, the family's (below), `view=None`, `render_mode`   |

Geister ("ghosts", source 004): 6x6; each seat has 8 ghosts, 4 blue and 4 red, and sees only
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

## The family
`rows=6`, `cols=6`, `blue=4`, `red=4`, `exits=2` and `placement="chosen"` (the classic game) make
the smaller members of the family,
small enough for exact analysis (`boardzoo.exploitability`): a `rows` x `cols` board; `blue`
and `red` ghosts a side, starting in the rows nearest the seat's edge (front row first, each
row centred between the corners, which stay free); `exits=2` the opponent's two back corners
(the classic game), `exits=1` its far left one as each seat sees it; `placement="dealt"`
deals each seat's colours at random (a chance event per seat) instead of letting it choose.
A seat wins by escaping a blue, by taking all the opponent's blues, or when the opponent took
all its reds. The actions are `4 * (blue + red)` moves, then one placement per set of `red`
ghosts; the observation has a plane per own ghost and three more (own blues, own reds,
opponent ghosts), then the same eight counters. The rest of this page describes the classic
game; `geister_v0:rows=3,cols=4,blue=1,red=1,max_turns=8,placement=dealt` is the smallest
member whose equilibrium boardzoo computes.

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
* v0: first release; later `render_mode="svg"` (the same env otherwise), and the text
  board labels a seat's own ghosts A..H.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
from gymnasium import spaces

from boardzoo.envs import svg
from boardzoo.envs.aec import AGENTS, SEAT_OF, BoardGameEnv
from boardzoo.envs.render import BLACK, BLUE, GREY, RED, WHITE, canvas, disc_mask, paint
from boardzoo.envs.wrapper import wrap
from boardzoo.games.geister import (
    MAX_TURNS_LIMIT,
    PLACEMENTS,
    GeisterState,
    GeisterView,
    board_string,
    layout,
    observation_of,
    observation_size,
    parse_red,
    red_letters,
)
from boardzoo.games.model import check_int

CELL = 48


def state_size(shape) -> int:
    """The spectator array's length: per seat a plane per ghost, a blue and a red plane,
    then 8 counts (728 in the classic game)."""
    return 2 * (shape.ghosts + 2) * shape.squares + 8


class raw_env(BoardGameEnv[GeisterState]):
    metadata = {**BoardGameEnv.metadata, "name": "geister_v0"}
    reset_options = frozenset({"red"})
    hidden_information = True
    seat_pieces = ("lettered ghosts, at the bottom", "lettered ghosts, at the bottom")
    default_notes: ClassVar[Mapping[str, str]] = {"view": "none (the spectator's view)"}

    def __init__(self, max_turns: int = 200, rows: int = 6, cols: int = 6, blue: int = 4, red: int = 4, exits: int = 2,
                 placement: str = "chosen", view: str | None = None, render_mode: str | None = None):
        super().__init__(render_mode)
        check_int("geister_v0", "max_turns", max_turns, 1)
        if max_turns > MAX_TURNS_LIMIT:
            raise ValueError(f"geister_v0: max_turns must be at most {MAX_TURNS_LIMIT}, got {max_turns}")
        if view is not None and view not in AGENTS:
            raise ValueError(f"geister_v0: view must be None (spectator) or one of {AGENTS}, got {view!r}")
        if placement not in PLACEMENTS:
            raise ValueError(f"geister_v0: placement must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
        try:
            self.shape = layout(rows, cols, blue, red, exits)
        except ValueError as error:
            raise ValueError(str(error).replace("geister:", "geister_v0:", 1)) from None
        self.max_turns, self.view, self.dealt = max_turns, view, placement == "dealt"
        high = max(max_turns, self.shape.blue, self.shape.red)
        self._set_spaces(spaces.Box(0, high, shape=(observation_size(self.shape),), dtype=np.int32),
                         self.shape.num_actions)
        self.state_space = spaces.Box(0, high, shape=(state_size(self.shape),), dtype=np.int32)

    def _new_game(self, options: dict) -> GeisterState:
        shape = self.shape
        red = options.get("red") or {}
        if not isinstance(red, dict) or set(red) - set(AGENTS):
            raise ValueError(f"geister_v0: reset option 'red' must map agents {AGENTS} to {shape.red} letters "
                             f"like {shape.letters[:shape.red]!r} or 'random', got {red!r}")
        fixed = {}
        for agent, letters in red.items():
            if isinstance(letters, str) and letters.strip().lower() == "random":
                fixed[SEAT_OF[agent]] = shape.red_sets[int(self.np_random.integers(len(shape.red_sets)))]
            else:
                fixed[SEAT_OF[agent]] = parse_red(letters, shape)
        return GeisterState(self.max_turns, fixed, shape, self.dealt)

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
        shape = game.shape
        ghosts, squares = shape.ghosts, shape.squares
        out = np.zeros(state_size(shape), dtype=np.int32)
        for seat in (0, 1):
            offset = seat * (ghosts + 2) * squares
            for i in range(ghosts):
                g = ghosts * seat + i
                square = game.pos[g]
                if square >= 0:
                    out[offset + i * squares + square] = 1
                    if game.placed[seat]:
                        out[offset + (ghosts + 1 if game.red[g] else ghosts) * squares + square] = 1
        counts = 2 * (ghosts + 2) * squares
        out[counts:counts + 4] = (*game.lost[0], *game.lost[1])
        out[counts + 4], out[counts + 5], out[counts + 6] = game.plies, game.placed[0], game.placed[1]
        out[counts + 7] = max(game.current_player(), 0)
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
            title = ("spectator view - ALL colours shown (player_0 at the bottom: Ab = its ghost A, blue; "
                     "player_1: ab, ar)")
            board = game.to_text()
        else:
            letters = game.shape.letters
            title = (f"{view}'s view, from your side: your ghosts {letters[0]}-{letters[-1]} with their colour (Ab = "
                     "A, blue; Cr = C, red), the opponent's ??; your exits are the top corners")
            board = game.to_text(SEAT_OF[view])
        lost = ", ".join(f"{agent} lost {game.lost[seat][0]} blue {game.lost[seat][1]} red"
                         for agent, seat in SEAT_OF.items())
        return f"{title}\n{board}\nply {game.plies}/{self.max_turns}; {lost}   {self._status_line()}"

    def _render_rgb(self) -> np.ndarray:
        game = self._live
        shape = game.shape
        frame = 0 if self.view is None else SEAT_OF[self.view]
        image = canvas(shape.rows * CELL, shape.cols * CELL, WHITE)
        disc = disc_mask(CELL - 8, 2)
        ring = disc & ~disc_mask(CELL - 8, 8)
        for square in range(shape.squares):
            g = game.board[square]
            if g < 0:
                continue
            owner = g // shape.ghosts
            own = shape.to_own(frame, square)
            top, left = (own // shape.cols) * CELL + 4, (own % shape.cols) * CELL + 4
            hidden = not game.placed[owner] or (self.view is not None and owner != frame)
            colour = GREY if hidden else RED if game.red[g] else BLUE
            paint(image, top, left, disc, colour)
            if owner != frame:  # the far side's ghosts wear a black ring
                paint(image, top, left, ring, BLACK)
        return image

    def move_text(self, agent: str, action: int, viewer: str | None) -> str:
        """A seat's own moves by ghost and direction (``"moves A north"``); the opponent's
        as the viewer sees them (``"moves a ghost toward you"``), and never its colours:
        a placement is only ``"chooses its red ghosts"``."""
        game, seat = self._require_reset(), SEAT_OF[agent]
        shape = game.shape
        if action >= shape.move_actions:
            if viewer is None or viewer == agent:
                return f"chooses red {red_letters(shape.red_sets[action - shape.move_actions])}"
            return "chooses its red ghosts"
        g, d = shape.ghosts * seat + action // 4, action % 4
        target = shape.target[seat][game.pos[g]][d]
        if viewer is None or viewer == agent:
            text = f"moves {shape.letters[action // 4]} {('north', 'east', 'south', 'west')[d]}"
        else:
            text = f"moves a ghost {('toward you', 'to your left', 'away from you', 'to your right')[d]}"
        if not isinstance(target, int) or target < 0:
            return text + " and escapes"
        victim = game.board[target]
        if victim >= 0:  # a capture shows the victim's colour to everyone
            owner = "your" if viewer is not None and victim // shape.ghosts == SEAT_OF[viewer] else "a"
            name = f" {shape.letters[victim % shape.ghosts]}" if owner == "your" or viewer is None else ""
            text += f" and captures {owner} {'red' if game.red[victim] else 'blue'} ghost{name}"
        return text

    def _plies_shown(self) -> int:
        """Moves so far with the two placements counted, as a results file's ``plies``
        and a replay's slider count them (``max_turns`` leaves the placements out)."""
        return self._live.plies + int(self._live.placed[0]) + int(self._live.placed[1])

    def render_view_seat(self) -> str | None:
        return self.view

    def _render_svg(self, view: int | None, animate: bool) -> svg.SvgImage:
        game, size, margin = self._live, SVG_CELL, SVG_CELL * 0.6
        shape = game.shape
        frame = 0 if view is None else view
        width, height = shape.cols * size, shape.rows * size
        body = [f'<rect x="{margin:g}" y="{margin:g}" width="{width}" height="{height}" fill="#f7f1e3" '
                f'stroke="{svg.INK}"/>']
        for own in range(shape.squares):
            x, y = own % shape.cols, own // shape.cols
            body.append(f'<rect x="{margin + x * size:g}" y="{margin + y * size:g}" width="{size}" height="{size}" '
                        f'fill="transparent" stroke="#b8ad94" class="square" data-square="{x},{y}"/>')
        # Exits: the far corners are the viewer's (or, for a spectator, player_0's) ways out,
        # the near ones the opponent's.
        last_x, last_y = shape.cols - 1, shape.rows - 1
        corners = ((0, 0, -1, -1, True), (last_x, 0, 1, -1, True), (0, last_y, -1, 1, False),
                   (last_x, last_y, 1, 1, False))
        # With one exit a side: the viewer's far left corner, the opponent's (ours turned about).
        for x, y, dx, dy, mine in corners if shape.exits == 2 else (corners[0], corners[3]):
            cx, cy = margin + (x + 0.5) * size + dx * size * 0.45, margin + (y + 0.5) * size + dy * size * 0.45
            body.append(svg.text(cx, cy, "↖↗↙↘"[(dx > 0) + 2 * (dy > 0)], size * 0.35,
                                 fill=svg.GHOST_BLUE if mine else svg.HIDDEN, css_class="exit"))
        moved = self._last_moved()
        for square in range(shape.squares):
            g = game.board[square]
            if g >= 0:
                body.append(self._ghost_svg(g, shape.to_own(frame, square), view, frame,
                                            moved[1] if moved and moved[0] == g else None, animate))
        lost = game.lost
        if view is None:
            status = (f"player_0 (bottom, capitals) lost {lost[0][0]} blue {lost[0][1]} red · "
                      f"player_1 (top) lost {lost[1][0]} blue {lost[1][1]} red")
        else:
            status = (f"you lost {lost[view][0]} blue {lost[view][1]} red · "
                      f"you took {lost[1 - view][0]} blue {lost[1 - view][1]} red")
        body.append(svg.text(margin + width / 2, margin * 1.5 + height, status, 12, css_class="status"))
        body.append(svg.text(margin + width / 2, margin / 2 - 4,
                             f"ply {self._plies_shown()}/{self.max_turns + 2} · {self._status_line()}", 12,
                             css_class="status"))
        who = "spectator's view, every colour shown" if view is None else f"{AGENTS[view]}'s view"
        return svg.document(width + 2 * margin, height + 2 * margin, body, f"Geister, {who}", "board-geister",
                            game="geister", cell=size, left=f"{margin:g}", top=f"{margin:g}",
                            view="spectator" if view is None else AGENTS[view])

    def _last_moved(self) -> tuple[int, int] | None:
        """(ghost, square it came from) of the last move, when it was a move on the board."""
        shape = self._live.shape
        if not self.history or self.history[-1][0] < 0 or self.history[-1][1] >= shape.move_actions:
            return None
        player, action = self.history[-1]
        g, d = shape.ghosts * player + action // 4, action % 4
        square = self._live.pos[g]
        came_from = next((s for s in range(shape.squares) if shape.target[player][s][d] == square),
                         None) if square >= 0 else None
        return None if came_from is None else (g, came_from)

    def _ghost_svg(self, g: int, own_square: int, view: int | None, frame: int, came_from: int | None,
                   animate: bool) -> str:
        game, size, margin = self._live, SVG_CELL, SVG_CELL * 0.6
        board = game.shape
        owner = g // board.ghosts
        x, y = margin + (own_square % board.cols + 0.5) * size, margin + (own_square // board.cols + 0.5) * size
        known = game.placed[owner] and (view is None or owner == view)
        colour = (svg.GHOST_RED if game.red[g] else svg.GHOST_BLUE) if known else svg.HIDDEN
        letter = board.letters[g % board.ghosts]
        mine = view is not None and owner == view
        label = letter if view is not None and mine or view is None and owner == 0 else \
            letter.lower() if view is None else "?"
        r = size * 0.36
        # A ghost: round head, ragged hem; the far side's ghosts face the viewer (upside down).
        shape = (f"M{-r:g},{-r * 0.1:g} A{r:g},{r:g} 0 0 1 {r:g},{-r * 0.1:g} L{r:g},{r * 0.9:g} "
                 f"L{r / 2:g},{r * 0.6:g} L0,{r * 0.9:g} L{-r / 2:g},{r * 0.6:g} L{-r:g},{r * 0.9:g} Z")
        turn = "" if owner == frame else " rotate(180)"
        classes = "ghost" + (" mine" if mine else " theirs" if view is not None else "") + \
            (" last" if came_from is not None else "")
        data = f' data-ghost="{letter}"' if mine else ""
        move = ""
        if came_from is not None and animate:
            start = board.to_own(frame, came_from)
            sx, sy = margin + (start % board.cols + 0.5) * size, margin + (start // board.cols + 0.5) * size
            move = (f'<animateTransform attributeName="transform" type="translate" from="{sx:g} {sy:g}" '
                    f'to="{x:g} {y:g}" dur="0.4s" fill="freeze" additive="replace"/>')
        status = "red" if known and game.red[g] else "blue" if known else "unknown"
        return (f'<g transform="translate({x:g} {y:g})" class="{classes}"{data}><g transform="{turn.strip()}">'
                f'<path d="{shape}" fill="{colour}" stroke="{svg.INK}" stroke-width="1.5"/></g>'
                + svg.text(0, 0, label, size * 0.32, fill="#ffffff", weight="bold")
                + f"<desc>{status}</desc>{move}</g>")


#: Pixels per square of the SVG drawing.
SVG_CELL = 64


def env(**kwargs) -> BoardGameEnv:
    """The env with PettingZoo's usual checks (illegal move = loss); see ``raw_env``."""
    return wrap(raw_env(**kwargs))
