"""The compiled MCTS engine against the Python one at equal iterations: the same
algorithm, so neither should be stronger. Head-to-head games, seats alternating; the
compiled engine's score (a draw counts half) with its 95 % Wilson interval, which
should contain 50 %.

    python bench/bench_engines.py [--games 1000] [--workers 2]
"""

from __future__ import annotations

import argparse
import time

from common import machine, table

from boardzoo import arena
from boardzoo.stats import wilson

MATCHES = [  # env, the options both engines share
    ("connect_four_v0", "iterations=200"),
    ("nim_v0:n=30,coin=true", "iterations=300"),
    ("cantris_v0:board=8x4", "iterations=200,q=win-lose,c=1.414,final=value,c_final=0"),
    ("connect_four_v0", "iterations=200,policy=ucbv,c=1.0,zeta=0.5,nthr=3,reuse=true"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows = []
    for env, options in MATCHES:
        summary = arena.summarize(arena.run(env, f"mcts:{options},engine=compiled", f"mcts:{options}",
                                            games=args.games, seed=0, workers=args.workers, progress=False))
        score = summary["a_wins"] + summary["ties"] / 2
        low, high = wilson(round(score), args.games)
        rows.append([env, options, f"{summary['a_wins']}/{summary['ties']}/{summary['b_wins']}",
                     f"{score / args.games:.1%}", f"{low:.1%}..{high:.1%}", "yes" if low <= 0.5 <= high else "NO",
                     f"{summary['a_mean_decision_ms']:.2f} / {summary['b_mean_decision_ms']:.2f}"])
    print(f"Compiled vs Python MCTS at equal iterations ({machine()}, {time.strftime('%Y-%m-%d')}, "
          f"{args.games} games each, seats alternating)\n")
    print(table(["env", "options", "compiled W/D/L", "compiled score", "95% CI", "contains 50%",
                 "ms/move compiled / Python"], rows))


if __name__ == "__main__":
    main()
