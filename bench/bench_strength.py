"""The strength checks of the search agents, at sizes the test suite can't afford:
win rates with 95 % Wilson intervals, seats alternating, through the arena.

    python bench/bench_strength.py [--games 200] [--workers 2] [--only geister]
    python bench/bench_strength.py --games 400 --only alphazero     # the shipped network's strength targets
    python bench/bench_strength.py --games 400 --only alphazero --weights RUN/weights/gen-0040.npz
    python bench/bench_strength.py --games 400 --only alphazero --out bench/results/strength   # resumable

``--only`` keeps the checks whose env or agent contains the text. Against alpha-beta,
which breaks no ties at random, each pair of games starts from its own random opening of
two plies (the arena's ``opening_plies``; both seatings of a pair from the same one): two
deterministic players would otherwise play one game a seating however many games are
asked for. The table counts the distinct games. With ``--out DIR`` every check's games go to
a results file in ``DIR`` as they finish, and the same command run again after an
interruption plays only the games missing (name a generation's network with
``--weights``, not ``latest.npz``: a file that changes under the same name would mix two
networks' games in one results file).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import NamedTuple

from common import machine, table

from boardzoo import arena
from boardzoo.errors import BoardzooError
from boardzoo.stats import wilson

# Source 004's findings: forward-biased roll-outs, cut off (as a draw) after 60 moves.
GEISTER_MCTS = "mcts:iterations=300,rollout=forward,max_rollout=60"


class Check(NamedTuple):
    env: str
    agent: str
    opponent: str
    required: float  # the win rate required (0: reported, no target)
    opening_plies: int = 0


CHECKS = [
    # The shipped Connect Four network at 100 ms a move.
    Check("connect_four_v0", "alphazero:time=0.1", "mcts:iterations=15000,engine=compiled", 0.75),
    Check("connect_four_v0", "alphazero:time=0.1", "alphabeta:depth=6,eval=three2", 0.90, opening_plies=2),
    Check("connect_four_v0", "mcts:iterations=1000", "random", 0.95),
    Check("connect_four_v0", "alphabeta:depth=4,eval=three2", "random", 0.95),
    Check("connect_four_v0", "minimax:depth=3,eval=simple", "random", 0.85),
    Check("nim_v0:coin=true", "mcts:time=0.01", "greedy", 0.70),
    Check("nim_v0:coin=true", "mcts:iterations=1000", "greedy", 0.70),
    # Source 001's settings: its c = 1.0 in q/n + c*sqrt(2 ln N / n) is our c = sqrt(2).
    Check("cantris_v0", "mcts:iterations=500,q=win-lose,c=1.414,final=value,c_final=0", "random", 0.96),
    Check("cantris_v0", "mcts:iterations=500,q=win-lose,c=1.0,final=value,c_final=0", "random", 0.0),
    Check("cantris_v0", "alphabeta:depth=4,eval=score", "random", 0.0),
    Check("cantris_v0", "greedy", "random", 0.0),
    Check("geister_v0", f"{GEISTER_MCTS},belief=uniform", "random", 0.85),
    Check("geister_v0", f"{GEISTER_MCTS},belief=nearest-blue", "random", 0.85),
    Check("geister_v0", f"{GEISTER_MCTS},belief=behaviour", "random", 0.85),
    Check("geister_v0", "mcts:iterations=300", "random", 0.0),
    Check("geister_v0", "flatmc:playouts=10,rollout=forward,max_rollout=60", "random", 0.0),
    Check("geister_v0", "greedy", "random", 0.0),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", help="run only the checks whose env or agent contains this text")
    parser.add_argument("--weights", help="a network file the alphazero checks play instead of the shipped one")
    parser.add_argument("--out", help="a folder for the checks' results files (resumable)")
    args = parser.parse_args()
    if args.out is not None:
        os.makedirs(args.out, exist_ok=True)
    rows = []
    for env, agent, opponent, required, opening_plies in CHECKS:
        if args.only and args.only not in env and args.only not in agent:
            continue
        if args.weights and agent.startswith("alphazero:"):
            agent = agent.replace("alphazero:", f"alphazero:weights={args.weights},", 1)
        name = f"{env}-{agent}-{opponent}" + (f"-openings{opening_plies}" if opening_plies else "")
        out = None if args.out is None else os.path.join(
            args.out, re.sub(r"[^A-Za-z0-9_.=-]+", "_", name)[:180] + ".jsonl")
        try:
            summary = arena.summarize(arena.run(env, agent, opponent, games=args.games, seed=0,
                                                workers=args.workers, out=out, progress=False,
                                                opening_plies=opening_plies))
        except (ValueError, BoardzooError) as error:
            sys.exit(f"bench_strength: {error}")
        wins = summary["a_wins"]
        low, high = wilson(wins, args.games)
        rows.append([env, agent, opponent, f"{wins}/{args.games} = {wins / args.games:.1%}",
                     f"{low:.1%}..{high:.1%}", f">= {required:.0%}" if required else "(no target)",
                     "yes" if wins / args.games >= required else "NO",
                     f"{summary['a_mean_decision_ms']:.1f}", opening_plies, summary["distinct_games"]])
    print(f"Strength checks ({machine()}, {args.games} games each, seats alternating, seed 0)\n")
    print(table(["env", "agent", "opponent", "wins", "95% CI", "required", "met", "ms/move", "opening plies",
                 "distinct games"], rows))


if __name__ == "__main__":
    main()
