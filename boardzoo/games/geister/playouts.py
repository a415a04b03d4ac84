"""Geister's fast play-outs: the tight loop MCTS roll-outs spend their time in.

It picks uniformly among the legal moves by rejection (draw any of the 32 move actions
until one is legal), which is cheaper than listing the legal moves every ply. The
conformance suite checks it against the plain loop over ``legal_actions()``/``apply``.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from boardzoo.games.geister.board import ESCAPED, EXITS, GHOSTS, MOVE_ACTIONS, RED_SETS, SQUARES, TARGET
from boardzoo.games.model import returns_of_winner

if TYPE_CHECKING:
    from boardzoo.games.geister.rules import GeisterState


def _guards() -> list[list[tuple[int, list[tuple[int, int]]]]]:
    """GUARDS[seat]: for each of the opponent's exits (``seat``'s home corners), the
    (square, direction) moves by which a ghost of ``seat`` steps onto that corner."""
    guards = []
    for seat in (0, 1):
        corners = []
        for corner in EXITS[1 - seat]:
            steps = [(square, d) for square in range(SQUARES) for d in range(4) if TARGET[seat][square][d] == corner]
            corners.append((corner, steps))
        guards.append(corners)
    return guards


GUARDS = _guards()


def playout(state: GeisterState, rng: random.Random, limit: int = 0, forward: float = 0.0,
            tactics: bool = False) -> tuple[float, float]:
    """Random play of ``state`` to the end in place. ``limit``: after that many moves a
    draw. ``forward``: the probability of choosing among the forward moves only (when the
    mover has one), source 004's cure for back-and-forth play-outs. ``tactics``: both
    players also see one move ahead, as any sensible player does -- a blue ghost on an
    exit escapes, and an opponent ghost standing on one's own corner (about to escape) is
    taken when a ghost can reach it. Without it a play-out lets a ghost sit on the exit it
    could leave by, and lets the opponent's do the same, which hides the game's main threat."""
    if state.placing:
        rand = rng.random
        while state.placing:
            state.apply(MOVE_ACTIONS + int(rand() * len(RED_SETS)))
    rand = rng.random
    moves = 0
    move, pos, board, red = state._move, state.pos, state.board, state.red
    while not state.over:
        if limit and moves >= limit:
            return (0.0, 0.0)
        seat = state.player
        base, targets = GHOSTS * seat, TARGET[seat]
        action = -1
        if tactics:
            for exit_square in EXITS[seat]:
                g = board[exit_square]
                if g >= 0 and g // GHOSTS == seat and not red[g]:
                    action = 4 * (g - base)  # NORTH leaves the board from either exit
                    break
            else:
                for corner, steps in GUARDS[seat]:
                    g = board[corner]
                    if g >= 0 and g // GHOSTS != seat:
                        for square, d in steps:
                            guard = board[square]
                            if guard >= 0 and guard // GHOSTS == seat:
                                action = 4 * (guard - base) + d
                                break
                    if action >= 0:
                        break
        if action < 0 and forward and rand() < forward:
            ahead = []
            for i in range(GHOSTS):
                square = pos[base + i]
                if square >= 0:
                    target = targets[square][0]
                    if target is not None and (target == ESCAPED and not red[base + i] or target >= 0 and (
                            board[target] < 0 or board[target] // GHOSTS != seat)):
                        ahead.append(4 * i)
            if ahead:
                action = ahead[int(rand() * len(ahead))]
        while action < 0:
            # Uniform over the legal moves by rejection: draw any of the 32 until legal
            # (there always is one), cheaper than listing them all every ply.
            candidate = int(rand() * MOVE_ACTIONS)
            g = base + (candidate >> 2)
            square = pos[g]
            if square < 0:
                continue
            target = targets[square][candidate & 3]
            if target is None:
                continue
            if target == ESCAPED:
                if not red[g]:
                    action = candidate
            elif board[target] < 0 or board[target] // GHOSTS != seat:
                action = candidate
        move(action)
        moves += 1
    return returns_of_winner(state.winner)
