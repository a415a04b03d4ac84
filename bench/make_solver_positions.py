"""Generate the Connect Four solver benchmark positions (bench/data/connect_four_positions.txt).

Positions come from uniformly random games (seeded) and are kept when the game is not
over and the player to move cannot win at once. They are sorted into three sets by
the number of discs played and the number of moves left under perfect play (the
definitions of the usual solver test sets):

    end           28 or more discs played (so fewer than 14 moves left)
    middle-easy   14..27 discs, fewer than 14 moves left
    middle-hard   14..27 discs, 14 to 27 moves left

Each line is ``SET MOVES SCORE``; the score comes from boardzoo's solver (the tests
check the end-game scores against a plain exhaustive search).

    python bench/make_solver_positions.py [--seed 2026] [--end 100] [--easy 60] [--hard 30]
"""

from __future__ import annotations

import argparse
import pathlib
import random

from boardzoo.games import ConnectFourState
from boardzoo.strategy.connect_four.solver import Solver, remaining_moves

OUT = pathlib.Path(__file__).parent / "data" / "connect_four_positions.txt"


def random_position(rng: random.Random, low: int, high: int,
                    careful: bool = False) -> tuple[ConnectFourState, str] | None:
    """A uniformly random game cut at a ply drawn from ``low..high``, or None when it ended
    first or the player to move can win at once. ``careful`` games draw each move among
    those that neither win nor hand the opponent a win, where there are any (uniformly
    random games seldom last past 28 discs)."""
    state, moves = ConnectFourState(), ""
    target = rng.randint(low, high)
    while state.plies < target and not state.is_terminal():
        actions = state.legal_actions()
        if careful:
            actions = [a for a in actions if not _ends_or_gives_a_win(state, a)] or actions
        column = actions[rng.randrange(len(actions))]
        state.apply(column)
        moves += str(column + 1)
    if state.is_terminal() or state.winning_columns(state.plies & 1):
        return None
    return state, moves


def _ends_or_gives_a_win(state: ConnectFourState, column: int) -> bool:
    after = state.clone()
    after.apply(column)
    return after.is_terminal() or bool(after.winning_columns(after.plies & 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--end", type=int, default=100)
    parser.add_argument("--easy", type=int, default=60)
    parser.add_argument("--hard", type=int, default=30)
    args = parser.parse_args()
    rng, solver = random.Random(args.seed), Solver()
    wanted = {"end": args.end, "middle-easy": args.easy, "middle-hard": args.hard}
    found: dict[str, list[str]] = {name: [] for name in wanted}
    while any(len(found[name]) < count for name, count in wanted.items()):
        middle = len(found["middle-easy"]) < args.easy or len(found["middle-hard"]) < args.hard
        drawn = random_position(rng, 14 if middle else 28, 41)
        if drawn is None:
            continue
        state, moves = drawn
        if state.plies >= 28:
            if len(found["end"]) < args.end:
                found["end"].append(f"{moves} {solver.solve(state)}")
            continue
        score = solver.solve(state)
        left = remaining_moves(score, state.plies)
        name = "middle-easy" if left < 14 else "middle-hard" if left < 28 else None
        if name and len(found[name]) < wanted[name]:
            found[name].append(f"{moves} {score}")
    OUT.parent.mkdir(exist_ok=True)
    with open(OUT, "w") as handle:
        for name, lines in found.items():
            for line in lines:
                handle.write(f"{name} {line}\n")
    print(f"wrote {sum(map(len, found.values()))} positions to {OUT}")


if __name__ == "__main__":
    main()
