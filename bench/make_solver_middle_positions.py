"""Generate the middle-game positions of the side-by-side solver benchmark
(bench/data/connect_four_middle.txt): random positions of 12 to 24 discs whose exact
solve takes the compiled solver (with a fresh table) 10^4 to 10^6 nodes.

Positions come from seeded, uniformly random games, kept when the game is not over
and the player to move cannot win at once. Each line is ``MOVES SCORE NODES``.

    python bench/make_solver_middle_positions.py [--seed 2026] [--count 100]
"""

from __future__ import annotations

import argparse
import pathlib
import random

from make_solver_positions import random_position

from boardzoo.strategy.connect_four.compiled_solver import CompiledSolver

OUT = pathlib.Path(__file__).parent / "data" / "connect_four_middle.txt"
LOW, HIGH = 10**4, 10**6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--count", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lines: list[str] = []
    while len(lines) < args.count:
        drawn = random_position(rng, 12, 24)
        if drawn is None:
            continue
        state, moves = drawn
        solver = CompiledSolver(memory_mb=64)  # fresh: the nodes of this position alone
        score = solver.solve(state)
        if LOW <= solver.nodes <= HIGH:
            lines.append(f"{moves} {score} {solver.nodes}")
    OUT.write_text("".join(line + "\n" for line in lines))
    print(f"wrote {len(lines)} positions to {OUT}")


if __name__ == "__main__":
    main()
