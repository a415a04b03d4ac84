"""The solver as referee: mistake rates of a player on benchmark sets of positions whose
every move's exact score is known, the positions given as moves from the start of the
run's env (Connect Four's sets: ``bench/make_mistake_sets.py`` makes them as Pascal Pons
made his, on the standard 6x7 board). Training never reads these scores; they only judge.

Two rules count a move as a mistake, and both are reported:

- *outcome*: the move turns a won position into a draw or a loss, or a drawn one into a
  loss (its score's sign is below the best move's). This is the rule of AlphaZero.jl's
  benchmark against Pons' sets, so its published rates compare with this one.
- *score*: the move's exact score is below the best move's: a slower win or a quicker
  loss counts too. Stricter; a player that wins surely but not fastest fails it."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from boardzoo.envs import make as make_env
from boardzoo.files import file_digest
from boardzoo.games.model import GameState
from boardzoo.ledger import check_writable_path, write_atomic
from boardzoo.training.alphazero.locks import held_alone

#: The sets, in the order reported: discs played and moves left under perfect play.
SET_NAMES = ("end-easy", "middle-easy", "middle-medium", "begin-easy", "begin-medium", "begin-hard")
#: The moves a position of the sets' files offers (scores a line, moves written 1..COLS).
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
    data = _read_bounded(path, MAX_FILE, "mistake sets", "mistake-sets file")
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


def _read_bounded(path: str, limit: int, what: str, kind: str) -> bytes:
    """File ``path``'s bytes; ValueError when it cannot be read or is over ``limit``."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise ValueError(f"cannot read {what} {path}: {error.strerror}") from None
    if len(data) > limit:
        raise ValueError(f"{path}: a {kind} is at most {limit >> 20} MB")
    return data


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


def mistake_counts(choose_many: ChooseMany, sets: Mapping[str, list[Position]], limit: int | None = None,
                   env_spec: str = "connect_four_v0") -> dict[str, MistakeCount]:
    """Set -> the mistakes of the player ``choose_many`` on the first ``limit`` positions
    of each set (set up in env ``env_spec``), by both rules; a set's positions go to the
    player together."""
    counts = {}
    env = make_env(env_spec, raw=True)
    for name in SET_NAMES:
        positions = sets.get(name, [])[:limit]
        columns = choose_many([set_up(position, env) for position in positions]) if positions else []
        counts[name] = MistakeCount(sum(map(Position.worse_outcome, positions, columns)),
                                    sum(map(Position.worse_score, positions, columns)), len(positions))
    return counts


def set_up(position: Position, env: Any = None) -> tuple[dict, GameState]:
    """The observation and model of the player to move in ``position``, on ``env`` (reset
    here; None: a new env of the standard sets' game). The model is a copy, so one env
    sets up many positions."""
    env = env if env is not None else make_env("connect_four_v0", raw=True)
    env.reset(seed=0)
    for move in position.moves:
        env.step(int(move) - 1)
    mover = env.agent_selection
    return env.observe(mover), env.model(mover)


# --- a long measurement, in parts: parallel and resumable --------------------------------------------------
#: Positions an agent judges in one part of a measurement (one task, one line of progress).
PART = 100
#: The largest measurement file read.
MAX_MEASUREMENT = 16 << 20


def measure_mistakes(spec: str, sets: Mapping[str, list[Position]], limit: int | None = None, workers: int = 1,
                     out: str | None = None, part: int = PART,
                     log: Callable[[str], None] = lambda line: None) -> dict[str, MistakeCount]:
    """Set -> the mistakes of agent ``spec`` on the first ``limit`` positions of each set,
    judged ``part`` positions at a time (a fresh agent each, seeded by the part) in
    ``workers`` processes. With ``out``, each part's counts are written to that JSON file
    as it finishes (the whole file replaced atomically), and a measurement run again with
    the same file judges only the parts it lacks: hours at 800 simulations survive an
    interruption. A file whose record for a part was made on other positions is refused
    (ValueError), never mixed in; so is a file another measurement is writing."""
    if out is None:
        return _measure(spec, sets, limit, workers, None, part, log, {})
    check_writable_path(out)
    with held_alone(out + ".lock", f"{out} is being written by another measurement"):
        return _measure(spec, sets, limit, workers, out, part, log,
                        _read_measurement(out) if os.path.exists(out) else {})


