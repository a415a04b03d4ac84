"""The purple search's speed beside its plain reference, in one run.

    python bench/bench_purple_search.py [--positions 40] [--depth 4] [--rounds 3] [--no-compiled]

The positions are the views of seeded random games (player_0 to move, every ghost on
the board given seeded odds of blue), searched to a fixed depth with the expert's terms
on (hunt, race). The fast search keeps its evaluation's sums move by move and tries the
previous iteration's best move and the killers first; the reference sums its evaluation
afresh at every leaf (``evaluate_reference``) and keeps the plain move order. Both find
the same values (tests/test_geister_purple.py): the table gives nodes and seconds, and
the ratio of the reference's time to the fast search's, each the median of ``--rounds``
interleaved rounds. With the ``fast`` extra installed the compiled search
(``boardzoo.strategy.geister.compiled_purple``, the fast search node for node) runs beside them, loaded
(compiled the first time) before the clock starts.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from common import machine, table

from boardzoo import fast
from boardzoo.games.geister import GeisterState, GeisterView
from boardzoo.strategy.geister.purple import PurpleSearch
from boardzoo.strategy.geister.purple_position import Position, position_of


class ReferenceSearch(PurpleSearch):
    """The plain version: every leaf summed afresh, moves in their generated order."""

    def evaluate(self, p: Position, ours_to_move: bool = True) -> float:
        return self.evaluate_reference(p, ours_to_move)


def positions(count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = GeisterState(300, {0: tuple(rng.sample(range(8), 4)), 1: tuple(rng.sample(range(8), 4))})
        for _ in range(2 * rng.randrange(4, 30)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        view = GeisterView(state, 0)
        unknown = view.unknown_ghosts()
        blue = {g: rng.random() for g in unknown}
        threat = {g: max(q, rng.random()) for g, q in blue.items()}
        found.append(position_of(view, set(), blue, threat))
    return found


def search_all(search: PurpleSearch, cases: list[Position], depth: int) -> tuple[int, float, list[float]]:
    nodes, values, start = 0, [], time.perf_counter()
    for position in cases:
        _, value = search.best_move(position, None, depth, 0.5)
        nodes += search.nodes
        values.append(value)
    return nodes, time.perf_counter() - start, values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-compiled", action="store_true", help="leave the compiled search out")
    args = parser.parse_args()
    cases = positions(args.positions, args.seed)
    searches = {"fast (kept sums, best-move and killer order)": PurpleSearch(hunt=3.0, race=1.0),
                "reference (summed leaves, plain order)": ReferenceSearch(hunt=3.0, race=1.0, ordering=False)}
    if fast.available() and not args.no_compiled:
        from boardzoo.strategy.geister.compiled_purple import CompiledPurpleSearch, warm_up

        warm_up()
        searches["compiled (the fast search in numba)"] = CompiledPurpleSearch(hunt=3.0, race=1.0)
    seconds: dict[str, list[float]] = {name: [] for name in searches}
    nodes: dict[str, int] = {}
    values: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for name, search in searches.items():
            nodes[name], elapsed, values[name] = search_all(search, cases, args.depth)
            seconds[name].append(elapsed)
    fast_search, reference, *compiled = searches
    if any(abs(a - b) > 1e-6 for a, b in zip(values[fast_search], values[reference])):
        raise SystemExit("the fast and reference searches disagree on a value: a bug")
    if compiled and (values[compiled[0]] != values[fast_search] or nodes[compiled[0]] != nodes[fast_search]):
        raise SystemExit("the compiled search is not the fast search node for node: a bug")
    median = {name: statistics.median(times) for name, times in seconds.items()}
    rows = [[name, f"{nodes[name]:,}", f"{median[name]:.2f}", f"{nodes[name] / median[name]:,.0f}",
             f"{median[reference] / median[name]:.2f}x"] for name in searches]
    print(f"Purple search, {args.positions} positions to depth {args.depth} ({machine()})\n")
    print(table(["search", "nodes", "seconds", "nodes/s", "speed vs reference"], rows))
    if compiled:
        print(f"\nThe compiled search is {median[fast_search] / median[compiled[0]]:.1f}x the fast Python search.")


if __name__ == "__main__":
    main()
