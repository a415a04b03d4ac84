"""The solver as referee: mistake rates of a Connect Four player on benchmark sets of
positions whose every move's exact score is known (``bench/make_mistake_sets.py`` makes
them as Pascal Pons made his). Training never reads these scores; they only judge.

Two rules count a move as a mistake, and both are reported:

- *outcome*: the move turns a won position into a draw or a loss, or a drawn one into a
  loss (its score's sign is below the best move's). This is the rule of AlphaZero.jl's
  benchmark against Pons' sets, so its published rates compare with this one.
- *score*: the move's exact score is below the best move's: a slower win or a quicker
  loss counts too. Stricter; a player that wins surely but not fastest fails it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from boardzoo.envs import make as make_env
from boardzoo.games.model import GameState

#: The sets, in the order reported: discs played and moves left under perfect play.
SET_NAMES = ("end-easy", "middle-easy", "middle-medium", "begin-easy", "begin-medium", "begin-hard")
#: The sets' board: the standard 6x7.
COLS = 7
#: The longest sets file read (a thousand lines a set are about 300 KB).
MAX_FILE = 16 << 20


@dataclass(frozen=True)
class Position:
    """A benchmark position: its moves from the empty board (columns 1..7) and each
    column's exact score for the player to move (None where the column is full)."""

    moves: str
    values: tuple[int | None, ...]

    def worse_score(self, column: int) -> bool:
        """The score rule: ``column``'s exact score is below the best move's (a full
        column, not a legal move, counts as a mistake too)."""
        value = self.values[column]
        return value is None or value < max(v for v in self.values if v is not None)

    def worse_outcome(self, column: int) -> bool:
        """The outcome rule: ``column`` gives up a win or a draw the best move keeps."""
        value = self.values[column]
        return value is None or _sign(value) < _sign(max(v for v in self.values if v is not None))


def _sign(score: int) -> int:
    return (score > 0) - (score < 0)


class MistakeCount(NamedTuple):
    """One player's mistakes on one set, by each rule, of ``positions`` judged."""

    outcome: int
    score: int
    positions: int


def read_mistake_sets(path: str) -> dict[str, list[Position]]:
    """Set name -> its positions in file order; ValueError naming the line of a bad one."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE + 1)
    except OSError as error:
        raise ValueError(f"cannot read mistake sets {path}: {error.strerror}") from None
    if len(data) > MAX_FILE:
        raise ValueError(f"{path}: a mistake-sets file is at most {MAX_FILE >> 20} MB")
    sets: dict[str, list[Position]] = {}
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        fields = line.split()
        if len(fields) != 3 + COLS or fields[0] not in SET_NAMES or not fields[1].isdigit() \
                or any(not (v == "." or v.lstrip("-").isdigit()) for v in fields[3:]) \
                or any(not "1" <= move <= str(COLS) for move in fields[1]) \
                or all(v == "." for v in fields[3:]):
            raise ValueError(f"{path}, line {number}: not 'SET MOVES SCORE' and {COLS} column scores: {line[:80]!r}")
        values = tuple(None if v == "." else int(v) for v in fields[3:])
        sets.setdefault(fields[0], []).append(Position(fields[1], values))
    return sets


#: A player judged on many positions at once: (observation, model) pairs -> a column each.
ChooseMany = Callable[[list[tuple[dict, GameState]]], list[int]]


def one_by_one(choose: Callable[[dict, GameState], int]) -> ChooseMany:
    """A player that chooses for one position at a time (an agent's ``act``)."""
    return lambda positions: [choose(observation, model) for observation, model in positions]


def chooser(agent: Any) -> ChooseMany:
    """An agent as a player of many positions: its ``act_batch`` where it has one (one
    search for them all), else its ``act`` one position at a time."""
    batch = getattr(agent, "act_batch", None)
    return batch if batch is not None else one_by_one(agent.act)


def mistake_counts(choose_many: ChooseMany, sets: Mapping[str, list[Position]],
                   limit: int | None = None) -> dict[str, MistakeCount]:
    """Set -> the mistakes of the player ``choose_many`` on the first ``limit`` positions
    of each set, by both rules; a set's positions go to the player together."""
    counts = {}
    env = make_env("connect_four_v0", raw=True)
    for name in SET_NAMES:
        positions = sets.get(name, [])[:limit]
        columns = choose_many([set_up(position, env) for position in positions]) if positions else []
        counts[name] = MistakeCount(sum(map(Position.worse_outcome, positions, columns)),
                                    sum(map(Position.worse_score, positions, columns)), len(positions))
    return counts


def set_up(position: Position, env: Any = None) -> tuple[dict, GameState]:
    """The observation and model of the player to move in ``position``, on ``env`` (a
    Connect Four env reset here; None: a new one). The model is a copy, so one env sets
    up many positions."""
    env = env if env is not None else make_env("connect_four_v0", raw=True)
    env.reset(seed=0)
    for move in position.moves:
        env.step(int(move) - 1)
    mover = env.agent_selection
    return env.observe(mover), env.model(mover)
