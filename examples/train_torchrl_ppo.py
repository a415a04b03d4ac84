"""PPO with TorchRL on boardzoo's batched games: one learning seat (drawn per game)
against an opponent, 64 games stepped in one call, actions sampled from the legal ones
only; the win rate of the most likely legal move against that opponent is measured
before and after.

    pip install torch==2.13.0 && pip install ".[torchrl]"
    python examples/train_torchrl_ppo.py                       # Connect Four vs random
    python examples/train_torchrl_ppo.py --env cantris_v1 --iterations 60

The env and the masked actor are ``boardzoo.training.torchrl``; the loop is TorchRL's
usual PPO (GAE, ClipPPOLoss). ``docs/tutorials/rl.md`` has what it reaches and how fast.
The last line printed is ``win rate vs OPPONENT: BEFORE -> AFTER``.
"""

from __future__ import annotations

import argparse
import time


def main(argv: list[str] | None = None) -> tuple[float, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="connect_four_v0", help="env name or spec")
    parser.add_argument("--opponent", default="random", help="random or a boardzoo agent spec")
    parser.add_argument("--games", type=int, default=64, help="games stepped together")
    parser.add_argument("--steps", type=int, default=32, help="steps of every game per iteration")
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--eval-games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import torch
    from torchrl.envs.utils import step_mdp
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    from boardzoo.training.torchrl import BoardzooTorchEnv, greedy_win_rate, masked_actor_critic

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    env = BoardzooTorchEnv(args.env, num_envs=args.games, opponent=args.opponent)
    env.set_seed(args.seed)
    actor, critic = masked_actor_critic(env)
    before = greedy_win_rate(env, actor, args.eval_games)
    advantage = GAE(gamma=0.99, lmbda=0.95, value_network=critic)
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01)
    optimizer = torch.optim.Adam(loss.parameters(), lr=1e-3)
    start, state = time.perf_counter(), None
    for iteration in range(args.iterations):
        with torch.no_grad():
            rollout = env.rollout(args.steps, actor, auto_reset=state is None, tensordict=state,
                                  break_when_any_done=False)
            state = step_mdp(rollout[..., -1])  # the next rollout goes on with the games in play
            advantage(rollout)
        frames = rollout.reshape(-1)
        for _ in range(4):
            for batch in frames[torch.randperm(len(frames))].split(256):
                losses = loss(batch)
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad()
                total.backward()
                optimizer.step()
        ended = rollout["next", "done"].squeeze(-1)
        rewards = rollout["next", "reward"].squeeze(-1)[ended]
        mean = rewards.mean().item() if len(rewards) else float("nan")
        print(f"iteration {iteration + 1}: {int(ended.sum())} games ended, mean reward {mean:+.2f}", flush=True)
    seconds = time.perf_counter() - start
    after = greedy_win_rate(env, actor, args.eval_games)
    steps = args.iterations * args.steps * args.games
    print(f"trained {steps:,} steps in {seconds:.0f} s ({steps / seconds:,.0f} steps/s)")
    print(f"win rate vs {args.opponent}: {before:.2f} -> {after:.2f}")
    return before, after


if __name__ == "__main__":
    main()
