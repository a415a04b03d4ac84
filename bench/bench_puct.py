"""PUCT guided by a trained Connect Four policy, measured with 95 % intervals: PUCT at 100
iterations (the policy's probabilities as priors, its value head as the leaf value)
against UCB1 with random roll-outs at 100 and at 1000 iterations, and against the policy
playing alone. Seats alternate; every match is played from the same seeds.

    pip install torch==2.13.0 && pip install ".[rl]"
    python examples/train_maskable_ppo.py            # writes runs/ppo_connect_four.zip
    python bench/bench_puct.py [--model runs/ppo_connect_four.zip] [--games 200] [--workers 2]
"""

from __future__ import annotations

import argparse
import time

from common import machine, table

from boardzoo import arena
from boardzoo.stats import mean_interval, wilson


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="runs/ppo_connect_four.zip")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    puct = f"mcts:policy=puct,model={args.model},iterations=100"
    opponents = {
        "UCB1, random roll-outs, 100 iterations": "mcts:iterations=100",
        "UCB1, random roll-outs, 1000 iterations": "mcts:iterations=1000",
        "the policy alone (sb3, deterministic)": f"sb3:path={args.model}",
    }
    rows = []
    for label, opponent in opponents.items():
        start = time.perf_counter()
        records = arena.run("connect_four_v0", puct, opponent, games=args.games, seed=args.seed,
                            workers=args.workers, progress=False)
        summary = arena.summarize(records)
        wins, ties, games = summary["a_wins"], summary["ties"], summary["games"]
        low, high = wilson(wins, games)
        score, s_low, s_high = mean_interval([1.0 if r["winner"] == "a" else 0.5 if r["winner"] is None else 0.0
                                              for r in records])
        rows.append([label, games, wins, ties, summary["b_wins"], f"{wins / games:.3f} [{low:.3f}, {high:.3f}]",
                     f"{score:.3f} [{s_low:.3f}, {s_high:.3f}]", f"{time.perf_counter() - start:.0f} s"])
    print(f"PUCT ({puct}) vs each opponent, connect_four_v0, seats alternating; {machine()}\n")
    print(table(["opponent", "games", "PUCT wins", "draws", "PUCT losses", "win rate [95 % CI]",
                 "score (draw = 1/2) [95 % CI]", "time"], rows))


if __name__ == "__main__":
    main()
