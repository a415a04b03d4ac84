"""Train sb3-contrib's MaskablePPO on a boardzoo game against a boardzoo agent, then
evaluate the trained policy in the arena (100 games, seats alternating).

    pip install torch==2.13.0 && pip install ".[rl]"
    python examples/train_maskable_ppo.py                          # Connect Four vs random
    python examples/train_maskable_ppo.py --env cantris --steps 60000
    python examples/train_maskable_ppo.py --env nim --opponent greedy
    python examples/train_maskable_ppo.py --load runs/ppo_connect_four.zip --steps 0
    python examples/train_maskable_ppo.py --vector 64             # 64 games batched

Training goes through ``SingleAgentEnv``: one seat (drawn at random every episode)
against the opponent agent, reward +1/-1/0 at the end, and the action mask offered by
``action_masks()``, which MaskablePPO calls so that it never samples an illegal move.
With ``--vector N`` it goes through the batched games instead
(``boardzoo.training.sb3_vec_env``: N games stepped in one call, the opponent batched),
the same 1,024 steps per update; ``docs/tutorials/rl.md`` has what each reaches and how
fast. The saved model is a boardzoo agent too: ``make("sb3:path=runs/ppo_connect_four.zip")``.
The last line printed is ``win rate vs random: X``.
"""

from __future__ import annotations

import argparse
import os
import time

ENVS = {  # short name -> env spec, default training steps (about 3 minutes on 2 cores)
    "connect_four": ("connect_four_v0", 120_000),
    "cantris": ("cantris_v0", 60_000),
    "nim": ("nim_v0", 30_000),
}


def train(env_spec: str, opponent: str, steps: int, seed: int, save: str, vector: int = 0):
    import torch
    from sb3_contrib import MaskablePPO

    from boardzoo.training import quiet_logger, training_progress
    from boardzoo.training.single_agent import SingleAgentEnv

    torch.set_num_threads(1)  # a small network: one thread is faster than two fighting
    if vector:
        from boardzoo.training.sb3_vec_env import vec_env

        env, n_steps = vec_env(env_spec, num_envs=vector, opponent=opponent), max(1, 1024 // vector)
    else:
        env, n_steps = SingleAgentEnv(env_spec, opponent=opponent, seat="random"), 1024
    model = MaskablePPO("MlpPolicy", env, seed=seed, n_steps=n_steps, batch_size=256, n_epochs=4,
                        learning_rate=1e-3, gamma=0.99, ent_coef=0.01,
                        policy_kwargs={"net_arch": [128, 128]}, verbose=0)
    quiet_logger(model)
    start = time.perf_counter()
    model.learn(total_timesteps=steps, callback=training_progress(steps))
    print(f"trained {steps} steps against {opponent} in {time.perf_counter() - start:.0f} s")
    os.makedirs(os.path.dirname(save) or ".", exist_ok=True)
    model.save(save)
    print(f"saved {save}")


def evaluate(env_spec: str, path: str, opponent: str, games: int, seed: int) -> float:
    from boardzoo import arena

    records = arena.run(env_spec, f"sb3:path={path}", opponent, games=games, seed=seed, progress=False)
    summary = arena.summarize(records)
    print(f"{games} games against {opponent}: won {summary['a_wins']}, drew {summary['ties']}, "
          f"lost {summary['b_wins']}, forfeits {summary['forfeits']}")
    return summary["a_wins"] / games


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="connect_four", help=f"{', '.join(ENVS)} or an env spec")
    parser.add_argument("--steps", type=int, help="training steps (default: per env, about 3 minutes)")
    parser.add_argument("--opponent", default="random", help="agent spec to train against (default random)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", help="where to save the model (default runs/ppo_ENV.zip)")
    parser.add_argument("--load", help="a saved model to train further or, with --steps 0, only evaluate")
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--vector", type=int, default=0, metavar="N",
                        help="train on N games batched (default: one env)")
    args = parser.parse_args(argv)
    env_spec, default_steps = ENVS.get(args.env, (args.env, 50_000))
    steps = default_steps if args.steps is None else args.steps
    short = env_spec.split(":")[0].removesuffix("_v0")
    path = args.save or args.load or f"runs/ppo_{short}.zip"
    if steps > 0:
        if args.load:
            train_further(env_spec, args.opponent, steps, args.load, path)
        else:
            train(env_spec, args.opponent, steps, args.seed, path, args.vector)
    elif not args.load:
        parser.error("--steps 0 needs --load MODEL")
    rate = evaluate(env_spec, path, "random", args.eval_games, args.seed + 1)
    print(f"win rate vs random: {rate:.2f}")
    return rate


def train_further(env_spec: str, opponent: str, steps: int, load: str, save: str) -> None:
    from sb3_contrib import MaskablePPO

    from boardzoo.training import quiet_logger, training_progress
    from boardzoo.training.single_agent import SingleAgentEnv

    model = MaskablePPO.load(load, env=SingleAgentEnv(env_spec, opponent=opponent, seat="random"), device="cpu")
    quiet_logger(model)
    model.learn(total_timesteps=steps, reset_num_timesteps=False, callback=training_progress(steps))
    model.save(save)
    print(f"trained {steps} more steps, saved {save}")


if __name__ == "__main__":
    main()
