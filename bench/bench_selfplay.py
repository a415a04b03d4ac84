"""Self-play's search, batched across games against one game at a time: Connect Four
positions searched per second by Gumbel AlphaZero (32 simulations a move, the shipped
network's architecture, 64 channels x 4 blocks), the network asked about every game's
leaf in one PyTorch call (``--batch`` games) or about one leaf per call, one thread; and
the batched search with the network in bfloat16 (the ``selfplay_precision`` setting).

    python bench/bench_selfplay.py [--batch 256] [--seconds 20] [--rounds 5]
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import torch
from common import compare, machine, table
from make_solver_positions import random_position

from boardzoo.fast.core import core_of
from boardzoo.fast.gumbel import BatchedGumbelSearch
from boardzoo.training.alphazero.config import PRESETS
from boardzoo.training.alphazero.model import PolicyValueNet
from boardzoo.training.alphazero.selfplay import inference_module, torch_evaluator


def positions(batch: int, simulations: int, evaluate, seed: int):
    """A function searching ``batch`` mid-game positions once; returns how many."""
    rng = np.random.default_rng(seed)
    drawing = random.Random(seed)
    roots = []
    while len(roots) < batch:
        drawn = random_position(drawing, 0, 12)
        if drawn is not None:
            roots.append(core_of("connect_four").encode(drawn[0]))
    roots_array = np.stack(roots)
    search = BatchedGumbelSearch("connect_four", 7, (3, 6, 7), roots_array.shape[1], batch,
                                 capacity=simulations + 1)

    def run_once() -> int:
        search.run(roots_array, evaluate, simulations, gumbel=rng.gumbel(size=(batch, 7)))
        return batch
    return run_once


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    config = PRESETS["connect_four"]
    network = PolicyValueNet(config.architecture((3, 6, 7), 7)).to_network()
    evaluate = torch_evaluator(inference_module(network))  # as self-play sets it up
    evaluate_bfloat16 = torch_evaluator(inference_module(network, "bfloat16"))
    rates = compare({"batched": positions(args.batch, args.simulations, evaluate, 1),
                     "batched, bfloat16": positions(args.batch, args.simulations, evaluate_bfloat16, 1),
                     "one game a call": positions(1, args.simulations, evaluate, 1)}, args.seconds, args.rounds)
    base = rates["one game a call"]
    print(f"Self-play search, Connect Four, {args.simulations} simulations a move ({machine()}, one torch thread; "
          f"medians of {args.rounds} interleaved rounds)\n")
    print(table(["search", "positions searched / s", "network evaluations / s", "vs one game a call"],
                [[name.replace("batched", f"{args.batch} games, one network call a simulation"),
                  f"{rate:,.0f}", f"{rate * (args.simulations + 1):,.0f}", f"{rate / base:.1f}x"]
                 for name, rate in rates.items()]))


if __name__ == "__main__":
    main()
