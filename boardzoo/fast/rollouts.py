"""Roll-outs on a game's compiled core (:mod:`.core`): the play-out loop, the uniform
roll-out policy every game has, and :func:`compiled_rollout`, the leaf evaluation a
Python search gets from them. A game's other roll-out policies are its core's
``policy_action`` (Nim's strategic rule, Geister's forward moves and rushing player)."""

from __future__ import annotations

import numpy as np

from boardzoo.fast.core import (
    CHANCE,
    TERMINAL,
    apply,
    chance_outcome,
    current_player,
    kernel,
    kernels_for,
    legal_actions,
    policy_action,
    returns0,
)
from boardzoo.games.registry import game
from boardzoo.jit import random_below, random_float, seed_state

#: The roll-out policy every game has, numbered 0 in every declaration's ``compiled_rollouts``.
RANDOM = 0


@kernel
def random_policy_action(s, policy, rng, moves):
    """Uniform among the legal moves (``moves`` is scratch space for them)."""
    return moves[random_below(rng, legal_actions(s, moves))]


@kernel
def rollout(s, policy, limit, rng, moves, searcher):
    """Plays ``s`` to the end in place by ``policy``, chance events by their odds; a draw
    after ``limit`` moves (0: no limit). Returns player 0's return. With ``searcher`` >= 0
    the policy steers that player's moves only and the other player's are random (a
    searcher-only policy, ``GameKnowledge.searcher_only``); -1: the policy plays both sides."""
    played = 0
    while True:
        player = current_player(s)
        if player == TERMINAL:
            return returns0(s)
        if player == CHANCE:
            apply(s, chance_outcome(s, random_float(rng)))
            continue
        if limit and played >= limit:
            return 0.0
        apply(s, policy_action(s, policy if searcher < 0 or player == searcher else RANDOM, rng, moves))
        played += 1


def rollout_id(game_name: str, policy: str) -> int:
    """The number of ``policy`` among the game's compiled roll-out policies."""
    return game(game_name).compiled_rollouts.index(policy)


def check_compiled(agent: str, state, rollout_policy: str) -> None:
    """ValueError unless the compiled engine plays ``state``'s game with ``rollout_policy``."""
    try:
        core = kernels_for(state).core
    except ValueError:
        raise ValueError(f"{agent}: engine=compiled has no core for {state.game_name}") from None
    policies = game(state.game_name).compiled_rollouts
    if rollout_policy not in policies:
        raise ValueError(f"{agent}: engine=compiled has the roll-out policies {', '.join(policies)} for "
                         f"{state.game_name}, not {rollout_policy!r} (use engine=python)")
    core.encode(state)  # refuses a board the compiled core cannot hold


def scratch_size(state) -> int:
    """Room for the legal moves (or chance outcomes) of any position after ``state``."""
    core = kernels_for(state).core
    return core.scratch_size(state) if hasattr(core, "scratch_size") else state.num_actions


def compiled_rollout(game_name: str, policy: str, limit: int, rng, searcher: int):
    """``leaf(state) -> returns``: a compiled roll-out of a Python core's position, seeded
    from ``rng`` (the search's own generator) at every call; ``searcher`` is the player
    whose search it is when the policy steers that player's moves only, -1 when it plays
    both sides (as :func:`rollout`)."""
    policy_id = rollout_id(game_name, policy)
    scratch: dict[int, np.ndarray] = {}
    found: list = []  # the kernels of the first position's member of the family: a search's

    def leaf(state) -> tuple[float, float]:
        if not found:
            found.append(kernels_for(state))
        compiled = found[0]
        core = compiled.core
        size = core.scratch_size(state) if hasattr(core, "scratch_size") else state.num_actions
        if size not in scratch:
            scratch[size] = np.empty(size, dtype=np.int64)
        value = compiled.rollout(compiled.core.encode(state), policy_id, limit, seed_state(rng.getrandbits(64)),
                                 scratch[size], searcher)
        return (value, -value)

    return leaf
