"""Roll-outs on the compiled cores (:mod:`.games`): each game's roll-out policies as
numba functions (uniform random, Nim's strategic rule, Geister's forward moves and
rushing player), the whole play-out loop, and :func:`compiled_rollout`, the leaf
evaluation a Python search gets from them."""

from __future__ import annotations

import numpy as np
from numba import njit

import boardzoo.fast.cache  # noqa: F401  (guards numba's disk cache; before any njit)
from boardzoo.fast.games import (
    CHANCE,
    FORWARD,
    GAME_IDS,
    GEISTER,
    GS_BOARD,
    GS_LOST,
    GS_PLACED,
    GS_PLAYER,
    GS_POS,
    GS_RED,
    NIM_K,
    NIM_PAWNS,
    POLICIES,
    RANDOM,
    RUSHING,
    STRATEGIC,
    TARGET_TABLE,
    TERMINAL,
    apply,
    chance_outcome,
    current_player,
    encode,
    geister_target,
    legal_actions,
    random_below,
    random_float,
    returns0,
    seed_state,
)
from boardzoo.games.geister.board import ESCAPED, GHOSTS, MOVE_ACTIONS, RED_SETS, SQUARES


# --- roll-outs ---------------------------------------------------------------------------------------
@njit(cache=True)
def policy_action(game, s, policy, rng, moves):
    """A roll-out move by ``policy`` (``moves`` is a scratch array for the legal moves)."""
    if policy == STRATEGIC:  # Nim: leave a multiple of k + 1 when possible
        take = s[NIM_PAWNS] % (s[NIM_K] + 1)
        if take:
            return take - 1
        return random_below(rng, min(s[NIM_K], s[NIM_PAWNS]))
    if policy == FORWARD and s[GS_PLACED] and s[GS_PLACED + 1] and random_float(rng) < 0.5:
        # Geister: a forward move half the time, when there is one
        seat, count = s[GS_PLAYER], 0
        for i in range(GHOSTS):
            square = s[GS_POS + GHOSTS * seat + i]
            if square < 0:
                continue
            target = TARGET_TABLE[seat, square, 0]
            if target == ESCAPED and not s[GS_RED + GHOSTS * seat + i] or target >= 0 and (
                    s[GS_BOARD + target] < 0 or s[GS_BOARD + target] // GHOSTS != seat):
                moves[count] = 4 * i
                count += 1
        if count:
            return moves[random_below(rng, count)]
    if policy == RUSHING and s[GS_PLACED] and s[GS_PLACED + 1]:
        return rushing_action(s, rng, moves)
    n = legal_actions(game, s, moves)
    return moves[random_below(rng, n)]


@njit(cache=True)
def exit_distance(seat, square):
    """Steps from ``square`` to the nearer of ``seat``'s exits, plus one to go off."""
    own = square if seat == 0 else SQUARES - 1 - square
    x, y = own % 6, own // 6
    return y + min(x, 5 - x) + 1


@njit(cache=True)
def threatened(s, seat, square, mover):
    """Whether an opponent ghost other than ``mover`` stands next to ``square``."""
    for d in range(4):
        neighbour = TARGET_TABLE[seat, square, d]
        if neighbour >= 0:
            g = s[GS_BOARD + neighbour]
            if g >= 0 and g // GHOSTS != seat and g != mover:
                return True
    return False


@njit(cache=True)
def rushing_candidates(s, moves):
    """The moves seat 004's rushing player chooses among (see
    :func:`boardzoo.strategy.geister.players.rushing_action`), written to ``moves[32:]``
    after the legal moves in ``moves[:32]``; returns (first, count) of the chosen group."""
    seat = s[GS_PLAYER]
    n = legal_actions(GEISTER, s, moves)
    group = MOVE_ACTIONS
    escapes = 0
    for i in range(n):
        if geister_target(s, seat, moves[i]) == ESCAPED:
            moves[group + escapes] = moves[i]
            escapes += 1
    if escapes:
        return group, escapes
    captures = 0
    for i in range(n):
        target = geister_target(s, seat, moves[i])
        victim = s[GS_BOARD + target]
        if victim >= 0:
            last_red = s[GS_RED + victim] and s[GS_LOST + 2 * (1 - seat) + 1] == 3
            if not last_red and not threatened(s, seat, target, victim):
                moves[group + captures] = moves[i]
                captures += 1
    if captures:
        return group, captures
    best_safe, best_distance, count = -1, 0, 0
    for i in range(n):
        g = GHOSTS * seat + (moves[i] >> 2)
        target = geister_target(s, seat, moves[i])
        if s[GS_BOARD + target] >= 0 or s[GS_RED + g]:
            continue
        distance = exit_distance(seat, target)
        if exit_distance(seat, s[GS_POS + g]) - distance <= 0:
            continue  # not an advance
        safe = 0 if threatened(s, seat, target, -1) else 1
        if safe > best_safe or safe == best_safe and -distance > best_distance:
            best_safe, best_distance, count = safe, -distance, 0
        if safe == best_safe and -distance == best_distance:
            moves[group + count] = moves[i]
            count += 1
    if count:
        return group, count
    return 0, n


@njit(cache=True)
def rushing_action(s, rng, moves):
    first, count = rushing_candidates(s, moves)
    return moves[first + random_below(rng, count)]


@njit(cache=True)
def rollout(game, s, policy, limit, rng, moves, searcher):
    """Plays ``s`` to the end in place by ``policy``, chance events by their odds; a draw
    after ``limit`` moves (0: no limit). Returns player 0's return. With ``searcher`` >= 0
    the policy steers that player's moves only and the other player's are random (a
    searcher-only policy, ``GameKnowledge.searcher_only``); -1: the policy plays both sides."""
    played = 0
    while True:
        player = current_player(game, s)
        if player == TERMINAL:
            return returns0(game, s)
        if player == CHANCE:
            apply(game, s, chance_outcome(game, s, rng))
            continue
        if limit and played >= limit:
            return 0.0
        apply(game, s, policy_action(game, s, policy if searcher < 0 or player == searcher else RANDOM, rng, moves))
        played += 1


def check_compiled(agent: str, state, rollout_policy: str) -> None:
    """ValueError unless the compiled engine plays ``state``'s game with ``rollout_policy``."""
    policies = POLICIES.get(state.game_name)
    if policies is None:
        raise ValueError(f"{agent}: engine=compiled plays {', '.join(POLICIES)}, not {state.game_name}")
    if rollout_policy not in policies:
        raise ValueError(f"{agent}: engine=compiled has the roll-out policies {', '.join(policies)} for "
                         f"{state.game_name}, not {rollout_policy!r} (use engine=python)")
    encode(state)  # refuses a board the compiled core cannot hold


def scratch_size(state) -> int:
    """Room for the legal moves (or chance outcomes) of any position after ``state``."""
    if state.game_name == "nim":
        return max(state.k, 2)
    if state.game_name == "geister":
        return max(2 * MOVE_ACTIONS, len(RED_SETS))
    return state.num_actions


def compiled_rollout(game_name: str, policy: str, limit: int, rng, searcher: int):
    """``leaf(state) -> returns``: a compiled roll-out of a Python core's position, seeded
    from ``rng`` (the search's own generator) at every call; ``searcher`` is the player
    whose search it is when the policy steers that player's moves only, -1 when it plays
    both sides (as :func:`rollout`)."""
    game, policy_id = GAME_IDS[game_name], POLICIES[game_name][policy]
    scratch: dict[int, np.ndarray] = {}

    def leaf(state) -> tuple[float, float]:
        size = scratch_size(state)
        if size not in scratch:
            scratch[size] = np.empty(size, dtype=np.int64)
        value = rollout(game, encode(state), policy_id, limit, seed_state(rng.getrandbits(64)), scratch[size],
                        searcher)
        return (value, -value)

    return leaf
