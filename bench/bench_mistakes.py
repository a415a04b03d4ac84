"""Mistake rates of boardzoo agents at Connect Four on the six sets of
``bench/data/connect_four_mistake_sets.txt`` (``bench/make_mistake_sets.py``): a move is
a mistake when its exact score is below the best move's. The rate per set, with a 95 %
Wilson interval, for each agent spec given.

    python bench/bench_mistakes.py "alphabeta:depth=5,eval=three2" "mcts:iterations=800,engine=compiled"
    python bench/bench_mistakes.py greedy --limit 200 --sets begin-hard,middle-medium
"""

from __future__ import annotations

import argparse
import pathlib

from common import machine, table
from make_mistake_sets import SETS

from boardzoo.agents import make as make_agent
from boardzoo.envs import make as make_env
from boardzoo.stats import wilson

SETS_FILE = pathlib.Path(__file__).parent / "data" / "connect_four_mistake_sets.txt"


def read_positions(path: pathlib.Path) -> dict[str, list[tuple[str, list[int | None]]]]:
    """Set -> [(moves, each column's exact score or None when full)], in file order."""
    sets: dict[str, list[tuple[str, list[int | None]]]] = {}
    for line in path.read_text().splitlines():
        name, moves, _score, *values = line.split()
        sets.setdefault(name, []).append((moves, [None if v == "." else int(v) for v in values]))
    return sets


def is_mistake(agent_spec: str, moves: str, values: list[int | None], seed: int) -> bool:
    env = make_env("connect_four_v0", raw=True)
    env.reset(seed=seed)
    for move in moves:
        env.step(int(move) - 1)
    agent = make_agent(agent_spec, seed=seed)
    mover = env.agent_selection
    column = agent.act(env.observe(mover), env.model(mover))
    best = max(v for v in values if v is not None)
    return values[column] is None or values[column] < best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agents", nargs="+", help="agent specs")
    parser.add_argument("--limit", type=int, default=1000, help="positions a set (the first ones)")
    parser.add_argument("--sets", help="comma-separated set names (default: all six)")
    parser.add_argument("--file", type=pathlib.Path, default=SETS_FILE)
    args = parser.parse_args()
    sets = read_positions(args.file)
    names = args.sets.split(",") if args.sets else [name for name in SETS if name in sets]
    rows = []
    for spec in args.agents:
        row = [spec]
        for name in names:
            positions = sets.get(name, [])[: args.limit]
            mistakes = sum(is_mistake(spec, moves, values, seed) for seed, (moves, values) in enumerate(positions))
            low, high = wilson(mistakes, len(positions)) if positions else (0.0, 0.0)
            row.append(f"{mistakes / max(1, len(positions)):.1%} [{low:.1%}, {high:.1%}] of {len(positions)}")
        rows.append(row)
    print(f"Connect Four mistake rates ({machine()})\n")
    print(table(["agent", *names], rows))


if __name__ == "__main__":
    main()
