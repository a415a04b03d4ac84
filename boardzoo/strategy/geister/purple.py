"""Alpha-beta search on Geister's "purple" abstraction (the ``purple`` agent's search).

A seat knows its own colours but not the opponent's. The purple abstraction plays the
opponent's ghosts as *purple*, the worst case for the searcher, which leaves a
perfect-information game that plain alpha-beta can search:

* an opponent ghost that stands on one of its exits at its owner's turn escapes (it may
  be blue). The colour belief softens this: a ghost whose odds of blue are below
  :data:`SURE_ESCAPE` costs its probability times :data:`ESCAPE_PRICE` instead (a bluffer
  walks its reds onto our exits as bait, and taking them all would lose);
* a capture of a ghost that may be red counts as red (:attr:`Position.takes`), so the
  capture that may be the fourth red loses, unless its chance of red is below
  :data:`LAST_RED_RISK`: then it is a gamble, a blue taken less that chance priced like
  an escape. Ghosts *known* red (they stood on an exit and did not escape) are set
  apart: once every red left is a known one, the others are surely blue and taking
  them is safe;
* the opponent cannot see our colours either, so once we have one red left any capture
  may be its fourth red. A cautious opponent (one that searches, as a bluffer does) then
  does not capture; a bold one (a plain Monte Carlo player) still does. The search mixes
  the two by the ``boldness`` it is given (:meth:`PurpleSearch.their_gamble`): assuming
  every opponent cautious, our blues walked into the reach of a rushing MCTS player and
  lost 44 of 60 games to it;
* our own ghosts have their true colours.

The evaluation adds what the belief knows: each capture's probability of blue, each
opponent ghost's danger (its probability of blue, as the cautious "threat" reading
gives it, times a price that rises steeply as it
nears our exits, :data:`DANGER`), and prices for blues we lost and for risky captures
we made that follow one curve, since four of either lose. Optional terms
(:class:`PurpleSearch`): ``race`` judges the race to the exits beyond the horizon (our
free runners against the opponent's likely blues that none of ours can stop,
:meth:`PurpleSearch.race`); ``red_pull`` draws our reds forward and ``bait`` values them
next to a bold opponent's ghosts; ``caution`` raises the price of risky captures;
``hunt`` prices the steps between each likely blue opponent ghost and the two nearest of
our reds, and ``repeat`` charges, at the root, each return to a position we moved to
before, which press a game that would otherwise be drawn.

The search is iterative deepening with a time budget, captures tried first, and at
each node the previous iteration's best move and the ply's killer moves first. Most of
its time goes to leaves, so three sums of the evaluation are kept in the positions move
by move; the plain versions stay beside them (``ordering=False``,
:meth:`PurpleSearch.evaluate_reference`), the tests hold the fast ones to them, and
``bench/bench_purple_search.py`` times both. Positions are bitmasks of the 36 squares in
the searcher's own frame (row 0 is the far side; our exits are squares 0 and 5, the
opponent's 30 and 35).

:mod:`boardzoo.strategy.geister.compiled_purple` (the ``fast`` extra) is this search compiled with numba: the
same nodes in the same order, the same move and value, about twenty times as fast. The
``purple`` agent uses it when the extra is installed (``engine=auto``); this module stays
the reference it is tested against.
"""

from __future__ import annotations

import math
import time

from boardzoo.games.geister.board import GHOSTS, OWN_STEPS, SIZE, SQUARES, to_own

