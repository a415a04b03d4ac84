"""What one Geister seat knows: :class:`GeisterView`, its information set, which samples
full states consistent with it under a belief's weights."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np

from boardzoo.games.geister.board import CLASSIC, Layout
from boardzoo.games.geister.rules import Capabilities, GeisterPosition, GeisterState

#: A seat's observation: a plane of the squares per own ghost, then planes of its blue
#: ghosts, its red ones and the opponent's ghosts, then 8 counts (the env module's
#: docstring has the layout): 11 planes of 36 squares in the classic game.
COUNTS = 8


def observation_size(shape: Layout) -> int:
    return (shape.ghosts + 3) * shape.squares + COUNTS


PLANES = CLASSIC.ghosts + 3
OBSERVATION_SIZE = observation_size(CLASSIC)

#: ``f(view, unknown ghosts) -> odds of blue for each``: how a player reads the colours
#: it cannot see (``boardzoo.strategy.geister.beliefs`` has the named ones).
Belief = Callable[["GeisterView", list[int]], list[float]]


def weighted_sample(items: list[int], weights: list[float], k: int, rng: random.Random) -> list[int]:
    """``k`` distinct items, each draw proportional to the weights of those left."""
    items, weights = list(items), list(weights)
    chosen = []
    for _ in range(k):
        x = rng.random() * sum(weights)
        for j, w in enumerate(weights):  # noqa: B007 (j is the item drawn)
            x -= w
            if x < 0:
                break
        chosen.append(items.pop(j))
        weights.pop(j)
    return chosen


class GeisterView(GeisterPosition):
    """What one seat knows: the search model handed to that seat.

    It has the public position, the seat's own colours and the colours made public by
    captures — never a hidden opponent colour (it is not even copied). It answers the
    questions an agent asks at its own turn (``legal_actions``, ``action_label``...) and
    samples full states with :meth:`determinize`.
    """

    __slots__ = ("shape", "dealt", "seat", "pos", "red", "board", "placed", "player", "plies", "max_turns", "over",
                 "winner", "lost", "advance", "declined", "moved", "offered", "weights")
    #: A seat's information set: agents that need a full state sample one with :meth:`determinize`.
    capabilities = Capabilities(key=True, hidden_information=True)
    def __init__(self, state: GeisterState, seat: int):
        self.shape, self.dealt, self.seat = state.shape, state.dealt, seat
        self.pos, self.board = state.pos[:], state.board[:]
        # Unknown colours are None; an unplaced seat's colours are None too.
        ghosts = state.shape.ghosts
        self.red = [state.red[g] if state.placed[g // ghosts] and (g // ghosts == seat or state.pos[g] < 0)
                    else None for g in range(2 * ghosts)]
        self.placed = state.placed[:]
        self.player, self.plies, self.max_turns = state.player, state.plies, state.max_turns
        self.over, self.winner = state.over, state.winner
        self.lost = [state.lost[0][:], state.lost[1][:]]
        self.advance, self.declined, self.moved = state.advance[:], state.declined[:], state.moved[:]
        self.offered = state.offered[:]
        # A belief's weights depend on the view alone, which never changes: computed once
        # per belief, not once per sample (a search samples thousands of times).
        self.weights: dict[Belief | None, list[float]] = {}

    def clone(self) -> GeisterView:
        other = GeisterView.__new__(GeisterView)
        for name in GeisterView.__slots__:
            value = getattr(self, name)
            setattr(other, name, value[:] if isinstance(value, list) and name != "lost" else value)
        other.lost = [self.lost[0][:], self.lost[1][:]]
        other.weights = {}
        return other

    def apply(self, action: int) -> None:
        raise NotImplementedError("geister: a seat's view cannot play moves (their outcome may depend on "
                                  "hidden colours); sample a full state with determinize(rng) first")

    def key(self) -> tuple:
        return (tuple(self.pos), tuple(self.red), tuple(self.placed), self.player, self.plies)

    def unknown_ghosts(self) -> list[int]:
        """Opponent ghosts on the board whose colour this seat does not know."""
        ghosts = self.shape.ghosts
        base = ghosts * (1 - self.seat)
        return [g for g in range(base, base + ghosts) if self.red[g] is None and self.pos[g] >= 0]

    def determinize(self, rng: random.Random, belief: Belief | None = None) -> GeisterState:
        """A full state consistent with this view: the opponent's hidden blues drawn with
        ``belief``'s odds (every colouring alike when None). An opponent that has not
        placed yet stays unplaced (its placement is still its own move to make)."""
        state = GeisterState.__new__(GeisterState)
        state.shape, state.dealt = self.shape, self.dealt
        state.pos, state.board, state.placed = self.pos[:], self.board[:], self.placed[:]
        state.player, state.plies, state.max_turns = self.player, self.plies, self.max_turns
        state.over, state.winner = self.over, self.winner
        state.lost = [self.lost[0][:], self.lost[1][:]]
        state.advance, state.declined, state.moved = self.advance[:], self.declined[:], self.moved[:]
        state.offered = self.offered[:]
        red = [bool(v) for v in self.red]
        opponent = 1 - self.seat
        if self.placed[opponent]:
            unknown = self.unknown_ghosts()
            blues_left = self.shape.blue - self.lost[opponent][0]
            weights = self.weights.get(belief)
            if weights is None:
                weights = self.weights[belief] = belief(self, unknown) if belief else [1.0] * len(unknown)
            blue = set(weighted_sample(unknown, weights, blues_left, rng))
            for g in unknown:
                red[g] = g not in blue
        state.red = red
        return state

    def __repr__(self) -> str:
        return f"GeisterView(seat={self.seat}, plies={self.plies})\n{self.to_text(self.seat)}"


#: What a learned network sees (:func:`network_input`): a plane per own ghost, its blues,
#: its reds, the opponent's ghosts, four planes of the public record of the opponent's
#: ghosts on their squares and three of its own, then eight planes each filled with one
#: of the counts.
RECORD_PLANES, COUNT_PLANES = 7, 8
#: Where the public record's counts saturate: a network reads ``min(count, cap) / cap``
#: (advance: clipped to +-cap).
MOVES_CAP, ADVANCE_CAP, DECLINED_CAP, OFFERED_CAP = 8, 4, 2, 8
#: Plies left before the draw that the count plane tells apart (more reads as this many).
PLIES_LEFT_CAP = 20


def input_planes(shape: Layout) -> int:
    return shape.ghosts + 3 + RECORD_PLANES + COUNT_PLANES


def network_input(game, largest_pile: int = 0) -> np.ndarray:
    """What a learned network sees at the turn of the seat to move, from its side:
    ``(planes, rows, cols)`` float32 (see :data:`RECORD_PLANES`), from the true state or
    from that seat's own :class:`GeisterView` alike. It reads what the seat may know and
    nothing else: its own ghosts and colours, where the opponent's ghosts stand, what
    every ghost was publicly seen to do (moves, net advance, stops on an exit without
    escaping, steps next to an opposing ghost) and the public counts; never a hidden
    colour. The plain twin of the compiled writer (``compiled.write_input``)."""
    shape = game.shape
    ghosts, squares = shape.ghosts, shape.squares
    seat = game.player
    other = 1 - seat
    planes = np.zeros((input_planes(shape), squares), dtype=np.float32)
    opponents, record = ghosts + 2, ghosts + 3
    for i in range(ghosts):
        g = ghosts * seat + i
        if game.pos[g] >= 0:
            own = shape.to_own(seat, game.pos[g])
            planes[i, own] = 1.0
            if game.placed[seat]:
                planes[ghosts + 1 if game.red[g] else ghosts, own] = 1.0
            planes[record + 4, own] = min(game.moved[g], MOVES_CAP) / MOVES_CAP
            planes[record + 5, own] = max(-ADVANCE_CAP, min(game.advance[g], ADVANCE_CAP)) / ADVANCE_CAP
            planes[record + 6, own] = min(game.offered[g], OFFERED_CAP) / OFFERED_CAP
        h = ghosts * other + i
        if game.pos[h] >= 0:
            own = shape.to_own(seat, game.pos[h])
            planes[opponents, own] = 1.0
            planes[record, own] = min(game.moved[h], MOVES_CAP) / MOVES_CAP
            planes[record + 1, own] = max(-ADVANCE_CAP, min(game.advance[h], ADVANCE_CAP)) / ADVANCE_CAP
            planes[record + 2, own] = min(game.declined[h], DECLINED_CAP) / DECLINED_CAP
            planes[record + 3, own] = min(game.offered[h], OFFERED_CAP) / OFFERED_CAP
    counts = record + RECORD_PLANES
    planes[counts:counts + COUNT_PLANES] = np.array([
        game.lost[other][0] / shape.blue, game.lost[other][1] / shape.red,
        game.lost[seat][0] / shape.blue, game.lost[seat][1] / shape.red,
        game.plies / game.max_turns, min(game.max_turns - game.plies, PLIES_LEFT_CAP) / PLIES_LEFT_CAP,
        0.0 if game.placed[seat] else 1.0, 1.0 if game.placed[other] else 0.0], dtype=np.float32)[:, None]
    return planes.reshape(-1, shape.rows, shape.cols)


def blue_odds(view, unknown: list[int], red_logits: np.ndarray) -> list[float]:
    """A network's belief (its belief head's logit of red on each square of the mover's
    frame, learned against ``compiled.write_secret``) as Geister's belief: each hidden
    ghost's odds of blue, the weights a determinization draws the colourings by."""
    shape, seat = view.shape, view.player
    return [math.exp(-max(-BELIEF_LOGIT_CAP, min(float(red_logits[shape.to_own(seat, view.pos[g])]),
                                                   BELIEF_LOGIT_CAP))) for g in unknown]


