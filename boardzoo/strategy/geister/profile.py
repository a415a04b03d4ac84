"""An opponent's style, learned during a game and over a match (``belief=profile``).

Every player gives its colours away in how it moves them, but each in its own way: a
searching program sends its reds next to ours as bait and keeps its blues out of reach;
a rusher offers both alike; another program offers both, its reds more often (the
Geister expert tutorial has the measured rates). So the tell is not a fixed number. This model reads
one, the **offer**: how often a ghost's move ends next to one of ours (it may be taken
next). Reds and blues each have an offer rate that the model does *not* know: it learns
them from the ghosts whose colour it has seen.

For a colouring of the hidden ghosts (``blues`` of them blue), the evidence is the
ghosts' moves and offers summed by colour, the revealed ghosts' by their true colour.
With Beta priors on the two rates, the likelihood of those sums has a closed form (the
beta-binomial: the rates integrated out), so colourings that split the ghosts into two
groups that behave alike, and alike the revealed ones of each colour, weigh the most.
There are at most C(8, 4) = 70 colourings in the classic game, and every one is counted. A ghost that stood
on our exit and did not escape is red (its weight of blue is multiplied by 1/20 each
time).

Two other tells were left out of the profile. How far a ghost advanced says little
against a program that baits (its reds advance as far as its blues). Which colour moves
more (the share of the moves made by reds), counted as a share, misleads: the ghosts we
took early moved little because they lived briefly, and it rated the survivors' colours
worse than no model at all. Counted move by move against the ghosts alive at each move,
it is :class:`~boardzoo.strategy.geister.move_share.MoveShareReading`, a reader of its own
that :class:`MatchReading` weighs beside the profile within games.

The priors are a mixture of archetypes (:func:`default_archetypes`: a bluffer, a plain
player, one between), so that the first game against a new opponent starts from what
players usually do; the in-game evidence weighs each archetype too. Over a match,
:meth:`OpponentProfile.learn` takes each finished game with every colour revealed (a
tournament server shows them at the end) and adds its counts to the priors, and counts
how often each starting square held a red: the second game already knows the opponent's
rates and where it likes its reds. A profile that was never taught (the arena and the
league never teach one, so their games stay independent of their order) is the archetype
prior alone.

:class:`MatchReading` puts the profile beside another belief (a network's, say): it reads
with that belief alone until a match has taught it a game, then weighs the two by how
well each read the opponent's colours in the games taught, so a match against an opponent
whose tells the belief never learned (a bluffer, for a network trained by self-play) is
read by the profile after a game or two, and one the belief reads well keeps it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

from boardzoo.games.geister.information import GeisterView
from boardzoo.strategy.geister.beliefs import blue_probabilities, colour_score, odds_of
from boardzoo.strategy.geister.calibration import MatchCalibration
from boardzoo.strategy.geister.move_share import MoveShareReading
from boardzoo.strategy.geister.tells import TellsReading

#: The weight, a factor on the odds of blue, of each time a ghost stood on our exit at
#: its owner's turn and did not escape (a blue there would have won): such a ghost is red.
DECLINED_BLUE = 0.05
#: Beta pseudo-counts (successes, failures) are kept below this total for each rate, by
#: scaling both down once a match has taught more: later games weigh as much as earlier
#: ones, and an opponent that changes its style is followed.
MAX_PRIOR_WEIGHT = 400.0
#: How much a starting square's history counts: the prior Beta(10, 10) on its chance of
#: red (most programs place at random).
SLOT_PRIOR = 20.0


def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


@dataclass
class Rate:
    """A Beta(``hits``, ``misses``) belief about an unknown rate."""

    hits: float
    misses: float

    @classmethod
    def of(cls, mean: float, weight: float) -> Rate:
        return cls(mean * weight, (1.0 - mean) * weight)

    def log_evidence(self, hits: int, misses: int) -> float:
        """log P(these counts | the rate integrated over this Beta): the beta-binomial,
        without the binomial coefficient (it is the same for every colouring)."""
        return _log_beta(self.hits + hits, self.misses + misses) - _log_beta(self.hits, self.misses)

    def add(self, hits: float, misses: float) -> None:
        self.hits += hits
        self.misses += misses
        total = self.hits + self.misses
        if total > MAX_PRIOR_WEIGHT:
            self.hits *= MAX_PRIOR_WEIGHT / total
            self.misses *= MAX_PRIOR_WEIGHT / total


@dataclass
class Archetype:
    """One kind of opponent: Beta priors on its red and blue ghosts' offer rates, with a
    log weight among the archetypes."""

    name: str
    red_offers: Rate
    blue_offers: Rate
    log_weight: float = 0.0

    def log_evidence(self, counts: tuple[int, int, int, int]) -> float:
        """log P(counts) with every rate integrated out; ``counts``: the moves and offers
        of the red ghosts, then of the blue ones."""
        red_moves, red_offers, blue_moves, blue_offers = counts
        return (self.red_offers.log_evidence(red_offers, red_moves - red_offers)
                + self.blue_offers.log_evidence(blue_offers, blue_moves - blue_offers))


def default_archetypes() -> list[Archetype]:
    """What players usually do, before a match has taught anything: a *bluffer* (reds
    offered, blues kept away, as Naotti2020 plays), a *plain* player (both alike, as the
    rushing player and a Monte Carlo player do), and one *between* (reds offered more
    often than blues, but blues too).
    Each prior weighs ten moves; none knows which colour moves more (an even share,
    weighing four moves). The three start equally likely."""
    return [Archetype(name, Rate.of(red, 10.0), Rate.of(blue, 10.0), math.log(1 / 3))
            for name, red, blue in (("bluffer", 0.6, 0.05), ("plain", 0.3, 0.3), ("between", 0.45, 0.2))]


@dataclass
class OpponentProfile:
    """An opponent's style: the archetypes' priors and weights, and how often each of its
    starting squares (ghosts A, B, ...) held a red in the games taught so far."""

    archetypes: list[Archetype] = field(default_factory=default_archetypes)
    slot_reds: list[int] = field(default_factory=list)
    games: int = 0

    def _slots(self, ghosts: int) -> None:
        """The starting squares of a game of ``ghosts`` a side (a profile of another member
        of the family starts them afresh)."""
        if len(self.slot_reds) != ghosts:
            self.slot_reds, self.games = [0] * ghosts, 0

    # --- reading a game ---------------------------------------------------------------------
    def readings(self, view, unknown: list[int], blues: int) -> tuple[list[float], dict[str, float]]:
        """Each ghost of ``unknown``'s probability of blue, ``blues`` of them blue, and the
        posterior of each archetype given this game so far."""
        owner, ghosts = 1 - view.seat, view.shape.ghosts
        self._slots(ghosts)
        moved, offered = view.moved, view.offered
        red_moves = red_offers = blue_moves = blue_offers = 0
        for g in range(ghosts * owner, ghosts * owner + ghosts):
            if view.red[g] is None:
                continue
            if view.red[g]:
                red_moves, red_offers = red_moves + moved[g], red_offers + offered[g]
            else:
                blue_moves, blue_offers = blue_moves + moved[g], blue_offers + offered[g]
        n = len(unknown)
        if not 0 <= blues <= n:
            raise ValueError(f"{blues} blue ghosts among {n}")
        slot_log_odds = [self.slot_log_odds_blue(g % ghosts) - (0.0 if view.declined[g] == 0 else
                         -math.log(DECLINED_BLUE) * min(view.declined[g], 3)) for g in unknown]
        total_moves = sum(moved[g] for g in unknown)
        total_offers = sum(offered[g] for g in unknown)
        colourings = []
        for blue_set in combinations(range(n), blues):
            m = sum(moved[unknown[i]] for i in blue_set)
            o = sum(offered[unknown[i]] for i in blue_set)
            counts = (red_moves + total_moves - m, red_offers + total_offers - o, blue_moves + m, blue_offers + o)
            prior = sum(slot_log_odds[i] for i in blue_set)
            colourings.append((blue_set, counts, prior))
        logs = [[a.log_weight + a.log_evidence(counts) + prior for _, counts, prior in colourings]
                for a in self.archetypes]
        top = max(max(row) for row in logs)
        weights = [[math.exp(x - top) for x in row] for row in logs]
        total = sum(map(sum, weights))
        blue = [0.0] * n
        for k, (blue_set, _, _) in enumerate(colourings):
            w = sum(row[k] for row in weights)
            for i in blue_set:
                blue[i] += w
        posterior = {a.name: sum(row) / total for a, row in zip(self.archetypes, weights)}
        return [b / total for b in blue], posterior

    def slot_log_odds_blue(self, slot: int) -> float:
        """log odds that the ghost that started on ``slot`` is blue, by the games taught."""
        reds = self.slot_reds[slot] + SLOT_PRIOR / 2
        return math.log(self.games + SLOT_PRIOR - reds) - math.log(reds)

    # --- learning from a finished game ------------------------------------------------------
    def learn(self, final, seat: int) -> None:
        """Add a finished game to the profile: ``final`` is its last position (a
        :class:`~boardzoo.games.geister.rules.GeisterState`, every colour known, with the
        public evidence counters), ``seat`` ours. Each archetype's weight is multiplied by
        how well it predicted this game, then the game's counts join its priors."""
        owner, ghosts = 1 - seat, final.shape.ghosts
        self._slots(ghosts)
        red_moves = red_offers = blue_moves = blue_offers = 0
        for i in range(ghosts):
            g = ghosts * owner + i
            if final.red[g]:
                red_moves, red_offers = red_moves + final.moved[g], red_offers + final.offered[g]
                self.slot_reds[i] += 1
            else:
                blue_moves, blue_offers = blue_moves + final.moved[g], blue_offers + final.offered[g]
        counts = (red_moves, red_offers, blue_moves, blue_offers)
        for a in self.archetypes:
            a.log_weight += a.log_evidence(counts)
            a.red_offers.add(red_offers, red_moves - red_offers)
            a.blue_offers.add(blue_offers, blue_moves - blue_offers)
        top = max(a.log_weight for a in self.archetypes)
        norm = top + math.log(sum(math.exp(a.log_weight - top) for a in self.archetypes))
        for a in self.archetypes:
            a.log_weight = max(a.log_weight - norm, -50.0)
        self.games += 1


