"""The exact Connect Four solver on the position sets of bench/data (see
make_solver_positions.py): mean and worst time per position, nodes, and a check of
every score against the file. Each set is solved as one batch in one process, the
transposition table kept across the batch, as solver benchmarks do.

    python bench/bench_solver.py [--fresh-table]
"""

from __future__ import annotations

import argparse
import pathlib
import time

from common import machine, table

from boardzoo.strategy.connect_four.solver import Solver, parse_moves

DATA = pathlib.Path(__file__).parent / "data" / "connect_four_positions.txt"
TARGETS_MS = {"end": 1.0, "middle-easy": 10.0, "middle-hard": 500.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fresh-table", action="store_true", help="a new table for every position")
    fresh = parser.parse_args().fresh_table
    sets: dict[str, list[tuple[str, int]]] = {}
    for line in DATA.read_text().splitlines():
        name, moves, score = line.split()
        sets.setdefault(name, []).append((moves, int(score)))
    rows = []
    for name, positions in sets.items():
        solver = Solver()
        times, nodes = [], 0
        for moves, expected in positions:
            if fresh:
                solver = Solver()
            state = parse_moves(moves)
            start = time.perf_counter()
            score = solver.solve(state)
            times.append(time.perf_counter() - start)
            nodes += solver.nodes
            if score != expected:
                raise SystemExit(f"{moves}: solved {score}, the file says {expected}")
        mean_ms = 1000 * sum(times) / len(times)
        rows.append([name, len(positions), f"{mean_ms:.3f}", f"{1000 * max(times):.1f}",
                     f"{nodes // len(positions):,}", f"{nodes / sum(times) / 1000:.0f}k",
                     f"<= {TARGETS_MS[name]:g}", "yes" if mean_ms <= TARGETS_MS[name] else "NO"])
    print(f"Connect Four solver ({machine()}; {'fresh table per position' if fresh else 'one table per set'})\n")
    print(table(["set", "positions", "mean ms", "max ms", "mean nodes", "nodes/s", "target ms", "met"], rows))


if __name__ == "__main__":
    main()