def _measure(spec: str, sets: Mapping[str, list[Position]], limit: int | None, workers: int, out: str | None,
             part: int, log: Callable[[str], None], done: dict[str, dict[str, dict[str, Any]]]
             ) -> dict[str, MistakeCount]:
    from boardzoo.workers import run_parallel

    measured = done.setdefault(_player_key(spec), {})
    tasks = []
    keys: dict[str, list[str]] = {}  # a set's parts, in order
    for name in SET_NAMES:
        positions = sets.get(name, [])[:limit]
        keys[name] = []
        for start in range(0, len(positions), part):
            chunk = positions[start:start + part]
            key, digest = f"{name}/{start}", _digest(chunk)
            keys[name].append(key)
            if key in measured:
                if measured[key]["positions"] != digest:
                    raise ValueError(f"{out}: {spec} on {key} was measured on other positions (another sets file, "
                                     "or another part size); measure into another file")
                continue
            tasks.append((spec, name, start, chunk, digest))
    if tasks:
        log(f"{spec}: {len(tasks)} parts of up to {part} positions to judge, {len(measured)} already judged")
    for finished, (name, start, counts, digest) in enumerate(run_parallel(_judge_part, tasks, workers), 1):
        measured[f"{name}/{start}"] = {"outcome": counts.outcome, "score": counts.score, "judged": counts.positions,
                                       "positions": digest}
        if out is not None:
            write_atomic(out, json.dumps({"format": 1, "measurements": done}, indent=1, sort_keys=True) + "\n")
        log(f"{spec}: {name} from position {start + 1}: {counts.outcome} of {counts.positions} by the outcome rule "
            f"({finished} of {len(tasks)} parts)")
    totals = {}
    for name, names in keys.items():
        parts = [measured[key] for key in names]
        totals[name] = MistakeCount(sum(p["outcome"] for p in parts), sum(p["score"] for p in parts),
                                    sum(p["judged"] for p in parts))
    return totals


def _player_key(spec: str) -> str:
    """What a measurement file keeps ``spec``'s parts under: the spec, and the contents'
    hash of every file it names (a network file rewritten under the same name, such as a
    run's ``latest.npz``, is another player)."""
    files = []
    for item in spec.partition(":")[2].split(","):
        value = item.partition("=")[2]
        if value and os.path.isfile(value):
            files.append(f"{value}={file_digest(value, 16)}")
    return f"{spec} [{' '.join(files)}]" if files else spec


def _judge_part(task: tuple[str, str, int, list[Position], str]) -> tuple[str, int, MistakeCount, str]:
    from boardzoo.agents import make as make_agent

    spec, name, start, positions, digest = task
    agent = make_agent(spec, seed=SET_NAMES.index(name) * 1_000_000 + start)
    counts = mistake_counts(chooser(agent), {name: positions})[name]
    return name, start, counts, digest


def _digest(positions: list[Position]) -> str:
    return hashlib.sha256(" ".join(p.moves + ":" + ",".join(map(str, p.values)) for p in positions).encode()) \
        .hexdigest()[:16]


def _read_measurement(path: str) -> dict[str, dict[str, dict[str, Any]]]:
    """A measurement file's parts (spec -> "set/start" -> counts), every field checked."""
    data = _read_bounded(path, MAX_MEASUREMENT, "measurement", "measurement file")
    try:
        stored = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError(f"{path} is not a mistake measurement (not JSON)") from None
    if not isinstance(stored, dict) or stored.get("format") != 1 or not isinstance(stored.get("measurements"), dict):
        raise ValueError(f"{path} is not a mistake measurement of format 1")
    for spec, parts in stored["measurements"].items():
        if not isinstance(parts, dict):
            raise ValueError(f"{path}: the measurement of {spec!r} is not an object")
        for key, counts in parts.items():
            name, _, start = key.partition("/")
            fields = ("outcome", "score", "judged")
            if name not in SET_NAMES or not start.isdigit() or not isinstance(counts, dict) \
                    or not isinstance(counts.get("positions"), str) \
                    or any(type(counts.get(field)) is not int or counts[field] < 0 for field in fields) \
                    or max(counts["outcome"], counts["score"]) > counts["judged"]:
                raise ValueError(f"{path}: {spec!r} has a part that is not a set's counts: {key!r}")
    return stored["measurements"]
