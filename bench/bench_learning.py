"""The trainer's learning steps per second in float32 against bfloat16 (the
``learn_precision`` setting), and with one torch thread against two (a trainer with two
local self-play workers learns on their cores while they wait): Connect Four's preset
(64 x 4 network, batches of 512, mirrored), the trainer's own step on a buffer of random
positions, interleaved rounds.

    python bench/bench_learning.py [--seconds 20] [--rounds 5]
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile

import numpy as np
import torch
from common import compare, machine, table

from boardzoo.training.alphazero import PRESETS, Trainer

POSITIONS = 20_000


def learner(precision: str, workers: int, folder: str):
    """A function taking one of the trainer's learning steps; returns how many it took."""
    config = dataclasses.replace(PRESETS["connect_four"], learn_precision=precision, mistake_sets="")
    trainer = Trainer(f"{folder}/{precision}-{workers}", config, workers=workers, log=lambda line: None)
    rng = np.random.default_rng(0)
    size = int(np.prod(trainer.input_shape))
    trainer.buffer.add(rng.integers(0, 2, (POSITIONS, size)).astype(np.float16),
                       rng.dirichlet(np.ones(trainer.actions), POSITIONS).astype(np.float32),
                       rng.choice([-1.0, 0.0, 1.0], POSITIONS).astype(np.float32))
    new_positions = int(config.batch_size / config.sample_reuse)  # one step a call

    def step_once() -> int:
        return int(trainer._learn(1, new_positions)["steps"])
    return step_once


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as folder:
        variants = {"float32, 1 thread": ("float32", 1), "bfloat16, 1 thread": ("bfloat16", 1),
                    "float32, 2 threads": ("float32", 2)}
        rates = compare({name: learner(precision, threads, folder) for name, (precision, threads) in variants.items()},
                        args.seconds, args.rounds)
    print(f"Learning steps, Connect Four's preset, batches of 512 ({machine()}; "
          f"medians of {args.rounds} interleaved rounds)\n")
    base = rates["float32, 1 thread"]
    print(table(["learn_precision, torch threads", "steps / s", "vs float32, 1 thread"],
                [[name, f"{rate:.2f}", f"{rate / base:.2f}x"] for name, rate in rates.items()]))


if __name__ == "__main__":
    main()
