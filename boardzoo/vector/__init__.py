"""Batched games for reinforcement learning: B games of one env stepped in one call over
arrays, both seats' observations, the legal-action masks and the rewards returned as
arrays.

    from boardzoo.vector import make
    games = make("connect_four_v0", batch=1024, auto_reset=True)
    batch = games.reset(seed=0)
    batch = games.step(batch, actions)   # one action per game, for the player to move

As pgx's, the face is functional: ``step`` takes a :class:`Batch` and returns the next
one, leaving the one it was given as it was, so a batch can be stepped again another
way (to search, or to replay). A :class:`Batch` holds, for every game ``i``:
``current_player[i]`` (0 or 1, -1 once the game is over), ``observation[i, seat]``
(each seat's observation, the AEC env's encoding: a seat's observation carries only
what that seat may know), ``legal_action_mask[i]`` (the player to move's legal actions;
all false once the game is over), ``rewards[i, seat]`` (what the step gave each seat:
+1/-1/0 at the end, 0 before), ``terminated[i]`` and ``truncated[i]``, all read-only;
and ``state``, the games themselves with every secret in them: it is the referee's, to
be handed back to ``step``, never to a player of a hidden-information game.

All randomness (Nim's piles and coin, Cantris' deals) is drawn from one generator
seeded by ``reset(seed)``, game by game in order, so the same seed gives the same
games. With ``auto_reset`` the games that end start afresh in the same step, after every
game was stepped (the step's rewards and flags are the ended games', the observations
and masks the new games'); without it stepping an ended game is an error, and
``restart(batch)`` deals the ended games afresh. ``step(batch, actions, playing)`` steps
only the games where ``playing`` is true (the others stay as they were, no reward).

The plain reference is one AEC env per game (:mod:`.reference`); Nim, Connect Four,
Cantris and Geister also run compiled (:mod:`.compiled`, the ``fast`` extra), held to
the reference move by move and draw by draw. ``engine`` follows boardzoo's one rule
(``boardzoo.strategy.engine``): ``auto`` is the compiled batch where there is one and
the extra is installed (it plays exactly the reference's games), the reference otherwise.
The reference is about a hundred times slower, so ``auto`` falling back to it for an env
that has a compiled batch says so once a process, in a :class:`BatchFallbackWarning`
naming the install command.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from boardzoo.errors import BoardzooWarning, install_hint
from boardzoo.fast import available as compiled_available
from boardzoo.games.registry import games
from boardzoo.spec import split_spec
from boardzoo.strategy.engine import choose_engine
from boardzoo.vector.batch import MAX_BATCH, Batch
from boardzoo.vector.reference import ReferenceVectorGame
from boardzoo.vector.reference import random_actions as plain_random_actions

#: The envs with a compiled batch: every env of a game with a compiled core.
COMPILED_ENVS = tuple(env for game in games().values() if game.compiled_core is not None for env in game.envs)


class BatchFallbackWarning(BoardzooWarning):
    """An env with a compiled batch runs on the reference batch because the ``fast`` extra
    is not installed: the same games, about a hundred times slower."""


_fallback_warned = False


def _warn_fallback(env: str) -> None:
    global _fallback_warned
    if _fallback_warned:
        return
    _fallback_warned = True
    warnings.warn(f"boardzoo.vector: {env} runs on the reference batch, about 100x slower than its compiled one, "
                  f"because the fast extra is not installed: {install_hint('fast')}",
                  BatchFallbackWarning, stacklevel=3)


def make(env: str, batch: int, auto_reset: bool = False, engine: str = "auto", **params: Any) -> Any:
    """``batch`` games of env ``env`` (a name or ``"name:key=value"`` spec) with the env's
    constructor ``params``, on ``engine``."""
    compiled = split_spec(env)[0] in COMPILED_ENVS
    if compiled and engine == "auto" and not compiled_available():
        _warn_fallback(split_spec(env)[0])
    if choose_engine("vector", engine, exact_twin=compiled) == "compiled":
        if not compiled:
            raise ValueError(f"vector: engine=compiled plays {', '.join(COMPILED_ENVS)}, not {env}")
        from boardzoo.vector.compiled import CompiledVectorGame

        try:
            return CompiledVectorGame(env, batch, auto_reset, **params)
        except ValueError:
            if engine != "auto":
                raise
            # A board the compiled core cannot hold plays on the reference (which
            # repeats the error if the parameters themselves are wrong).
    return ReferenceVectorGame(env, batch, auto_reset, **params)


def random_actions(batch: Batch | np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal action per game of ``batch`` (or per row of a legal-action mask) drawn
    uniformly from ``rng``; -1 for a game that is over. Compiled where the ``fast`` extra
    is installed, with the same draws either way."""
    mask = batch.legal_action_mask if isinstance(batch, Batch) else np.asarray(batch, dtype=bool)
    if mask.ndim != 2:
        raise ValueError(f"random_actions: a mask must be (games, actions), got shape {mask.shape}")
    if not compiled_available():
        return plain_random_actions(mask, rng)
    from boardzoo.fast.batch import random_legal_actions

    actions = np.empty(len(mask), dtype=np.int64)
    random_legal_actions(mask, rng, actions)
    return actions


__all__ = ["COMPILED_ENVS", "MAX_BATCH", "Batch", "ReferenceVectorGame", "make", "random_actions"]
