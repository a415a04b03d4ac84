"""Random-play steps per second through the PettingZoo AEC loop, for every boardzoo env,
side by side with PettingZoo's own connect_four_v3 (if installed: ``pip install .[bench]``).

Every env runs the same loop with the same policy (uniform over the action mask, drawn
with ``random.Random``), so the ratio measures the envs, not the policy. Gymnasium's
``Discrete.sample(mask)`` is left out on purpose: at ~30 us a call it would dominate.

    python bench/bench_envs.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random

import numpy as np
from common import compare, machine, table

from boardzoo.envs import cantris_v0, connect_four_v0, geister_v0, nim_v0


def aec_episode(env, rng: random.Random) -> int:
    """One random game through the AEC loop; returns the number of step() calls."""
    env.reset()
    steps = 0
    for _ in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            legal = np.flatnonzero(observation["action_mask"])
            action = int(legal[int(rng.random() * len(legal))])
        env.step(action)
        steps += 1
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per env (default 3)")
    seconds = parser.parse_args().seconds
    envs = {
        "boardzoo connect_four_v0": connect_four_v0.env,
        "boardzoo nim_v0": nim_v0.env,
        "boardzoo nim_v0 (coin)": lambda: nim_v0.env(coin=True),
        "boardzoo cantris_v0 6x3": lambda: cantris_v0.env(board="6x3"),
        "boardzoo cantris_v0 8x4": lambda: cantris_v0.env(board="8x4"),
        "boardzoo cantris_v0 10x5": lambda: cantris_v0.env(board="10x5"),
        "boardzoo geister_v0 (200 plies)": geister_v0.env,
    }
    try:
        from pettingzoo.classic import connect_four_v3

        envs["pettingzoo connect_four_v3"] = connect_four_v3.env
    except ImportError as error:  # pygame missing: the reference is an optional extra
        print(f"(pettingzoo connect_four_v3 not measured: {error}; pip install '.[bench]')")
    runs = {}
    for name, factory in envs.items():
        env, rng = factory(), random.Random(0)
        env.reset(seed=0)
        runs[name] = lambda env=env, rng=rng: aec_episode(env, rng)
    rates = compare(runs, seconds)
    reference = rates.get("pettingzoo connect_four_v3")
    rows = [
        [name, f"{value:,.0f}", f"{value / reference:.1f}x" if reference and "connect_four" in name else ""]
        for name, value in rates.items()
    ]
    print(f"AEC random-play steps/s ({machine()}; median of 5 interleaved rounds, {seconds:g} s per env)\n")
    print(table(["env", "steps/s", "vs connect_four_v3"], rows))


if __name__ == "__main__":
    main()
