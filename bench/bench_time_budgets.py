"""How well every agent with a time budget keeps to it, on every game, in one run.

    python bench/bench_time_budgets.py [--time 0.2] [--games 2] [--seed 0]

Each agent plays ``--games`` games against random in the arena (seats alternating, each
agent warmed up first, as the arena always does) with ``time=`` set to ``--time``; the table
gives its moves, the median and the longest against the budget. A time budget is a
promise about every move, so the longest is the column to read. Agents or options a game
does not take are left out (the solver plays Connect Four only, purple Geister only,
``solver=true`` needs perfect information). Other jobs on the machine lengthen moves:
run it on an idle one.
"""

from __future__ import annotations

import argparse
import statistics

from common import machine, table

from boardzoo import arena
from boardzoo.errors import SpecError

ENVS = ("nim_v0:coin=true", "connect_four_v0", "cantris_v1:board=10x5", "geister_v0:max_turns=80")
AGENTS = ("mcts:time={t}", "mcts:time={t},engine=compiled", "mcts:time={t},policy=puct", "mcts:time={t},solver=true",
          "flatmc:time={t}", "alphabeta:time={t},eval=three2", "minimax:time={t}", "solver:time={t}",
          "purple:time={t}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time", type=float, default=0.2, help="the budget, seconds a move")
    parser.add_argument("--games", type=int, default=2, help="games per agent and game")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rows = []
    for env in ENVS:
        for pattern in AGENTS:
            spec = pattern.format(t=args.time)
            try:
                records = arena.run(env, spec, "random", games=args.games, seed=args.seed, progress=False)
            except SpecError:
                continue  # an agent or an option this game does not take
            seconds = [t for record in records for t in record["decision_seconds"]["a"]]
            longest = max(seconds)
            rows.append([env, f"`{spec}`", len(seconds), f"{1000 * statistics.median(seconds):.0f}",
                         f"{1000 * longest:.0f}", f"{longest / args.time:.2f}"])
    print(f"Time budgets of {args.time:g} s a move, {args.games} games each against random ({machine()})\n")
    print(table(["game", "agent", "moves", "median ms", "longest ms", "longest / budget"], rows))


if __name__ == "__main__":
    main()