#: A score beyond every evaluation: a decided game.
WIN = 1_000_000.0
#: The price of having ``k`` of the opponent's reds left by the pessimistic count: three
#: risky captures made cost as much as three blues lost.
TAKES_PENALTY = (0.0, 1300.0, 700.0, 300.0, 0.0)
#: The price of an opponent ghost that is surely blue at ``d`` steps from escaping (1: on
#: our exit), times its probability of being blue: a blue near our exits is a threat
#: long before the search's horizon can see it escape.
DANGER = (0.0, 1500.0, 700.0, 300.0, 120.0, 40.0, 10.0, 0.0, 0.0, 0.0, 0.0, 0.0)
#: The price of having lost ``k`` blue ghosts: the same curve, since four of either lose.
BLUES_LOST_PENALTY = (0.0, 300.0, 700.0, 1300.0, 1300.0)
OUR_EXITS = (0, SIZE - 1)
THEIR_EXITS = (SQUARES - SIZE, SQUARES - 1)
EXIT_MASK = (1 << THEIR_EXITS[0]) | (1 << THEIR_EXITS[1])
#: A ghost this likely blue on our exit at its owner's turn is taken to escape.
SURE_ESCAPE = 0.3
#: The price, per unit of probability, of a ghost of uncertain colour on our exit at its
#: owner's turn (it escapes and wins if blue).
ESCAPE_PRICE = 4_000.0
#: The highest chance of red at which we take a ghost when it may be the last red (the
#: capture then loses with that chance, priced like an escape: :data:`ESCAPE_PRICE`).
LAST_RED_RISK = 0.3
#: The hunt (:attr:`PurpleSearch.hunt`) chases only ghosts at least this likely blue: a
#: ghost of doubtful colour is bait as often as prey.
HUNT_SURE = 0.85
#: The race (:meth:`PurpleSearch.race`): the value of a *free runner*, one of our blues
#: nearer to one of our exits than every opponent ghost is, by the moves it needs to
#: leave (steps and the step off), when no opponent ghost wins the race first ...
RACE_WIN = (0.0, 0.0, 1200.0, 800.0, 500.0, 300.0, 150.0, 80.0)
#: ... and the price of an opponent ghost nearer to one of its exits (our home corners)
#: than any of our ghosts, by its moves to leave, times its threat odds: a corner left
#: without a guard loses a race that the search's horizon does not see.
UNCOVERED = (0.0, 0.0, 1500.0, 800.0, 400.0, 200.0, 100.0)
#: The most positions whose best move a search keeps for the next iteration's order
#: (:meth:`PurpleSearch.remember`): the compiled search keeps about 10,000 in 0.17 s and
#: this many in about two seconds; without a bound a long budget on it (millions of
#: nodes a second) would keep gigabytes.
BEST_MOVES_KEPT = 1 << 17
#: The most returns to one position that :attr:`PurpleSearch.repeat` charges for: a
#: guard that must step back and forth in front of an exit is not driven off it.
REPEAT_CAP = 4


def _neighbours() -> list[tuple[int, ...]]:
    table = []
    for square in range(SQUARES):
        x, y = square % SIZE, square // SIZE
        table.append(tuple((y + dy) * SIZE + x + dx for dx, dy in OWN_STEPS
                           if 0 <= x + dx < SIZE and 0 <= y + dy < SIZE))
    return table


