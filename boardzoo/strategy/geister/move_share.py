"""Which colour the opponent moves more, learned within a game: :class:`MoveShareReading`.

A rusher sends its reds forward and leaves its blues at home; a runner does the
opposite; a program that plays both colours alike moves them alike. Which it is shows in
the ghosts our captures reveal: if the reds we took made most of the moves, the ghosts
still moving are likely red too.

The model: at each of its moves the opponent picks one of its ghosts on the board, a red
one with weight ``rho`` and a blue one with weight 1, so a move picks ghost ``g`` with
probability ``w(g) / (rho R + B)``, where ``R`` and ``B`` are the reds and blues it had on
the board at that move. Those counts are public (every ghost it lost was taken by us, and
its colour shown), so a game's likelihood under a colouring of the hidden ghosts is
``rho ** (moves made by its reds) / prod over the moves of (rho R + B)``. A ghost taken
early made few moves only because it lived briefly; the denominator counts each move
against the ghosts alive when it was made, so an early loss does not read as a quiet
colour. ``rho`` is unknown: a grid over log rho with a normal prior centred on 1 (no
preference), integrated out. Before any capture the reading is symmetric between the
colours (it says only that the busy ghosts share a colour); it becomes a tell as captures
show which colour was busy. A ghost that stood on our exit and did not escape is red.

The reader is stateful within a game: it must see the opponent's moves as they come, at
each of our turns (:meth:`MoveShareReading.new_game` starts a game), because the
denominator needs the ghosts alive at each move.
"""

from __future__ import annotations

import math
from itertools import combinations

from boardzoo.games.geister.information import GeisterView

#: The grid of log rho, the weight of a red ghost's move against a blue one's.
LOG_RHO = [k / 4 for k in range(-16, 17)]
#: The standard deviation of the normal prior on log rho.
PRIOR_SPREAD = 1.0
#: The factor on a ghost's weight of blue for each time it declined an escape (at most 3).
DECLINED_BLUE = 0.05


class MoveShareReading:
    """``f(view, unknown, blues) -> probabilities of blue``, by which colour moves more."""

    def __init__(self) -> None:
        self.new_game()

    def new_game(self) -> None:
        """Forget the game read so far."""
        #: For each log rho: the sum over the opponent's moves seen of log(rho R + B).
        self.log_denominator = [0.0] * len(LOG_RHO)
        self.moves_seen = 0

    def _see_moves(self, view: GeisterView) -> None:
        """Count the opponent's moves made since the last call against the ghosts it has
        now (none of its ghosts leaves the board on its own move, so these are the ghosts it
        had when it moved)."""
        owner, ghosts = 1 - view.seat, view.shape.ghosts
        total = sum(view.moved[ghosts * owner: ghosts * owner + ghosts])
        if total < self.moves_seen:  # a view of another game: start again
            self.new_game()
        new = total - self.moves_seen
        if new:
            reds = view.shape.red - view.lost[owner][1]
            blues = view.shape.blue - view.lost[owner][0]
            for k, log_rho in enumerate(LOG_RHO):
                self.log_denominator[k] += new * math.log(math.exp(log_rho) * reds + blues)
            self.moves_seen = total

    def __call__(self, view: GeisterView, unknown: list[int], blues: int) -> list[float]:
        self._see_moves(view)
        owner, ghosts = 1 - view.seat, view.shape.ghosts
        n = len(unknown)
        if not 0 <= blues <= n:
            raise ValueError(f"{blues} blue ghosts among {n}")
        known_red_moves = sum(view.moved[g] for g in range(ghosts * owner, ghosts * owner + ghosts)
                              if view.red[g] is True)
        moved = [view.moved[g] for g in unknown]
        declined = [math.log(DECLINED_BLUE) * min(view.declined[g], 3) for g in unknown]
        posterior = [-(x / PRIOR_SPREAD) ** 2 / 2 - d for x, d in zip(LOG_RHO, self.log_denominator)]
        colourings = []
        for blue_set in combinations(range(n), blues):
            red_moves = known_red_moves + sum(moved) - sum(moved[i] for i in blue_set)
            terms = [p + x * red_moves for p, x in zip(posterior, LOG_RHO)]
            top = max(terms)
            log_weight = top + math.log(sum(math.exp(t - top) for t in terms)) + sum(declined[i] for i in blue_set)
            colourings.append((blue_set, log_weight))
        top = max(w for _, w in colourings)
        blue, total = [0.0] * n, 0.0
        for blue_set, log_weight in colourings:
            w = math.exp(log_weight - top)
            total += w
            for i in blue_set:
                blue[i] += w
        return [b / total for b in blue]
