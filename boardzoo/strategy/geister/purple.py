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
  the two by the ``boldness`` it is given (:meth:`PurpleSearch.their_gamble`): taking
  every opponent for cautious walks our blues into the reach of a rushing MCTS player
  (the Geister expert tutorial has the games);
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
``bench/bench_purple_search.py`` times both. Positions are bitmasks of the squares in
the searcher's own frame (row 0 is the far side; in the classic game our exits are squares
0 and 5, the opponent's 30 and 35); ``board`` holds the tables of the member of the
Geister family searched (:class:`~boardzoo.strategy.geister.purple_position.PurpleBoard`).

:mod:`boardzoo.strategy.geister.compiled_purple` (the ``fast`` extra) is this search compiled with numba: the
same nodes in the same order, the same move and value, only faster. The
``purple`` agent uses it when the extra is installed (``engine=auto``); this module stays
the reference it is tested against.
"""

from __future__ import annotations

import math
import time

from boardzoo.strategy.geister.purple_evaluation import PurpleEvaluation
from boardzoo.strategy.geister.purple_position import (
    BEST_MOVES_KEPT,
    CLASSIC_BOARD,
    ESCAPE_PRICE,
    HUNT_SURE,
    LAST_RED_RISK,
    REPEAT_CAP,
    SURE_ESCAPE,
    WIN,
    Position,
    PurpleBoard,
    board_key,
    moved_odds,
    squares_of,
)


class PurpleSearch(PurpleEvaluation):
    """Iterative-deepening alpha-beta on :class:`Position`; ``best_move`` returns our
    move as (from, to) own-frame squares, ``to`` = -1 for an escape."""

    def __init__(self, weights: tuple[float, float] = (10.0, 500.0), hunt: float = 0.0, repeat: float = 0.0,
                 ordering: bool = True, race: float = 0.0, red_pull: float = 0.1, bait: float = 0.0,
                 caution: float = 1.0, board: PurpleBoard = CLASSIC_BOARD):
        #: The tables of the member of the Geister family searched (set before a search).
        self.board = board
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

    def our_moves(self, p: Position) -> list[tuple[int, int]]:
        mine, neighbours = p.red | p.blue, self.board.neighbours
        captures: list[tuple[int, int]] = []
        quiet: list[tuple[int, int]] = []
        for s in squares_of(mine):
            for t in neighbours[s]:
                bit = 1 << t
                if mine & bit:
                    continue
                (captures if p.purple & bit else quiet).append((s, t))
        # forward moves first among the quiet ones
        quiet.sort(key=lambda m: m[1] - m[0])
        return captures + quiet

    def their_moves(self, p: Position) -> list[tuple[int, int]]:
        mine, neighbours = p.red | p.blue, self.board.neighbours
        captures: list[tuple[int, int]] = []
        quiet: list[tuple[int, int]] = []
        for s in squares_of(p.purple):
            for t in neighbours[s]:
                bit = 1 << t
                if p.purple & bit:
                    continue
                (captures if mine & bit else quiet).append((s, t))
        quiet.sort(key=lambda m: m[0] - m[1])
        return captures + quiet

    def play_ours(self, p: Position, s: int, t: int) -> Position | None:
        """Our move s -> t; None when it loses on the spot (the pessimistic fourth red)."""
        sb, tb = 1 << s, 1 << t
        board = self.board
        our_distance = board.our_distance
        red, blue = p.red, p.blue
        blue_steps, red_steps, danger = p.blue_steps, p.red_steps, p.danger
        if red & sb:
            red = red ^ sb | tb
            red_steps += our_distance[t] - our_distance[s]
        else:
            blue = blue ^ sb | tb
            blue_steps += our_distance[t] - our_distance[s]
        purple, marked, takes, hidden_reds, gain = p.purple, p.marked, p.takes, p.hidden_reds, p.gain
        if purple & tb:
            if not marked & tb:
                danger -= p.threat_odds.get(t, 0.5) * board.danger[board.their_distance[t]]
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
        board = self.board
        purple = p.purple ^ sb | tb
        blue_steps, red_steps, danger = p.blue_steps, p.red_steps, p.danger
        if p.marked & sb:
            marked = p.marked ^ sb | tb
        else:
            marked = p.marked
            prices, their_distance = board.danger, board.their_distance
            danger += p.threat_odds.get(s, 0.5) * (prices[their_distance[t]] - prices[their_distance[s]])
        red, blue, our_reds, our_blues = p.red, p.blue, p.our_reds, p.our_blues
        if (red | blue) & tb:
            if red & tb and our_reds <= 1:
                return None  # it took our fourth red
            if red & tb:
                red &= ~tb
                our_reds -= 1
                red_steps -= board.our_distance[t]
            else:
                blue &= ~tb
                our_blues -= 1
                blue_steps -= board.our_distance[t]
        odds = moved_odds(p.blue_odds, s, t)
        threat = odds if p.threat_odds is p.blue_odds else moved_odds(p.threat_odds, s, t)
        return Position(red, blue, purple, marked, p.takes, p.hidden_reds, our_reds, our_blues, p.gain, odds, threat,
                        (blue_steps, red_steps, danger))

    # --- search ----------------------------------------------------------------------------
    def our_turn(self, p: Position, depth: int, alpha: float, beta: float, ply: int) -> float:
        if p.blue & self.board.our_exit_mask:
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
        on_exit = p.purple & ~p.marked & self.board.exit_mask
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

    def can_capture(self, p: Position) -> bool:
        """Does an opponent ghost stand next to one of ours?"""
        neighbour_mask = self.board.neighbour_mask
        return any(p.purple & neighbour_mask[s] for s in squares_of(p.red | p.blue))

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
            if s in self.board.our_exits:
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