NEIGHBOURS = _neighbours()
NEIGHBOUR_MASK = [sum(1 << t for t in targets) for targets in NEIGHBOURS]
#: Steps from a square to the nearer of our exits, and of theirs, plus one to go off.
OUR_DISTANCE = [square // SIZE + min(square % SIZE, SIZE - 1 - square % SIZE) + 1 for square in range(SQUARES)]
THEIR_DISTANCE = [SIZE - 1 - square // SIZE + min(square % SIZE, SIZE - 1 - square % SIZE) + 1
                  for square in range(SQUARES)]
#: Steps between two squares (the Manhattan distance).
STEPS = [[abs(a % SIZE - b % SIZE) + abs(a // SIZE - b // SIZE) for b in range(SQUARES)] for a in range(SQUARES)]


def _rings(steps: list[int]) -> tuple[int, ...]:
    """The squares at each distance of ``steps``, as masks: ring ``d`` holds every square
    ``d`` steps away."""
    return tuple(sum(1 << s for s in range(SQUARES) if steps[s] == d) for d in range(max(steps) + 1))


#: The rings of :data:`OUR_DISTANCE` and of the steps to each exit, for :func:`_nearest`.
OUR_DISTANCE_RINGS = _rings(OUR_DISTANCE)
OUR_EXIT_RINGS = tuple(_rings(STEPS[e]) for e in OUR_EXITS)
THEIR_EXIT_RINGS = tuple(_rings(STEPS[e]) for e in THEIR_EXITS)
#: The farthest an opponent runner can be and still cost something (:data:`UNCOVERED`).
UNCOVERED_REACH = len(UNCOVERED) - 1
#: The squares fewer than ``d`` steps from each of their exits (``d`` up to the reach).
THEIR_EXIT_WITHIN = tuple(tuple(sum(rings[:d]) for d in range(UNCOVERED_REACH + 1)) for rings in THEIR_EXIT_RINGS)


def squares_of(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class Position:
    """One node of the purple game, in the searcher's frame.

    ``red``/``blue``: our ghosts; ``purple``: the opponent's ghosts; ``marked``: those of
    them known to be red (they stood on an exit and did not escape); ``takes``: the
    opponent's reds left, counting every capture of a ghost that may be red as red (the
    pessimistic count: when it reaches zero we have taken the fourth red and lost);
    ``hidden_reds``: how many of the opponent's unmarked ghosts may still be red (none: the
    rest are surely blue); ``our_reds``/``our_blues``: our ghosts left of each colour;
    ``gain``: the expected blues among our captures so far; ``blue_odds``: square ->
    probability that the opponent ghost there is blue (moved along with the ghost), what a
    capture is worth; ``threat_odds``: the same, for weighing its escape (a cautious reader
    may fear an escape more than it values the capture).

    Three sums of the evaluation are kept up to date move by move rather than summed
    again at every leaf (the leaves are most of a search's time): ``blue_steps`` and
    ``red_steps``, our ghosts' :data:`OUR_DISTANCE` summed by colour, and ``danger``, each
    unmarked opponent ghost's threat odds times :data:`DANGER` of its distance. Left out,
    they are summed from the position (:meth:`sums`)."""

    __slots__ = ("red", "blue", "purple", "marked", "takes", "hidden_reds", "our_reds", "our_blues", "gain",
                 "blue_odds", "threat_odds", "blue_steps", "red_steps", "danger")

    def __init__(self, red: int, blue: int, purple: int, marked: int, takes: int, hidden_reds: int,
                 our_reds: int, our_blues: int, gain: float = 0.0, blue_odds: dict[int, float] | None = None,
                 threat_odds: dict[int, float] | None = None,
                 sums: tuple[int, int, float] | None = None):
        self.red, self.blue, self.purple, self.marked = red, blue, purple, marked
        self.takes, self.hidden_reds, self.our_reds, self.our_blues = takes, hidden_reds, our_reds, our_blues
        self.gain = gain
        self.blue_odds = blue_odds or {}
        self.threat_odds = self.blue_odds if threat_odds is None else threat_odds
        self.blue_steps, self.red_steps, self.danger = self.sums() if sums is None else sums

    def sums(self) -> tuple[int, int, float]:
        """(blue_steps, red_steps, danger) summed afresh from the pieces."""
        threat = self.threat_odds
        return (sum(OUR_DISTANCE[s] for s in squares_of(self.blue)),
                sum(OUR_DISTANCE[s] for s in squares_of(self.red)),
                sum(threat.get(s, 0.5) * DANGER[THEIR_DISTANCE[s]] for s in squares_of(self.purple & ~self.marked)))


class PurpleSearch:
    """Iterative-deepening alpha-beta on :class:`Position`; ``best_move`` returns our
    move as (from, to) own-frame squares, ``to`` = -1 for an escape."""

    def __init__(self, weights: tuple[float, float] = (10.0, 500.0), hunt: float = 0.0, repeat: float = 0.0,
                 ordering: bool = True, race: float = 0.0, red_pull: float = 0.1, bait: float = 0.0,
                 caution: float = 1.0):
        # (a step of our blues toward an exit, an expected blue captured)
        self.weights = weights
        #: The price of a step between a likely blue opponent ghost (:data:`HUNT_SURE`)
        #: and each of the two nearest of our reds, times its odds of blue: it brings
        #: two hunters to a blue that one alone chases round in circles (a ghost on a
        #: grid keeps its distance from a single chaser forever; two corner it). Reds
        #: hunt because losing one costs nothing (four lost win).
        self.hunt = hunt
        #: The price, at the root, of a move to a position we moved to before in this
        #: game, per time (at most :data:`REPEAT_CAP` times): it breaks the
        #: back-and-forth that draws won games.
        self.repeat = repeat
        #: The weight of the race (:meth:`race`), beyond the search's horizon: our free
        #: runners against the opponent's likely blues that we could not stop.
        self.race_weight = race
        #: How hard our reds are drawn forward, a step's price relative to our blues'
        #: (0.25 for each blue, and the nearest blue's steps once more).
        self.red_pull = red_pull
        #: The value of each of our reds next to an opponent ghost, times the opponent's
        #: :attr:`boldness`: a bold opponent takes what it can, and four reds taken win.
        self.bait = bait
        #: How dear a capture of a ghost that may be red is: a multiple of
        #: :data:`TAKES_PENALTY`, the price of the reds left by the pessimistic count.
        #: Each such capture brings the fourth red, which loses, one nearer; a cautious
        #: search takes fewer of them and stays out of the last red's gambles.
        self.caution = caution
        #: Try first, at each node, the move that was best there in the previous
        #: iteration, then the moves that cut off at the same ply elsewhere (killers).
        #: It changes no value, only how soon alpha-beta finds it: a five-ply search
        #: visits about a fifth as many nodes. False: the plain order (the reference).
        self.ordering = ordering
        self.best: dict[tuple[int, int, int, int], tuple[int, int]] = {}
        self.killers: list[list[tuple[int, int]]] = []
        #: Is any opponent ghost sure enough to hunt in this search (odds never change
        #: within a search, they only move with their ghosts)? Set by each search.
        self.hunting = bool(hunt)
        self.nodes = 0
        self.deadline = 0.0
        self.depth_done = 0
        self.boldness = 0.0

    def tick(self) -> None:
        """Count a node, leaves included, and stop the search when its time is up (the
        clock is read every 64 nodes: about 2 ms of search between readings)."""
        self.nodes += 1
        if self.nodes & 63 == 0 and time.perf_counter() > self.deadline:
            raise TimeoutError

    # --- evaluation ------------------------------------------------------------------------
    def evaluate(self, p: Position, ours_to_move: bool = True) -> float:
        w_ours, w_gain = self.weights
        score = (w_gain * p.gain - BLUES_LOST_PENALTY[4 - p.our_blues] - self.caution * TAKES_PENALTY[p.takes]
                 - p.danger)
        if p.blue:
            score -= w_ours * (_nearest(OUR_DISTANCE_RINGS, p.blue) + 0.25 * p.blue_steps)
        score -= w_ours * self.red_pull * p.red_steps
        if self.hunting and p.red:
            score -= self.hunt * self.hunt_steps(p)
        if self.race_weight:
            score += self.race_weight * self.race(p, ours_to_move)
        if self.bait and self.boldness:
            score += self.bait * self.boldness * self.offered_reds(p)
        return score

    @staticmethod
    def offered_reds(p: Position) -> int:
        """How many of our reds stand next to an opponent ghost."""
        return sum(1 for s in squares_of(p.red) if NEIGHBOUR_MASK[s] & p.purple)

    @staticmethod
    def race(p: Position, ours_to_move: bool) -> float:
        """Who wins the race to the exits, beyond the horizon. A *free runner* is a ghost
        nearer to one of its exits than every ghost of the other side is: nothing can
        reach that corner before it. Our fastest free blue, ``n`` moves from leaving, is
        worth :data:`RACE_WIN` ``[n]`` times the chance that no opponent free runner
        leaves first (each unmarked one is blue by its threat odds, independently; the
        side to move wins a tie); each opponent free runner ``n`` moves from leaving
        costs its threat odds times :data:`UNCOVERED` ``[n]``.

        It runs at every leaf, so it works ring by ring (:func:`_rings`): outward from each
        of our exits until a guard or a blue (a runner) stands on the ring, and only the
        opponent's ghosts within the reach of :data:`UNCOVERED` and nearer their exits
        than our guards are looked at one by one (:meth:`race_plain`, the plain version,
        walks over every ghost for each exit)."""
        ours, theirs = p.red | p.blue, p.purple & ~p.marked
        runner = 99
        purple, blue = p.purple, p.blue
        for rings in OUR_EXIT_RINGS:
            for d, ring in enumerate(rings):  # outward from the exit: a guard, or a runner?
                if ring & purple or d + 1 >= runner:
                    break
                if ring & blue:
                    runner = d + 1
                    break
        # an opponent runner leaves first if it needs fewer moves (or as many, moving first)
        first = runner - 1 if ours_to_move else runner
        guards = [_nearest(rings, ours) for rings in THEIR_EXIT_RINGS]
        # a ghost d steps from an exit, nearer than our guard, needs d + 1 moves
        near = theirs & (THEIR_EXIT_WITHIN[0][min(guards[0], UNCOVERED_REACH)]
                         | THEIR_EXIT_WITHIN[1][min(guards[1], UNCOVERED_REACH)])
        threat = p.threat_odds
        cost, none_first = 0.0, 1.0
        while near:
            low = near & -near
            s = low.bit_length() - 1
            near ^= low
            moves = 99
            for k in (0, 1):
                d = STEPS[s][THEIR_EXITS[k]]
                if d < guards[k] and d + 1 < moves:
                    moves = d + 1
            q = threat.get(s, 0.5)
            cost += q * UNCOVERED[moves]
            if moves <= first:
                none_first *= 1.0 - q
        win = RACE_WIN[runner] * none_first if runner < len(RACE_WIN) else 0.0
        return win - cost

    @staticmethod
    def race_plain(p: Position, ours_to_move: bool) -> float:
        """:meth:`race` ghost by ghost: the plain version the tests hold it to."""
        ours, theirs = p.red | p.blue, p.purple & ~p.marked
        # the nearest ghost of each side to each exit of the other: who can guard it
        their_guard = [_nearest_plain(STEPS[e], p.purple) for e in OUR_EXITS]
        our_guard = [_nearest_plain(STEPS[e], ours) for e in THEIR_EXITS]
        runner = 99
        blue = p.blue
        while blue:
            low = blue & -blue
            s = low.bit_length() - 1
            blue ^= low
            for k in (0, 1):
                d = STEPS[s][OUR_EXITS[k]]
                if d < their_guard[k] and d + 1 < runner:
                    runner = d + 1
        # an opponent runner leaves first if it needs fewer moves (or as many, moving first)
        first = runner - 1 if ours_to_move else runner
        threat = p.threat_odds
        cost, none_first = 0.0, 1.0
        while theirs:
            low = theirs & -theirs
            s = low.bit_length() - 1
            theirs ^= low
            moves = 99
            for k in (0, 1):
                d = STEPS[s][THEIR_EXITS[k]]
                if d < our_guard[k] and d + 1 < moves:
                    moves = d + 1
            if moves < len(UNCOVERED):
                q = threat.get(s, 0.5)
                cost += q * UNCOVERED[moves]
                if moves <= first:
                    none_first *= 1.0 - q
        win = RACE_WIN[runner] * none_first if runner < len(RACE_WIN) else 0.0
        return win - cost

    def hunt_steps(self, p: Position) -> float:
        """The steps between each opponent ghost at least :data:`HUNT_SURE` likely blue
        and the two nearest of our reds, each times its odds of blue."""
        reds = None
        total = 0.0
        odds = p.blue_odds
        for s in squares_of(p.purple & ~p.marked):  # square by square: the compiled search's order of sums
            q = odds.get(s, 0.0)
            if q >= HUNT_SURE:
                if reds is None:
                    reds = list(squares_of(p.red))
                total += q * self.hunters_distance(STEPS[s], reds)
        return total

    def evaluate_reference(self, p: Position, ours_to_move: bool = True) -> float:
        """:meth:`evaluate` summed from scratch, term by term: the plain version the
        tests hold the kept-up-to-date sums against."""
        w_ours, w_gain = self.weights
        score = -BLUES_LOST_PENALTY[4 - p.our_blues] + w_gain * p.gain
        if p.blue:
            score -= w_ours * min(OUR_DISTANCE[s] for s in squares_of(p.blue))
            score -= w_ours * 0.25 * sum(OUR_DISTANCE[s] for s in squares_of(p.blue))
        score -= w_ours * self.red_pull * sum(OUR_DISTANCE[s] for s in squares_of(p.red))
        odds, capture_odds = p.threat_odds, p.blue_odds
        reds = list(squares_of(p.red)) if self.hunt else ()
        hunt = 0.0
        for s in squares_of(p.purple & ~p.marked):
            score -= odds.get(s, 0.5) * DANGER[THEIR_DISTANCE[s]]
            if reds:
                q = capture_odds.get(s, 0.0)
                if q >= HUNT_SURE:
                    hunt += q * self.hunters_distance(STEPS[s], reds)
        score += self.race_weight * self.race_plain(p, ours_to_move) if self.race_weight else 0.0
        score += self.bait * self.boldness * self.offered_reds(p) if self.bait else 0.0
        return score - self.hunt * hunt - self.caution * TAKES_PENALTY[p.takes]

    @staticmethod
    def hunters_distance(steps: list[int], reds: list[int]) -> int:
        """The steps to a square (``steps``: from each square) of the two nearest of our
        reds, or of the one red we have."""
        first = second = 0
        for r in reds:
            d = steps[r]
            if not first or d < first:
                first, second = d, first
            elif not second or d < second:
                second = d
        return first + second

    # --- moves -----------------------------------------------------------------------------
    def our_moves(self, p: Position) -> list[tuple[int, int]]:
        mine = p.red | p.blue
        captures: list[tuple[int, int]] = []
        quiet: list[tuple[int, int]] = []
        for s in squares_of(mine):
            for t in NEIGHBOURS[s]:
                bit = 1 << t
                if mine & bit:
                    continue
                (captures if p.purple & bit else quiet).append((s, t))
        # forward moves first among the quiet ones
        quiet.sort(key=lambda m: m[1] - m[0])
        return captures + quiet

    def their_moves(self, p: Position) -> list[tuple[int, int]]:
        mine = p.red | p.blue
        captures: list[tuple[int, int]] = []
        quiet: list[tuple[int, int]] = []
        for s in squares_of(p.purple):
            for t in NEIGHBOURS[s]:
                bit = 1 << t
                if p.purple & bit:
                    continue
                (captures if mine & bit else quiet).append((s, t))
        quiet.sort(key=lambda m: m[0] - m[1])
        return captures + quiet

    def play_ours(self, p: Position, s: int, t: int) -> Position | None:
        """Our move s -> t; None when it loses on the spot (the pessimistic fourth red)."""
        sb, tb = 1 << s, 1 << t
        red, blue = p.red, p.blue
        blue_steps, red_steps, danger = p.blue_steps, p.red_steps, p.danger
        if red & sb:
            red = red ^ sb | tb
            red_steps += OUR_DISTANCE[t] - OUR_DISTANCE[s]
        else:
            blue = blue ^ sb | tb
            blue_steps += OUR_DISTANCE[t] - OUR_DISTANCE[s]
        purple, marked, takes, hidden_reds, gain = p.purple, p.marked, p.takes, p.hidden_reds, p.gain
        if purple & tb:
            if not marked & tb:
                danger -= p.threat_odds.get(t, 0.5) * DANGER[THEIR_DISTANCE[t]]
            if marked & tb:  # a known red
                takes -= 1
            elif hidden_reds and takes == 1:
                # the last red: taking it loses, so this capture is a gamble on blue, worth
                # taking only against a likely blue (one that would otherwise walk out)
                risk = 1.0 - p.blue_odds.get(t, 0.0)
                if risk >= LAST_RED_RISK:
                    return None
                gain += 1.0 - risk * ESCAPE_PRICE / self.weights[1]
            elif hidden_reds:  # may be red: counted as red, valued by its odds of blue
                takes -= 1
                hidden_reds -= 1
                gain += p.blue_odds.get(t, 0.0)
            else:  # every red left is known: this one is blue
                gain += 1.0
            if takes <= 0:
                return None
            purple &= ~tb
            marked &= ~tb
        return Position(red, blue, purple, marked, takes, hidden_reds, p.our_reds, p.our_blues, gain, p.blue_odds,
                        p.threat_odds, (blue_steps, red_steps, danger))

    def play_theirs(self, p: Position, s: int, t: int) -> Position | None:
        """Their move s -> t; None when it loses for them."""
        sb, tb = 1 << s, 1 << t
        purple = p.purple ^ sb | tb
        blue_steps, red_steps, danger = p.blue_steps, p.red_steps, p.danger
        if p.marked & sb:
            marked = p.marked ^ sb | tb
        else:
            marked = p.marked
            danger += p.threat_odds.get(s, 0.5) * (DANGER[THEIR_DISTANCE[t]] - DANGER[THEIR_DISTANCE[s]])
        red, blue, our_reds, our_blues = p.red, p.blue, p.our_reds, p.our_blues
        if (red | blue) & tb:
            if red & tb and our_reds <= 1:
                return None  # it took our fourth red
            if red & tb:
                red &= ~tb
                our_reds -= 1
                red_steps -= OUR_DISTANCE[t]
            else:
                blue &= ~tb
                our_blues -= 1
                blue_steps -= OUR_DISTANCE[t]
        odds = _moved(p.blue_odds, s, t)
        threat = odds if p.threat_odds is p.blue_odds else _moved(p.threat_odds, s, t)
        return Position(red, blue, purple, marked, p.takes, p.hidden_reds, our_reds, our_blues, p.gain, odds, threat,
                        (blue_steps, red_steps, danger))

    # --- search ----------------------------------------------------------------------------
    def our_turn(self, p: Position, depth: int, alpha: float, beta: float, ply: int) -> float:
        if p.blue & ((1 << OUR_EXITS[0]) | (1 << OUR_EXITS[1])):
            return WIN - ply
        if p.our_blues == 0:
            return -WIN + ply
        self.tick()
        if depth == 0:
            return self.evaluate(p)
        best: float = -WIN
        moves = self.our_moves(p)
        key = (p.red, p.blue, p.purple, 0)
        if self.ordering:
            self.order(moves, key, ply)
        best_move = moves[0]
        for s, t in moves:
            child = self.play_ours(p, s, t)
            value = -WIN + ply if child is None else self.their_turn(child, depth - 1, alpha, beta, ply + 1)
            if value > best:
                best, best_move = value, (s, t)
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        if self.ordering:
            self.remember(key, best_move, ply, depth, best >= beta)
        return best

    def their_turn(self, p: Position, depth: int, alpha: float, beta: float, ply: int) -> float:
        self.tick()
        on_exit = p.purple & ~p.marked & EXIT_MASK
        risk = 0.0
        if on_exit:
            # a ghost on our exit at its owner's turn escapes if it is blue
            risk = max(p.blue_odds.get(s, 1.0) for s in squares_of(on_exit))
            if risk >= SURE_ESCAPE:
                return -WIN + ply
            if depth == 0:
                return self.evaluate(p, False) - ESCAPE_PRICE * risk
        if depth == 0:
            return self.evaluate(p, False)
        # the escape, should the ghost be blue, is not a move of this purple game
        stay = self.evaluate(p, False) - ESCAPE_PRICE * risk if risk else None
        if p.our_reds <= 1 and self.boldness > 0.0 and self.can_capture(p):
            return self.their_gamble(p, depth, ply, stay)
        best: float = WIN
        if stay is not None:
            best = stay
            if best <= alpha:
                return best
            beta = min(beta, best)
        moves = self.their_moves(p)
        key = (p.red, p.blue, p.purple, 1)
        if self.ordering:
            self.order(moves, key, ply)
        best_move = moves[0] if moves else (0, 0)
        for s, t in moves:
            if p.our_reds <= 1 and (p.red | p.blue) & (1 << t):
                continue  # a cautious opponent: any capture may be its fourth red
            child = self.play_theirs(p, s, t)
            value = WIN - ply if child is None else self.our_turn(child, depth - 1, alpha, beta, ply + 1)
            if value < best:
                best, best_move = value, (s, t)
                if value < beta:
                    beta = value
                    if alpha >= beta:
                        break
        if self.ordering:
            self.remember(key, best_move, ply, depth, best <= alpha)
        return best

    def order(self, moves: list[tuple[int, int]], key: tuple[int, int, int, int], ply: int) -> None:
        """Put first the previous iteration's best move at this node, then this ply's
        killers (in place; the moves are legal ones of this node)."""
        if ply < len(self.killers):
            for killer in self.killers[ply]:
                if killer in moves:
                    moves.remove(killer)
                    moves.insert(0, killer)
        hint = self.best.get(key)
        if hint is not None and hint in moves:
            moves.remove(hint)
            moves.insert(0, hint)

    def remember(self, key: tuple[int, int, int, int], move: tuple[int, int], ply: int, depth: int,
                 cut: bool) -> None:
        """Keep the best move of a node searched two plies or more (the table stays a
        small fraction of the nodes, and at most :data:`BEST_MOVES_KEPT` positions), and
        a move that cut off as a killer of its ply."""
        if depth >= 2 and (len(self.best) < BEST_MOVES_KEPT or key in self.best):
            self.best[key] = move
        if cut:
            while len(self.killers) <= ply:
                self.killers.append([])
            killers = self.killers[ply]
            if move not in killers:
                killers.insert(0, move)
                del killers[2:]

    def their_gamble(self, p: Position, depth: int, ply: int, stay: float | None) -> float:
        """Their turn when we have one red left, against an opponent that may be bold: a
        cautious one does not capture (the capture may be its fourth red, which loses),
        a bold one does, and takes a blue (it reads our colours as we fear it might).
        The value is the mixture by :attr:`boldness`; the two minima are mixed, so the
        children are searched with the full window."""
        cautious = WIN if stay is None else stay
        bold = cautious
        mine = p.red | p.blue
        for s, t in self.their_moves(p):
            capture = mine & (1 << t)
            if capture and p.red & capture:
                continue  # taking our last red loses: no opponent chooses it knowingly
            child = self.play_theirs(p, s, t)
            value = WIN - ply if child is None else self.our_turn(child, depth - 1, -WIN - 1.0, WIN + 1.0, ply + 1)
            if capture:
                bold = min(bold, value)
            else:
                cautious = min(cautious, value)
        return self.boldness * min(bold, cautious) + (1.0 - self.boldness) * cautious

    @staticmethod
    def can_capture(p: Position) -> bool:
        """Does an opponent ghost stand next to one of ours?"""
        return any(p.purple & NEIGHBOUR_MASK[s] for s in squares_of(p.red | p.blue))

    def best_move(self, p: Position, seconds: float | None, max_depth: int = 40,
                  boldness: float = 0.0, visited: dict[tuple[int, int, int], int] | None = None
                  ) -> tuple[tuple[int, int], float]:
        """Our best move (from, to; to = -1 escapes) and its value, searching deeper
        until ``seconds`` run out (None: until ``max_depth``); the deepest finished
        iteration decides. ``boldness``: the probability that the opponent captures when
        we have one red left (:meth:`their_gamble`; 0: it never does). ``visited``:
        how often this game reached each position (:func:`board_key`) after our move;
        each time costs :attr:`repeat`."""
        self.boldness = boldness
        start = time.perf_counter()
        self.deadline = math.inf if seconds is None else start + seconds
        self.nodes = 0
        self.best.clear()
        self.killers.clear()
        self.hunting = bool(self.hunt) and any(q >= HUNT_SURE for q in p.blue_odds.values())
        for s in squares_of(p.blue):
            if s in OUR_EXITS:
                self.depth_done = 0
                return (s, -1), WIN
        moves = self.our_moves(p)
        best_move, best_value = moves[0], -WIN
        self.depth_done = 0
        for depth in range(1, max_depth + 1):
            try:
                alpha, chosen, chosen_value = -WIN - 1.0, moves[0], -WIN - 1.0
                for s, t in moves:
                    child = self.play_ours(p, s, t)
                    if child is None:
                        value = -WIN
                    else:
                        value = self.their_turn(child, depth - 1, alpha, WIN + 1, 1)
                        if visited and self.repeat and abs(value) < WIN / 2:
                            value -= self.repeat * min(visited.get(board_key(child), 0), REPEAT_CAP)
                    if value > chosen_value:
                        chosen, chosen_value = (s, t), value
                        alpha = max(alpha, value)
            except TimeoutError:
                break
            best_move, best_value, self.depth_done = chosen, chosen_value, depth
            moves.remove(chosen)
            moves.insert(0, chosen)
            if abs(chosen_value) > WIN / 2:
                break
        return best_move, best_value


def _nearest(rings: tuple[int, ...], mask: int) -> int:
    """The fewest steps to a square of ``mask``, by the :func:`_rings` of the steps (99:
    none): the evaluation asks it at every leaf, and ring by ring from the nearest it is a
    few ANDs instead of a walk over every ghost (:func:`_nearest_plain`)."""
    for d, ring in enumerate(rings):
        if ring & mask:
            return d
    return 99


def _nearest_plain(steps: list[int], mask: int) -> int:
    """:func:`_nearest` ghost by ghost: the plain version the tests hold it to."""
    nearest = 99
    while mask:
        low = mask & -mask
        d = steps[low.bit_length() - 1]
        if d < nearest:
            nearest = d
        mask ^= low
    return nearest


def _moved(table: dict[int, float], s: int, t: int) -> dict[int, float]:
    """``table`` (square -> odds) after the ghost on ``s`` moved to ``t``: its entry goes
    along, and an entry left on ``t`` by a ghost taken there goes."""
    if s not in table and t not in table:
        return table
    table = dict(table)
    if s in table:
        table[t] = table.pop(s)
    else:
        del table[t]
    return table


def board_key(p: Position) -> tuple[int, int, int]:
    """Where every ghost stands (ours by colour): what repeats when play goes back and forth."""
    return p.red, p.blue, p.purple


def position_of(view, marked_red: frozenset[int] | set[int] = frozenset(),
                blue_odds: dict[int, float] | None = None, threat_odds: dict[int, float] | None = None) -> Position:
    """The purple position of ``view`` (a :class:`GeisterView` at its seat's turn), in
    the seat's own frame; ``marked_red``: opponent ghosts the seat treats as red;
    ``blue_odds``: ghost -> probability it is blue (what a capture is worth);
    ``threat_odds``: ghost -> probability it is blue when its escape is weighed (the
    blue odds when not given)."""
    seat = view.seat
    red = blue = purple = marked = 0
    odds, threat = {}, {}
    for g in range(2 * GHOSTS):
        square = view.pos[g]
        if square < 0:
            continue
        bit = 1 << to_own(seat, square)
        if g // GHOSTS == seat:
            if view.red[g]:
                red |= bit
            else:
                blue |= bit
        else:
            purple |= bit
            if g in marked_red:
                marked |= bit
            if blue_odds and g in blue_odds:
                odds[to_own(seat, square)] = blue_odds[g]
            if threat_odds and g in threat_odds:
                threat[to_own(seat, square)] = threat_odds[g]
    opponent = 1 - seat
    takes = 4 - view.lost[opponent][1]
    hidden_reds = max(0, takes - bin(marked).count("1"))
    our_reds, our_blues = 4 - view.lost[seat][1], 4 - view.lost[seat][0]
    return Position(red, blue, purple, marked, takes, hidden_reds, our_reds, our_blues, 0.0, odds,
                    threat if threat_odds is not None else None)
