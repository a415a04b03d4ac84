"""How a Geister player reads the colours it cannot see: the named beliefs
(``mcts:belief=NAME``, ``purple:belief=NAME``), each ``f(view, unknown) -> odds of blue``,
and the probabilities of blue they imply."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType

from boardzoo.games.geister.information import GeisterView
from boardzoo.strategy.geister.learned import belief_learned
from boardzoo.strategy.geister.players import exit_distance


def belief_uniform(view: GeisterView, unknown: list[int]) -> list[float]:
    """Every assignment consistent with what was seen is equally likely."""
    return [1.0] * len(unknown)


def belief_nearest_blue(view: GeisterView, unknown: list[int]) -> list[float]:
    """The Geister study's "decide by nearness": the opponent ghosts nearest our home rows are the
    blue ones (ties at random). Weights 1000 ** row make it a near-certain ordering."""
    seat, shape = view.seat, view.shape
    return [1000.0 ** (shape.to_own(seat, view.pos[g]) // shape.cols) for g in unknown]


def belief_behaviour(view: GeisterView, unknown: list[int]) -> list[float]:
    """Learns from how the opponent moved its ghosts, by likelihood ratios.

    * Blue ghosts win by escaping, so players push them forward: each net step toward us
      multiplies the odds of blue by 1.5 (a step back divides them).
    * A blue ghost on one of our corners escapes and wins at once; a ghost that stood there
      at its owner's turn and was not taken off is almost surely red: odds / 20 each time.
    """
    return [_advance_odds(view, g) * _declined_odds(view, g) for g in unknown]


def _advance_odds(view: GeisterView, ghost: int) -> float:
    """1.5 for each net step toward us (blues are pushed forward), at most 8 either way."""
    return 1.5 ** max(min(view.advance[ghost], 8), -8)


def _declined_odds(view: GeisterView, ghost: int) -> float:
    """1 / 20 for each time the ghost stood on an exit and did not escape (at most 3)."""
    return 0.05 ** min(view.declined[ghost], 3)


def belief_purple(view: GeisterView, unknown: list[int]) -> list[float]:
    """The Geister study's "purple" view, as a sample: every unknown ghost takes the colour
    worse for us. A ghost one of ours could take is red (taking it would hurt us); of the
    rest, the ones nearest our home rows are blue (they threaten to escape). The study
    found this view too pessimistic, and weak against the rushing player."""
    seat, shape = view.seat, view.shape
    within = takeable(view, unknown)
    return [1e-9 if take else 1000.0 ** (shape.to_own(seat, view.pos[g]) // shape.cols)
            for g, take in zip(unknown, within)]


def takeable(view: GeisterView, ghosts: list[int]) -> list[bool]:
    """For each of ``ghosts``, whether one of the seat's own ghosts stands next to it (the
    board's own table of neighbouring squares, as the rules count an offer)."""
    shape, seat, board = view.shape, view.seat, view.board
    neighbours = shape.target[seat]
    return [any(n is not None and n >= 0 and board[n] >= 0 and board[n] // shape.ghosts == seat
                for n in neighbours[view.pos[g]])
            for g in ghosts]


#: belief=adaptive's two kinds of opponent: a *bluffer*, whose red ghosts step next to
#: ours (offering themselves to be taken) far more often than its blues, which it keeps
#: out of reach, and a *plain* player, whose steps next to ours say nothing of colour.
#: A bluffer's rates are the share of a ghost's moves that end next to one of ours: (red, blue),
#: measured by tools/geister_offer_rates.py on the games of Naotti2020, the one bluffer
#: we could log (so a figure against Naotti2020 is not a held-out one; the Geister expert
#: tutorial has the rates).
BLUFFER_RATES = (0.65, 0.03)
#: A plain player's one rate for both colours is unknown (an aggressive player offers
#: often, a cautious one rarely): a Beta prior with this mean and weight in moves.
PLAIN_RATE_PRIOR = (0.225, 10.0)
#: The prior probability that an opponent bluffs.
BLUFFER_PRIOR = 0.5


def _clipped(offers: int, moves: int) -> tuple[int, int]:
    """(offers, quiet moves) of one ghost, capped so that no single ghost decides alone."""
    return min(offers, 8), min(max(moves - offers, 0), 16)


