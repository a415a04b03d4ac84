"""A whole game tree walked on a game's compiled core (:mod:`.core`), level by level: for
:func:`boardzoo.exploitability.build_tree` with ``engine="compiled"``. Each level's
positions are the rows of one array; its children are the next level's rows, in order.
A seat's knowledge at a node is interned as (what it knew at the parent, what it sees
now), what it sees being a 128-bit hash of its view (the core's ``write_view``)."""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from boardzoo.fast.core import (
    CHANCE,
    TERMINAL,
    apply,
    chance_outcome,
    current_player,
    ending,
    kernel,
    legal_actions,
    returns0,
    write_view,
)


@kernel
def view_as_copy(s, seat, out):
    """A perfect-information game: a seat sees the whole position."""
    out[:] = s


@kernel
def no_ending(s):
    return -1


@kernel
def count_children(states, moves):
    """How many children the level's positions have in all (0 for an ended one)."""
    total = 0
    for i in range(states.shape[0]):
        if current_player(states[i]) != TERMINAL:
            total += legal_actions(states[i], moves)
    return total


@kernel
def expand_level(states, following, player, children, utility, endings, weight, moves):
    """The level's nodes (``player``, ``children``, ``utility`` and ``endings`` of each)
    and the next level's positions (``following``) with each one's ``weight`` (a chance
    child's odds, else 1). Returns -1, or the first position whose chance event is not
    uniform (its odds are the core's to give; the walk takes them uniform)."""
    c = 0
    for i in range(states.shape[0]):
        s = states[i]
        p = current_player(s)
        player[i] = p
        if p == TERMINAL:
            children[i] = 0
            utility[i] = returns0(s)
            endings[i] = ending(s)
            continue
        endings[i] = -1
        k = legal_actions(s, moves)
        children[i] = k
        for j in range(k):
            if p == CHANCE:
                if chance_outcome(s, (j + 0.5) / k) != moves[j]:
                    return i
                weight[c] = 1.0 / k
            else:
                weight[c] = 1.0
            for f in range(s.shape[0]):
                following[c, f] = s[f]
            apply(following[c], moves[j])
            c += 1
    return -1


@kernel
def level_actions(states, nodes, out, offsets, moves):
    """The legal actions of ``states[nodes]``, one after another (``offsets`` says where)."""
    n = 0
    for r in range(nodes.shape[0]):
        offsets[r] = n
        k = legal_actions(states[nodes[r]], moves)
        for j in range(k):
            out[n + j] = moves[j]
        n += k
    offsets[nodes.shape[0]] = n
    return n


@kernel
def know(states, seat, before, parents, seen, after, view):
    """Each position's knowledge of ``seat``: its id in ``seen`` ((what it knew before, its
    view's two hashes) -> id), from the parent's (``before[parents[i]]``; -1 at the root)."""
    for i in range(states.shape[0]):
        write_view(states[i], seat, view)
        h1, h2 = np.uint64(1469598103934665603), np.uint64(7809847782465536322)
        for value in view:
            v = np.uint64(value + (1 << 40))
            h1 = (h1 ^ v) * np.uint64(1099511628211)
            h2 = (h2 ^ (v * np.uint64(0x9E3779B97F4A7C15))) * np.uint64(0x100000001B3)
        previous = before[parents[i]] if parents[i] >= 0 else -1
        key = (previous, np.int64(h1), np.int64(h2))
        found = seen.get(key, -1)
        if found < 0:
            found = len(seen)
            seen[key] = found
        after[i] = found


def knowledge_table():
    """An empty table of interned knowledge: (before, hash, hash) -> id."""
    return Dict.empty(key_type=types.UniTuple(types.int64, 3), value_type=types.int64)
