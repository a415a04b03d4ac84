"""Batches of games compiled (the ``fast`` extra): B games of one game as rows of one
int64 array in the game's compiled layout (:mod:`.core`), stepped in one call, both
seats' observations and the legal-action masks kept up to date in the same pass.

Observations are a ``(B, 2, size)`` array (each env's observation flattened; the caller
reshapes a view of it), in the AEC envs' encodings: a seat's observation reads only what
that seat may know. Chance events and fresh deals draw from one NumPy ``Generator``
handed in; numba draws from it exactly as NumPy does, so the draws follow the reference
batch's in the same order. ``boardzoo.vector`` drives these kernels (a game's copies,
:func:`boardzoo.fast.core.kernels`); the tests hold them to the reference batch move by
move."""

from __future__ import annotations

import numpy as np

from boardzoo.fast.core import (
    CHANCE,
    CHANCE_EVENTS,
    DRAWS,
    TERMINAL,
    apply,
    apply_observed,
    chance_outcome,
    current_player,
    kernel,
    legal_actions,
    observe,
    restart,
    returns0,
    write_mask,
)
from boardzoo.jit import njit


# --- what every game gets unless its core says otherwise ---------------------------------------------
@kernel
def no_chance_outcome(s, u):
    """Never asked: a game without chance events has no chance node."""
    return 0


@kernel(inline=True)
def apply_then_observe(s, action, observation, b):
    apply(s, action)
    observe(s, observation[b])


@kernel(inline=True)
def mask_from_legal_actions(s, mask, b, legal):
    player = current_player(s)
    for a in range(mask.shape[1]):
        mask[b, a] = False
    if player == TERMINAL:
        return -1
    for i in range(legal_actions(s, legal)):
        mask[b, legal[i]] = True
    return player


@kernel(inline=True)
def restart_as_copy(s, fresh, setup, rng):
    """A start that draws nothing (:func:`deal` copies it and its observations itself)."""
    s[:] = fresh


# --- one game (inlined where they are called: a call costs as much as a move here) ----------------------
@kernel(inline=True)
def move(s, b, action, rng, observation):
    """Game ``b`` (position ``s``) plays ``action`` and the chance events after it (drawn
    from ``rng`` as the AEC env draws them: by the event's inverse CDF); its observations
    are brought up to date. Whether the game is over is the caller's question, asked
    before the mask is written (asked of a value this returned, numba made the batch a
    third slower)."""
    apply_observed(s, action, observation, b)
    while CHANCE_EVENTS and current_player(s) == CHANCE:
        apply_observed(s, chance_outcome(s, rng.random()), observation, b)


@kernel(inline=True)
def deal(states, b, start, rng, observation, mask, players, legal):
    """Game ``b`` starts afresh, drawn as the env's reset draws it where the game's start
    draws; else the one fresh game and its observations are copied. ``start`` is a
    :class:`~boardzoo.fast.core.Start` as a plain tuple (numba unboxes those faster)."""
    fresh, fresh_observation, setup = start
    if DRAWS:
        restart(states[b], fresh, setup, rng)
        observe(states[b], observation[b])
    else:  # element by element: numba's slice copies cost more than the copying here
        for i in range(states.shape[1]):
            states[b, i] = fresh[i]
        for seat in range(2):
            for i in range(observation.shape[2]):
                observation[b, seat, i] = fresh_observation[seat, i]
    while CHANCE_EVENTS and current_player(states[b]) == CHANCE:  # a start drawn by chance
        apply_observed(states[b], chance_outcome(states[b], rng.random()), observation, b)
    players[b] = write_mask(states[b], mask, b, legal)


# --- the batch ---------------------------------------------------------------------------------------
@kernel
def observe_all(states, observation, mask, players, legal):
    """Each game's player to move (-1 at the end), both seats' observations (``observation``
    is ``(B, 2, size)``) and the mover's legal actions (``legal`` is scratch space)."""
    for b in range(states.shape[0]):
        observe(states[b], observation[b])
        players[b] = write_mask(states[b], mask, b, legal)


@kernel
def restart_games(states, games, start, rng, observation, mask, players, legal):
    """Games ``games`` start afresh, in order, drawing from ``rng`` as the env's reset does."""
    for b in games:
        deal(states, b, start, rng, observation, mask, players, legal)


@kernel
def step(states, actions, playing, auto_reset, start, rng, observation, mask, players, legal, rewards, terminated):
    """Plays ``actions[b]`` in game ``b`` and the chance events after it, and brings
    ``observation``, ``mask`` and ``players`` (the batch's before the step) up to date in
    place; writes each step's rewards and whether the game ended. Games not ``playing``
    are left as they are. With ``auto_reset`` the games that end start afresh after every
    game was stepped (their rewards and flags the ended games', their observations the
    new games'). The first game played that is over or whose action is not legal stops
    the loop and its number is returned (the caller throws the half-stepped copies away);
    -1 when all were played."""
    ended = 0
    for b in range(states.shape[0]):
        rewards[b, 0], rewards[b, 1] = 0.0, 0.0
        terminated[b] = False
        if not playing[b]:
            continue
        action = actions[b]
        if players[b] < 0 or action < 0 or action >= mask.shape[1] or not mask[b, action]:
            return b
        s = states[b]
        move(s, b, action, rng, observation)
        if current_player(s) == TERMINAL:
            value = returns0(s)
            rewards[b, 0], rewards[b, 1] = value, -value
            terminated[b] = True
            if auto_reset and not DRAWS:  # a deal that draws nothing comes at once (no order to keep)
                deal(states, b, start, rng, observation, mask, players, legal)
                continue
            ended += 1  # dealt below, in game order after every game was stepped, as the env draws them
        players[b] = write_mask(s, mask, b, legal)
    if auto_reset and ended:
        for b in range(states.shape[0]):
            if terminated[b]:
                deal(states, b, start, rng, observation, mask, players, legal)
    return -1


