"""The opponent's tells learned over a match, by logistic regression on each ghost's public
record: :class:`TellsReading` (``mcts:match=learn-tells``).

The profile (:mod:`.profile`) reads one tell, how often a ghost steps next to ours, by
colour; the move share (:mod:`.move_share`) another. A program trained by self-play has
tells of its own that neither model names: the GAT 2021 champion, geister_rl, offers its
reds to be taken and walks its blues past our ghosts to the exits, and the belief head,
trained on its own league, read those runners red with near certainty. This reader
learns whatever the public record shows of this opponent: at each of our turns each
hidden ghost is described by what both players saw of it (:data:`FEATURES`: how often it
moved, its net advance, how often it stepped next to ours and its share of such moves,
whether it ever stood on our exit without leaving, where it stands, how far from leaving,
whether we could take it, how far the game is), and once a match shows the colours of a
finished game, a logistic regression of blue on those descriptions is fitted to every
reading taught so far, with a normal prior on the weights. Its odds of blue are
``exp(weights . features)``, drawn with exactly so many blue as every belief's.

Replayed on 200 recorded games against geister_rl (the preset's, two matches), fitted on
one match and read on the other, its log-loss per reading was 0.59 over all hidden
ghosts (the head 1.00, a coin 0.66) and 0.43 over the ghosts we could take (the head
0.72, a coin 0.74); fitted on ten games, 0.62 and 0.46 (the Geister learning log).

Untaught, the weights are 0 and every ghost reads as a coin. Every description is read
from the seat's view, so the reading never depends on a hidden colour; the true colours
serve only as the labels of games already finished.
"""

from __future__ import annotations

import math

import numpy as np

from boardzoo.games.geister.information import GeisterView
from boardzoo.strategy.geister.beliefs import blue_probabilities, takeable
from boardzoo.strategy.geister.players import exit_distance

#: What each column of a ghost's description is (the first, 1, is the intercept).
FEATURES = ("intercept", "log(1 + moves)", "net advance / 5", "log(1 + steps next to ours)",
            "stood on our exit without leaving", "moves from leaving / 10", "within our reach",
            "share of the game played", "share of its moves next to ours", "rows from its home row / 5",
            "columns from the edge / 2")
#: The standard deviation of the normal prior on every weight.
PRIOR_SPREAD = 1.0
#: The most readings (one row per hidden ghost per decision) the reader keeps, the
#: newest; about 60 games' worth in the classic game.
MOST_ROWS = 20_000
#: Newton steps a fit takes (each an 11 x 11 solve; the fit starts from the last one).
FIT_STEPS = 8
#: Logits are kept within this bound, so that no reading is certain.
MOST_LOGIT = 6.0


def ghost_features(view: GeisterView, unknown: list[int]) -> np.ndarray:
    """The public description of each ghost of ``unknown`` (rows), one column per
    :data:`FEATURES` entry."""
    shape, owner = view.shape, 1 - view.seat
    reach = takeable(view, unknown)
    rows = []
    for g, near in zip(unknown, reach):
        own = shape.to_own(owner, view.pos[g])
        column, row = own % shape.cols, own // shape.cols
        moved, offered = view.moved[g], view.offered[g]
        rows.append((1.0, math.log1p(moved), view.advance[g] / 5, math.log1p(offered), float(view.declined[g] > 0),
                     exit_distance(owner, view.pos[g], shape) / 10, float(near), view.plies / view.max_turns,
                     offered / (1 + moved), row / 5, min(column, shape.cols - 1 - column) / 2))
    return np.array(rows, dtype=float).reshape(len(unknown), len(FEATURES))


class TellsReading:
    """``f(view, unknown, blues) -> probabilities of blue``, by the tells learned over a
    match: :meth:`learn` teaches it each finished game."""

    def __init__(self, prior_spread: float = PRIOR_SPREAD, most_rows: int = MOST_ROWS):
        self.prior_precision = 1.0 / prior_spread ** 2
        self.most_rows = most_rows
        self.weights = np.zeros(len(FEATURES))
        self.rows = np.zeros((0, len(FEATURES)))
        self.blue = np.zeros(0)
        self.games = 0
        self.new_game()

    def new_game(self) -> None:
        """Forget this game's readings (those of a game never taught are not labels)."""
        self.game_rows: list[tuple[list[int], np.ndarray]] = []

    def odds(self, features: np.ndarray) -> list[float]:
        """Each described ghost's odds of blue by the weights learned."""
        return list(np.exp(np.clip(features @ self.weights, -MOST_LOGIT, MOST_LOGIT)))

    def __call__(self, view: GeisterView, unknown: list[int], blues: int) -> list[float]:
        features = ghost_features(view, unknown)
        self.game_rows.append((list(unknown), features))
        return blue_probabilities(self.odds(features), blues)

    def learn(self, final, seat: int) -> None:
        """Label this game's readings with ``final``'s colours (every colour known), keep
        the newest :data:`MOST_ROWS`, and fit the weights again."""
        del seat  # the readings were made from the seat's own view
        if self.game_rows:
            rows = np.concatenate([features for _, features in self.game_rows])
            blue = np.array([0.0 if final.red[g] else 1.0 for unknown, _ in self.game_rows for g in unknown])
            self.rows = np.concatenate([self.rows, rows])[-self.most_rows:]
            self.blue = np.concatenate([self.blue, blue])[-self.most_rows:]
            self.fit()
        self.games += 1
        self.new_game()

    def fit(self) -> None:
        """The weights of highest posterior: Newton's method on the logistic likelihood of
        the readings kept, with the normal prior."""
        x, y, w = self.rows, self.blue, self.weights
        precision = self.prior_precision * np.eye(len(w))
        for _ in range(FIT_STEPS):
            p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
            gradient = x.T @ (y - p) - precision @ w
            hessian = (x * (p * (1 - p))[:, None]).T @ x + precision
            step = np.linalg.solve(hessian, gradient)
            w = w + step
            if float(np.abs(step).max()) < 1e-6:
                break
        self.weights = w
