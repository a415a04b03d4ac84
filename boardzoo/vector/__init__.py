"""Batched games for reinforcement learning: B games of one env stepped in one call over
arrays, both seats' observations, the legal-action masks and the rewards returned as
arrays.

    from boardzoo.vector import make
    games = make("connect_four_v0", batch=1024, auto_reset=True)
    batch = games.reset(seed=0)
    batch = games.step(actions)        # one action per game, for the player to move

A :class:`Batch` holds, for every game ``i``: ``current_player[i]`` (0 or 1, -1 once the
game is over), ``observation[i, seat]`` (each seat's observation, the AEC env's encoding:
a seat's observation carries only what that seat may know), ``legal_action_mask[i]`` (the
player to move's legal actions; all false once the game is over), ``rewards[i, seat]``
(what the step gave each seat: +1/-1/0 at the end, 0 before), ``terminated[i]`` and
``truncated[i]``. Chance events are drawn from each game's seeded generator, so the same
seed gives the same games; with ``auto_reset`` a game that ends is started afresh in the
same step (the step's rewards and flags are the ended game's, the observations and masks
the new game's), and without it stepping an ended game is an error.

The plain reference is one AEC env per game (:mod:`.reference`); Connect Four also runs
compiled (:mod:`.compiled`, the ``fast`` extra), held to the reference move by move.
``engine`` follows boardzoo's one rule (``boardzoo.strategy.engine``): ``auto`` is the
compiled batch where there is one and the extra is installed (it plays exactly the
reference's games), the reference otherwise.
"""

from __future__ import annotations

from typing import Any

from boardzoo.spec import split_spec
from boardzoo.strategy.engine import choose_engine
from boardzoo.vector.reference import MAX_BATCH, Batch, ReferenceVectorGame

#: The envs with a compiled batch.
COMPILED_ENVS = ("connect_four_v0",)


def make(env: str, batch: int, auto_reset: bool = False, engine: str = "auto", **params: Any) -> Any:
    """``batch`` games of env ``env`` (a name or ``"name:key=value"`` spec) with the env's
    constructor ``params``, on ``engine``."""
    compiled = split_spec(env)[0] in COMPILED_ENVS
    if choose_engine("vector", engine, exact_twin=compiled) == "compiled":
        if not compiled:
            raise ValueError(f"vector: engine=compiled plays {', '.join(COMPILED_ENVS)}, not {env}")
        from boardzoo.vector.compiled import CompiledConnectFour

        return CompiledConnectFour(env, batch, auto_reset, **params)
    return ReferenceVectorGame(env, batch, auto_reset, **params)


__all__ = ["COMPILED_ENVS", "MAX_BATCH", "Batch", "ReferenceVectorGame", "make"]
