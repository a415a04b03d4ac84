"""MCTS simulations per second on the Connect Four start position (UCB1 with c=2,
one random roll-out per simulation), boardzoo's MCTS (the Python engine, and the
compiled one when the fast extra is installed) side by side with OpenSpiel's Python
``MCTSBot`` (``RandomRolloutEvaluator(n_rollouts=1)``) and its C++ ``pyspiel.MCTSBot``
(``pip install .[bench]``). Then the compiled engine against the Python one on Nim
(with and without the coin) and Cantris, the iterations each gets in the Nim study's
10 ms, and the memory of the Python engine's tree in bytes per node.

    python bench/bench_mcts.py [--simulations 10000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import gc
import random
import time
import tracemalloc

import numpy as np
from common import machine, table

from boardzoo import fast
from boardzoo.agents import make
from boardzoo.games import ConnectFourState


def boardzoo_search(simulations: int, seed: int, engine: str = "python", state=None) -> float:
    agent = make(f"mcts:iterations={simulations},c=2,engine={engine}", seed=seed)
    start = time.perf_counter()
    agent.act(None, state if state is not None else ConnectFourState())
    return time.perf_counter() - start


def compiled_search(simulations: int, seed: int) -> float:
    return boardzoo_search(simulations, seed, "compiled")


def engine_ratios(rounds: int) -> list[list[str]]:
    """Compiled against Python simulations/s on the other games' start positions."""
    from boardzoo.games import CantrisState, NimState
    from boardzoo.games.cantris import PRESETS, deal

    def cantris(board: str):
        rows, cols, bonus = PRESETS[board]
        return CantrisState(deal(rows, cols, random.Random(0)), rows, bonus)

    positions = {"Nim n=50, k=3": lambda: NimState(50, 3), "Nim with the coin n=50, k=3": lambda: NimState(50, 3, True),
                 "Cantris 8x4": lambda: cantris("8x4"), "Cantris 10x5": lambda: cantris("10x5"),
                 "Connect Four 6x7": ConnectFourState}
    rows = []
    for name, position in positions.items():
        rates = {}
        for engine, simulations in (("python", 5000), ("compiled", 50000)):
            times = sorted(boardzoo_search(simulations, seed, engine, position()) for seed in range(rounds))
            rates[engine] = simulations / times[len(times) // 2]
        rows.append([name, f"{rates['python']:,.0f}", f"{rates['compiled']:,.0f}",
                     f"{rates['compiled'] / rates['python']:.1f}x"])
    return rows


def nim_iterations_in(budget: float, engine: str, moves: int = 20) -> float:
    """Mean iterations of ``mcts:time=budget`` on Nim n=50, k=3 (the Nim study's setting)."""
    from boardzoo.games import NimState

    agent = make(f"mcts:time={budget},engine={engine}", seed=0)
    counts = []
    for _ in range(moves):
        agent.act(None, NimState(50, 3))
        counts.append(agent.stats["iterations"])
    return sum(counts) / len(counts)


def openspiel_python_search(simulations: int, seed: int) -> float:
    import pyspiel
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("connect_four")
    rng = np.random.RandomState(seed)
    bot = mcts.MCTSBot(game, uct_c=2, max_simulations=simulations, solve=False, random_state=rng,
                       evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng))
    state = game.new_initial_state()
    start = time.perf_counter()
    bot.step(state)
    return time.perf_counter() - start


def openspiel_cpp_search(simulations: int, seed: int) -> float:
    import pyspiel

    game = pyspiel.load_game("connect_four")
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, simulations,
                          1000, False, seed, False)
    state = game.new_initial_state()
    start = time.perf_counter()
    bot.step(state)
    return time.perf_counter() - start


def bytes_per_node(simulations: int) -> tuple[float, int]:
    agent = make(f"mcts:iterations={simulations}", seed=0)
    tracemalloc.start()
    agent.act(None, ConnectFourState())
    size = sum(stat.size for stat in tracemalloc.take_snapshot().statistics("filename")
               if "/agents/mcts/" in stat.traceback[0].filename)
    tracemalloc.stop()
    return size / agent.stats["tree_size"], agent.stats["tree_size"]


def budget_adherence(budget: float, engine: str, moves: int = 30) -> tuple[float, float]:
    """Mean and worst decision time of ``mcts:time=budget`` over ``moves`` decisions."""
    gc.collect()  # not the garbage of the benchmarks before
    agent = make(f"mcts:time={budget},engine={engine}", seed=0)
    seconds = []
    for _ in range(moves):
        start = time.perf_counter()
        agent.act(None, ConnectFourState())
        seconds.append(time.perf_counter() - start)
    return sum(seconds) / len(seconds), max(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulations", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    runs = {"boardzoo mcts (Python)": boardzoo_search}
    if fast.available():
        runs["boardzoo mcts:engine=compiled"] = compiled_search
        compiled_search(100, 0)  # loads the compiled code (compiled on the first use ever)
    else:
        print("(the compiled engine not measured: pip install '.[fast]')")
    try:
        import pyspiel  # noqa: F401

        runs["OpenSpiel MCTSBot (Python)"] = openspiel_python_search
        runs["OpenSpiel pyspiel.MCTSBot (C++)"] = openspiel_cpp_search
    except ImportError as error:
        print(f"(OpenSpiel not measured: {error}; pip install '.[bench]')")
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for round_ in range(args.rounds):  # interleaved rounds, the median of each
        for name, run in runs.items():
            seconds[name].append(run(args.simulations, round_))
    rates = {name: args.simulations / sorted(values)[len(values) // 2] for name, values in seconds.items()}
    python_reference = rates.get("OpenSpiel MCTSBot (Python)")
    cpp_reference = rates.get("OpenSpiel pyspiel.MCTSBot (C++)")
    rows = [[name, f"{rate:,.0f}",
             f"{rate / python_reference:.2f}x" if python_reference else "",
             f"{rate / cpp_reference:.2f}x" if cpp_reference else ""] for name, rate in rates.items()]
    print(f"MCTS simulations/s, Connect Four start, c=2, {args.simulations} simulations a search "
          f"({machine()}; median of {args.rounds} interleaved rounds)\n")
    print(table(["searcher", "simulations/s", "vs OpenSpiel Python", "vs OpenSpiel C++"], rows))
    if fast.available():
        print(f"\nThe compiled engine against the Python one (simulations/s, start positions, median of "
              f"{args.rounds} searches of 5,000 (Python) and 50,000 (compiled) simulations):\n")
        print(table(["position", "Python", "compiled", "ratio"], engine_ratios(args.rounds)))
        python_count, compiled_count = nim_iterations_in(0.01, "python"), nim_iterations_in(0.01, "compiled")
        print(f"\nIterations in the Nim study's 10 ms (Nim n=50, k=3, mean of 20 decisions): "
              f"Python {python_count:,.0f}, compiled {compiled_count:,.0f}")
    print("\nTime budgets (mcts:time=T, Connect Four start, 30 decisions, measured around act()):")
    for engine in ("python", "compiled") if fast.available() else ("python",):
        for budget in (0.01, 0.03, 0.1):
            mean, worst = budget_adherence(budget, engine)
            print(f"  {engine}, T = {budget * 1000:.0f} ms: mean {mean * 1000:.2f} ms ({mean / budget:.3f} T), "
                  f"worst {worst * 1000:.2f} ms")
    per_node, nodes = bytes_per_node(20_000)
    print(f"\nboardzoo tree memory: {per_node:.0f} bytes per node ({nodes:,} nodes after 20,000 iterations, "
          "tracemalloc of boardzoo/agents/mcts allocations)")


if __name__ == "__main__":
    main()
