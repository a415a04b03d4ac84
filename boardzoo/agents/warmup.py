"""Every compiled entry point run once on a small input: compiles what the on-disk cache
lacks (the first use after an install), loads the rest.

    python -m boardzoo.agents.warmup      # prints the seconds it took
"""

from __future__ import annotations

import random
import time


def warm_up() -> float:
    """Compile (or load) the whole compiled engine; returns the seconds it took."""
    start = time.perf_counter()
    from boardzoo.agents import make
    from boardzoo.fast.rollouts import compiled_rollout
    from boardzoo.games import CantrisState, ConnectFourState, NimState
    from boardzoo.games.cantris import deal
    from boardzoo.games.geister.rules import GeisterState
    from boardzoo.games.registry import game as declared_game
    from boardzoo.strategy.connect_four.compiled_solver import CompiledSolver
    from boardzoo.strategy.connect_four.solver import parse_moves
    from boardzoo.strategy.geister.compiled_purple import warm_up as warm_up_purple

    CompiledSolver(memory_mb=1).solve(parse_moves("4455661"))
    rng = random.Random(0)
    positions = [NimState(20, 3, coin=True), ConnectFourState(), CantrisState(deal(6, 3, rng), 6)]
    for position in positions:
        make("mcts:engine=compiled,iterations=20", seed=0).act({}, position)
    for policy in declared_game("geister").compiled_rollouts:
        compiled_rollout("geister", policy, 0, rng, 0)(GeisterState())
    warm_up_purple()
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"the compiled engine is ready ({warm_up():.1f} s)")
