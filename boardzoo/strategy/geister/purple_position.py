"""The purple abstraction's position (:class:`Position`: bitmasks of the squares in the
searcher's own frame) and its tables (:class:`PurpleBoard`, one per member of the
Geister family): the prices of the evaluation, the squares' neighbours and distances to
the exits, and a seat's view turned into a position (:func:`position_of`). The purple
search (:mod:`.purple`) reads a board's tables; its compiled twin
(:mod:`.compiled_purple`) reads the classic game's, this module's constants."""

from __future__ import annotations

from boardzoo.games.geister.board import CLASSIC, OWN_STEPS, Layout

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
#: (:meth:`PurpleSearch.remember`): room for a search of a few seconds; without a bound a
#: long budget on the compiled search would keep gigabytes.
BEST_MOVES_KEPT = 1 << 17
#: The most returns to one position that :attr:`PurpleSearch.repeat` charges for: a
#: guard that must step back and forth in front of an exit is not driven off it.
REPEAT_CAP = 4


class PurpleBoard:
    """The purple search's tables for one member of the Geister family (:func:`purple_board`),
    squares in the searcher's own frame: row 0 the far side, where our exits are (the
    opponent's on the last row, turned about)."""

    __slots__ = ("squares", "our_exits", "their_exits", "exit_mask", "our_exit_mask", "neighbours",
                 "neighbour_mask", "our_distance", "their_distance", "steps", "our_distance_rings",
                 "our_exit_rings", "their_exit_rings", "their_exit_within", "danger", "takes_penalty",
                 "blues_penalty")

    def __init__(self, shape: Layout):
        rows, cols = shape.rows, shape.cols
        squares = self.squares = shape.squares
        if squares > 62:
            raise ValueError(f"the purple search keeps a board in 62 bits; {shape} has {squares} squares")
        two = shape.exits == 2
        self.our_exits: tuple[int, ...] = (0, cols - 1) if two else (0,)
        self.their_exits: tuple[int, ...] = (squares - cols, squares - 1) if two else (squares - 1,)
        self.exit_mask = sum(1 << e for e in self.their_exits)
        self.our_exit_mask = sum(1 << e for e in self.our_exits)
        self.neighbours = [tuple((y + dy) * cols + x + dx for dx, dy in OWN_STEPS if 0 <= x + dx < cols
                                 and 0 <= y + dy < rows) for x, y in (divmod(s, cols)[::-1] for s in range(squares))]
        self.neighbour_mask = [sum(1 << t for t in targets) for targets in self.neighbours]
        #: Steps between two squares (the Manhattan distance).
        self.steps = [[abs(a % cols - b % cols) + abs(a // cols - b // cols) for b in range(squares)]
                      for a in range(squares)]
        #: Steps from a square to the nearer of our exits, and of theirs, plus one to go off.
        self.our_distance = [min(self.steps[s][e] for e in self.our_exits) + 1 for s in range(squares)]
        self.their_distance = [min(self.steps[s][e] for e in self.their_exits) + 1 for s in range(squares)]
        #: The rings of the distances and of the steps to each exit, for :func:`nearest_ring`.
        self.our_distance_rings = self._rings(self.our_distance)
        self.our_exit_rings = tuple(self._rings(self.steps[e]) for e in self.our_exits)
        self.their_exit_rings = tuple(self._rings(self.steps[e]) for e in self.their_exits)
        #: The squares fewer than ``d`` steps from each of their exits (``d`` up to the reach).
        self.their_exit_within: tuple[tuple[int, ...], ...] = tuple(
            tuple(sum(rings[:d]) for d in range(UNCOVERED_REACH + 1)) for rings in self.their_exit_rings)
        self.danger = DANGER + (0.0,) * max(0, max(self.their_distance) + 1 - len(DANGER))
        #: By the opponent's reds left (the pessimistic count), and by our blues left: the
        #: classic game's curves, counted from the end (a side with one left is as near to
        #: losing whatever it started with).
        self.takes_penalty = tuple(TAKES_PENALTY[k] if k < len(TAKES_PENALTY) else 0.0 for k in range(shape.red + 1))
        self.blues_penalty = tuple(BLUES_LOST_PENALTY[max(0, 4 - left)] for left in range(shape.blue + 1))

    def _rings(self, steps: list[int]) -> tuple[int, ...]:
        """The squares at each distance of ``steps``, as masks: ring ``d`` holds every
        square ``d`` steps away."""
        return tuple(sum(1 << s for s in range(self.squares) if steps[s] == d) for d in range(max(steps) + 1))


#: The farthest an opponent runner can be and still cost something (:data:`UNCOVERED`).
UNCOVERED_REACH = len(UNCOVERED) - 1
_BOARDS: dict[Layout, PurpleBoard] = {}


def purple_board(shape: Layout) -> PurpleBoard:
    """The tables of ``shape`` (one shared object each)."""
    if shape not in _BOARDS:
        _BOARDS[shape] = PurpleBoard(shape)
    return _BOARDS[shape]


CLASSIC_BOARD = purple_board(CLASSIC)
#: The classic game's tables, by name (the compiled search's constants).
OUR_EXITS, THEIR_EXITS, EXIT_MASK = CLASSIC_BOARD.our_exits, CLASSIC_BOARD.their_exits, CLASSIC_BOARD.exit_mask
NEIGHBOURS, NEIGHBOUR_MASK = CLASSIC_BOARD.neighbours, CLASSIC_BOARD.neighbour_mask
OUR_DISTANCE, THEIR_DISTANCE, STEPS = CLASSIC_BOARD.our_distance, CLASSIC_BOARD.their_distance, CLASSIC_BOARD.steps
OUR_DISTANCE_RINGS, OUR_EXIT_RINGS = CLASSIC_BOARD.our_distance_rings, CLASSIC_BOARD.our_exit_rings
THEIR_EXIT_RINGS, THEIR_EXIT_WITHIN = CLASSIC_BOARD.their_exit_rings, CLASSIC_BOARD.their_exit_within


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

    def sums(self, board: PurpleBoard = CLASSIC_BOARD) -> tuple[int, int, float]:
        """(blue_steps, red_steps, danger) summed afresh from the pieces, by ``board``'s tables."""
        threat, ours, theirs, danger = self.threat_odds, board.our_distance, board.their_distance, board.danger
        return (sum(ours[s] for s in squares_of(self.blue)), sum(ours[s] for s in squares_of(self.red)),
                sum(threat.get(s, 0.5) * danger[theirs[s]] for s in squares_of(self.purple & ~self.marked)))


def nearest_ring(rings: tuple[int, ...], mask: int) -> int:
    """The fewest steps to a square of ``mask``, by the :func:`_rings` of the steps (99:
    none): the evaluation asks it at every leaf, and ring by ring from the nearest it is a
    few ANDs instead of a walk over every ghost (:func:`nearest_plain`)."""
    for d, ring in enumerate(rings):
        if ring & mask:
            return d
    return 99


def nearest_plain(steps: list[int], mask: int) -> int:
    """:func:`nearest_ring` ghost by ghost: the plain version the tests hold it to."""
    nearest = 99
    while mask:
        low = mask & -mask
        d = steps[low.bit_length() - 1]
        if d < nearest:
            nearest = d
        mask ^= low
    return nearest


def moved_odds(table: dict[int, float], s: int, t: int) -> dict[int, float]:
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
    seat, shape = view.seat, view.shape
    ghosts, to_own = shape.ghosts, shape.to_own
    red = blue = purple = marked = 0
    odds, threat = {}, {}
    for g in range(2 * ghosts):
        square = view.pos[g]
        if square < 0:
            continue
        bit = 1 << to_own(seat, square)
        if g // ghosts == seat:
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
    takes = shape.red - view.lost[opponent][1]
    hidden_reds = max(0, takes - bin(marked).count("1"))
    our_reds, our_blues = shape.red - view.lost[seat][1], shape.blue - view.lost[seat][0]
    position = Position(red, blue, purple, marked, takes, hidden_reds, our_reds, our_blues, 0.0, odds,
                        threat if threat_odds is not None else None, (0, 0, 0.0))
    position.blue_steps, position.red_steps, position.danger = position.sums(purple_board(shape))
    return position
