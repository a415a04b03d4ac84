"""One Connect Four position's Gumbel search with the sweeps of sequential halving run
at once (each a single call of the network for all its leaves, as the ``alphazero``
agent searches) against one simulation at a time: simulations a second and network
calls a search, the same positions and network both ways, rounds interleaved, one BLAS
thread. Both make the same tree (``tests/test_gumbel_search.py``).

    python bench/bench_sweeps.py [--weights FILE] [--simulations 250,800] [--positions 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from common import machine, table
from threadpoolctl import threadpool_limits

from boardzoo.agents.alphazero.evaluator import shipped_path
from boardzoo.agents.alphazero.network import Network
from boardzoo.fast.cached_evaluator import CachedEvaluator
from boardzoo.fast.core import core_of
from boardzoo.fast.gumbel import BatchedGumbelSearch
from boardzoo.training.alphazero.referee import SET_NAMES, read_mistake_sets, set_up
from boardzoo.training.alphazero.selfplay import CountingEvaluator

SETS_FILE = "bench/data/connect_four_mistake_sets.txt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", help="a network file (default: the shipped Connect Four network)")
    parser.add_argument("--simulations", default="250,800")
    parser.add_argument("--positions", type=int, default=20, help="positions from each of the six sets")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    network = Network.load(args.weights or shipped_path("connect_four"))
    sets = read_mistake_sets(SETS_FILE)
    encode = core_of("connect_four").encode
    roots = [encode(set_up(position)[1]) for name in SET_NAMES for position in sets[name][:args.positions]]
    rows = []
    with threadpool_limits(1):
        for simulations in map(int, args.simulations.split(",")):
            rates: dict[bool, list[float]] = {True: [], False: []}
            calls: dict[bool, int] = {}
            for _ in range(args.rounds):
                for sweeps in (True, False):
                    evaluate = CountingEvaluator(CachedEvaluator(network, 1 << 16))
                    search = BatchedGumbelSearch("connect_four", network.num_actions,
                                                 network.input_shape, len(roots[0]), 1)
                    start = time.perf_counter()
                    for root in roots:
                        search.run(root[None, :], evaluate, simulations, sweeps=sweeps)
                    rates[sweeps].append(simulations * len(roots) / (time.perf_counter() - start))
                    calls[sweeps] = evaluate.calls // len(roots)
            swept, alone = statistics.median(rates[True]), statistics.median(rates[False])
            rows.append([simulations, f"{swept:,.0f}", f"{alone:,.0f}", f"{swept / alone:.2f}x",
                         f"{calls[True]} / {calls[False]}"])
    print(f"Gumbel search of one position, simulations a second ({machine()}, {len(roots)} positions, "
          f"median of {args.rounds} interleaved rounds)\n")
    print(table(["simulations", "sweeps at once", "one at a time", "ratio", "network calls a search"], rows))


if __name__ == "__main__":
    main()