def _offer_log_likelihood(offers: int, moves: int, rate: float) -> float:
    """log P(``offers`` of ``moves`` moves end next to ours), each with probability ``rate``."""
    offers, quiet = _clipped(offers, moves)
    return offers * math.log(rate) + quiet * math.log(1 - rate)


def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def bluffer_probability(view: GeisterView) -> float:
    """How likely the opponent is a bluffer, from how many of its ghosts' moves ended next
    to ours. A bluffer's reds and blues offer at their own rates (:data:`BLUFFER_RATES`);
    a plain player's ghosts all offer at one rate of its own, unknown, so its likelihood
    is averaged over the Beta prior :data:`PLAIN_RATE_PRIOR`. The evidence is every ghost:
    those our captures revealed, by their colour, and the hidden ones averaged over every
    colouring with the blues it has left (a bluffer's hidden ghosts split into a few that
    offer often and ``blues`` that never do; a plain player's offer alike). Reds that
    offered often fit an aggressive plain player about as well as a bluffer; blues tell
    them apart (a rusher's blues offer themselves too; a bluffer's almost never)."""
    ghosts = view.shape.ghosts
    base = ghosts * (1 - view.seat)
    red_rate, blue_rate = BLUFFER_RATES
    log_ratio = math.log(BLUFFER_PRIOR / (1 - BLUFFER_PRIOR))
    offers = quiet = 0
    unknown = []
    for g in range(base, base + ghosts):
        if view.red[g] is None:
            if view.pos[g] >= 0:
                unknown.append(g)
            else:
                continue  # escaped: the game is over
        else:
            log_ratio += _offer_log_likelihood(view.offered[g], view.moved[g], red_rate if view.red[g] else blue_rate)
        o, q = _clipped(view.offered[g], view.moved[g])
        offers, quiet = offers + o, quiet + q
    if unknown:
        blues = min(view.shape.blue - view.lost[1 - view.seat][0], len(unknown))
        log_ratio += sum(_offer_log_likelihood(view.offered[g], view.moved[g], red_rate) for g in unknown)
        ratios = [_bluffer_odds(view, g) for g in unknown]
        log_ratio += math.log(max(_elementary_symmetric(ratios, blues)[blues], 1e-300) / math.comb(len(unknown), blues))
    mean, weight = PLAIN_RATE_PRIOR
    a, b = mean * weight, (1 - mean) * weight
    log_ratio -= _log_beta(a + offers, b + quiet) - _log_beta(a, b)
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, log_ratio))))


def _bluffer_odds(view: GeisterView, ghost: int) -> float:
    """A bluffer's tell: the likelihood ratio, blue to red, of the ghost's moves that ended
    next to ours (:data:`BLUFFER_RATES`)."""
    red_rate, blue_rate = BLUFFER_RATES
    offers, moves = view.offered[ghost], view.moved[ghost]
    return math.exp(_offer_log_likelihood(offers, moves, blue_rate) - _offer_log_likelihood(offers, moves, red_rate))


def belief_adaptive(view: GeisterView, unknown: list[int]) -> list[float]:
    """A model of the opponent learned during the game: is it a bluffer or a plain
    player (:func:`bluffer_probability`)? Each kind has its own tell. A bluffer sends its
    reds forward as bait and keeps its blues out of reach: a ghost's odds of blue are the
    likelihood ratio of its moves that ended next to ours, and advancing says nothing. A
    plain player pushes its blues forward (``behaviour``'s reading of advances) and its
    steps next to ours say nothing. As odds for sampling, the two readings are mixed by
    the probability of each kind (:func:`adaptive_blue_probabilities` mixes them
    exactly); a ghost that stood on an exit and did not escape is red for both."""
    bluffer = bluffer_probability(view)
    return [_declined_odds(view, g) * (bluffer * _bluffer_odds(view, g) + (1 - bluffer) * _advance_odds(view, g))
            for g in unknown]


def adaptive_blue_probabilities(view: GeisterView, unknown: list[int], blues: int) -> list[float]:
    """``belief=adaptive``'s probability of blue for each unknown ghost, ``blues`` of them
    blue: each kind of opponent's own probabilities (:func:`blue_probabilities` of its
    odds), mixed by the probability of that kind. Mixing the odds instead is wrong: with a
    bluffer at 90 %, the 10 % plain reading of a bait that advanced far would outweigh the
    bluffer's near-zero odds, and the bait would look as blue as any ghost."""
    return mixed_reading(*adaptive_readings(view, unknown, blues))


