"""A belief calibrated to an opponent over a match (``mcts:match=learn-calibrated``).

A belief learned by self-play reads an opponent's hidden colours by the tells of the
players it met, and is as sure of them against a stranger whose moves do not carry
them. Against geister_rl the learned player's captures with one red left were red 18
times in 79 where its readers had said 7.5: each capture took the ghost read the
bluest, so a reader sure of the wrong tells is surest exactly where it is wrong, and
with one red left such a capture loses at once (the Geister learning log). Where an
opponent leaves its ghosts within our reach is a tell of its own, too: a bluffer leaves
reds there, a program that guards its blues seldom a blue.

:class:`MatchCalibration` learns two numbers over a match and reads the belief again by
them: a *temperature* ``t`` on every hidden ghost's odds of blue (odds ** t: below 1,
less sure), and a *factor* ``c`` on the odds of the ghosts within our reach. It keeps
each reading of a game; when a finished game is taught (every colour shown), it scores
every pair of :data:`TEMPERATURES` and :data:`LOG_FACTORS` by the probability the
sampler would then have given each ghost's true colour (exactly so many blue, as the
search draws them; a ghost read at many moves counts once, its readings averaged), adds
the game's scores to the match's, and takes the pair of highest posterior under normal
priors on ``log t`` and ``log c`` (:data:`PRIOR_SD`). Until a game is taught the pair
is (1, 1), so an agent never taught (the arena, the league) plays as without it.

Replayed on earlier matches of the learned player, the pair the whole match favoured
was t = 0.3, c = e^-1 against geister_rl (its captures with one red left then read red
18.7 times in 79, where 18 were), t = 0.7, c = e^-2 against Naotti2020 (which offers
reds) and t = 0.3, c = e^-1 against UCTgeister.
"""

from __future__ import annotations

import math

from boardzoo.games.geister.information import GeisterView
from boardzoo.strategy.geister.beliefs import blue_probabilities, colour_score, takeable

#: The temperatures a match may learn: 1 keeps the belief's odds, 0.2 all but flattens them.
TEMPERATURES = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0, 1.2)
#: The logs of the factors on the odds of blue of the ghosts within reach: e^-3 (read
#: twenty times likelier red) to e^1.
LOG_FACTORS = tuple(step / 2 for step in range(-6, 3))
#: The priors' standard deviation on the log of the temperature and of the factor: a
#: match must show a few games' worth of evidence before the reading moves by much.
PRIOR_SD = 1.0


def calibrated(odds: list[float], within: list[bool], temperature: float, factor: float) -> list[float]:
    """``odds`` to the power ``temperature``, those of the ghosts ``within`` reach times ``factor``."""
    top = max(odds) or 1.0  # odds are relative: scaled so that the largest is 1 before the power
    return [(o / top) ** temperature * (factor if w else 1.0) for o, w in zip(odds, within)]


class MatchCalibration:
    """The temperature and the factor of the module docstring:
    ``calibration(view, unknown, odds) -> odds``, taught each finished game by
    :meth:`learn`."""

    def __init__(self) -> None:
        self.pairs = [(t, f) for t in TEMPERATURES for f in LOG_FACTORS]
        #: The match's summed score of each pair (in nats).
        self.scores = [0.0] * len(self.pairs)
        self.temperature, self.factor = 1.0, 1.0
        self.games = 0
        #: This game's readings: (the hidden ghosts, their odds as read before the
        #: calibration, which of them were within reach, how many are blue).
        self.readings: list[tuple[list[int], list[float], list[bool], int]] = []

    def __call__(self, view: GeisterView, unknown: list[int], odds: list[float]) -> list[float]:
        blues = view.shape.blue - view.lost[1 - view.seat][0]
        if not 0 < blues < len(unknown):  # every colour already follows from the counts
            return odds
        within = takeable(view, unknown)
        self.readings.append((list(unknown), list(odds), within, blues))
        if self.temperature == 1.0 and self.factor == 1.0:
            return odds
        return calibrated(odds, within, self.temperature, self.factor)

    def game_scores(self, red: list[bool | None]) -> list[float]:
        """Each pair's score on this game's readings, given the true colours ``red``: the
        summed log-probability of each hidden ghost's colour, averaged over that ghost's
        readings."""
        counts: dict[int, int] = {}
        for unknown, _, _, _ in self.readings:
            for g in unknown:
                counts[g] = counts.get(g, 0) + 1
        scores = []
        for temperature, log_factor in self.pairs:
            factor, total = math.exp(log_factor), 0.0
            for unknown, odds, within, blues in self.readings:
                probabilities = blue_probabilities(calibrated(odds, within, temperature, factor), blues)
                total += sum(colour_score(p, bool(red[g])) / counts[g] for g, p in zip(unknown, probabilities))
            scores.append(total)
        return scores

    def learn(self, final) -> None:
        """Score this game's readings against ``final``'s colours (every colour known)
        and take the pair of highest posterior over the match."""
        for i, score in enumerate(self.game_scores(final.red)):
            self.scores[i] += score
        posterior = [s - (math.log(t) ** 2 + f ** 2) / (2 * PRIOR_SD ** 2)
                     for s, (t, f) in zip(self.scores, self.pairs)]
        temperature, log_factor = self.pairs[max(range(len(posterior)), key=posterior.__getitem__)]
        self.temperature, self.factor = temperature, math.exp(log_factor)
        self.games += 1
        self.new_game()

    def new_game(self) -> None:
        self.readings = []
