"""MCTS simulations per second on the Connect Four start position (UCB1 with c=2,
one random roll-out per simulation), boardzoo's MCTS side by side with OpenSpiel's
Python ``MCTSBot`` (``RandomRolloutEvaluator(n_rollouts=1)``) and its C++
``pyspiel.MCTSBot`` (``pip install .[bench]``). Also the memory of boardzoo's tree in
bytes per node.

    python bench/bench_mcts.py [--simulations 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

import numpy as np
from common import machine, table

from boardzoo.agents import make
from boardzoo.games import ConnectFourState


def boardzoo_search(simulations: int, seed: int) -> float:
    agent = make(f"mcts:iterations={simulations},c=2", seed=seed)
    start = time.perf_counter()
    agent.act(None, ConnectFourState())
    return time.perf_counter() - start


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


def budget_adherence(budget: float, moves: int = 30) -> tuple[float, float]:
    """Mean and worst decision time of ``mcts:time=budget`` over ``moves`` decisions."""
    gc.collect()  # not the garbage of the benchmarks before
    agent = make(f"mcts:time={budget}", seed=0)
    seconds = []
    for _ in range(moves):
        start = time.perf_counter()
        agent.act(None, ConnectFourState())
        seconds.append(time.perf_counter() - start)
    return sum(seconds) / len(seconds), max(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    runs = {"boardzoo mcts (Python)": boardzoo_search}
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
    print("\nTime budgets (mcts:time=T, Connect Four start, 30 decisions, measured around act()):")
    for budget in (0.01, 0.03, 0.1):
        mean, worst = budget_adherence(budget)
        print(f"  T = {budget * 1000:.0f} ms: mean {mean * 1000:.2f} ms ({mean / budget:.3f} T), "
              f"worst {worst * 1000:.2f} ms")
    per_node, nodes = bytes_per_node(20_000)
    print(f"\nboardzoo tree memory: {per_node:.0f} bytes per node ({nodes:,} nodes after 20,000 iterations, "
          "tracemalloc of boardzoo/agents/mcts allocations)")


if __name__ == "__main__":
    main()
