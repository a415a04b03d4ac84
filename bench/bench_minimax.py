"""Minimax and alpha-beta on Connect Four: mean time and nodes per move by depth and
evaluator (the study of source 002), over the same set of random middle-game positions.

    python bench/bench_minimax.py [--positions 20] [--max-minimax 6] [--max-alphabeta 9]
"""

from __future__ import annotations

import argparse
import random

from common import machine, table

from boardzoo.agents import make
from boardzoo.games import ConnectFourState


def positions(count: int, seed: int = 0) -> list[ConnectFourState]:
    rng, found = random.Random(seed), []
    while len(found) < count:
        state = ConnectFourState()
        for _ in range(rng.randint(2, 12)):
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
        if not state.is_terminal():
            found.append(state)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--max-minimax", type=int, default=6)
    parser.add_argument("--max-alphabeta", type=int, default=9)
    args = parser.parse_args()
    tests = positions(args.positions)
    rows = []
    for evaluator in ("simple", "three", "three2"):
        for depth in range(3, args.max_alphabeta + 1):
            row = [evaluator, depth]
            for algorithm, limit in (("minimax", args.max_minimax), ("alphabeta", args.max_alphabeta)):
                if depth > limit:
                    row += ["", ""]
                    continue
                agent = make(f"{algorithm}:depth={depth},eval={evaluator}")
                seconds = nodes = 0
                for state in tests:
                    agent.act(None, state)
                    seconds += agent.stats["seconds"]
                    nodes += agent.stats["nodes"]
                row += [f"{1000 * seconds / len(tests):.1f}", f"{nodes // len(tests):,}"]
            rows.append(row)
    print(f"Mean ms and nodes per move over {len(tests)} positions of 2-12 discs ({machine()})\n")
    print(table(["eval", "depth", "minimax ms", "minimax nodes", "alphabeta ms", "alphabeta nodes"], rows))


if __name__ == "__main__":
    main()