#: Within games, the belief's prior weight among the readers: the others share the rest.
BELIEF_PRIOR = 0.9


class MatchReading:
    """A belief (``f(view, unknown) -> odds``) beside other readers of the opponent's
    colours, weighed by how well each read the colours shown (``mcts:match=learn``,
    ``mcts:match=learn-in-game``).

    The readers are the belief, an :class:`OpponentProfile` and, within games, a
    :class:`~boardzoo.strategy.geister.move_share.MoveShareReading`. Each reading of the
    game is kept; a reader is scored on a ghost, once its colour is shown, by the
    log-probability it gave that colour, averaged over the readings of that ghost (a ghost
    read at many moves counts once, as evidence about the reader and not about the move
    count). A ghost's probability of blue is the readers' mixed with weights proportional
    to prior x exp(score): Bayes' rule over the readers with each ghost's score as its
    likelihood.

    * Over a match (``within_game=False``, ``match=learn``): the readers are the belief
      and the profile, scored when a finished game is taught (:meth:`learn`, with every
      colour shown). Until then every reading is the belief's own, so an agent never taught
      (in the arena, the league) plays exactly as with the belief alone.
    * Within games too (``within_game=True``, ``match=learn-in-game``): the move-share
      reader joins, and each ghost our captures reveal scores the readers at once, so a
      belief that an opponent fools (an exploiter that baits with the ghosts the belief
      reads as blue) loses its weight within the game it is fooled in. The readers start
      from prior weights (:data:`BELIEF_PRIOR` for the belief), so even before a capture
      no reading is more certain than the other readers allow. A reader trusted for what
      it got right earlier in the game can be led astray later in it: an exploiter
      trained against this reading kept its reds still, then moved its last one, and the
      move share read that red as blue (the Geister learning log).

    * With the tells (``tells=True``, ``match=learn-tells``): over a match, a third reader
      joins, a logistic regression on each ghost's public record fitted to the colours
      of the games taught (:class:`~boardzoo.strategy.geister.tells.TellsReading`).
    * And calibrated (``calibrated=True``, ``match=learn-calibrated``): the mixed
      reading's odds read again by a temperature, and those of the ghosts within our reach
      by a factor, both learned over the match from the colours shown
      (:class:`~boardzoo.strategy.geister.calibration.MatchCalibration`).

    The profile learns each taught game too (:meth:`OpponentProfile.learn`)."""

    def __init__(self, belief: Callable[[GeisterView, list[int]], list[float]], profile: OpponentProfile | None = None,
                 within_game: bool = False, calibrated: bool = False, tells: bool = False):
        self.belief = belief
        self.profile = profile if profile is not None else OpponentProfile()
        self.within_game = within_game
        self.calibration = MatchCalibration() if calibrated else None
        self.move_share = MoveShareReading() if within_game else None
        self.tells = TellsReading() if tells else None
        readers = 2 + (self.move_share is not None) + (self.tells is not None)
        #: Each reader's log prior weight: the belief's and the others' sharing the rest.
        self.log_priors = ([math.log(BELIEF_PRIOR)] + [math.log((1 - BELIEF_PRIOR) / (readers - 1))] * (readers - 1)
                           if within_game else [0.0] * readers)
        #: Each reader's summed score over the games taught (log-likelihood, in nats).
        self.scores = [0.0] * readers
        #: Each reader's score on the ghosts revealed in this game so far (within games).
        self.game_scores = [0.0] * readers
        self.games = 0
        #: This game's readings: (the hidden ghosts, each reader's probabilities of blue).
        self.readings: list[tuple[list[int], list[list[float]]]] = []
        self._scored: set[int] = set()

    def weights(self) -> tuple[float, ...]:
        """Each reader's weight in the mixture: the belief's first, then the profile's, then
        the move-share reader's (within games) or the tells' (with them)."""
        logs = [p + s + g for p, s, g in zip(self.log_priors, self.scores, self.game_scores)]
        top = max(logs)
        weights = [math.exp(x - top) for x in logs]
        return tuple(w / sum(weights) for w in weights)

    def __call__(self, view: GeisterView, unknown: list[int]) -> list[float]:
        odds = self.belief(view, unknown)
        blues = view.shape.blue - view.lost[1 - view.seat][0]
        read = [blue_probabilities(odds, blues), self.profile.readings(view, unknown, blues)[0]]
        if self.move_share is not None:
            read.append(self.move_share(view, unknown, blues))
        if self.tells is not None:
            read.append(self.tells(view, unknown, blues))
        if self.within_game:
            self._score_revealed(view)
        self.readings.append((list(unknown), read))
        if self.games > 0 or self.within_game:
            weights = self.weights()
            odds = odds_of(sum(w * p[i] for w, p in zip(weights, read)) for i in range(len(unknown)))
        return odds if self.calibration is None else self.calibration(view, unknown, odds)

    def _score_revealed(self, view: GeisterView) -> None:
        """Score the readers on the ghosts whose colours our captures have shown since."""
        shown = {g for unknown, _ in self.readings for g in unknown
                 if g not in self._scored and view.red[g] is not None}
        for g in shown:
            for reader, score in enumerate(self._ghost_scores(g, bool(view.red[g]))):
                self.game_scores[reader] += score
        self._scored |= shown

    def _ghost_scores(self, ghost: int, red: bool) -> list[float]:
        """Each reader's log-probability of ``ghost``'s colour, averaged over its readings."""
        sums, count = [0.0] * len(self.scores), 0
        for unknown, read in self.readings:
            if ghost in unknown:
                i = unknown.index(ghost)
                for reader, probabilities in enumerate(read):
                    sums[reader] += colour_score(probabilities[i], red)
                count += 1
        return [s / count for s in sums]

    def new_game(self) -> None:
        """A game starts: the readings of one that was not taught are dropped."""
        self.readings = []
        self.game_scores = [0.0] * len(self.scores)
        self._scored = set()
        if self.move_share is not None:
            self.move_share.new_game()
        if self.tells is not None:
            self.tells.new_game()
        if self.calibration is not None:
            self.calibration.new_game()

    def learn(self, final, seat: int) -> None:
        """Score this game's readings against ``final``'s colours (every colour known),
        then teach the profile the game."""
        ghosts = {g for unknown, _ in self.readings for g in unknown}
        for g in ghosts:
            for reader, score in enumerate(self._ghost_scores(g, bool(final.red[g]))):
                self.scores[reader] += score
        self.profile.learn(final, seat)
        if self.tells is not None:
            self.tells.learn(final, seat)
        if self.calibration is not None:
            self.calibration.learn(final)
        self.games += 1
        self.new_game()
