"""Self-play with RLlib (its current API stack) on a boardzoo game: PPO's masked module
``main`` plays the masked random module until it wins often enough, then frozen copies
of itself, on Ray; its win rate against random is measured before and after.

    pip install torch==2.13.0 && pip install ".[rllib]"
    python examples/train_rllib_self_play.py                                # Connect Four
    python examples/train_rllib_self_play.py --env tic_tac_toe_v0 --iterations 10
    python examples/train_rllib_self_play.py --ray 10.0.0.5:6379            # on a running cluster

The env, the masked modules and the league are ``boardzoo.training.rllib``; this script
only sets the sizes. Without ``--ray`` it joins the cluster in ``RAY_ADDRESS`` if set, or
starts Ray on this machine, with a token of its own for Ray's authentication, kept in the
process's environment (Ray on its own would write one to ``~/.ray/auth_token``). A
cluster that wants a token this machine lacks is refused at once, saying what to set.
``docs/tutorials/rl.md`` has what it reaches and how fast.
The last line printed is ``win rate vs random: BEFORE -> AFTER``.
"""

from __future__ import annotations

import argparse
import time


def main(argv: list[str] | None = None) -> tuple[float, float, int]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="connect_four_v0", help="env name or spec")
    parser.add_argument("--iterations", type=int, default=40, help="training iterations (1,000 steps each)")
    parser.add_argument("--threshold", type=float, default=0.85,
                        help="main's win rate over its last 100 games that adds a frozen copy to the league")
    parser.add_argument("--eval-games", type=int, default=400)
    parser.add_argument("--ray", metavar="ADDRESS", help="a running Ray cluster (default: RAY_ADDRESS, or local)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import torch
    from ray.rllib.algorithms.ppo import PPOConfig

    from boardzoo.training.rllib import self_play_config, win_rate_against_random
    from boardzoo.workers import join_ray

    torch.set_num_threads(1)
    join_ray(args.ray)
    config = (PPOConfig()
              .env_runners(num_env_runners=1, num_envs_per_env_runner=1)
              .learners(num_learners=0)
              .training(train_batch_size_per_learner=1000, minibatch_size=250, num_epochs=4, lr=1e-3)
              .debugging(seed=args.seed))
    algorithm = self_play_config(config, args.env, win_rate_threshold=args.threshold, hidden=(128, 128)).build_algo()
    try:
        before = win_rate_against_random(algorithm.get_module("main"), args.env, args.eval_games, args.seed)
        start, league = time.perf_counter(), 2
        for iteration in range(args.iterations):
            result = algorithm.train()
            league = int(result.get("league_size", league))
            win_rate = result.get("env_runners", {}).get("win_rate", float("nan"))
            print(f"iteration {iteration + 1}: main's win rate {win_rate:.2f} (last 100 games), league {league}",
                  flush=True)
        seconds = time.perf_counter() - start
        after = win_rate_against_random(algorithm.get_module("main"), args.env, args.eval_games, args.seed + 1)
    finally:
        algorithm.stop()
    print(f"trained {args.iterations} iterations in {seconds:.0f} s; league of {league} "
          f"(main, random, {league - 2} frozen copies)")
    print(f"win rate vs random: {before:.2f} -> {after:.2f}")
    return before, after, league


if __name__ == "__main__":
    from boardzoo.errors import BoardzooError

    try:
        main()
    except BoardzooError as error:
        raise SystemExit(f"train_rllib_self_play: {error}") from None
