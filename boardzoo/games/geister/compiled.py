"""Geister's compiled core (the ``fast`` extra; the interface is :mod:`boardzoo.fast.core`'s).

Layout of a position's array ``s`` (the referee's: both sides' colours are in it)::

    player, plies, max turns, winner, over, lost (blue 0, red 0, blue 1, red 1),
    placed 0, placed 1, then 2G ghost squares, 2G colours, the board's cells,
    then the public record of each ghost: 2G each of advance, declined, moved, offered

with G ghosts a side (16 ghost squares, 16 colours and 36 cells in the classic game).
The public record is the Python core's (``GeisterState.advance`` and the rest: what
both seats saw each ghost do), which a seat's learned network reads.

A seat's observation (:func:`observe`) reads its own colours and never the opponent's.

Every member of the family has kernels of its own: the module's constants below are the
classic game's, and :func:`specialise` gives another member's, which
:func:`boardzoo.fast.core.kernels` compiles a copy of every function with (``variant``
names the member a position belongs to).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.games.geister import GAME
from boardzoo.games.geister.board import CLASSIC, ESCAPED, Layout, layout
from boardzoo.games.geister.information import (
    ADVANCE_CAP,
    COUNT_PLANES,
    DECLINED_CAP,
    MOVES_CAP,
    OFFERED_CAP,
    PLIES_LEFT_CAP,
    RECORD_PLANES,
    input_planes,
)
from boardzoo.games.model import CHANCE, TERMINAL
from boardzoo.jit import njit, random_below, random_float, winner_return

PLAYER, PLIES, MAX_TURNS, WINNER, OVER, LOST, PLACED, POS = (0, 1, 2, 3, 4, 5, 9, 11)
#: The move table: TARGET_TABLE[seat, square, direction] is the square reached, ESCAPED
#: through an exit, OFF_BOARD elsewhere off the board.
OFF_BOARD = -3
#: Roll-out policies, numbered as the declaration names them.
FORWARD, RUSHING, BAITING = (GAME.compiled_rollouts.index(name) for name in ("forward", "rushing", "baiting"))


def constants(shape: Layout, dealt: bool) -> dict[str, Any]:
    """The layout-dependent constants of the kernels for one member of the family."""
    ghosts, squares = shape.ghosts, shape.squares
    return {
        "GHOSTS": ghosts, "SQUARES": squares, "COLS": shape.cols, "BLUES": shape.blue, "REDS": shape.red,
        "EXITS": shape.exits,
        "MOVE_ACTIONS": shape.move_actions, "DEALT": dealt, "CHANCE_EVENTS": dealt,
        "RED": POS + 2 * ghosts, "BOARD": POS + 4 * ghosts, "ADVANCE": POS + 4 * ghosts + squares,
        "DECLINED": POS + 6 * ghosts + squares, "MOVED": POS + 8 * ghosts + squares,
        "OFFERED": POS + 10 * ghosts + squares, "LENGTH": POS + 12 * ghosts + squares,
        "EXIT_TABLE": np.array(shape.exit_squares, dtype=np.int64),
        "TARGET_TABLE": np.array([[[OFF_BOARD if t is None else t for t in row] for row in table]
                                  for table in shape.target], dtype=np.int64),
        "RED_SET_TABLE": np.array(shape.red_sets, dtype=np.int64),
        # The observation: a plane per own ghost, own blues, own reds, opponent ghosts, counts.
        "_BLUE_PLANE": ghosts, "_OPPONENTS_PLANE": ghosts + 2, "_COUNTS": (ghosts + 3) * squares,
        "SCRATCH": max(2 * shape.move_actions, len(shape.red_sets)),
        "INPUT_SIZE": input_planes(shape) * squares,
    }


_CLASSIC = constants(CLASSIC, False)
#: The classic game's constants (:func:`specialise` gives another member's).
GHOSTS, SQUARES, COLS, BLUES, REDS, EXITS, MOVE_ACTIONS, DEALT, CHANCE_EVENTS = (
    _CLASSIC[name] for name in ("GHOSTS", "SQUARES", "COLS", "BLUES", "REDS", "EXITS", "MOVE_ACTIONS", "DEALT",
                                "CHANCE_EVENTS"))
RED, BOARD, LENGTH, TARGET_TABLE, RED_SET_TABLE, SCRATCH = (
    _CLASSIC[name] for name in ("RED", "BOARD", "LENGTH", "TARGET_TABLE", "RED_SET_TABLE", "SCRATCH"))
ADVANCE, DECLINED, MOVED, OFFERED, EXIT_TABLE, INPUT_SIZE = (
    _CLASSIC[name] for name in ("ADVANCE", "DECLINED", "MOVED", "OFFERED", "EXIT_TABLE", "INPUT_SIZE"))
_BLUE_PLANE, _OPPONENTS_PLANE, _COUNTS = (_CLASSIC[name] for name in ("_BLUE_PLANE", "_OPPONENTS_PLANE", "_COUNTS"))


def variant(state) -> tuple | None:
    """The member of the family ``state`` belongs to (None: the classic game, the module's
    own constants)."""
    if state.shape is CLASSIC and not state.dealt:
        return None
    return (*state.shape.parameters().values(), state.dealt)


def specialise(key: tuple) -> dict[str, Any]:
    """The constants of the member ``key`` (a :func:`variant`) and its name in cache files."""
    *sizes, dealt = key
    rows, cols, blue, red, exits = sizes
    return {**constants(layout(rows, cols, blue, red, exits), dealt),
            "VARIANT_NAME": f"{rows}x{cols}-{blue}b{red}r-{exits}x" + ("-dealt" if dealt else "")}


def encode(state) -> np.ndarray:
    if state.shape.ghosts != GHOSTS or state.shape.squares != SQUARES:
        raise ValueError(f"geister: a {state.shape} position needs its own kernels (boardzoo.fast.core.kernels)")
    header = [state.player, state.plies, state.max_turns, state.winner, state.over, *state.lost[0],
              *state.lost[1], *state.placed]
    return np.array(header + list(state.pos) + [bool(red) for red in state.red] + list(state.board)
                    + list(state.advance) + list(state.declined) + list(state.moved) + list(state.offered),
                    dtype=np.int64)


def decode(s, template):
    """The Python position of the array ``s`` (the inverse of :func:`encode`); ``template``
    is a position of the same member of the family (its shape and deal)."""
    state = template.clone()
    ghosts, squares = state.shape.ghosts, state.shape.squares
    values = [int(v) for v in s]
    state.player, state.plies, state.max_turns, state.winner = values[PLAYER:OVER]
    state.over = bool(values[OVER])
    state.lost = [values[LOST:LOST + 2], values[LOST + 2:LOST + 4]]
    state.placed = [bool(v) for v in values[PLACED:PLACED + 2]]
    state.pos, state.red = values[POS:POS + 2 * ghosts], [bool(v) for v in values[POS + 2 * ghosts:POS + 4 * ghosts]]
    board = POS + 4 * ghosts
    state.board = values[board:board + squares]
    record = board + squares
    state.advance, state.declined, state.moved, state.offered = (
        values[record + k * 2 * ghosts:record + (k + 1) * 2 * ghosts] for k in range(4))
    return state


@njit(cache=True)
def current_player(s):
    if s[OVER]:
        return TERMINAL
    return CHANCE if DEALT and not (s[PLACED] and s[PLACED + 1]) else s[PLAYER]


@njit(cache=True)
def returns0(s):
    return winner_return(s[WINNER])


@njit(cache=True)
def legal_actions(s, out):
    if s[OVER]:
        return 0
    if not (s[PLACED] and s[PLACED + 1]):
        for a in range(len(RED_SET_TABLE)):
            out[a] = MOVE_ACTIONS + a
        return len(RED_SET_TABLE)
    n, seat = 0, s[PLAYER]
    for i in range(GHOSTS):
        g = GHOSTS * seat + i
        square = s[POS + g]
        if square < 0:
            continue
        for direction in range(4):  # written always, counted when legal (no branch to mispredict)
            out[n] = 4 * i + direction
            n += _legal_move(s, seat, g, TARGET_TABLE[seat, square, direction])
    return n


@njit(cache=True)
def chance_outcome(s, u):
    """A dealt placement (the ``dealt`` variants): every set of reds alike."""
    return MOVE_ACTIONS + min(int(u * len(RED_SET_TABLE)), len(RED_SET_TABLE) - 1)


@njit(cache=True)
def move_target(s, seat, action):
    """Where the move ``action`` of ``seat`` lands (ESCAPED through an exit), or OFF_BOARD
    when it is illegal: the compiled twin of :func:`boardzoo.games.geister.rules.move_target`."""
    g = GHOSTS * seat + (action >> 2)
    square = s[POS + g]
    if square < 0:
        return OFF_BOARD
    target = TARGET_TABLE[seat, square, action & 3]
    if target == OFF_BOARD:
        return OFF_BOARD
    if target == ESCAPED:
        return OFF_BOARD if s[RED + g] else ESCAPED
    occupant = s[BOARD + target]
    return target if occupant < 0 or occupant // GHOSTS != seat else OFF_BOARD


@njit(cache=True, inline="always")
def _legal_move(s, seat, g, target):
    """Whether ghost ``g`` of ``seat`` may move to ``target`` (a square, ESCAPED or
    OFF_BOARD), without a branch: the moves of random games are a coin toss each, and
    mispredicted branches were half the cost of a batch's move."""
    occupant = s[BOARD + max(target, 0)]
    on_board = target >= 0
    free = (occupant < 0) | (occupant // GHOSTS != seat)
    return (on_board & free) | ((target == ESCAPED) & (s[RED + g] == 0))


@njit(cache=True)
def apply(s, action):
    seat = s[PLAYER]
    if action >= MOVE_ACTIONS:
        for i in range(GHOSTS):
            s[RED + GHOSTS * seat + i] = 0
        for i in RED_SET_TABLE[action - MOVE_ACTIONS]:
            s[RED + GHOSTS * seat + i] = 1
        s[PLACED + seat] = 1
        s[PLAYER] = 0 if not s[PLACED] else 1 if not s[PLACED + 1] else 0
        return
    g = GHOSTS * seat + (action >> 2)
    square = s[POS + g]
    direction = action & 3
    target = TARGET_TABLE[seat, square, direction]
    for exit_square in EXIT_TABLE[seat]:  # an own ghost on an exit that does not escape
        ghost = s[BOARD + exit_square]
        if ghost >= 0 and ghost // GHOSTS == seat and (ghost != g or target != ESCAPED):
            s[DECLINED + ghost] += 1
    s[BOARD + square] = -1
    s[PLIES] += 1
    s[MOVED + g] += 1
    if target == ESCAPED:
        s[POS + g] = ESCAPED
        s[WINNER], s[OVER] = seat, 1
        return
    if direction == 0:
        s[ADVANCE + g] += 1
    elif direction == 2:
        s[ADVANCE + g] -= 1
    victim = s[BOARD + target]
    s[BOARD + target] = g
    s[POS + g] = target
    s[PLAYER] = 1 - seat
    for d in range(4):  # stepped next to an opponent ghost: offered itself to be taken
        neighbour = TARGET_TABLE[seat, target, d]
        if neighbour >= 0 and s[BOARD + neighbour] >= 0 and s[BOARD + neighbour] // GHOSTS != seat:
            s[OFFERED + g] += 1
            break
    if victim >= 0:
        s[POS + victim] = -1  # captured
        other = 1 - seat
        if s[RED + victim]:
            s[LOST + 2 * other + 1] += 1
            if s[LOST + 2 * other + 1] == REDS:
                s[WINNER], s[OVER] = other, 1
                return
        else:
            s[LOST + 2 * other] += 1
            if s[LOST + 2 * other] == BLUES:
                s[WINNER], s[OVER] = seat, 1
                return
    if s[PLIES] >= s[MAX_TURNS]:
        s[OVER] = 1


@njit(cache=True)
def observe(s, out):
    """Each seat's 11 planes and 8 counts (the env's layout), from that seat's side: its own
    ghosts and colours, where the opponent's ghosts stand (never their colours), counts."""
    out[:, :] = 0
    for seat in range(2):
        other = 1 - seat
        for i in range(GHOSTS):
            square = s[POS + GHOSTS * seat + i]
            if square >= 0:
                own = square if seat == 0 else SQUARES - 1 - square
                out[seat, i * SQUARES + own] = 1
                if s[PLACED + seat]:
                    plane = _BLUE_PLANE + 1 if s[RED + GHOSTS * seat + i] else _BLUE_PLANE
                    out[seat, plane * SQUARES + own] = 1
            square = s[POS + GHOSTS * other + i]
            if square >= 0:
                own = square if seat == 0 else SQUARES - 1 - square
                out[seat, _OPPONENTS_PLANE * SQUARES + own] = 1
    write_counts(s, out)


@njit(cache=True)
def write_counts(s, out):
    """Each seat's 8 counts: ghosts it took (blue, red), ghosts it lost, plies played and
    left, whether it still places its ghosts, whether the opponent has placed."""
    for seat in range(2):
        other = 1 - seat
        out[seat, _COUNTS] = s[LOST + 2 * other]
        out[seat, _COUNTS + 1] = s[LOST + 2 * other + 1]
        out[seat, _COUNTS + 2] = s[LOST + 2 * seat]
        out[seat, _COUNTS + 3] = s[LOST + 2 * seat + 1]
        out[seat, _COUNTS + 4] = s[PLIES]
        out[seat, _COUNTS + 5] = s[MAX_TURNS] - s[PLIES]
        out[seat, _COUNTS + 6] = 0 if s[PLACED + seat] else 1
        out[seat, _COUNTS + 7] = 1 if s[PLACED + other] else 0


@njit(cache=True)
def apply_observed(s, action, observation, b):
    """:func:`apply` with both seats' observations of game ``b`` brought up to date: a move
    changes the mover's ghost, its colour and the opponent's view of it, a captured
    ghost's three cells and the counts (placing, and a game's end, rewrite them all)."""
    if action >= MOVE_ACTIONS:
        apply(s, action)
        observe(s, observation[b])
        return
    seat, i = s[PLAYER], action >> 2
    other, g = 1 - seat, GHOSTS * seat + i
    square = s[POS + g]
    reached = TARGET_TABLE[seat, square, action & 3]
    victim = -1 if reached == ESCAPED else s[BOARD + reached]
    apply(s, action)
    if s[OVER]:
        observe(s, observation[b])
        return
    out = observation[b]
    mine_from = square if seat == 0 else SQUARES - 1 - square  # the mover's side; the other's is the mirror
    mine_to = reached if seat == 0 else SQUARES - 1 - reached
    colour = _BLUE_PLANE + 1 if s[RED + g] else _BLUE_PLANE
    out[seat, i * SQUARES + mine_from], out[seat, i * SQUARES + mine_to] = 0, 1
    out[seat, colour * SQUARES + mine_from], out[seat, colour * SQUARES + mine_to] = 0, 1
    theirs_from, theirs_to = SQUARES - 1 - mine_from, SQUARES - 1 - mine_to
    out[other, _OPPONENTS_PLANE * SQUARES + theirs_from] = 0
    out[other, _OPPONENTS_PLANE * SQUARES + theirs_to] = 1
    if victim >= 0:
        victim_colour = _BLUE_PLANE + 1 if s[RED + victim] else _BLUE_PLANE
        out[other, (victim - GHOSTS * other) * SQUARES + theirs_to] = 0
        out[other, victim_colour * SQUARES + theirs_to] = 0
        out[seat, _OPPONENTS_PLANE * SQUARES + mine_to] = 0
    write_counts(s, out)


@njit(cache=True)
def write_mask(s, mask, b, legal):
    """Game ``b``'s mask row: the ghosts' moves, or the colourings while a seat places its
    ghosts; the player to move (-1 when over)."""
    over = s[OVER] != 0
    placing = not over and not (s[PLACED] and s[PLACED + 1])
    for a in range(mask.shape[1]):
        mask[b, a] = placing and a >= MOVE_ACTIONS
    if over or placing:
        return -1 if over else s[PLAYER]
    seat = s[PLAYER]
    for i in range(GHOSTS):
        g = GHOSTS * seat + i
        square = s[POS + g]
        if square < 0:
            continue
        for direction in range(4):
            mask[b, 4 * i + direction] = _legal_move(s, seat, g, TARGET_TABLE[seat, square, direction])
    return seat


@njit(cache=True)
def exit_distance(seat, square):
    """Steps from ``square`` to the nearer of ``seat``'s exits, plus one to go off."""
    own = square if seat == 0 else SQUARES - 1 - square
    x, y = own % COLS, own // COLS
    return y + (min(x, COLS - 1 - x) if EXITS == 2 else x) + 1


@njit(cache=True)
def threatened(s, seat, square, mover):
    """Whether an opponent ghost other than ``mover`` stands next to ``square``."""
    for d in range(4):
        neighbour = TARGET_TABLE[seat, square, d]
        if neighbour >= 0:
            g = s[BOARD + neighbour]
            if g >= 0 and g // GHOSTS != seat and g != mover:
                return True
    return False


@njit(cache=True)
def rushing_candidates(s, moves):
    """The moves seat 004's rushing player chooses among (see
    :func:`boardzoo.strategy.geister.players.rushing_action`), written to ``moves[32:]``
    after the legal moves in ``moves[:32]``; returns (first, count) of the chosen group."""
    seat = s[PLAYER]
    n = legal_actions(s, moves)
    group = MOVE_ACTIONS
    escapes = 0
    for i in range(n):
        if move_target(s, seat, moves[i]) == ESCAPED:
            moves[group + escapes] = moves[i]
            escapes += 1
    if escapes:
        return group, escapes
    captures = 0
    for i in range(n):
        target = move_target(s, seat, moves[i])
        victim = s[BOARD + target]
        if victim >= 0:
            last_red = s[RED + victim] and s[LOST + 2 * (1 - seat) + 1] == REDS - 1
            if not last_red and not threatened(s, seat, target, victim):
                moves[group + captures] = moves[i]
                captures += 1
    if captures:
        return group, captures
    best_safe, best_distance, count = -1, 0, 0
    for i in range(n):
        g = GHOSTS * seat + (moves[i] >> 2)
        target = move_target(s, seat, moves[i])
        if s[BOARD + target] >= 0 or s[RED + g]:
            continue
        distance = exit_distance(seat, target)
        if exit_distance(seat, s[POS + g]) - distance <= 0:
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
def distance_to_theirs(s, seat, square):
    """Steps (rows plus columns) from ``square`` to the nearest opponent ghost (0 when none is left)."""
    best = -1
    for i in range(GHOSTS):
        theirs = s[POS + GHOSTS * (1 - seat) + i]
        if theirs >= 0:
            steps = abs(square % COLS - theirs % COLS) + abs(square // COLS - theirs // COLS)
            if best < 0 or steps < best:
                best = steps
    return max(best, 0)


@njit(cache=True)
def baiting_candidates(s, moves):
    """The moves the bluffing player (:func:`boardzoo.strategy.geister.players.baiting_action`)
    chooses among, written to ``moves[MOVE_ACTIONS:]`` after the legal moves; returns
    (first, count) of the chosen group: the first escape alone; else, in this order, the
    captures on its own exits, the safe advances of a blue, the steps of a red next to an
    opponent ghost, the steps of a red toward one; else every legal move."""
    seat = s[PLAYER]
    n = legal_actions(s, moves)
    group, best, count = MOVE_ACTIONS, 4, 0
    for i in range(n):
        g = GHOSTS * seat + (moves[i] >> 2)
        source = s[POS + g]
        target = move_target(s, seat, moves[i])
        if target == ESCAPED:
            moves[group] = moves[i]
            return group, 1
        kind = 4
        if s[BOARD + target] >= 0:
            for exit_square in EXIT_TABLE[1 - seat]:
                if target == exit_square:
                    kind = 0
        elif not s[RED + g]:
            if exit_distance(seat, target) < exit_distance(seat, source) and not threatened(s, seat, target, -1):
                kind = 1
        elif threatened(s, seat, target, -1):
            kind = 2
        elif distance_to_theirs(s, seat, target) < distance_to_theirs(s, seat, source):
            kind = 3
        if kind < best:
            best, count = kind, 0
        if kind == best and kind < 4:
            moves[group + count] = moves[i]
            count += 1
    if count:
        return group, count
    return 0, n


@njit(cache=True)
def policy_action(s, policy, rng, moves):
    """A roll-out move: uniform; forward (a forward move half the time, when there is one);
    the rushing player's or the bluffing player's (once both sides have placed their ghosts)."""
    placed = s[PLACED] and s[PLACED + 1]
    if policy == FORWARD and placed and random_float(rng) < 0.5:
        seat, count = s[PLAYER], 0
        for i in range(GHOSTS):
            square = s[POS + GHOSTS * seat + i]
            if square < 0:
                continue
            reached = TARGET_TABLE[seat, square, 0]
            if reached == ESCAPED and not s[RED + GHOSTS * seat + i] or reached >= 0 and (
                    s[BOARD + reached] < 0 or s[BOARD + reached] // GHOSTS != seat):
                moves[count] = 4 * i
                count += 1
        if count:
            return moves[random_below(rng, count)]
    if policy == RUSHING and placed:
        return rushing_action(s, rng, moves)
    if policy == BAITING and placed:
        first, count = baiting_candidates(s, moves)
        return moves[first + random_below(rng, count)]
    return moves[random_below(rng, legal_actions(s, moves))]


@njit(cache=True)
def write_view(s, seat, out):
    """What ``seat`` knows of ``s``: the position with the colours of the opponent's ghosts
    still on the board made -1 (a captured ghost's colour is public)."""
    out[:] = s
    other = 1 - seat
    for i in range(GHOSTS):
        g = GHOSTS * other + i
        if s[POS + g] >= 0:
            out[RED + g] = -1


#: Why a game ended, numbered as :func:`ending` tells it (the Python core's ``how_it_ended``).
ENDINGS = ("escape", "blues taken", "reds taken", "turn limit")


@njit(cache=True)
def ending(s):
    if not s[OVER]:
        return -1
    winner = s[WINNER]
    if winner < 0:
        return 3
    for i in range(GHOSTS):
        if s[POS + GHOSTS * winner + i] == ESCAPED:
            return 0
    return 2 if s[LOST + 2 * winner + 1] == REDS else 1


def scratch_size(state) -> int:
    return SCRATCH


@njit(cache=True)
def _capped(count, cap):
    return min(count, cap) / cap


@njit(cache=True)
def write_input(s, out):
    """The network input of the seat to move (its information state), flat: the compiled
    twin of :func:`boardzoo.games.geister.information.network_input`, which has the
    layout. It reads the mover's colours and the public record, never the opponent's
    colours."""
    out[:] = 0.0
    seat = s[PLAYER]
    other = 1 - seat
    opponents, record = (GHOSTS + 2) * SQUARES, (GHOSTS + 3) * SQUARES
    for i in range(GHOSTS):
        g = GHOSTS * seat + i
        square = s[POS + g]
        if square >= 0:
            own = square if seat == 0 else SQUARES - 1 - square
            out[i * SQUARES + own] = 1.0
            if s[PLACED + seat]:
                out[(GHOSTS + 1 if s[RED + g] else GHOSTS) * SQUARES + own] = 1.0
            out[record + 4 * SQUARES + own] = _capped(s[MOVED + g], MOVES_CAP)
            out[record + 5 * SQUARES + own] = max(-ADVANCE_CAP, min(s[ADVANCE + g], ADVANCE_CAP)) / ADVANCE_CAP
            out[record + 6 * SQUARES + own] = _capped(s[OFFERED + g], OFFERED_CAP)
        h = GHOSTS * other + i
        square = s[POS + h]
        if square >= 0:
            own = square if seat == 0 else SQUARES - 1 - square
            out[opponents + own] = 1.0
            out[record + own] = _capped(s[MOVED + h], MOVES_CAP)
            out[record + SQUARES + own] = max(-ADVANCE_CAP, min(s[ADVANCE + h], ADVANCE_CAP)) / ADVANCE_CAP
            out[record + 2 * SQUARES + own] = _capped(s[DECLINED + h], DECLINED_CAP)
            out[record + 3 * SQUARES + own] = _capped(s[OFFERED + h], OFFERED_CAP)
    counts = record + RECORD_PLANES * SQUARES
    values = (s[LOST + 2 * other] / BLUES, s[LOST + 2 * other + 1] / REDS, s[LOST + 2 * seat] / BLUES,
              s[LOST + 2 * seat + 1] / REDS, s[PLIES] / s[MAX_TURNS],
              _capped(s[MAX_TURNS] - s[PLIES], PLIES_LEFT_CAP), 0.0 if s[PLACED + seat] else 1.0,
              1.0 if s[PLACED + other] else 0.0)
    for k in range(COUNT_PLANES):
        for square in range(SQUARES):
            out[counts + k * SQUARES + square] = values[k]


@njit(cache=True)
def write_secret(s, target, known):
    """What the mover cannot see, as a training target and never an input: for each
    square of its own frame, 1 where an opponent ghost of hidden colour stands that is red,
    0 where it is blue (``known``: 1 on those squares, 0 elsewhere)."""
    target[:] = 0.0
    known[:] = 0.0
    seat = s[PLAYER]
    if not s[PLACED + 1 - seat]:
        return
    for i in range(GHOSTS):
        h = GHOSTS * (1 - seat) + i
        square = s[POS + h]
        if square >= 0:
            own = square if seat == 0 else SQUARES - 1 - square
            known[own] = 1.0
            target[own] = 1.0 if s[RED + h] else 0.0


def input_fits(states: np.ndarray, size: int) -> bool:
    return size == INPUT_SIZE and states.shape[1] == LENGTH


def remaining_moves(states: np.ndarray) -> np.ndarray:
    """The most moves left in each row: the plies to the turn limit, and the placements
    still to make."""
    return states[:, MAX_TURNS] - states[:, PLIES] + 2 - states[:, PLACED] - states[:, PLACED + 1]
