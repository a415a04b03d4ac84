"""Core random play-outs of Connect Four: moves per second, boardzoo's game core side by
side with OpenSpiel's ``connect_four`` driven from a Python loop (``pip install .[bench]``).

Three ways are measured for boardzoo: the ``playout(rng)`` fast path that MCTS roll-outs
use, and the plain model loop (``legal_actions`` / ``apply``) that any agent can write,
the same loop as OpenSpiel's. All use ``random.Random`` for the moves.

    python bench/bench_playouts.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random

from common import compare, machine, rate, table

from boardzoo.games import ConnectFourState, NimState


def fast_playouts(start, rng: random.Random) -> int:
    state = start.clone()
    state.playout(rng)
    return state.plies if hasattr(state, "plies") else 1


def model_loop(start, rng: random.Random) -> int:
    state, moves = start.clone(), 0
    while not state.is_terminal():
        actions = state.legal_actions()
        state.apply(actions[int(rng.random() * len(actions))])
        moves += 1
    return moves


def openspiel_loop(game, rng: random.Random) -> int:
    state, moves = game.new_initial_state(), 0
    while not state.is_terminal():
        actions = state.legal_actions()
        state.apply_action(actions[int(rng.random() * len(actions))])
        moves += 1
    return moves


def nim_moves(start: NimState, rng: random.Random) -> int:
    return model_loop(start, rng)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    seconds = parser.parse_args().seconds
    rng = random.Random(0)
    start = ConnectFourState()
    runs = {
        "boardzoo playout(rng) fast path": lambda: fast_playouts(start, rng),
        "boardzoo model loop (legal_actions/apply)": lambda: model_loop(start, rng),
    }
    try:
        import pyspiel

        game = pyspiel.load_game("connect_four")
        runs["OpenSpiel connect_four, Python loop"] = lambda: openspiel_loop(game, rng)
    except ImportError as error:
        print(f"(OpenSpiel not measured: {error}; pip install '.[bench]')")
    rates = compare(runs, seconds)
    reference = rates.get("OpenSpiel connect_four, Python loop")
    rows = [[name, f"{value:,.0f}", f"{value / reference:.2f}x" if reference else ""]
            for name, value in rates.items()]
    print(f"Connect Four random play-outs, moves/s ({machine()}; median of 5 interleaved rounds, "
          f"{seconds:g} s per entry)\n")
    print(table(["core", "moves/s", "vs OpenSpiel"], rows))
    nim = NimState(50, 3, coin=True)
    print(f"\nNim with a coin (n=50, k=3), model loop incl. chance events: "
          f"{rate(lambda: nim_moves(nim, rng), seconds):,.0f} events/s")


if __name__ == "__main__":
    main()
