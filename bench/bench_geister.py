"""Geister speed at the 200-ply limit: random play-outs of the game core (uniform and
source 004's forward-biased ones), sampling a seat's information set, and the time of one
determinized MCTS decision at 300 iterations with each roll-out setting.

    python bench/bench_geister.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from common import compare, machine, table

from boardzoo.agents import make
from boardzoo.envs import geister_v0
from boardzoo.games.geister import GeisterState, GeisterView, placement_action

MCTS_SETTINGS = [
    "mcts:iterations=300",
    "mcts:iterations=300,rollout=forward",
    "mcts:iterations=300,rollout=forward,max_rollout=60",
    "mcts:iterations=300,rollout=forward,max_rollout=60,nthr=5",
]


def started(max_turns: int = 200) -> GeisterState:
    state = GeisterState(max_turns)
    state.apply(placement_action((0, 1, 2, 3)))
    state.apply(placement_action((4, 5, 6, 7)))
    return state


def playouts(forward: float, lengths: list[int], draws: list[int]):
    start, rng = started(), random.Random(0)

    def run_once() -> int:
        state = start.clone()
        state.playout(rng, forward=forward)
        lengths.append(state.plies)
        draws.append(state.winner < 0)
        return state.plies

    return run_once


def decision_times(spec: str, positions: int = 6) -> list[float]:
    """Seconds per decision over the first moves of a game against the rushing player."""
    env = geister_v0.env()
    env.reset(seed=0, options={"red": {"player_0": "ABCD", "player_1": "EFGH"}})
    agent, opponent = make(spec, seed=0), make("greedy", seed=1)
    times = []
    while len(times) < positions and not env.terminations[env.agent_selection]:
        name = env.agent_selection
        model = env.unwrapped.model(name)
        if name == "player_0":
            start = time.perf_counter()
            action = agent.act(env.observe(name), model)
            times.append(time.perf_counter() - start)
        else:
            action = opponent.act(env.observe(name), model)
        env.step(action)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    seconds = parser.parse_args().seconds
    stats = {name: ([], []) for name in ("uniform", "forward 0.5")}
    view = GeisterView(started(), 0)
    sample_rng = random.Random(0)
    rates = compare({
        "uniform": playouts(0.0, *stats["uniform"]),
        "forward 0.5": playouts(0.5, *stats["forward 0.5"]),
        "determinize": lambda: (view.determinize(sample_rng, "behaviour"), 1)[1],
    }, seconds)
    print(f"Geister at max_turns=200 ({machine()}; median of 5 interleaved rounds)\n")
    rows = []
    for name, (lengths, draws) in stats.items():
        rows.append([f"play-out, {name}", f"{rates[name]:,.0f}", f"{rates[name] / statistics.mean(lengths):,.0f}",
                     f"{statistics.mean(lengths):.0f}", f"{sum(draws) / len(draws):.1%}"])
    print(table(["core", "moves/s", "play-outs/s", "mean plies", "draws"], rows))
    print(f"\nsampling a seat's information set (belief=behaviour): {1e6 / rates['determinize']:.1f} µs\n")
    rows = []
    for spec in MCTS_SETTINGS:
        times = decision_times(spec)
        rows.append([spec, f"{statistics.mean(times) * 1000:.0f}", f"{max(times) * 1000:.0f}"])
    print(table(["determinized MCTS (first 6 decisions vs rushing)", "mean ms", "max ms"], rows))


if __name__ == "__main__":
    main()