def mixed_reading(bluffer: float, as_bluffer: list[float], as_plain: list[float]) -> list[float]:
    """Each kind's probabilities of blue mixed by the probability ``bluffer`` of a bluffer."""
    return [bluffer * b + (1 - bluffer) * p for b, p in zip(as_bluffer, as_plain)]


def adaptive_readings(view: GeisterView, unknown: list[int], blues: int) -> tuple[float, list[float], list[float]]:
    """The bluffer posterior and each kind's probabilities of blue for ``unknown``."""
    declined = [_declined_odds(view, g) for g in unknown]
    as_bluffer = blue_probabilities([d * _bluffer_odds(view, g) for d, g in zip(declined, unknown)], blues)
    return bluffer_probability(view), as_bluffer, plain_reading(view, unknown, blues)


def plain_reading(view: GeisterView, unknown: list[int], blues: int) -> list[float]:
    """A plain player's probabilities of blue for ``unknown``: advanced ghosts are blue
    (``behaviour``'s reading of advances), a ghost that declined an escape is red."""
    return blue_probabilities([_declined_odds(view, g) * _advance_odds(view, g) for g in unknown], blues)


def belief_blue_probabilities(belief: str, view: GeisterView, unknown: list[int], blues: int) -> list[float]:
    """Each unknown ghost's probability of blue under ``belief``, ``blues`` of them blue:
    the exact mixture for ``adaptive``, the colourings weighted by the odds otherwise."""
    if belief == "adaptive":
        return adaptive_blue_probabilities(view, unknown, blues)
    return blue_probabilities(BELIEFS[belief](view, unknown), blues)


#: A ghost at most this many moves from leaving (one step from our corner, or on it) is a
#: threat that :func:`threats_read_worse` reads the worse way.
THREAT_MOVES = 2
#: How far from 0 and 1 a probability of blue is kept when it is turned back into odds.
_CLIP = 1e-6


def threats_read_worse(view: GeisterView, unknown: list[int], odds: list[float]) -> list[float]:
    """A belief's ``odds`` of blue for ``unknown``, with each escape threat read the worse
    way (``mcts:threats=worse``): a ghost :data:`THREAT_MOVES` or fewer moves from leaving
    by one of our corners is drawn blue at least as often as the adaptive model has it. A
    threat missed loses the game at once, and a belief that learned another kind of
    player's tells can read a runner as a bait: a network that met the expert's reds sent
    forward read its runners as red, where the adaptive model read them as blue (the
    Geister learning log). The odds are fitted as the sampler draws them
    (:func:`odds_within`), so raising a threat makes the other ghosts likelier red, never
    likelier blue."""
    return _threats_read_at_least(view, unknown, odds, THREAT_MOVES, lambda adaptive, coin: adaptive)


def _threats_read_at_least(view: GeisterView, unknown: list[int], odds: list[float], moves: int,
                           least: Callable[[float, float], float]) -> list[float]:
    """``odds`` with each ghost ``moves`` or fewer moves from leaving by one of our
    corners drawn blue at least ``least(adaptive, coin)`` of the time: ``adaptive`` the
    adaptive model's probability of blue, ``coin`` the share of blues among the unknown
    ghosts. Odds with no such ghost come back as they are."""
    seat, shape = view.seat, view.shape
    near = [exit_distance(1 - seat, view.pos[g], shape) <= moves for g in unknown]
    if not any(near):
        return odds
    blues = shape.blue - view.lost[1 - seat][0]
    coin = blues / len(unknown)
    adaptive = adaptive_blue_probabilities(view, unknown, blues)
    return odds_within(odds, blues, least={i: least(a, coin) for i, (a, threat) in enumerate(zip(adaptive, near))
                                           if threat})


#: A ghost at most this many moves from leaving is a runner that
#: :func:`runners_read_no_likelier_red_than_a_coin` reads the worse way: one a guard can
#: still be sent against. The race adjudicator settles races of up to four moves, so a
#: runner drawn blue this far out is one the search sees it would lose to.
RUNNER_MOVES = 4


