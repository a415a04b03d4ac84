"""Where a Connect Four network's values go wrong, on the mistake-rate sets
(``bench/data/connect_four_mistake_sets.txt``), against the solver's outcomes:

* the value head: each position called a win (value above 1/3), a loss (below -1/3) or a
  draw (between), counted against the position's true outcome, per set;
* the value targets: self-play (the trainer's own search and move draws) continued from
  each of a set's first positions, and how often the game ends with the position's true
  outcome, per late temperature and number of simulations: what a value target from that
  position would teach.

    python bench/probe_value_targets.py WEIGHTS [--sets begin-hard,end-easy] [--games 256]
                                        [--temperatures 0,0.4] [--simulations 32,128]
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np
import torch
from common import machine, table

from boardzoo.agents.alphazero.network import Network
from boardzoo.fast.core import kernels
from boardzoo.fast.gumbel import BatchedGumbelSearch
from boardzoo.training.alphazero.referee import SET_NAMES, Position, read_mistake_sets
from boardzoo.training.alphazero.selfplay import inference_module, torch_evaluator
from boardzoo.vector import make as make_batch

SETS_FILE = pathlib.Path(__file__).parent / "data" / "connect_four_mistake_sets.txt"
GAME = "connect_four"
OUTCOMES = {1: "win", 0: "draw", -1: "loss"}


def true_outcome(position: Position) -> int:
    best = max(v for v in position.values if v is not None)
    return (best > 0) - (best < 0)


def batch_at(positions: list[Position]):
    """The compiled batch and its vector game, each game at one of ``positions``."""
    games = make_batch("connect_four_v0", len(positions), engine="compiled")
    batch = games.reset(seed=0)
    for ply in range(max(len(p.moves) for p in positions)):
        playing = np.array([len(p.moves) > ply for p in positions])
        actions = np.array([int(p.moves[ply]) - 1 if playing[i] else 0 for i, p in enumerate(positions)])
        batch = games.step(batch, actions, playing=playing)
    return games, batch


def value_calls(network: Network, positions: list[Position]) -> dict[tuple[int, int], int]:
    """(true outcome, the value head's call) -> positions."""
    _, batch = batch_at(positions)
    inputs = np.zeros((len(positions), int(np.prod(network.input_shape))), dtype=np.float32)
    kernels(GAME).write_inputs(np.ascontiguousarray(batch.state.states), inputs)
    _, values = network(inputs.reshape(len(positions), *network.input_shape))
    values = values.reshape(-1)
    calls = np.where(values > 1 / 3, 1, np.where(values < -1 / 3, -1, 0))
    counts: dict[tuple[int, int], int] = {}
    for truth, call in zip(map(true_outcome, positions), calls):
        counts[truth, int(call)] = counts.get((truth, int(call)), 0) + 1
    return counts


def continued_outcomes(network: Network, positions: list[Position], temperature: float, simulations: int,
                       seed: int = 1) -> float:
    """The share of self-play games from ``positions`` that end with the position's true outcome."""
    games, batch = batch_at(positions)
    mover = batch.current_player.copy()
    evaluate = torch_evaluator(inference_module(network))
    search = BatchedGumbelSearch(GAME, network.num_actions, network.input_shape, batch.state.states.shape[1],
                                 len(positions), capacity=simulations + 1)
    rng = np.random.default_rng(seed)
    live = np.ones(len(positions), dtype=bool)
    result = np.zeros(len(positions))
    while live.any():
        playing = np.flatnonzero(live)
        found = search.run(np.ascontiguousarray(batch.state.states[playing]), evaluate, simulations,
                           gumbel=rng.gumbel(size=(len(playing), network.num_actions)))
        actions = np.zeros(len(positions), dtype=np.int64)
        actions[playing] = found.actions
        if temperature > 0:  # as self-play draws its later plies
            for i, b in enumerate(playing):
                weights = found.policy[i].astype(np.float64) ** (1.0 / temperature)
                actions[b] = rng.choice(len(weights), p=weights / weights.sum())
        batch = games.step(batch, actions, playing=live)
        for b in np.flatnonzero(live & batch.terminated):
            result[b] = batch.rewards[b][mover[b]]
            live[b] = False
    truth = np.array([true_outcome(p) for p in positions])
    return float(np.mean(np.sign(result) == truth))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("weights")
    parser.add_argument("--sets", help="comma-separated set names (default: all six)")
    parser.add_argument("--games", type=int, default=256, help="positions a set continued by self-play (0: none)")
    parser.add_argument("--temperatures", default="0,0.4")
    parser.add_argument("--simulations", default="32")
    args = parser.parse_args()
    torch.set_num_threads(1)
    network = Network.load(args.weights)
    sets = read_mistake_sets(str(SETS_FILE))
    names = args.sets.split(",") if args.sets else [name for name in SET_NAMES if name in sets]
    print(f"Connect Four values of {args.weights} ({machine()})\n")
    rows = []
    for name in names:
        counts = value_calls(network, sets[name])
        cells = [f"{sum(v for (t, _), v in counts.items() if t == truth)}: "
                 + ", ".join(f"{counts.get((truth, call), 0)} {OUTCOMES[call]}" for call in (1, 0, -1))
                 for truth in (1, 0, -1)]
        rows.append([name, *cells])
    print(table(["set", "true wins called", "true draws called", "true losses called"], rows))
    if args.games:
        rows = []
        for name in names:
            for simulations in map(int, args.simulations.split(",")):
                for temperature in map(float, args.temperatures.split(",")):
                    share = continued_outcomes(network, sets[name][:args.games], temperature, simulations)
                    rows.append([name, str(simulations), f"{temperature:g}", f"{share:.1%}"])
        print()
        print(table(["set", "simulations", "late temperature", "self-play ends with the true outcome"], rows))


if __name__ == "__main__":
    main()
