"""Whole self-play tasks with the network's answers remembered per task (the
``evaluation_cache`` of :class:`~boardzoo.training.alphazero.selfplay.SelfPlayTask`)
against asking it about every leaf: Connect Four, the shipped network, the preset's
settings (32 simulations, random openings), the same seeds both ways, rounds
interleaved.

    python bench/bench_selfplay_cache.py [--games 256] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from common import machine, table

from boardzoo.agents.alphazero.evaluator import shipped_path
from boardzoo.agents.alphazero.network import Network
from boardzoo.training.alphazero.config import PRESETS
from boardzoo.training.alphazero.selfplay import SelfPlayTask, play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = PRESETS["connect_four"]
    network = Network.load(shipped_path("connect_four"))
    settings = {"cached": 1 << 18, "every leaf asked": 0}
    seconds: dict[str, list[float]] = {name: [] for name in settings}
    facts: dict[str, tuple[int, int]] = {}
    for round_number in range(args.rounds):
        for name, cache in settings.items():
            task = SelfPlayTask(config, network, args.games, seed=round_number, evaluation_cache=cache)
            began = time.perf_counter()
            result = play(task)
            seconds[name].append(time.perf_counter() - began)
            facts[name] = (result.plies, result.evaluations)
    base = statistics.median(seconds["every leaf asked"])
    print(f"Self-play tasks of {args.games} Connect Four games, the shipped network ({machine()}, one torch thread; "
          f"medians of {args.rounds} interleaved rounds)\n")
    print(table(["network", "seconds a task", "network evaluations (last round)", "speed-up"],
                [[name, f"{statistics.median(times):.1f}", f"{facts[name][1]:,}",
                  f"{base / statistics.median(times):.2f}x"] for name, times in seconds.items()]))


if __name__ == "__main__":
    main()
