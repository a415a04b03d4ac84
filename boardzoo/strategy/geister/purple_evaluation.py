"""The purple search's evaluation of a leaf (:class:`PurpleEvaluation`, the half of
:class:`~boardzoo.strategy.geister.purple.PurpleSearch` that scores positions): the
belief's captures and dangers, the prices of lost blues and risky captures, and the
optional race, hunt, red pull and bait terms; with the plain reference versions the
tests hold the fast ones to."""

from __future__ import annotations

from boardzoo.strategy.geister.purple_position import (
    HUNT_SURE,
    RACE_WIN,
    UNCOVERED,
    UNCOVERED_REACH,
    Position,
    PurpleBoard,
    nearest_plain,
    nearest_ring,
    squares_of,
)


class PurpleEvaluation:
    """Scores :class:`~boardzoo.strategy.geister.purple_position.Position` leaves with the
    weights and prices the search sets in its constructor, by the tables of its
    ``board`` (the member of the Geister family searched)."""

    board: PurpleBoard
    weights: tuple[float, float]
    hunt: float
    race_weight: float
    red_pull: float
    bait: float
    caution: float
    hunting: bool
    boldness: float
    ordering: bool

    def evaluate(self, p: Position, ours_to_move: bool = True) -> float:
        w_ours, w_gain = self.weights
        board = self.board
        score = (w_gain * p.gain - board.blues_penalty[p.our_blues] - self.caution * board.takes_penalty[p.takes]
                 - p.danger)
        if p.blue:
            score -= w_ours * (nearest_ring(board.our_distance_rings, p.blue) + 0.25 * p.blue_steps)
        score -= w_ours * self.red_pull * p.red_steps
        if self.hunting and p.red:
            score -= self.hunt * self.hunt_steps(p)
        if self.race_weight:
            score += self.race_weight * self.race(p, ours_to_move)
        if self.bait and self.boldness:
            score += self.bait * self.boldness * self.offered_reds(p)
        return score

    def offered_reds(self, p: Position) -> int:
        """How many of our reds stand next to an opponent ghost."""
        neighbour_mask = self.board.neighbour_mask
        return sum(1 for s in squares_of(p.red) if neighbour_mask[s] & p.purple)

    def race(self, p: Position, ours_to_move: bool) -> float:
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
        board = self.board
        ours, theirs = p.red | p.blue, p.purple & ~p.marked
        runner = 99
        purple, blue = p.purple, p.blue
        for rings in board.our_exit_rings:
            for d, ring in enumerate(rings):  # outward from the exit: a guard, or a runner?
                if ring & purple or d + 1 >= runner:
                    break
                if ring & blue:
                    runner = d + 1
                    break
        # an opponent runner leaves first if it needs fewer moves (or as many, moving first)
        first = runner - 1 if ours_to_move else runner
        guards = [nearest_ring(rings, ours) for rings in board.their_exit_rings]
        # a ghost d steps from an exit, nearer than our guard, needs d + 1 moves
        reach = 0
        for k, within in enumerate(board.their_exit_within):
            reach |= within[min(guards[k], UNCOVERED_REACH)]
        near = theirs & reach
        threat, steps, exits = p.threat_odds, board.steps, board.their_exits
        cost, none_first = 0.0, 1.0
        while near:
            low = near & -near
            s = low.bit_length() - 1
            near ^= low
            moves = 99
            for k in range(len(exits)):
                d = steps[s][exits[k]]
                if d < guards[k] and d + 1 < moves:
                    moves = d + 1
            q = threat.get(s, 0.5)
            cost += q * UNCOVERED[moves]
            if moves <= first:
                none_first *= 1.0 - q
        win = RACE_WIN[runner] * none_first if runner < len(RACE_WIN) else 0.0
        return win - cost

    def race_plain(self, p: Position, ours_to_move: bool) -> float:
        """:meth:`race` ghost by ghost: the plain version the tests hold it to."""
        board = self.board
        steps, our_exits, their_exits = board.steps, board.our_exits, board.their_exits
        ours, theirs = p.red | p.blue, p.purple & ~p.marked
        # the nearest ghost of each side to each exit of the other: who can guard it
        their_guard = [nearest_plain(steps[e], p.purple) for e in our_exits]
        our_guard = [nearest_plain(steps[e], ours) for e in their_exits]
        runner = 99
        blue = p.blue
        while blue:
            low = blue & -blue
            s = low.bit_length() - 1
            blue ^= low
            for k in range(len(our_exits)):
                d = steps[s][our_exits[k]]
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
            for k in range(len(their_exits)):
                d = steps[s][their_exits[k]]
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
        odds, steps = p.blue_odds, self.board.steps
        for s in squares_of(p.purple & ~p.marked):  # square by square: the compiled search's order of sums
            q = odds.get(s, 0.0)
            if q >= HUNT_SURE:
                if reds is None:
                    reds = list(squares_of(p.red))
                total += q * self.hunters_distance(steps[s], reds)
        return total

    def evaluate_reference(self, p: Position, ours_to_move: bool = True) -> float:
        """:meth:`evaluate` summed from scratch, term by term: the plain version the
        tests hold the kept-up-to-date sums against."""
        w_ours, w_gain = self.weights
        board = self.board
        ours_distance = board.our_distance
        score = -board.blues_penalty[p.our_blues] + w_gain * p.gain
        if p.blue:
            score -= w_ours * min(ours_distance[s] for s in squares_of(p.blue))
            score -= w_ours * 0.25 * sum(ours_distance[s] for s in squares_of(p.blue))
        score -= w_ours * self.red_pull * sum(ours_distance[s] for s in squares_of(p.red))
        odds, capture_odds = p.threat_odds, p.blue_odds
        reds = list(squares_of(p.red)) if self.hunt else ()
        hunt = 0.0
        for s in squares_of(p.purple & ~p.marked):
            score -= odds.get(s, 0.5) * board.danger[board.their_distance[s]]
            if reds:
                q = capture_odds.get(s, 0.0)
                if q >= HUNT_SURE:
                    hunt += q * self.hunters_distance(board.steps[s], reds)
        score += self.race_weight * self.race_plain(p, ours_to_move) if self.race_weight else 0.0
        score += self.bait * self.boldness * self.offered_reds(p) if self.bait else 0.0
        return score - self.hunt * hunt - self.caution * board.takes_penalty[p.takes]

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
