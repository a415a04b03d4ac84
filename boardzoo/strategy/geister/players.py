"""Geister players the generic agents borrow: source 004's rushing player (the greedy
rule), its forward-biased random play (a roll-out policy), and a bluffing player that
offers its reds (a roll-out policy, and a style the colour model learns to read)."""

from __future__ import annotations

import random

from boardzoo.games.geister.board import CLASSIC, ESCAPED, Layout


def exit_distance(seat: int, square: int, shape: Layout = CLASSIC) -> int:
    """Steps from ``square`` to the nearer of ``seat``'s exits, plus one to go off."""
    own = shape.to_own(seat, square)
    x, y = own % shape.cols, own // shape.cols
    return y + (min(x, shape.cols - 1 - x) if shape.exits == 2 else x) + 1


def rushing_action(state, rng: random.Random) -> int:
    """Source 004's rushing player (猪突AI), on a full state or a seat's view.

    Places its reds at random. Then: escape when it can; capture an adjacent opponent ghost
    when that is safe by its own guess (no other opponent ghost can take back on that square,
    and not when that would be the 4th red it takes, if the colours are known); otherwise
    advance the blue ghost nearest an exit toward it (a random blue when blocked), avoiding
    squares next to opponent ghosts when it can.
    """
    shape = state.shape
    if state.placing:
        return shape.move_actions + int(rng.random() * len(shape.red_sets))
    seat, ghosts = state.player, shape.ghosts
    actions = state.legal_actions()
    base = ghosts * seat
    pos, board, red = state.pos, state.board, state.red
    targets = shape.target[seat]

    def threatened(square: int, mover: int) -> bool:
        for neighbour in targets[square]:
            if neighbour is not None and neighbour >= 0:
                g = board[neighbour]
                if g >= 0 and g // ghosts != seat and g != mover:
                    return True
        return False

    escapes, captures, advances = [], [], []
    for action in actions:
        g = base + action // 4
        target = targets[pos[g]][action % 4]
        if target == ESCAPED:
            escapes.append(action)
            continue
        victim = board[target]
        if victim >= 0:
            last_red = red[victim] is True and state.lost[1 - seat][1] == shape.red - 1
            if not last_red and not threatened(target, victim):
                captures.append(action)
        elif not red[g]:
            gain = exit_distance(seat, pos[g], shape) - exit_distance(seat, target, shape)
            advances.append((gain, -exit_distance(seat, target, shape), not threatened(target, -1), action))
    for group in (escapes, captures):
        if group:
            return group[int(rng.random() * len(group))]
    forward = [a for a in advances if a[0] > 0]
    if forward:
        best = max((a[2], a[1]) for a in forward)
        choices = [a[3] for a in forward if (a[2], a[1]) == best]
        return choices[int(rng.random() * len(choices))]
    return actions[int(rng.random() * len(actions))]


def forward_policy(state, rng: random.Random, bias: float = 0.5) -> int:
    """Source 004's forward-biased random play: with probability ``bias`` a random forward
    move (when there is one), else any random move."""
    actions = state.legal_actions()
    if not state.placing and rng.random() < bias:
        ahead = [a for a in actions if a < state.shape.move_actions and not a & 3]
        if ahead:
            actions = ahead
    return actions[int(rng.random() * len(actions))]


def baiting_action(state, rng: random.Random) -> int:
    """A bluffing player: it offers its red ghosts and keeps its blues back.

    Places its reds at random. Then: escape when it can; take an opponent ghost standing
    on its own corners (about to escape); run a blue ghost toward an exit when no opponent
    ghost is next to its path's next square; otherwise step a red ghost next to an
    opponent ghost (inviting a capture that counts toward the 4 reds the opponent must
    not take), or toward the nearest opponent ghost; a random move when none of these is
    possible. Strong Geister players bluff this way, and the colour model must see it in
    its training games to read it.
    """
    shape = state.shape
    if state.placing:
        return shape.move_actions + int(rng.random() * len(shape.red_sets))
    seat, ghosts, cols = state.player, shape.ghosts, shape.cols
    actions = state.legal_actions()
    base = ghosts * seat
    pos, board, red = state.pos, state.board, state.red
    targets = shape.target[seat]
    theirs = [pos[g] for g in range(ghosts * (1 - seat), ghosts * (2 - seat)) if pos[g] >= 0]

    def next_to_theirs(square: int) -> bool:
        return any(n is not None and n >= 0 and board[n] >= 0 and board[n] // ghosts != seat for n in targets[square])

    def distance_to_theirs(square: int) -> int:
        return min((abs(square % cols - q % cols) + abs(square // cols - q // cols) for q in theirs), default=0)

    guards, runs, offers, approaches = [], [], [], []
    for action in actions:
        g = base + action // 4
        target = targets[pos[g]][action % 4]
        if target == ESCAPED:
            return action
        victim = board[target]
        if victim >= 0 and target in shape.exit_squares[1 - seat]:
            guards.append(action)
        elif victim < 0 and not red[g]:
            if exit_distance(seat, target, shape) < exit_distance(seat, pos[g], shape) and not next_to_theirs(target):
                runs.append(action)
        elif victim < 0 and red[g]:
            if next_to_theirs(target):
                offers.append(action)
            elif distance_to_theirs(target) < distance_to_theirs(pos[g]):
                approaches.append(action)
    for group in (guards, runs, offers, approaches):
        if group:
            return group[int(rng.random() * len(group))]
    return actions[int(rng.random() * len(actions))]
