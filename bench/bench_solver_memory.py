"""Peak memory and time of the exact solver on hard, early positions: each position is
solved by ``boardzoo solve`` in a process of its own, whose peak resident set size the
operating system reports. The solver's tables are fixed at ``--memory`` MB, so the peak
should not grow with the position; a ``--timeout`` keeps the hardest ones bounded.

    python bench/bench_solver_memory.py [--timeout 600] [--memory 256] [--engine python] [POSITION ...]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

from common import machine, table

DEFAULT_POSITIONS = ["4453", "444", "4"]


def measure(position: str, timeout: float, memory: float, engine: str) -> list[str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "boardzoo.cli", "solve", "connect_four", position, "--verbose",
                             "--engine", engine,
                             "--timeout", str(timeout), "--memory", str(memory)], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    fields = result.stdout.split()
    if result.returncode == 0:
        score, nodes = fields[1], f"{int(fields[2]):,}"
    else:
        score, nodes = "timeout" if "no exact score" in result.stdout else "error", "-"
    # ru_maxrss of the children is the largest child so far: report it only when this
    # child set a new peak (the positions run from the cheapest up in the default list).
    peak = f"{peak_kb / 1024:.0f}" if peak_kb > before else f"<= {before / 1024:.0f}"
    return [position, score, nodes, f"{seconds:.1f}", peak]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("positions", nargs="*", default=DEFAULT_POSITIONS)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per position (default 600)")
    parser.add_argument("--memory", type=float, default=256.0, help="the solver's --memory in MB (default 256)")
    parser.add_argument("--engine", default="python", help="the solver's --engine (default python)")
    args = parser.parse_args()
    rows = [measure(position, args.timeout, args.memory, args.engine) for position in args.positions]
    print(f"Connect Four solver memory ({machine()}; --engine {args.engine}, --memory {args.memory:g} MB, "
          f"--timeout {args.timeout:g} s)\n")
    print(table(["position", "score", "nodes", "seconds", "peak RSS MB"], rows))


if __name__ == "__main__":
    main()
