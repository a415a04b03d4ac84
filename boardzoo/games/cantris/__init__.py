"""Cantris: the scoring tile game of source 001, as this project reconstructs its rules
(``docs/rules-cantris.md``: "Candy Crush" + "Tetris").

R rows x C columns (R even); every column holds the values 1..R/2 twice each. A move
takes the **bottom** tile of a non-empty column and scores its value; the tiles above
fall. Then every horizontal or vertical line of three or more equal values is cleared at
once, the mover scoring their sum; tiles fall and clearing repeats until the board is
stable. With ``bonus_turn``, a move that cleared a line is followed by another move of
the same player. The game ends when the board is empty; the higher score wins.

Two more rule options exist for the rules fit (``cantris-rules-fit``) and stay off in the
presets: ``tile_scores=False`` (the taken tile scores nothing, only cleared lines score)
and the ``halves`` deal (see :data:`DEALS`).

The board is kept as one stack per column, bottom first: tiles only ever fall inside
their column, so a stack never has gaps and a fall is just a list operation.
"""

from __future__ import annotations

import random

import numpy as np

from boardzoo.games.model import TERMINAL, Capabilities, GameState, check_int, returns_of_winner
from boardzoo.games.registry import Game, Learning, Param

#: Board name -> (rows, cols, bonus turn): cantris_v0's presets, fitted to the random-play
#: table alone, and cantris_v1's, the best fit to every table of the study.
PRESETS = {"6x3": (6, 3, False), "8x4": (8, 4, False), "10x5": (10, 5, True)}
PRESETS_V1 = {"6x3": (6, 3, False), "8x4": (8, 4, False), "10x5": (10, 5, False)}

#: The deals: the values of one column, in units of the tiles' points.
#: ``pairs``: 1..R/2 twice each, the study's deal code ``np.arange(R)/2 + 1`` stored into
#: an integer board (Python 2 division, or an int array, truncates the halves).
#: ``halves``: the same code read under Python 3 into a float board, every value once:
#: 1, 1.5, .., (R+1)/2 -- kept in units of one half (2, 3, .., R+1), which doubles
#: every score and changes no outcome.
DEALS = ("pairs", "halves")


