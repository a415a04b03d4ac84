"""
# Nim (`boardzoo.envs.nim_v0`)

| Import             | `from boardzoo.envs import nim_v0`                        |
|--------------------|-----------------------------------------------------------|
| Agents             | `["player_0", "player_1"]` (`player_0` moves first)         |
| Action space       | `Discrete(k)`: action `i` takes `i + 1` pawns               |
| Observation shape  | `(2,)` int64: `[pawns left, k]`                             |
| Parameters         | `n=(20, 50)`, `k=3`, `coin=False`, `render_mode`            |

A single row of `n` pawns. On a turn a player removes 1..`k` pawns (never more than are
left); whoever removes the **last** pawn wins. `n` is an int, or an inclusive `(lo, hi)`
pair drawn from the env's seeded generator at every `reset` (the source study draws
20..50). `reset(options={"n": 21})` fixes the pile for one game.

With `coin=True` (Nim with a coin), every move that leaves pawns is followed by a fair
coin flipped by the env's seeded generator: heads removes one more pawn, and if that was
the last pawn the *mover* wins. The coin is public: it appears in `env.unwrapped.history`
as a `(CHANCE, outcome)` event (0 tails, 1 heads), and the search model exposes it as an
explicit chance event with outcomes `[(0, 0.5), (1, 0.5)]`.

Theory (without the coin): the player to move loses iff `n % (k+1) == 0`.

## Observation
`[pawns left, k]` (the same for both seats: Nim has no hidden information).

## Action mask
int8 of length `k`: action `i` is legal while `i + 1 <= pawns left`; zeros for the
agent not to move and after the game.

## Rewards
+1 for the player who takes the last pawn (or whose coin does), -1 for the other.
With `env()`, a masked-out action ends the game with -1 for the offender.

## Version history
* v0: first release (range of `n`, coin as an explicit chance event); later
  `render_mode="svg"` (the same env otherwise).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from boardzoo.envs import svg
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.render import BLACK, GREY, WHITE, canvas, disc_mask, paint
from boardzoo.envs.wrapper import wrap
from boardzoo.games.nim import NimState, check_nim_parameters, observation_of

CELL = 24


def _pile_range(n) -> tuple[int, int]:
    if isinstance(n, (tuple, list)):
        if len(n) != 2:
            raise ValueError(f"nim_v0: n must be an int or a (lo, hi) pair, got {n!r}")
        lo, hi = n
        check_nim_parameters(lo, 1)
        check_nim_parameters(hi, 1)
        if lo > hi:
            raise ValueError(f"nim_v0: n range {lo}..{hi} is empty (lo > hi)")
        return lo, hi
    check_nim_parameters(n, 1)
    return n, n


class raw_env(BoardGameEnv[NimState]):
    metadata = {**BoardGameEnv.metadata, "name": "nim_v0"}
    reset_options = frozenset({"n"})

    def __init__(self, n: int | tuple[int, int] = (20, 50), k: int = 3, coin: bool = False,
                 render_mode: str | None = None):
        super().__init__(render_mode)
        self.n_low, self.n_high = _pile_range(n)
        check_nim_parameters(self.n_low, k)
        if not isinstance(coin, bool):
            raise ValueError(f"nim_v0: coin must be True or False, got {coin!r}")
        self.k, self.coin = k, coin
        board = spaces.Box(low=0, high=max(self.n_high, k), shape=(2,), dtype=np.int64)
        self._set_spaces(board, self.k)

    def _new_game(self, options: dict) -> NimState:
        if "n" in options:
            pawns = options["n"]
            check_nim_parameters(pawns, self.k)
            if pawns > self.n_high:  # observations must stay inside the observation space
                raise ValueError(
                    f"nim_v0: reset option n={pawns} exceeds this env's largest pile {self.n_high}; "
                    f"construct it with n=(lo, hi) covering {pawns}"
                )
        else:
            pawns = int(self.np_random.integers(self.n_low, self.n_high + 1))
        self._initial_pawns = pawns
        return NimState(pawns, self.k, self.coin)

    def _observation(self, player: int) -> np.ndarray:
        return observation_of(self._live, player)

    def state(self) -> np.ndarray:
        self._require_reset()
        return self._observation(0)

    def _drawn(self) -> tuple[int, int]:
        """The pawn slots a picture shows, ``range(lo, hi)``: every one of a pile of at most
        :data:`MAX_DRAWN` pawns, else a window that ends a few slots past the pawns left (the
        ones a move can take, and those the last move took), so that a pile of a billion
        costs no more to draw than one of two hundred."""
        start, left = self._initial_pawns, self._live.pawns
        if start <= MAX_DRAWN:
            return 0, start
        hi = min(start, left + max(self._removed_last(), 10))
        return max(0, hi - MAX_DRAWN), hi

    def _render_text(self) -> str:
        game = self._live
        pawns = "o" * min(game.pawns, MAX_DRAWN) + (f"... ({game.pawns:,})" if game.pawns > MAX_DRAWN else "")
        coin = ""
        if self.history and self.history[-1][0] < 0:
            coin = "  (coin: heads, one more pawn removed)" if self.history[-1][1] else "  (coin: tails)"
        return f"{pawns} [{game.pawns} left, take 1..{self.k}]{coin}\n{self._status_line()}"

    def _render_rgb(self) -> np.ndarray:
        lo, hi = self._drawn()
        columns = min(hi - lo, 25)
        rows = -(-(hi - lo) // columns)
        image = canvas(rows * CELL, columns * CELL, WHITE)
        disc = disc_mask(CELL, 3)
        for i in range(rows * columns):
            colour = BLACK if lo + i < self._live.pawns else GREY if lo + i < hi else WHITE
            paint(image, (i // columns) * CELL, (i % columns) * CELL, disc, colour)
        return image

    def move_text(self, agent: str, action: int, viewer: str | None) -> str:
        return f"takes {action + 1}"

    def _removed_last(self) -> int:
        """Pawns the last move took away, its coin included."""
        removed = 0
        for player, action in reversed(self.history):
            removed += action if player < 0 else action + 1  # heads (1) takes one more
            if player >= 0:
                break
        return removed

    def _render_svg(self, view: int | None, animate: bool) -> svg.SvgImage:
        game, size, per_row = self._live, SVG_PAWN, 10
        start = self._initial_pawns
        lo, hi = self._drawn()
        rows = -(-(hi - lo) // per_row)
        removed = self._removed_last()
        top = 34 if (lo, hi) == (0, start) else 54
        body = [svg.text(per_row * size / 2, 14, f"{game.pawns:,} left · take 1 to {self.k}", 15, weight="bold")]
        if top != 34:
            body.append(svg.text(per_row * size / 2, 36, f"pawns {lo + 1:,} to {hi:,} of {start:,} shown", 12,
                                 css_class="window"))
        if self.history and self.history[-1][0] < 0:
            body.append(svg.text(per_row * size / 2, top + rows * size + 12,
                                 "coin: heads, one more pawn gone" if self.history[-1][1] else "coin: tails", 13,
                                 css_class="coin"))
        playing = not game.is_terminal() and game.current_player() >= 0
        for i in range(lo, hi):
            x, y = ((i - lo) % per_row) * size + size / 2, top + ((i - lo) // per_row) * size + size / 2
            if i < game.pawns:
                take = game.pawns - i
                click = (f' data-action="{take - 1}" data-label="{game.action_label(take - 1)}"'
                         if playing and take <= self.k else "")
                body.append(f'<circle cx="{x:g}" cy="{y:g}" r="{size * 0.38:g}" fill="{svg.INK}" class="pawn"{click}/>')
            elif i < game.pawns + removed:
                fade = svg.animation("opacity", 1, 0.25) if animate else ""
                body.append(f'<circle cx="{x:g}" cy="{y:g}" r="{size * 0.38:g}" fill="{svg.INK}" opacity="0.25" '
                            f'class="pawn taken last">{fade}</circle>')
            else:
                body.append(f'<circle cx="{x:g}" cy="{y:g}" r="{size * 0.38:g}" fill="{svg.FAINT}" '
                            f'class="pawn taken"/>')
        title = f"Nim, {game.pawns} of {start} pawns left, take 1 to {self.k}: {self._status_line()}"
        return svg.document(per_row * size, top + rows * size + 26, body, title, "board-nim", game="nim")


#: Pixels per pawn of the SVG drawing.
SVG_PAWN = 36
#: The most pawn slots a picture (text, SVG, RGB) shows.
MAX_DRAWN = 200


def env(**kwargs) -> BoardGameEnv:
    """The env with PettingZoo's usual checks (illegal move = loss); see ``raw_env``."""
    return wrap(raw_env(**kwargs))
