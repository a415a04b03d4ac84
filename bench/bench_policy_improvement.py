"""The policy-improvement operator, measured: Gumbel AlphaZero's search (the ``alphazero``
agent: sequential halving, no noise) against PUCT (``mcts:policy=puct``, c = 1.25, the
same network as its priors and leaf values) at equal simulations a move, and each
against the network alone, in arena games with seats alternating. The alphazero agent
and the network alone draw their first four moves from their policies
(``sample_moves=4``): without it, two deterministic players play one game a seating.

    python bench/bench_policy_improvement.py WEIGHTS.npz [--env connect_four_v0]
        [--simulations 8,32,128] [--games 200] [--workers 2]
"""

from __future__ import annotations

import argparse

from common import machine, table

from boardzoo.arena import run as run_arena
from boardzoo.stats import wilson


def score(env: str, a: str, b: str, games: int, workers: int) -> tuple[float, float, float]:
    records = run_arena(env, a, b, games, seed=1, workers=workers, progress=False)
    points = sum(1.0 if r["winner"] == "a" else 0.5 if r["winner"] is None else 0.0 for r in records)
    low, high = wilson(round(points), len(records))
    return points / len(records), low, high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("weights")
    parser.add_argument("--env", default="connect_four_v0")
    parser.add_argument("--simulations", default="8,32,128")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    network = f"alphazero:weights={args.weights},iterations=0,sample_moves=4"
    rows = []
    for n in map(int, args.simulations.split(",")):
        gumbel = f"alphazero:weights={args.weights},iterations={n},sample_moves=4"
        puct = f"mcts:policy=puct,model={args.weights},iterations={n}"
        pairings = ((f"Gumbel {n} vs PUCT {n}", gumbel, puct), (f"Gumbel {n} vs network alone", gumbel, network),
                    (f"PUCT {n} vs network alone", puct, network))
        for label, a, b in pairings:
            mean, low, high = score(args.env, a, b, args.games, args.workers)
            rows.append([label, f"{mean:.3f} [{low:.3f}, {high:.3f}]", args.games])
    print(f"Policy improvement on {args.env} with {args.weights} ({machine()})\n")
    print(table(["pairing", "first's score [95 % interval]", "games"], rows))


if __name__ == "__main__":
    main()