def column_values(rows: int, kind: str = "pairs") -> list[int]:
    if kind == "pairs":
        return [v // 2 + 1 for v in range(rows)]
    if kind == "halves":
        return [v + 2 for v in range(rows)]
    raise ValueError(f"cantris: unknown deal {kind!r}; deals are {', '.join(DEALS)}")


#: The largest board (each side); deals and the observation grow with it.
MAX_SIDE = 64
#: Whole deals drawn in search of a stable one before dealing column by column (see deal).
WHOLE_DEAL_ATTEMPTS = 200


def check_size(rows: int, cols: int) -> None:
    check_int("cantris", "rows", rows, 4)
    check_int("cantris", "cols", cols, 3)
    if rows > MAX_SIDE or cols > MAX_SIDE:
        raise ValueError(f"cantris: rows and cols must be at most {MAX_SIDE}, got {rows}x{cols}")
    if rows % 2:
        raise ValueError(f"cantris: rows must be even (each value appears twice per column), got {rows}")


def lines_to_clear(columns: list[list[int]]) -> list[set[int]] | None:
    """Per column, the heights of the cells on a horizontal or vertical line of three or
    more equal values; None when the board is stable."""
    cleared: list[set[int]] | None = None
    for c, column in enumerate(columns):  # vertical runs
        n, r = len(column), 0
        while r < n - 2:
            value = column[r]
            if column[r + 1] == value and column[r + 2] == value:
                end = r + 3
                while end < n and column[end] == value:
                    end += 1
                if cleared is None:
                    cleared = [set() for _ in columns]
                cleared[c].update(range(r, end))
                r = end
            else:
                r += 1
    width = len(columns)
    for r in range(max(map(len, columns), default=0)):  # horizontal runs
        row = [column[r] if r < len(column) else 0 for column in columns]
        c = 0
        while c < width - 2:
            value = row[c]
            if value and row[c + 1] == value and row[c + 2] == value:
                end = c + 3
                while end < width and row[end] == value:
                    end += 1
                if cleared is None:
                    cleared = [set() for _ in columns]
                for k in range(c, end):
                    cleared[k].add(r)
                c = end
            else:
                c += 1
    return cleared


def runs_through_column(columns: list[list[int]], c: int) -> list[set[int]] | None:
    """Like :func:`lines_to_clear` after only column ``c`` fell on a stable board: the
    column's own order is unchanged (no new vertical run), so only horizontal runs
    through it can appear. None when there is nothing to clear (the common case)."""
    column = columns[c]
    cleared: list[set[int]] | None = None
    last = len(columns) - 1
    for r, value in enumerate(column):
        left = c
        while left > 0 and r < len(columns[left - 1]) and columns[left - 1][r] == value:
            left -= 1
        right = c
        while right < last and r < len(columns[right + 1]) and columns[right + 1][r] == value:
            right += 1
        if right - left >= 2:
            if cleared is None:
                cleared = [set() for _ in columns]
            for k in range(left, right + 1):
                cleared[k].add(r)
    return cleared


def settle(columns: list[list[int]], fallen: int | None = None) -> tuple[int, int]:
    """Clear lines and let tiles fall until the board is stable, in place. ``fallen``:
    the only column that changed on a board stable before (checked the cheap way first).
    Returns (points scored, number of clearing rounds)."""
    points = rounds = 0
    while True:
        if fallen is not None:
            cleared = runs_through_column(columns, fallen)
            fallen = None
        else:
            cleared = lines_to_clear(columns)
        if cleared is None:
            return points, rounds
        rounds += 1
        for c, heights in enumerate(cleared):
            if heights:
                column = columns[c]
                points += sum(column[r] for r in heights)
                columns[c] = [v for r, v in enumerate(column) if r not in heights]


def is_stable(columns: list[list[int]]) -> bool:
    return lines_to_clear(columns) is None


def deal(rows: int, cols: int, rng, kind: str = "pairs") -> list[list[int]]:
    """A stable deal: each column a shuffled copy of :func:`column_values` with no line of
    three. ``rng`` is a numpy Generator (the env's) or a random.Random.

    Whole deals are drawn until one is stable, which makes every stable deal equally
    likely; the chance that a draw is stable falls quickly with the number of columns
    (about 1/3 on 10x5, 1/40 at 12 columns, 1/5000 at 24), so after
    ``WHOLE_DEAL_ATTEMPTS`` unstable draws (never in practice on the preset boards)
    the deal is built column by column instead, which always ends quickly."""
    values = column_values(rows, kind)
    for _ in range(WHOLE_DEAL_ATTEMPTS):
        columns = [_shuffled(values, rng) for _ in range(cols)]
        if is_stable(columns):
            return columns
    return _deal_by_columns(values, cols, rng)


def _shuffled(values: list[int], rng) -> list[int]:
    column = list(values)
    rng.shuffle(column)
    return [int(v) for v in column]


def _deal_by_columns(values: list[int], cols: int, rng) -> list[list[int]]:
    """Each column drawn until it makes no horizontal line of three with the two columns
    before it. (Vertical lines are impossible: a column holds each value at most twice.)
    A column that avoids the one forbidden value per row always exists for 4+ rows."""
    columns: list[list[int]] = []
    for c in range(cols):
        forbidden = ([a if a == b else 0 for a, b in zip(columns[c - 1], columns[c - 2])] if c >= 2
                     else [0] * len(values))
        for _ in range(100_000):  # each draw succeeds with probability above 1/10
            column = _shuffled(values, rng)
            if not any(v == f for v, f in zip(column, forbidden)):
                break
        else:  # pragma: no cover - would be a bug in the argument above
            raise RuntimeError(f"cantris: no stable column {c} found")
        columns.append(column)
    return columns


class CantrisState(GameState):
    """A Cantris position: column stacks (bottom first), both scores, the player to move."""

    __slots__ = ("columns", "rows", "cols", "bonus_turn", "tile_scores", "scores", "player", "last_points",
                 "total")
    game_name = "cantris"
    capabilities = Capabilities(fast_playout=True, key=True)

    def __init__(self, columns: list[list[int]], rows: int, bonus_turn: bool = False, tile_scores: bool = True):
        check_size(rows, len(columns))
        self.columns = [list(column) for column in columns]
        self.rows, self.cols, self.bonus_turn = rows, len(columns), bool(bonus_turn)
        self.tile_scores = bool(tile_scores)
        self.scores = [0, 0]
        self.player = 0
        self.last_points = 0  # points of the last move, cascades included: search sees them
        self.total = sum(map(sum, self.columns))

    @property
    def num_actions(self) -> int:
        return self.cols

    def clone(self) -> CantrisState:
        other = CantrisState.__new__(CantrisState)
        other.columns = [column[:] for column in self.columns]
        other.rows, other.cols, other.bonus_turn = self.rows, self.cols, self.bonus_turn
        other.tile_scores = self.tile_scores
        other.scores = self.scores[:]
        other.player, other.last_points, other.total = self.player, self.last_points, self.total
        return other

    def is_terminal(self) -> bool:
        return not any(self.columns)

    def current_player(self) -> int:
        return TERMINAL if not any(self.columns) else self.player

    def legal_actions(self) -> list[int]:
        return [c for c, column in enumerate(self.columns) if column]

    def legal_mask(self) -> list[int]:
        return [1 if column else 0 for column in self.columns]

    def is_legal(self, action: int) -> bool:
        return 0 <= action < self.cols and bool(self.columns[action])

    def explain_illegal(self, action: int) -> str:
        if self.is_terminal():
            return "the game is over"
        if not 0 <= action < self.cols:
            return f"there is no column {action + 1} (columns are 1..{self.cols})"
        return f"column {action + 1} is empty"

    def apply(self, action: int) -> None:
        if not self.is_legal(action):
            raise ValueError(f"cantris: illegal action {action}: {self.explain_illegal(action)}")
        taken = self.columns[action].pop(0)
        points = taken if self.tile_scores else 0
        cleared, rounds = settle(self.columns, fallen=action)
        points += cleared
        self.scores[self.player] += points
        self.last_points = points
        if not (self.bonus_turn and rounds):
            self.player ^= 1

    def playout(self, rng: random.Random) -> tuple[float, float]:
        # MCTS roll-outs: apply() without its checks and bookkeeping, in one loop.
        rand, columns, scores, bonus = rng.random, self.columns, self.scores, self.bonus_turn
        tile_scores = self.tile_scores
        player = self.player
        legal = [c for c, column in enumerate(columns) if column]
        while legal:
            c = legal[int(rand() * len(legal))]
            taken = columns[c].pop(0)
            cleared, rounds = settle(columns, fallen=c)
            scores[player] += (taken if tile_scores else 0) + cleared
            if not (bonus and rounds):
                player ^= 1
            if not columns[c] or rounds:
                legal = [c for c, column in enumerate(columns) if column]
        self.player = player
        return self.returns()

    def winner(self) -> int:
        s0, s1 = self.scores
        return 0 if s0 > s1 else 1 if s1 > s0 else -1

    def returns(self) -> tuple[float, float]:
        return returns_of_winner(self.winner()) if self.is_terminal() else (0.0, 0.0)

    def key(self) -> tuple:
        return (tuple(map(tuple, self.columns)), self.scores[0] - self.scores[1], self.player)

    # --- game knowledge ----------------------------------------------------------------
    def greedy_action(self, rng: random.Random) -> int:
        """The move with the most immediate points (cascades included); ties at random."""
        points = {action: self.move_points(action) for action in self.legal_actions()}
        best = max(points.values())
        choices = [action for action, value in points.items() if value == best]
        return choices[int(rng.random() * len(choices))]

    def move_points(self, action: int) -> int:
        """Points the player to move would score with ``action`` (cascades included)."""
        child = self.clone()
        child.apply(action)
        return child.last_points

    def board(self) -> list[list[int]]:
        """rows x cols, row 0 the bottom, 0 = empty."""
        return [[column[r] if r < len(column) else 0 for column in self.columns] for r in range(self.rows)]

    def to_text(self) -> str:
        lines = [" ".join(str(v) if v else "." for v in row) for row in reversed(self.board())]
        lines.append(" ".join(str((c + 1) % 10) for c in range(self.cols)))
        return "\n".join(lines)

    def action_label(self, action: int) -> str:
        return str(action + 1)

    def parse_action(self, text: str) -> int:
        text = text.strip()
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= self.cols:
            raise ValueError(f"{text!r} is not a column: type a number from 1 to {self.cols}")
        return int(text) - 1

    def __repr__(self) -> str:
        return f"CantrisState(scores={self.scores}, player={self.player})\n{self.to_text()}"


def observation_of(state: CantrisState, player: int) -> np.ndarray:
    """Seat ``player``'s observation array of ``state``: the board, then its own score
    and the opponent's."""
    flat = [v for row in state.board() for v in row]
    flat += [state.scores[player], state.scores[1 - player]]
    return np.array(flat, dtype=np.int64)


def _dealing():
    from boardzoo.games.cantris import dealing  # imports this module: loaded when first asked for

    return dealing


def _new_cantris(rng, rows: int, cols: int, bonus_turn: bool, tile_scores: bool, deal_kind: str) -> CantrisState:
    check_size(rows, cols)  # even rows: a rule across the parameters
    return CantrisState(deal(rows, cols, rng, deal_kind), rows, bonus_turn, tile_scores)



def network_input(state: CantrisState, largest_pile: int = 0) -> np.ndarray:
    """What a learned network sees of the position, from the mover's side: (rows + 2,
    rows, cols) planes, one per tile value 1..rows+1 (row 0 the bottom), then the mover's
    lead in points over the lead plus the points left on the board (in -1..1). The plain
    twin of the compiled writer (``boardzoo.games.cantris.compiled``)."""
    rows, cols = state.rows, state.cols
    planes = np.zeros((rows + 2, rows, cols), dtype=np.float32)
    left = 0
    for c, column in enumerate(state.columns):
        for r, value in enumerate(column):
            left += value
            planes[value - 1, r, c] = 1.0
    mover, (score0, score1) = state.player, state.scores
    planes[rows + 1] = (state.scores[mover] - state.scores[1 - mover]) / max(left + abs(score0 - score1), 1)
    return planes


GAME = Game(
    name=CantrisState.game_name,
    title="Cantris",
    state_class=CantrisState,
    make_state=lambda rng, deal, **rest: _new_cantris(rng, deal_kind=deal, **rest),
    parameters={"rows": Param(8, int, 4, MAX_SIDE, doc="column height (even)"),
                "cols": Param(4, int, 3, MAX_SIDE, doc="columns"),
                "bonus_turn": Param(False, bool, doc="a cleared line gives its player another turn"),
                "tile_scores": Param(True, bool, doc="a tile taken scores its value"),
                "deal": Param("pairs", str, choices=DEALS, doc="how the columns are dealt")},
    max_length=lambda params: params["rows"] * params["cols"],  # every move takes a tile
    envs={"cantris_v0": "Cantris as first reconstructed (a bonus turn on 10x5); kept for earlier results",
          "cantris_v1": "Cantris, the scoring tile game of source 001, rules fitted to all its tables"},
    observation=observation_of,
    network_input=network_input,
    learning=Learning(
        env="cantris_v1", shipped="cantris.npz", generations=60, mirrored=True,
        settings={"channels": 48, "blocks": 3, "simulations": 32, "games_per_generation": 1024,
                  "games_per_task": 256, "replay_positions": 300_000, "lr_halving_generations": 15,
                  "anchors": ("random", "greedy", "mcts:iterations=1000,engine=compiled"), "eval_games": 40}),
    knowledge="boardzoo.strategy.cantris",
    compiled_core="boardzoo.games.cantris.compiled",
    explicit_deal=lambda rows, cols, bonus_turn, tile_scores, deal: _dealing().DealtCantris(
        rows, cols, bonus_turn, tile_scores, deal),
    max_chance_outcomes=lambda params: len(set(column_values(params["rows"], params["deal"]))),
    variants={"6x3": {"rows": 6, "cols": 3}, "8x4": {}, "10x5-bonus": {"rows": 10, "cols": 5, "bonus_turn": True},
              "8x4-halves-lines-only": {"deal": "halves", "bonus_turn": True, "tile_scores": False}},
    small_envs={"cantris": "cantris_v0:board=6x3"},
)