def runners_read_no_likelier_red_than_a_coin(view: GeisterView, unknown: list[int], odds: list[float]) -> list[float]:
    """A belief's ``odds`` of blue for ``unknown``, with each runner read the worse way
    (``mcts:threats=coin``): a ghost :data:`RUNNER_MOVES` or fewer moves from leaving by
    one of our corners is drawn blue at least as often as a coin has it (the share of
    blues among the unknown ghosts) and as the adaptive model has it. :func:`threats_read_worse`
    reads only the last two moves, when a guard that is not already near comes too late, and
    trusts the adaptive model, which reads an opponent that offers its reds as a bluffer
    and its runners as baits: an exploiter trained against the learned player offered
    reds, then walked a blue to an exit with no guard of ours near (the Geister learning
    log). Fitted as the sampler draws (:func:`odds_within`): the other ghosts only ever
    get likelier red. Measured against the expert it took more reds and stopped no more
    escapes (49 % of 102 games, where the preset wins 63 %); the guard of the exits
    (:func:`boardzoo.strategy.geister.race.guarded_moves`) defends them at no such cost."""
    return _threats_read_at_least(view, unknown, odds, RUNNER_MOVES, max)


def captures_read_cautiously(view: GeisterView, unknown: list[int], odds: list[float]) -> list[float]:
    """A belief's ``odds`` of blue for ``unknown``, with the ghosts we could take read at
    least as likely red as a coin has them once the opponent has one red left
    (``mcts:captures=cautious``): taking that red loses at once, and a reader sure of
    tells the opponent does not have is surest exactly where it is wrong. Replayed through
    the learned player's readers, the ghosts it took with one red left against geister_rl
    were read red with 0.11 on average; 26 % were, and a coin said 28 % (the Geister
    learning log). Other ghosts keep the belief's probability."""
    return _captures_read_no_surer_than(view, unknown, odds, lambda coin, threat: coin)


def captures_read_warily(view: GeisterView, unknown: list[int], odds: list[float]) -> list[float]:
    """As :func:`captures_read_cautiously` (``mcts:captures=wary``), and a ghost we could
    take that is no threat (more than :data:`THREAT_MOVES` moves from leaving) read at
    least as likely red as blue: with one red left such a capture can wait, and the
    ghosts an opponent leaves within reach are its offers. Against geister_rl the learned
    player's captures of such ghosts with one red left were red 31 times in 105; of the
    threats it took, 10 in 49 (the Geister learning log)."""
    return _captures_read_no_surer_than(view, unknown, odds, lambda coin, threat: coin if threat else min(coin, 0.5))


def _captures_read_no_surer_than(view: GeisterView, unknown: list[int], odds: list[float],
                                 most: Callable[[float, bool], float]) -> list[float]:
    """``odds`` with each ghost we could take, once the opponent has one red left, read
    blue with at most ``most(coin, threat)``: ``coin`` the share of blues among the
    unknown ghosts, ``threat`` whether it is :data:`THREAT_MOVES` or fewer moves from
    leaving by one of our corners."""
    seat, shape = view.seat, view.shape
    if shape.red - view.lost[1 - seat][1] != 1 or not unknown:
        return odds
    within = takeable(view, unknown)
    if not any(within):
        return odds
    blues = shape.blue - view.lost[1 - seat][0]
    coin = blues / len(unknown)
    return odds_within(odds, blues, most={i: most(coin, exit_distance(1 - seat, view.pos[g], shape) <= THREAT_MOVES)
                                          for i, (g, take) in enumerate(zip(unknown, within)) if take})


#: How near a probability :func:`odds_within` brings each bounded ghost to its bound.
_FIT_TOLERANCE = 1e-6
#: The most rounds :func:`odds_within` fits the odds in (bounds that every colouring
#: breaks, such as every ghost at most even odds of blue when most are blue, stop there).
_FIT_ROUNDS = 60


