"""The time of an experiment's ``--full`` run, estimated from a measured fraction: a few
games of every job at its full size are played and timed (seats alternating, the run's
own seeds), and each job's mean game time is multiplied by its number of games.

    python bench/estimate_full_runs.py cantris-mcts connect-four-uct [--engine compiled] [--sample 4]

The estimate is for one worker; ``--workers N`` divides it (games are independent).
"""

from __future__ import annotations

import argparse
import time

from common import machine, table

from boardzoo import arena, envs
from boardzoo.experiments import get
from boardzoo.experiments.framework import with_engine


def estimate(name: str, engine: str, sample: int) -> tuple[float, int, float]:
    """(estimated seconds, games, seconds measured) of experiment ``name``'s full run."""
    experiment = get(name)
    total, games, measured = 0.0, 0, 0.0
    for job in experiment.jobs(None, True):
        a, b = with_engine(job.a, engine), with_engine(job.b, engine)
        env = envs.make(job.env)
        agents = arena.make_agents(a, b, env)
        played = min(sample, job.games)
        start = time.perf_counter()
        for game in range(played):
            arena.play_game(job.env, a, b, game, job.seed, env=env, agents=agents)
        seconds = time.perf_counter() - start
        arena.close_agents(agents)
        measured += seconds
        total += seconds / played * job.games
        games += job.games
    return total, games, measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="+")
    parser.add_argument("--engine", default="compiled")
    parser.add_argument("--sample", type=int, default=4, help="games measured per job (default 4)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows = []
    for name in args.names:
        seconds, games, measured = estimate(name, args.engine, args.sample)
        rows.append([name, args.engine, f"{games:,}", f"{measured:.0f}", f"{seconds / 3600:.1f}",
                     f"{seconds / 3600 / args.workers:.1f}"])
    print(f"Full runs, estimated from {args.sample} games per job ({machine()}, {time.strftime('%Y-%m-%d')})\n")
    print(table(["experiment", "engine", "games", "measured s", "hours, 1 worker",
                 f"hours, {args.workers} workers"], rows))


if __name__ == "__main__":
    main()
