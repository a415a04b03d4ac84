"""Batched Connect Four (``boardzoo.vector``) against boardzoo's AEC env, side by side in
one run: plies per second of random legal play with both seats' observations and the
masks written, at batch sizes 1, 64, 1024 and 4096 (the compiled batch, the fast extra),
and the reference batch (one AEC env a game) and the AEC env's own loop at batch 1.
Random actions are drawn from the masks in one numpy call per step for every batch.

    python bench/bench_vector.py [--plies 400000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from common import machine, table

from boardzoo.envs import connect_four_v0
from boardzoo.vector import make


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask``."""
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def batch_plies_per_second(batch: int, plies: int, engine: str) -> float:
    games = make("connect_four_v0", batch=batch, auto_reset=True, engine=engine)
    state = games.reset(seed=0)
    rng = np.random.default_rng(0)
    state = games.step(random_legal(state.legal_action_mask, rng))  # compiled code loaded before the clock
    steps = max(1, plies // batch)
    start = time.perf_counter()
    for _ in range(steps):
        state = games.step(random_legal(state.legal_action_mask, rng))
    return steps * batch / (time.perf_counter() - start)


def aec_plies_per_second(plies: int) -> float:
    env = connect_four_v0.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    start, done = time.perf_counter(), 0
    while done < plies:
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            done += 1
        env.reset()
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plies", type=int, default=400_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cases = {"AEC env (connect_four_v0.env())": lambda: aec_plies_per_second(args.plies // 10),
             "reference batch, 64 games": lambda: batch_plies_per_second(64, args.plies // 20, "python")}
    for batch in (1, 64, 1024, 4096):
        cases[f"compiled batch, {batch} games"] = (lambda b=batch: batch_plies_per_second(
            b, args.plies // 10 if b == 1 else args.plies, "compiled"))
    figures: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, run in cases.items():
            figures[name].append(run())
    median = {name: statistics.median(values) for name, values in figures.items()}
    aec = median["AEC env (connect_four_v0.env())"]
    rows = [[name, f"{value:,.0f}", f"{value / aec:.1f}x"] for name, value in median.items()]
    print(f"Connect Four random legal play, observations and masks written ({machine()}; "
          f"medians of {args.rounds} rounds)\n")
    print(table(["implementation", "plies/s", "vs the AEC env"], rows))


if __name__ == "__main__":
    main()