#: Odds are read from logits within this bound: no colour is ever taken as certain.
BELIEF_LOGIT_CAP = 20.0


def disguised_colours(inputs: np.ndarray, ranks: np.ndarray) -> None:
    """Rewrite, in place, the mover's own colours in a batch of network inputs
    (:func:`network_input`'s layout, ``(n, planes, rows, cols)``) by a decoy: of its ghosts
    on the board, as many as it has reds left are marked red, those whose ``ranks`` (one row
    a game, drawn once a game, a column a ghost) are lowest; the rest blue. A network that
    plays from the decoy plays as it would, and its moves tell nothing of its true colours:
    an opponent without tells, as some outside programs are. Inputs before the mover's
    placement carry no colours and stay as they are."""
    n, planes = inputs.shape[:2]
    ghosts = planes - 3 - RECORD_PLANES - COUNT_PLANES
    where = inputs[:, :ghosts].reshape(n, ghosts, -1)
    alive = where.any(axis=2)
    colours = inputs[:, ghosts:ghosts + 2].reshape(n, 2, -1)
    reds_left = colours[:, 1].sum(axis=1).round().astype(np.int64)
    placed = colours.any(axis=(1, 2))
    order = np.argsort(np.where(alive, ranks[:, :ghosts], np.inf), axis=1, kind="stable")
    place = np.argsort(order, axis=1)  # each ghost's place in its row's order
    red = alive & (place < reds_left[:, None])
    blue = alive & ~red
    decoy = np.stack([np.einsum("ng,ngs->ns", blue.astype(np.float32), where),
                      np.einsum("ng,ngs->ns", red.astype(np.float32), where)], axis=1)
    inputs[placed, ghosts:ghosts + 2] = decoy[placed].reshape(-1, 2, *inputs.shape[2:])


def observation_of(game, player: int) -> np.ndarray:
    """The observation array of seat ``player`` (layout in the module docstring), from the
    true state or from that seat's own :class:`GeisterView` alike: it reads only what the
    seat may know (its own colours, public counts)."""
    shape = game.shape
    ghosts, squares = shape.ghosts, shape.squares
    out = np.zeros(observation_size(shape), dtype=np.int32)
    base, other = ghosts * player, ghosts * (1 - player)
    for i in range(ghosts):
        square = game.pos[base + i]
        if square >= 0:
            own = shape.to_own(player, square)
            out[i * squares + own] = 1
            if game.placed[player]:
                out[(ghosts + 1 if game.red[base + i] else ghosts) * squares + own] = 1
        square = game.pos[other + i]
        if square >= 0:
            out[(ghosts + 2) * squares + shape.to_own(player, square)] = 1
    opponent = 1 - player
    counts = (ghosts + 3) * squares
    out[counts:counts + 4] = (game.lost[opponent][0], game.lost[opponent][1], game.lost[player][0],
                              game.lost[player][1])
    out[counts + 4], out[counts + 5] = game.plies, game.max_turns - game.plies
    out[counts + 6], out[counts + 7] = not game.placed[player], game.placed[opponent]
    return out