@njit(cache=True)
def random_legal_actions(mask, rng, actions):
    """One legal action per row of ``mask`` drawn uniformly (the row's legal actions in
    order, the one at ``floor(rng.random() * count)``), -1 for a row with none."""
    legal = np.empty(mask.shape[1], dtype=np.int64)
    for b in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            if mask[b, a]:
                legal[count] = a
                count += 1
        # u * count < count for every double u < 1: no row draws past its last action.
        actions[b] = legal[int(rng.random() * count)] if count else -1


# --- one learning seat against the random opponent (the Gymnasium face) --------------------------------
@kernel
def opponent_rounds(states, seats, opponent_rng, rng, observation, mask, players, legal, rewards, plies):
    """The random opponent moves in every game where it is to move until the learning seat
    is (or the game is over), round by round. Each round draws as
    ``boardzoo.vector.random_actions`` draws for a whole batch (:func:`random_legal_actions`:
    one draw for every game with a legal move, the learner's games included, the action at
    ``floor(u * count)`` of the legal ones in order) and plays the draw where the opponent
    is to move; the legal actions come from the core (in increasing order, as the mask's),
    not from scanning the mask. The learning seat's rewards are added to ``rewards``, the
    moves played to ``plies[0]``."""
    while True:
        waiting = False
        for b in range(states.shape[0]):
            if players[b] >= 0 and players[b] != seats[b]:
                waiting = True
                break
        if not waiting:
            return
        for b in range(states.shape[0]):
            if players[b] < 0:
                continue  # over: no legal move, no draw
            u = opponent_rng.random()
            if players[b] == seats[b]:
                continue
            s = states[b]
            plies[0] += 1
            move(s, b, legal[int(u * legal_actions(s, legal))], rng, observation)
            if current_player(s) == TERMINAL:
                value = returns0(s)
                rewards[b] += value if seats[b] == 0 else -value
            players[b] = write_mask(s, mask, b, legal)


@kernel
def start_games(starting, states, seats, seat, start, opponent_rng, rng, observation, mask, players, legal,
                scratch, plies, redeals):
    """The games ``starting`` (just dealt) get their learning seat (``seat``, or drawn when
    -1: seat 1 where a draw from ``opponent_rng`` is below one half) and the opponent's
    opening moves; a game the opponent ends before the learning seat moved is dealt again,
    up to ``redeals`` rounds. Returns whether every game reached the learning seat's turn."""
    for _ in range(redeals):
        for b in range(states.shape[0]):
            if starting[b]:
                seats[b] = seat if seat >= 0 else (1 if opponent_rng.random() < 0.5 else 0)
        opponent_rounds(states, seats, opponent_rng, rng, observation, mask, players, legal, scratch, plies)
        again = False
        for b in range(states.shape[0]):
            starting[b] = players[b] < 0
            again = again or starting[b]
        if not again:
            return True
        for b in range(states.shape[0]):
            if starting[b]:
                deal(states, b, start, rng, observation, mask, players, legal)
    return False


@kernel
def learner_step(actions, forfeit, states, seats, seat, start, opponent_rng, rng, observation, mask, players,
                 legal, rewards, ended, forfeited, starting, final, scratch, plies, redeals):
    """One step of the learning seat in every game, in one call: its move (and the chance
    events after it), the random opponent's replies (:func:`opponent_rounds`), the last
    observation of every game that ended kept in ``final``, those games dealt afresh and
    started (:func:`start_games`). With ``forfeit`` an action the rules forbid loses its
    game (-1; that game is not played), else the first such game's number is returned
    before anything changed. Returns -1 when done, -2 when the opponent kept ending
    fresh games before the learner moved. Every move played is counted in ``plies[0]``."""
    if not forfeit:
        for b in range(states.shape[0]):
            if not mask[b, actions[b]]:
                return b
    for b in range(states.shape[0]):
        rewards[b] = 0.0
        forfeited[b] = not mask[b, actions[b]]
        if forfeited[b]:
            continue
        plies[0] += 1
        s = states[b]
        move(s, b, actions[b], rng, observation)
        if current_player(s) == TERMINAL:
            value = returns0(s)
            rewards[b] = value if seats[b] == 0 else -value
        players[b] = write_mask(s, mask, b, legal)
    opponent_rounds(states, seats, opponent_rng, rng, observation, mask, players, legal, rewards, plies)
    for b in range(states.shape[0]):
        if forfeited[b]:
            rewards[b] = -1.0
            players[b] = -1
        ended[b] = players[b] < 0
        if ended[b]:
            final[b, :] = observation[b, seats[b]]
            deal(states, b, start, rng, observation, mask, players, legal)
    starting[:] = ended
    if not start_games(starting, states, seats, seat, start, opponent_rng, rng, observation, mask, players,
                       legal, scratch, plies, redeals):
        return -2
    return -1
