"""The compiled Connect Four solver side by side with Pascal Pons' C++ solver
(github.com/PascalPons/connect4, built by you, run without its opening book):

* the 100 middle-game positions of bench/data/connect_four_middle.txt (10^4 to 10^6
  nodes each; see make_solver_middle_positions.py), each solver keeping its table
  across the batch as Pons' ``c4solver`` does: mean seconds per position and the ratio;
* the position ``4453``, each in a process of its own: seconds and peak memory;
* with ``--empty``, the empty board the same way (minutes).

Pons' solver is not part of boardzoo: build it beside the repository and pass its path::

    git clone https://github.com/PascalPons/connect4 && make -C connect4 c4solver
    python bench/bench_solver_pons.py --pons connect4/c4solver [--empty] [--python]

``--python`` adds boardzoo's Python solver to the middle-game batch.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

from common import machine, table

from boardzoo.strategy.connect_four import make_solver
from boardzoo.strategy.connect_four.solver import Solver, parse_moves

DATA = pathlib.Path(__file__).parent / "data" / "connect_four_middle.txt"
#: GNU time, for the peak memory of a process (Debian: apt-get install time).
TIME = shutil.which("time", path="/usr/bin:/bin") or "/usr/bin/time"
#: Solving one position in a process of its own, printing its score, nodes and seconds.
SOLVE_ONE = ("import sys, time; from boardzoo.strategy.connect_four import make_solver; "
             "from boardzoo.strategy.connect_four.solver import parse_moves; "
             "s = make_solver(sys.argv[1]); p = parse_moves(sys.argv[2]); t = time.perf_counter(); "
             "r = s.solve(p); print(r, s.nodes, time.perf_counter() - t)")


def run_process(command: list[str], stdin: str) -> tuple[str, float, float]:
    """(stdout, wall seconds, peak resident MB) of ``command`` fed ``stdin``. The peak is
    read by GNU time: a child forked from this (large) process would start its count
    from this process's size."""
    with tempfile.NamedTemporaryFile("r") as peak_file:
        start = time.perf_counter()
        result = subprocess.run([TIME, "-f", "%M", "-o", peak_file.name, *command], input=stdin,
                                capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if result.returncode:
            raise SystemExit(f"{command[0]} failed with status {result.returncode}: {result.stderr[-500:]}")
        return result.stdout, seconds, int(peak_file.read().split()[-1]) / 1024


def pons_batch(pons: str, positions: list[str]) -> tuple[list[int], float]:
    """Pons' scores and its seconds for the batch, its start-up (an empty run) taken off."""
    _, startup, _ = run_process([pons], "")
    out, seconds, _ = run_process([pons], "".join(p + "\n" for p in positions))
    return [int(line.split()[1]) for line in out.splitlines()], seconds - startup


def boardzoo_batch(solver: Solver, positions: list[str]) -> tuple[list[int], list[float]]:
    scores, times = [], []
    for moves in positions:
        state = parse_moves(moves)
        start = time.perf_counter()
        scores.append(solver.solve(state))
        times.append(time.perf_counter() - start)
    return scores, times


def one_position(pons: str | None, moves: str) -> list[list[str]]:
    rows = []
    out, wall, peak = run_process([sys.executable, "-c", SOLVE_ONE, "compiled", moves], "")
    score, nodes, seconds = out.split()
    rows.append([f"`{moves or '(empty)'}`", "boardzoo compiled", score, f"{int(nodes):,}", f"{float(seconds):.1f}",
                 f"{wall:.1f}", f"{peak:.0f}"])
    if pons:
        out, wall, peak = run_process([pons], moves + "\n")
        rows.append([f"`{moves or '(empty)'}`", "Pons C++", out.split()[-1], "", "", f"{wall:.1f}", f"{peak:.0f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pons", default=os.environ.get("PONS_SOLVER"), help="path of Pons' c4solver")
    parser.add_argument("--empty", action="store_true", help="also solve the empty board (minutes)")
    parser.add_argument("--python", action="store_true", help="also run the Python solver on the batch")
    args = parser.parse_args()
    if args.pons and not os.access(args.pons, os.X_OK):
        raise SystemExit(f"--pons {args.pons}: not an executable file")
    lines = [line.split() for line in DATA.read_text().splitlines()]
    positions, expected = [fields[0] for fields in lines], [int(fields[1]) for fields in lines]
    make_solver("compiled").solve(parse_moves(positions[0]))  # loads the compiled code
    rows = []
    scores, times = boardzoo_batch(make_solver("compiled"), positions)
    assert scores == expected, "the compiled solver disagrees with the file"
    compiled_mean = sum(times) / len(times)
    rows.append(["boardzoo compiled", f"{1000 * compiled_mean:.2f}", f"{1000 * max(times):.1f}"])
    if args.python:
        scores, times = boardzoo_batch(make_solver("python"), positions)
        assert scores == expected, "the Python solver disagrees with the file"
        rows.append(["boardzoo Python", f"{1000 * sum(times) / len(times):.2f}", f"{1000 * max(times):.1f}"])
    if args.pons:
        scores, seconds = pons_batch(args.pons, positions)
        assert scores == expected, "Pons' solver disagrees with the file"
        pons_mean = seconds / len(positions)
        rows.append(["Pons C++", f"{1000 * pons_mean:.2f}", ""])
        for row in rows:
            row.append(f"{float(row[1]) / 1000 / pons_mean:.2f}x")
    else:
        print("(Pons' solver not measured: pass --pons PATH; see the docstring)")
    print(f"Connect Four solvers ({machine()}, {time.strftime('%Y-%m-%d')})\n")
    print(f"{len(positions)} middle-game positions of 10^4-10^6 nodes, one table per batch, every score checked:\n")
    print(table(["solver", "mean ms", "max ms", *(["time vs Pons"] if args.pons else [])], rows))
    print("\nOne position per process (the table starts empty; wall time includes start-up):\n")
    single = one_position(args.pons, "4453")
    if args.empty:
        single += one_position(args.pons, "")
    print(table(["position", "solver", "score", "nodes", "search s", "wall s", "peak MB"], single))


if __name__ == "__main__":
    main()
