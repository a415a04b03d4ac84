"""First-use compile time of the compiled engine, and its load time once cached: each
measured in a fresh process, the first with an empty numba cache (a temporary
NUMBA_CACHE_DIR), the second with the cache the first one wrote.

    python bench/bench_compile.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from common import machine, table

RUN = "from boardzoo.agents.warmup import warm_up; print(warm_up())"


def measure(cache: str) -> tuple[float, float]:
    """(seconds inside warm_up, wall seconds of the process)."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, check=True,
                            env={**os.environ, "NUMBA_CACHE_DIR": cache})
    return float(result.stdout.split()[-1]), time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        cold = measure(cache)
        warm = measure(cache)
    print(f"Compiled engine start-up ({machine()}, {time.strftime('%Y-%m-%d')}): every compiled function "
          "(solver, four game cores, roll-outs, MCTS, the purple search) used once\n")
    print(table(["cache", "warm_up() s", "process wall s"],
                [["empty (first use)", f"{cold[0]:.1f}", f"{cold[1]:.1f}"],
                 ["filled (later uses)", f"{warm[0]:.1f}", f"{warm[1]:.1f}"]]))
    print("\ntarget: first use at most 30 s")


if __name__ == "__main__":
    main()
