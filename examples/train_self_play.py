"""Self-play on Connect Four: MaskablePPO trains against a pool of its own past versions.

    pip install torch==2.13.0 && pip install ".[rl]"
    python examples/train_self_play.py [--generations 6] [--steps 20000]

Generation 0 plays the random agent; after every generation the current policy is frozen
and added to the pool, and each training episode draws its opponent from the pool (the
latest version half of the time). At the end the final policy is evaluated in the arena,
seats alternating, against random, the greedy player and generation 1 (both sampling their
moves), and saved as a boardzoo agent (``sb3:path=runs/self_play_connect_four.zip``).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from boardzoo.agents import Agent, make


class PoolOpponent(Agent):
    """Plays a policy drawn from the pool at every new game (``reset``)."""

    name = "pool"

    def __init__(self, seed: int | None = None):
        super().__init__(seed)
        self.pool: list = []
        self.current = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.pool:
            latest = self.rng.random() < 0.5
            self.current = self.pool[-1] if latest else self.pool[int(self.rng.random() * len(self.pool))]

    def act(self, observation: dict, model) -> int:
        if self.current is None:  # generation 0: a random opponent
            legal = np.flatnonzero(observation["action_mask"])
            return int(legal[int(self.rng.random() * len(legal))])
        mask = np.asarray(observation["action_mask"], dtype=bool)
        action, _ = self.current.predict(observation["observation"], action_masks=mask, deterministic=False)
        return int(action)


def main(argv: list[str] | None = None) -> dict[str, float]:
    import torch
    from sb3_contrib import MaskablePPO

    from boardzoo import arena
    from boardzoo.training import quiet_logger, training_progress
    from boardzoo.training.single_agent import SingleAgentEnv

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generations", type=int, default=6)
    parser.add_argument("--steps", type=int, default=20_000, help="training steps per generation")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--out", default="runs", help="folder for the generations and the final model")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    os.makedirs(args.out, exist_ok=True)
    opponent = PoolOpponent(seed=args.seed)
    env = SingleAgentEnv("connect_four_v0", opponent=opponent, seat="random")
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, n_steps=1024, batch_size=256, n_epochs=4,
                        learning_rate=1e-3, ent_coef=0.01, policy_kwargs={"net_arch": [128, 128]}, verbose=0)
    quiet_logger(model)
    start = time.perf_counter()
    for generation in range(1, args.generations + 1):
        model.learn(total_timesteps=args.steps, reset_num_timesteps=False,
                    callback=training_progress(args.steps, f"generation {generation}"))
        path = os.path.join(args.out, f"self_play_gen{generation}.zip")
        model.save(path)
        opponent.pool.append(MaskablePPO.load(path, device="cpu"))
        print(f"generation {generation}: {model.num_timesteps} steps, pool of {len(opponent.pool)}, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    final = os.path.join(args.out, "self_play_connect_four.zip")
    model.save(final)
    results = {}
    first = os.path.join(args.out, "self_play_gen1.zip")
    # Two greedy (deterministic) policies would replay the same two games over and over:
    # against generation 1 both sides sample their moves from the policy instead.
    for name, player, spec in (("random", f"sb3:path={final}", "random"),
                               ("greedy", f"sb3:path={final}", "greedy"),
                               ("generation 1", f"sb3:path={final},deterministic=false",
                                f"sb3:path={first},deterministic=false")):
        summary = arena.summarize(arena.run("connect_four_v0", player, spec, games=args.eval_games,
                                            seed=args.seed + 1, progress=False))
        results[name] = summary["a_wins"] / args.eval_games
        print(f"final policy vs {name}: won {summary['a_wins']}, drew {summary['ties']}, lost {summary['b_wins']}")
    make(f"sb3:path={final}")  # the saved policy is an agent like any other
    print("self-play result: " + ", ".join(f"win rate vs {name} {rate:.2f}" for name, rate in results.items()))
    return results


if __name__ == "__main__":
    main()
