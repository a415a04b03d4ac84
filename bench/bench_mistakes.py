"""Mistake rates of boardzoo agents at Connect Four on the six sets of
``bench/data/connect_four_mistake_sets.txt`` (``bench/make_mistake_sets.py``), by the
outcome rule (the move gives up a win or a draw: AlphaZero.jl's rule, so its published
rates compare) and by the score rule (any move scored below the best). The rate per set,
with a 95 % Wilson interval, for each agent spec given.

    python bench/bench_mistakes.py "alphabeta:depth=5,eval=three2" "mcts:iterations=800,engine=compiled"
    python bench/bench_mistakes.py alphazero alphazero:iterations=0 --limit 200 --sets begin-hard,middle-medium
    python bench/bench_mistakes.py alphazero --workers 2 --out bench/results/mistakes-alphazero.json

Positions are judged 100 at a time in ``--workers`` processes; with ``--out`` each
hundred's counts are kept in that file as they finish, and the same command run again
after an interruption judges only what is missing.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from common import machine, table

from boardzoo.agents import make as make_agent
from boardzoo.errors import BoardzooError
from boardzoo.stats import wilson
from boardzoo.training.alphazero.referee import SET_NAMES, measure_mistakes, read_mistake_sets

SETS_FILE = pathlib.Path(__file__).parent / "data" / "connect_four_mistake_sets.txt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agents", nargs="+", help="agent specs")
    parser.add_argument("--limit", type=int, default=1000, help="positions a set (the first ones)")
    parser.add_argument("--sets", help="comma-separated set names (default: all six)")
    parser.add_argument("--file", type=pathlib.Path, default=SETS_FILE)
    parser.add_argument("--workers", type=int, default=1, help="processes judging positions side by side")
    parser.add_argument("--out", help="a JSON file keeping every finished hundred's counts (resumable)")
    args = parser.parse_args()
    try:
        sets = read_mistake_sets(str(args.file))
        names = args.sets.split(",") if args.sets else [name for name in SET_NAMES if name in sets]
        unknown = [name for name in names if name not in SET_NAMES]
        if unknown:
            raise ValueError(f"no set {', '.join(unknown)}; the sets are {', '.join(SET_NAMES)}")
        for spec in args.agents:
            make_agent(spec, seed=0)  # a bad spec fails now, not in a worker an hour in
    except (ValueError, BoardzooError) as error:
        sys.exit(f"bench_mistakes: {error}")
    rows = []
    for spec in args.agents:
        try:
            counts = measure_mistakes(spec, {name: sets.get(name, []) for name in names}, args.limit,
                                      max(1, args.workers), args.out, log=lambda line: print(line, file=sys.stderr))
        except (ValueError, BoardzooError) as error:
            sys.exit(f"bench_mistakes: {error}")
        for rule in ("outcome", "score"):
            row = [spec, rule]
            for name in names:
                mistakes, positions = getattr(counts[name], rule), counts[name].positions
                low, high = wilson(mistakes, positions) if positions else (0.0, 0.0)
                row.append(f"{mistakes / max(1, positions):.1%} [{low:.1%}, {high:.1%}] of {positions}")
            rows.append(row)
    print(f"Connect Four mistake rates ({machine()})\n")
    print(table(["agent", "rule", *names], rows))


if __name__ == "__main__":
    main()
