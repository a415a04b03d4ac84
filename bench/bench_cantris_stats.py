"""Random-vs-random first-mover statistics of cantris_v0 beside source 001's table (the
calibration evidence of the reconstructed rules), with 95 % Wilson intervals.

    python bench/bench_cantris_stats.py [--games 20000] [--seed 0]
"""

from __future__ import annotations

import argparse
import random

import numpy as np
from common import machine, table

from boardzoo.games.cantris import PRESETS, CantrisState, deal
from boardzoo.stats import wilson

PUBLISHED = {"8x4": (0.5453, 0.0287, 0.4260), "10x5": (0.5929, 0.0187, 0.3884)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rows_out = []
    for board, published in PUBLISHED.items():
        rows, cols, bonus = PRESETS[board]
        deals, moves = np.random.default_rng(args.seed), random.Random(args.seed)
        counts = [0, 0, 0]
        for _ in range(args.games):
            first = CantrisState(deal(rows, cols, deals), rows, bonus).playout(moves)[0]
            counts[0 if first > 0 else 1 if first == 0 else 2] += 1
        for name, count, theirs in zip(("first mover wins", "tie", "first mover loses"), counts, published):
            low, high = wilson(count, args.games)
            ours = count / args.games
            rows_out.append([board, name, f"{theirs:.4f}", f"{ours:.4f}", f"{low:.4f}..{high:.4f}",
                             f"{ours - theirs:+.4f}"])
    print(f"Cantris random vs random, {args.games} games per board ({machine()})\n")
    print(table(["board", "outcome", "source 001", "cantris_v0", "95% CI", "difference"], rows_out))


if __name__ == "__main__":
    main()
