"""MaskablePPO (sb3-contrib) training speed on Connect Four against random, side by side
in one run: the batched env (``boardzoo.training.sb3_vec_env``, 64 games stepped in one
call) against one ``SingleAgentEnv``, with the same network, the same 2,048 steps per
update (64 games x 32 steps, or 2,048 steps of one game), batch 256, 4 epochs; torch on
one thread. Training steps per second (environment steps, the PPO updates included), and
the win rate of each trained model against random over 100 arena games.

    python bench/bench_ppo_vector.py [--steps 40960] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from common import machine, table


def train(kind: str, steps: int, seed: int, folder: Path) -> tuple[float, float]:
    import torch
    from sb3_contrib import MaskablePPO

    from boardzoo import arena
    from boardzoo.training import quiet_logger
    from boardzoo.training.sb3_vec_env import vec_env
    from boardzoo.training.single_agent import SingleAgentEnv

    torch.set_num_threads(1)
    if kind == "vector":
        env, n_steps = vec_env("connect_four_v0", num_envs=64, opponent="random"), 32
    else:
        env, n_steps = SingleAgentEnv("connect_four_v0", opponent="random"), 2048
    model = MaskablePPO("MlpPolicy", env, seed=seed, n_steps=n_steps, batch_size=256, n_epochs=4,
                        learning_rate=1e-3, ent_coef=0.01, policy_kwargs={"net_arch": [128, 128]}, verbose=0)
    quiet_logger(model)
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    rate = steps / (time.perf_counter() - start)
    path = folder / f"{kind}-{seed}.zip"
    model.save(path)
    summary = arena.summarize(arena.run("connect_four_v0", f"sb3:path={path}", "random", games=100, seed=seed,
                                        progress=False))
    return rate, summary["a_wins"] / summary["games"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40_960)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float]]] = {"vector": [], "single": []}
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(args.rounds):
            for kind in results:
                results[kind].append(train(kind, args.steps, seed, Path(folder)))
    single = statistics.median(rate for rate, _ in results["single"])
    rows = []
    for kind, label in (("vector", "batched env, 64 games (sb3_vec_env)"), ("single", "SingleAgentEnv")):
        rate = statistics.median(r for r, _ in results[kind])
        wins = ", ".join(f"{w:.2f}" for _, w in results[kind])
        rows.append([label, f"{rate:,.0f}", f"{rate / single:.1f}x", wins])
    print(f"MaskablePPO on Connect Four vs random, {args.steps:,} steps ({machine()}; medians of {args.rounds} "
          "interleaved runs, seeds 0..)\n")
    print(table(["env", "training steps/s", "vs SingleAgentEnv", "win rate vs random, each run"], rows))


if __name__ == "__main__":
    main()
