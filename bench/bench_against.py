"""This checkout against another one (say, the previous main) on the hot paths, side by
side in one run: MCTS simulations per second (the Python and the compiled engine, the
Connect Four start, as bench_mcts.py), the solver's batches (the Python and the compiled
solver on the middle-game set of bench/data, as bench_solver.py), the purple search
(Python and compiled, as bench_purple_search.py), Connect Four's compiled batch (1,024
games of random legal play, as bench_vector.py) and the compiled Gumbel search (256
games at once as self-play runs it, and one position as the agent runs it; a network
that answers at once, so the search alone is timed). Each measurement runs in a fresh
process of either checkout, the two alternating round by round; the table gives the
medians and this checkout's speed relative to the other (above 1: faster).

    git worktree add /tmp/previous <commit>
    python bench/bench_against.py /tmp/previous [--rounds 5] [--only batch]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys

from common import machine, table

HERE = pathlib.Path(__file__).resolve().parent.parent
POSITIONS = HERE / "bench" / "data" / "connect_four_positions.txt"

# Each snippet prints one number, work per second; it reads the API of either layout.
MCTS = """
import time
from boardzoo.agents import make
from boardzoo.games import ConnectFourState
agent = make("mcts:iterations={n},c=2,engine={engine}", seed=0)
agent.act({{}}, ConnectFourState())  # loads compiled code; builds what a first move builds
start = time.perf_counter()
for seed in range(3):
    agent = make("mcts:iterations={n},c=2,engine={engine}", seed=seed)
    agent.act({{}}, ConnectFourState())
print(3 * {n} / (time.perf_counter() - start))
"""
SOLVER = """
import time
try:
    from boardzoo.strategy.connect_four import make_solver
    from boardzoo.strategy.connect_four.solver import parse_moves
except ImportError:
    from boardzoo.games.connect_four_solver import make_solver, parse_moves
lines = [line.split() for line in open({path!r}) if line.startswith("{subset} ")]
solver = make_solver("{engine}")
solver.solve(parse_moves(lines[0][1]))
start, nodes = time.perf_counter(), 0
for _, moves, score in lines:
    assert solver.solve(parse_moves(moves)) == int(score)
    nodes += solver.nodes
print(nodes / (time.perf_counter() - start))
"""
PURPLE = """
import random, sys, time
sys.path.insert(0, "tests")  # this checkout's own helper: its imports are its layout's
from purple_positions import random_position
try:
    from boardzoo.strategy.geister import make_purple_search
    search = make_purple_search("{engine}", hunt=3.0, race=1.0)
except ImportError:
    if "{engine}" == "compiled":
        from boardzoo.fast.purple import CompiledPurpleSearch as Search
    else:
        from boardzoo.games.geister.purple import PurpleSearch as Search
    search = Search(hunt=3.0, race=1.0)
cases = [random_position(seed, 8 + 2 * (seed % 20)) for seed in range({count})]
search.best_move(cases[0], None, 2, 0.5)
start, nodes = time.perf_counter(), 0
for position in cases:
    search.best_move(position, None, {depth}, 0.5)
    nodes += search.nodes
print(nodes / (time.perf_counter() - start))
"""

BATCH = """
import time
import numpy as np
from boardzoo.vector import make, random_actions
games = make("connect_four_v0", batch=1024, auto_reset=True, engine="compiled")
batch, rng = games.reset(seed=0), np.random.default_rng(0)
batch = games.step(batch, random_actions(batch, rng))
start, steps = time.perf_counter(), 0
while time.perf_counter() - start < 3:
    for _ in range(100):
        batch = games.step(batch, random_actions(batch, rng))
    steps += 100
print(steps * 1024 / (time.perf_counter() - start))
"""
GUMBEL = """
import random, time
import numpy as np
try:
    from boardzoo.fast.core import core_of
    encode, game = core_of("connect_four").encode, "connect_four"
except ImportError:
    from boardzoo.fast.games import GAME_IDS, encode
    game = GAME_IDS["connect_four"]
from boardzoo.fast.gumbel import BatchedGumbelSearch
from boardzoo.games import ConnectFourState
drawing, roots = random.Random(0), []
while len(roots) < {batch}:
    state = ConnectFourState()
    for _ in range(drawing.randrange(12)):
        if state.current_player() >= 0:
            state.apply(drawing.choice(state.legal_actions()))
    if state.current_player() >= 0:
        roots.append(encode(state))
roots = np.stack(roots)
search = BatchedGumbelSearch(game, 7, (3, 6, 7), roots.shape[1], {batch}, capacity={simulations} + 1)
def evaluate(inputs):
    return np.zeros((len(inputs), 7), np.float32), np.zeros(len(inputs), np.float32)
search.run(roots, evaluate, {simulations})
start, runs = time.perf_counter(), 0
while time.perf_counter() - start < 3:
    search.run(roots, evaluate, {simulations})
    runs += 1
print(runs * {batch} * {simulations} / (time.perf_counter() - start))
"""


def measure(checkout: pathlib.Path, code: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(checkout), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=checkout, env=env, capture_output=True, text=True,
                          timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr.strip().splitlines()[-1]}")
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=pathlib.Path, help="the other checkout (its root folder)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help="run the measures whose name contains this text")
    args = parser.parse_args()
    cases = {
        "MCTS, python engine (simulations/s)": MCTS.format(n=3000, engine="python"),
        "MCTS, compiled engine (simulations/s)": MCTS.format(n=100_000, engine="compiled"),
        "solver, python, middle-easy set (nodes/s)": SOLVER.format(path=str(POSITIONS), subset="middle-easy",
                                                                   engine="python"),
        "solver, compiled, middle-hard set (nodes/s)": SOLVER.format(path=str(POSITIONS), subset="middle-hard",
                                                                     engine="compiled"),
        "purple, python, 12 positions depth 3 (nodes/s)": PURPLE.format(count=12, depth=3, engine="python"),
        "purple, compiled, 40 positions depth 4 (nodes/s)": PURPLE.format(count=40, depth=4, engine="compiled"),
        "Connect Four batch, compiled, 1,024 games (plies/s)": BATCH,
        "Gumbel search, 256 games x 32 simulations (simulations/s)": GUMBEL.format(batch=256, simulations=32),
        "Gumbel search, one position x 800 simulations (simulations/s)": GUMBEL.format(batch=1, simulations=800),
    }
    cases = {name: code for name, code in cases.items() if args.only.lower() in name.lower()}
    if not cases:
        raise SystemExit(f"no measure's name contains {args.only!r}")
    results: dict[str, dict[str, list[float]]] = {name: {"this": [], "other": []} for name in cases}
    for round_ in range(args.rounds):
        for name, code in cases.items():
            order = ("this", "other") if round_ % 2 == 0 else ("other", "this")
            for side in order:
                results[name][side].append(measure(HERE if side == "this" else args.other, code))
    rows = []
    for name, sides in results.items():
        this, other = statistics.median(sides["this"]), statistics.median(sides["other"])
        spread = max(sides["this"]) / min(sides["this"])
        rows.append([name, f"{other:,.0f}", f"{this:,.0f}", f"{this / other:.3f}", f"{spread:.2f}"])
    print(f"This checkout against {args.other} ({machine()}; {args.rounds} rounds, medians)\n")
    print(table(["measure", "other", "this", "this / other", "this max / min"], rows))


if __name__ == "__main__":
    main()