def odds_within(odds: list[float], blues: int, least: Mapping[int, float] = MappingProxyType({}),
                most: Mapping[int, float] = MappingProxyType({})) -> list[float]:
    """``odds`` with the ghost at each index of ``least`` drawn blue at least that often,
    and at each index of ``most`` at most that often, as the sampler draws them: exactly
    ``blues`` blue, so changing one ghost's odds moves the others' probabilities of blue,
    and a probability turned back into odds alone would miss its bound (with one red left,
    a ghost read at even odds of blue is still drawn blue nearly always when the belief is
    sure the red is another). Only the bounded ghosts' odds change; each is scaled by how
    far its probability still is from its bound, round after round, until every bound
    holds. Odds that already meet every bound come back as they are."""
    weights = list(odds)
    for _ in range(_FIT_ROUNDS):
        probabilities = blue_probabilities(weights, blues)
        off = {i: bound for i, bound in most.items() if probabilities[i] > bound + _FIT_TOLERANCE}
        off.update({i: bound for i, bound in least.items() if probabilities[i] < bound - _FIT_TOLERANCE})
        if not off:
            break
        for i, bound in off.items():
            wanted = min(max(bound, _CLIP), 1 - _CLIP)
            now = min(max(probabilities[i], _CLIP), 1 - _CLIP)
            weights[i] *= (wanted / (1 - wanted)) / (now / (1 - now))
        top = max(weights)
        weights = [w / top for w in weights]
    return weights


#: How ``mcts:threats=`` may read the ghosts about to escape.
THREAT_READINGS = {"worse": threats_read_worse, "coin": runners_read_no_likelier_red_than_a_coin}
#: How ``mcts:captures=`` may read the ghosts we could take once one red is left.
CAPTURE_READINGS = {"cautious": captures_read_cautiously, "wary": captures_read_warily}


#: A reading is scored on a ghost by the log-probability it gave the ghost's true colour,
#: that probability kept within this much of 0 and 1: one confident miss costs at most
#: log(1/0.01), about 4.6, so no single ghost decides a match.
SCORE_CLIP = 0.01


def colour_score(blue: float, red: bool) -> float:
    """The log-probability a reading that gave ``blue`` as the probability of blue gave
    the colour shown (``red`` or not), clipped by :data:`SCORE_CLIP`."""
    q = min(max(blue, SCORE_CLIP), 1 - SCORE_CLIP)
    return math.log(1 - q if red else q)


def odds_of(probabilities) -> list[float]:
    """Probabilities of blue as the odds a sampler takes, each kept within ``_CLIP`` of 0
    and 1 (a colouring all but excluded can still be drawn)."""
    return [p / (1 - p) for p in (min(max(q, _CLIP), 1 - _CLIP) for q in probabilities)]


BELIEFS = {"uniform": belief_uniform, "nearest-blue": belief_nearest_blue, "behaviour": belief_behaviour,
           "purple": belief_purple, "learned": belief_learned, "adaptive": belief_adaptive}


def _elementary_symmetric(weights: list[float], k: int) -> list[float]:
    """e_0..e_k of ``weights``: e_j is the sum over every j of them of their product."""
    e = [1.0] + [0.0] * k
    for x in weights:
        for j in range(k, 0, -1):
            e[j] += x * e[j - 1]
    return e


def blue_probabilities(weights: list[float], blues: int) -> list[float]:
    """Each ghost's probability of being blue when exactly ``blues`` of them are, and a
    colouring's probability is proportional to the product of its blue ghosts' weights
    (the odds a belief gives): P(g) = w_g e_{k-1}(others) / e_k(all), with e_k the
    elementary symmetric polynomials. Dividing each weight by the total instead loses
    probability to the cap at 1 (one ghost with large odds would make the rest look red)."""
    n = len(weights)
    if not 0 <= blues <= n:
        raise ValueError(f"{blues} blue ghosts among {n}")
    if blues in (0, n):
        return [float(blues // max(n, 1))] * n
    scale = max(weights)
    if scale <= 0:
        return [blues / n] * n
    # odds are relative: floored at 1e-12 of the largest, so that no colouring has weight 0
    w = [max(x / scale, 1e-12) for x in weights]
    probabilities = []
    for g in range(n):
        e = _elementary_symmetric(w[:g] + w[g + 1:], blues)  # of the weights other than g's
        with_g, without_g = w[g] * e[blues - 1], e[blues]
        probabilities.append(with_g / (with_g + without_g))
    return probabilities
