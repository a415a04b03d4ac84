"""The ``alphazero`` agent's NumPy network: its buffered forward pass (the one it plays
with) against the same computation written plainly (``Network.reference``), positions a
second at several batch sizes, rounds interleaved, one BLAS thread. The network is run
5's architecture (64 channels, 4 residual blocks) or the file given, on random boards.

    python bench/bench_network.py [--weights FILE] [--seconds 10] [--rounds 5]
"""

from __future__ import annotations

import argparse

import numpy as np
from common import compare, machine, table
from threadpoolctl import threadpool_limits

from boardzoo.agents.alphazero.network import Network

RUN5 = {"kind": "conv", "input": [3, 6, 7], "channels": 64, "blocks": 4, "value_hidden": 64, "actions": 7}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", help="a network file (default: random weights of run 5's shape)")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per batch size and side")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batches", default="1,8,32,256")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    if args.weights:
        network = Network.load(args.weights)
    else:
        from boardzoo.agents.alphazero.network import parameter_shapes

        arrays = {name: rng.normal(0, 0.1, shape).astype(np.float32) for name, shape in parameter_shapes(RUN5).items()}
        network = Network(RUN5, arrays)
    rows = []
    with threadpool_limits(1):
        for n in map(int, args.batches.split(",")):
            inputs = (rng.random((n, *network.input_shape)) < 0.3).astype(np.float32)

            def buffered(inputs=inputs) -> int:
                network(inputs)
                return len(inputs)

            def plain(inputs=inputs) -> int:
                network.reference(inputs)
                return len(inputs)

            rates = compare({"buffered": buffered, "plain": plain}, args.seconds * 2, args.rounds)
            rows.append([n, f"{rates['buffered']:,.0f}", f"{rates['plain']:,.0f}",
                         f"{rates['buffered'] / rates['plain']:.2f}x"])
    print(f"NumPy network forward pass, positions a second ({machine()}, {network.architecture['channels']}x"
          f"{network.architecture['blocks']}, median of {args.rounds} interleaved rounds)\n")
    print(table(["batch", "buffered", "plain (reference)", "ratio"], rows))


if __name__ == "__main__":
    main()
