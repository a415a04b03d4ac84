"""Statistics for reports: intervals, the comparison of our figures with a document's
published ones, bootstrap intervals for sweeps with the best-of-k correction,
Bradley-Terry ratings with intervals, the UCT study's REWARD(m), and markdown tables.

How a published figure is judged (:func:`compare_counts`, :func:`compare_means`, then
:func:`verdicts` over one table's comparisons):

* **differs** -- a two-sided test of equality rejects at the 5 % level after the
  table's correction for the number of tests (Holm's by default): Fisher's exact test on
  two counts, an exact binomial test where the document printed no sample size, Welch's
  t-test (with the Welch-Satterthwaite degrees of freedom) for means;
* **equivalent within +-m** -- two one-sided tests (TOST) reject a difference of the
  stated margin m or more, at 5 % after the same correction: the difference is shown to
  be smaller than m. The margin is the report's, stated beside each verdict;
* **inconclusive** -- neither: the data cannot tell.
* **no test** -- where a test would be meaningless (fewer than two values, or values
  without any spread); no p-value is printed then.

One rule words every verdict (:func:`verdict_word`), and each is printed with both
p-values it was decided by. A document's *claim* about a difference (higher, lower, not
higher, not lower, no different) is judged from its test's verdict by one rule too
(:func:`claim_word`): **reproduced**, **contradicted** or **not decided** -- never
reproduced by default.

The tests come from SciPy (the ``stats`` extra), imported when a comparison is made:
intervals and ratings need NumPy alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import mean, stdev

import numpy as np

from boardzoo.errors import BoardzooError, install_hint

Z95 = 1.959964
ALPHA = 0.05


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion (sound near 0 and 1, unlike p +- z*se)."""
    if trials <= 0:
        raise ValueError("wilson: trials must be positive")
    if not 0 <= successes <= trials:
        raise ValueError(f"wilson: successes must be in 0..{trials}, got {successes}")
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): the normal 95 % interval of a mean; a single value has no width."""
    if not values:
        raise ValueError("mean_interval: no values")
    centre = mean(values)
    if len(values) < 2:
        return centre, centre, centre
    half = z * stdev(values) / math.sqrt(len(values))
    return centre, centre - half, centre + half


def reward_m(won: bool, moves: int) -> float:
    """The UCT study's score of a Connect Four game of ``moves`` moves for one player:
    ``0.8 * (1 - (m - 7) / 35)`` for a win (quicker wins score more, 0.8 at most), else
    ``(m - 7) / 35 - 1`` (a loss or draw; a draw on the full board scores 0)."""
    if moves < 7 or moves > 42:
        raise ValueError(f"reward_m: a Connect Four game lasts 7..42 moves, got {moves}")
    return 0.8 * (1 - (moves - 7) / 35) if won else (moves - 7) / 35 - 1


# --- comparisons with a document's figures -------------------------------------------------------
def _scipy_stats():
    try:
        from scipy import stats
    except ImportError:
        raise StatsUnavailable(f"the reports' tests need SciPy: {install_hint('stats')}") from None
    return stats


class StatsUnavailable(BoardzooError):
    """A test was asked for without SciPy installed."""


def require_tests() -> None:
    """StatsUnavailable now unless the reports' tests can run."""
    _scipy_stats()


def difference_interval(x1: int, n1: int, x2: int, n2: int) -> tuple[float, float, float]:
    """(difference, low, high) of ``x1/n1 - x2/n2``: Newcombe's hybrid score interval
    (from the two Wilson intervals; sound near 0 and 1)."""
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1)
    l2, u2 = wilson(x2, n2)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def fisher_exact(x1: int, n1: int, x2: int, n2: int) -> float:
    """Two-sided p-value of Fisher's exact test of ``x1/n1`` against ``x2/n2``."""
    for x, n in ((x1, n1), (x2, n2)):
        if n <= 0 or not 0 <= x <= n:
            raise ValueError(f"fisher_exact: counts must be 0 <= x <= n, n > 0; got {x}/{n}")
    return float(_scipy_stats().fisher_exact([[x1, n1 - x1], [x2, n2 - x2]]).pvalue)


@dataclass(frozen=True)
class WelchTest:
    """Welch's t-test of two means: the statistic, its degrees of freedom, the two-sided
    p-value and the standard error of the difference."""

    t: float
    df: float
    p: float
    se: float


def welch_test(mean1: float, sd1: float, n1: int, mean2: float, sd2: float, n2: int | None) -> WelchTest:
    """Welch's t-test of mean1 (sd1, n1) against mean2 (sd2, n2); ``n2=None``: mean2 is a
    fixed point, a one-sample t-test (df n1 - 1). The spreads must not both be zero."""
    v1 = sd1 * sd1 / n1
    v2 = 0.0 if n2 is None else sd2 * sd2 / n2
    se = math.sqrt(v1 + v2)
    if se == 0:
        raise ValueError("welch_test: no spread in either sample")
    df = (n1 - 1.0) if n2 is None else (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    t = (mean1 - mean2) / se
    return WelchTest(t, df, float(2 * _scipy_stats().t.sf(abs(t), df)), se)


def tost_p(difference: float, se: float, margin: float, df: float | None = None) -> float:
    """The p-value of two one-sided tests that the true difference lies within
    (-margin, margin): the larger of the two one-sided p-values, on Student's t with
    ``df`` degrees of freedom (None: the normal)."""
    if margin <= 0 or se <= 0:
        raise ValueError("tost_p: the margin and the standard error must be positive")
    law = _scipy_stats().norm if df is None else _scipy_stats().t(df)
    above_lower = law.sf((difference + margin) / se)  # H0: difference <= -margin
    below_upper = law.cdf((difference - margin) / se)  # H0: difference >= margin
    return float(max(above_lower, below_upper))


@dataclass(frozen=True)
class Comparison:
    """Our figure against a published one: the difference with its 95 % interval, the
    test of equality (``p``) and the equivalence test within ``margin``
    (``p_equivalent``), before any correction; ``p`` is None where no test is possible,
    ``p_equivalent`` None where equivalence would mean nothing (a margin as wide as the
    shares compared); ``reason`` says why. :func:`verdicts` judges a table of them."""

    ours: float
    published: float
    difference: float
    low: float
    high: float
    test: str
    p: float | None
    margin: float
    p_equivalent: float | None
    reason: str = ""
    size: int = 0  # our sample: games, or values (the larger side of two of ours)

    @property
    def words(self) -> str:
        """The verdict of this comparison alone (a table of them: :func:`verdicts`)."""
        return verdicts([self])[0]


def compare_counts(ours: int, games: int, published: float, published_games: int | None,
                   margin: float) -> Comparison:
    """Our ``ours`` successes in ``games`` against the document's share ``published`` of
    ``published_games`` (None: the document printed no sample size, so its share is a
    fixed point and the test an exact binomial one). Equivalence within ``margin`` (a
    difference of shares) is tested on Agresti and Caffo's adjusted shares (one success
    and one failure added to each side), sound at 0 and 1 where the plain one is not."""
    if games <= 0:
        raise ValueError("compare_counts: no games")
    if not 0 <= ours <= games:
        raise ValueError(f"compare_counts: {ours} successes in {games} games")
    stats = _scipy_stats()
    share = ours / games
    adjusted = (ours + 1) / (games + 2)
    variance = adjusted * (1 - adjusted) / (games + 2)
    if published_games is None:
        low, high = wilson(ours, games)
        p = float(stats.binomtest(ours, games, published).pvalue)
        d, dlow, dhigh, test = share - published, low - published, high - published, "exact binomial test"
        other = published
    else:
        x2 = round(published * published_games)
        p = fisher_exact(ours, games, x2, published_games)
        d, dlow, dhigh = difference_interval(ours, games, x2, published_games)
        test = "Fisher's exact test"
        other = (x2 + 1) / (published_games + 2)
        variance += other * (1 - other) / (published_games + 2)
    if margin >= max(share, published) or margin >= max(1 - share, 1 - published):
        return Comparison(share, published, d, dlow, dhigh, test, p, margin, None,
                          f"±{margin:g} is as wide as the shares themselves (a floor or a ceiling): "
                          "within it means nothing", games)
    p_eq = tost_p(adjusted - other, math.sqrt(variance), margin)
    return Comparison(share, published, d, dlow, dhigh, test, p, margin, p_eq, size=games)


def compare_means(values: Sequence[float], published: float, published_n: int | None, margin: float) -> Comparison:
    """Our sample mean against a published mean. With ``published_n`` it is Welch's test
    with the document's spread taken as ours (the documents print no spread); without,
    a one-sample t-test against the published mean as a fixed point. ``margin``: the
    equivalence margin, in the values' units."""
    n = len(values)
    nan = float("nan")
    centre = mean(values) if values else nan
    if n < 2:
        return Comparison(centre, published, centre - published, nan, nan, "", None, margin, None,
                          "fewer than 2 values")
    sd = stdev(values)
    if sd == 0:
        return Comparison(centre, published, centre - published, nan, nan, "", None, margin, None,
                          f"every value is {values[0]:g}: no spread to test with")
    result = welch_test(centre, sd, n, published, sd, published_n)
    half = float(_scipy_stats().t.ppf(0.975, result.df)) * result.se
    d = centre - published
    test = f"Welch's t-test (df {result.df:.1f})" if published_n is not None else f"one-sample t-test (df {n - 1})"
    return Comparison(centre, published, d, d - half, d + half, test, result.p, margin,
                      tost_p(d, result.se, margin, result.df), size=n)


def compare_samples(values: Sequence[float], others: Sequence[float], margin: float) -> Comparison:
    """Two samples of ours, ``values`` against ``others``: Welch's t-test with both
    spreads, and equivalence within ``margin`` (the values' units) on the same degrees of
    freedom."""
    nan = float("nan")
    if len(values) < 2 or len(others) < 2:
        return Comparison(nan, nan, nan, nan, nan, "", None, margin, None, "fewer than 2 values a side")
    sd, other_sd = stdev(values), stdev(others)
    if sd == 0 and other_sd == 0:
        return Comparison(mean(values), mean(others), mean(values) - mean(others), nan, nan, "", None, margin, None,
                          "no spread on either side")
    result = welch_test(mean(values), sd, len(values), mean(others), other_sd, len(others))
    d = mean(values) - mean(others)
    half = float(_scipy_stats().t.ppf(0.975, result.df)) * result.se
    return Comparison(mean(values), mean(others), d, d - half, d + half, f"Welch's t-test (df {result.df:.1f})",
                      result.p, margin, tost_p(d, result.se, margin, result.df), size=max(len(values), len(others)))


def games_for_equivalence(sd: float, margin: float) -> int:
    """Games a side two samples of spread ``sd`` need before the equivalence test within
    ``margin`` can pass at all (when their means agree exactly): the 90 % interval of the
    difference, 1.645 standard errors either way, must fit inside the margin."""
    if sd <= 0:
        return 2
    return max(2, math.ceil(2 * (1.6448536 * sd / margin) ** 2))


def scale_to_decide(comparison: Comparison, tests: int = 1, power: float = 0.8) -> float | None:
    """By how many times every side's games would have to grow for ``comparison`` to be
    decided with probability ``power``, if the figures observed were the true ones: the
    difference shown (its interval clear of zero) or, inside the margin, the equivalence
    shown, whichever needs fewer. The standard error is read from the 95 % interval and
    shrinks as one over the root of the games; ``tests`` corrects both tests as
    Bonferroni would (never less strict than Holm). None: nothing can decide it (no
    difference to show and no equivalence test, or no interval)."""
    se = (comparison.high - comparison.low) / (2 * Z95)
    d = abs(comparison.difference)
    if not se > 0 or math.isnan(d):
        return None
    normal = _scipy_stats().norm
    z_power = float(normal.ppf(power))
    scales = []
    if d > 0:
        scales.append(((float(normal.ppf(1 - ALPHA / (2 * tests))) + z_power) * se / d) ** 2)
    if comparison.p_equivalent is not None and d < comparison.margin:
        scales.append(((float(normal.ppf(1 - ALPHA / tests)) + z_power) * se / (comparison.margin - d)) ** 2)
    return min(scales) if scales else None


def to_decide(judged: str, comparison: Comparison | str | None, tests: int) -> str:
    """Nothing for a claim decided; for one ``judged`` *not decided* (a :func:`finding`),
    the sample that would decide it with 80 % power if the figures seen were the true ones
    (:func:`scale_to_decide`, every side of the comparison ours and growing alike)."""
    if not judged.startswith("not decided") or not isinstance(comparison, Comparison) or comparison.p is None:
        return ""
    scale = scale_to_decide(comparison, tests)
    if scale is None:
        return " No sample could decide it at these figures: they do not differ, and no equivalence test applies."
    needed = math.ceil(scale * comparison.size / 10) * 10
    return (f" At these figures a sample {scale:.1f} times as large (about {needed:,} where it has "
            f"{comparison.size:,}) would decide it with 80 % power.")


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error), in the order given."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini and Hochberg's adjusted p-values (false discovery rate), in the order given."""
    if not p_values:
        return []
    return [float(p) for p in _scipy_stats().false_discovery_control(list(p_values), method="bh")]


CORRECTIONS = {"holm": (holm, "Holm"), "bh": (benjamini_hochberg, "Benjamini-Hochberg")}


def verdict_word(p_equal: float, p_within: float) -> str:
    """The one rule for a comparison: its verdict word from its corrected p-values (the
    test of equality's and the equivalence test's), every report's verdicts made by it."""
    differs, within = p_equal < ALPHA, p_within < ALPHA
    if differs and within:
        return "differs, but by less than"
    return "differs" if differs else "equivalent within" if within else "inconclusive"


def verdict_text(word: str, test: str, p_equal: float, p_within: float | None, margin: float, note: str = "",
                 reason: str = "") -> str:
    """A comparison's verdict as reports print it: the word, then both p-values it was
    decided by (so that a reader, or a test, can decide it again); without an
    equivalence test (``p_within`` None), why there is none."""
    shown = f"{word} ±{margin:g}" if word in ("differs, but by less than", "equivalent within") else word
    within = f"no TOST: {reason}" if p_within is None else f"TOST ±{margin:g} {p_text(p_within)}"
    return f"{shown} ({test} {p_text(p_equal)}; {within}{note})"


def verdicts(comparisons: Sequence[Comparison | str | None], correction: str = "holm") -> list[str]:
    """The verdicts of one table's comparisons: their equality p-values corrected
    together, and their equivalence p-values together (the module docstring), each
    worded by :func:`verdict_word`. A string in place of a comparison is a row's verdict
    already (why it has no test); None, an empty cell."""
    adjust, name = CORRECTIONS[correction]
    tested = [(i, c.p) for i, c in enumerate(comparisons) if isinstance(c, Comparison) and c.p is not None]
    bounded = [(i, c.p_equivalent) for i, c in enumerate(comparisons)
               if isinstance(c, Comparison) and c.p is not None and c.p_equivalent is not None]
    note = f"; {name}, {len(tested)} tests" if len(tested) > 1 else ""
    p_equal = dict(zip([i for i, _ in tested], adjust([p for _, p in tested])))
    p_within = dict(zip([i for i, _ in bounded], adjust([q for _, q in bounded])))
    words = []
    for i, comparison in enumerate(comparisons):
        if not isinstance(comparison, Comparison):
            words.append(comparison or "")
        elif i not in p_equal:
            words.append(f"no test ({comparison.reason})")
        else:
            within = p_within.get(i)
            words.append(verdict_text(verdict_word(p_equal[i], 1.0 if within is None else within), comparison.test,
                                      p_equal[i], within, comparison.margin, note, comparison.reason))
    return words


#: What a document may claim of a difference (of the first figure from the second): the
#: claim a finding's verdict judges.
CLAIMS = ("higher", "lower", "not higher", "not lower", "no different")


def claim_word(claim: str, word: str, difference: float) -> str:
    """The one rule for a document's claim: *reproduced*, *contradicted* or *not
    decided*, from its test's verdict word (:func:`verdict_word`, or ``no test``) and the
    sign of the difference. A difference shown decides a claim of direction by its sign;
    a difference shown to be within the margin contradicts a claim that there is one and
    bears out a claim that there is none (or none the wrong way); an inconclusive test
    decides nothing."""
    if claim not in CLAIMS:
        raise ValueError(f"claim_word: a claim is one of {', '.join(CLAIMS)}, got {claim!r}")
    if word in ("inconclusive", "no test"):
        return "not decided"
    if word == "equivalent within":
        return "contradicted" if claim in ("higher", "lower") else "reproduced"
    if word not in ("differs", "differs, but by less than"):
        raise ValueError(f"claim_word: not a verdict word: {word!r}")
    if claim == "no different":
        return "reproduced" if word == "differs, but by less than" else "contradicted"
    higher = difference > 0
    agrees = {"higher": higher, "lower": not higher, "not higher": not higher, "not lower": higher}[claim]
    return "reproduced" if agrees else "contradicted"


def finding(claim: str, verdict: str, difference: float | None) -> str:
    """A document's claim judged: the word by :func:`claim_word` from ``verdict`` (one of
    :func:`verdicts`' texts), then what it was decided by (``difference`` None where
    there was nothing to measure it by)."""
    word = next((w for w in ("differs, but by less than", "differs", "equivalent within", "inconclusive",
                             "no test") if verdict.startswith(w)), None)
    if word is None or (difference is None and word != "no test"):
        raise ValueError(f"finding: not a verdict: {verdict!r}")
    measured = "nothing measured" if difference is None else f"difference {difference:+.3f}"
    return f"{claim_word(claim, word, difference or 0.0)} (claim: {claim}; {measured}; {verdict})"


def p_text(p: float) -> str:
    """A p-value as reports print it (with the digits the 5 % line needs)."""
    if p < 0.001:
        return "p < 0.001"
    digits = 3 if p < 0.1 else 2
    shown = f"{p:.{digits}f}"
    while (float(shown) < ALPHA) != (p < ALPHA) and digits < 16:  # rounding would cross the line
        digits += 1
        shown = f"{p:.{digits}f}"
    return f"p = {shown}"


# --- sweeps: bootstrap with the best-of-k correction -----------------------------------------------
@dataclass(frozen=True)
class BestOfK:
    """The best of k settings: its observed mean, the mean corrected for picking the best
    of k noisy estimates (the bootstrap's winner's-curse bias taken off), the interval,
    and how often each setting came out best over the resamples."""

    best: str
    observed: float
    corrected: float
    low: float
    high: float
    chance_best: dict[str, float]


def best_of_k(samples: Mapping[str, Sequence[float]], resamples: int = 2000, seed: int = 0) -> BestOfK:
    """Bootstrap (games resampled within each setting) of the best setting's mean."""
    if not samples or any(len(values) == 0 for values in samples.values()):
        raise ValueError("best_of_k: every setting needs values")
    rng = np.random.default_rng(seed)
    names = list(samples)
    arrays = [np.asarray(samples[name], dtype=float) for name in names]
    observed_means = np.array([a.mean() for a in arrays])
    best = int(observed_means.argmax())
    boot = np.empty((resamples, len(arrays)))
    for j, values in enumerate(arrays):
        picks = rng.integers(0, len(values), size=(resamples, len(values)))
        boot[:, j] = values[picks].mean(axis=1)
    maxima = boot.max(axis=1)
    bias = float(maxima.mean() - observed_means[best])
    # The interval of the best's true mean: percentile interval of the maxima, shifted by the bias.
    low, high = np.percentile(maxima, [2.5, 97.5]) - 2 * bias
    winners = np.bincount(boot.argmax(axis=1), minlength=len(arrays)) / resamples
    return BestOfK(names[best], float(observed_means[best]), float(observed_means[best] - bias),
                   float(low), float(high), {name: float(share) for name, share in zip(names, winners)})


def bootstrap_mean_interval(values: Sequence[float], resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap 95 % interval of a mean."""
    array = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = array[rng.integers(0, len(array), size=(resamples, len(array)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


# --- round robins: Bradley-Terry ratings ---------------------------------------------------------
@dataclass(frozen=True)
class Rating:
    name: str
    elo: float
    low: float
    high: float
    score: float
    games: int


def _bradley_terry(k: int, pairs: np.ndarray, scores: np.ndarray, iterations: int = 500) -> np.ndarray:
    """Strengths by the MM algorithm (Hunter 2004), as Elo points, for a batch of fits at
    once: ``pairs`` (m, 2) the players of each pairing, ``scores`` (..., m, 2) each side's
    points in it (a draw counts half a win each side); the result has shape (..., k).
    One virtual draw against every other player keeps a player with no loss (or no win)
    finite. A bootstrap fits its thousand resamples in one loop of array operations."""
    batch = scores.shape[:-2]
    wins = np.zeros((*batch, k))
    games = np.zeros((*batch, k, k))
    for column, (a, b) in enumerate(pairs):  # pairings are few; the batch is the long axis
        wins[..., a] += scores[..., column, 0]
        wins[..., b] += scores[..., column, 1]
        played = scores[..., column, 0] + scores[..., column, 1]
        games[..., a, b] += played
        games[..., b, a] += played
    prior = 1.0 / max(k - 1, 1)
    wins += prior * (k - 1) * 0.5
    games += prior * (1 - np.eye(k))
    strength = np.ones((*batch, k))
    for _ in range(iterations):
        denominator = (games / (strength[..., :, None] + strength[..., None, :])).sum(axis=-1)
        updated = wins / denominator
        updated /= np.exp(np.log(updated).mean(axis=-1, keepdims=True))
        if np.allclose(updated, strength, rtol=1e-10, atol=0):
            break
        strength = updated
    return 400 * np.log10(strength)


def _resampled_sums(scores: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """The sums of ``resamples`` bootstrap resamples of ``scores``, drawn as counts of each
    distinct score (a multinomial: the same distribution as resampling game by game, in
    memory of the few distinct scores rather than of every game of every resample)."""
    values, counts = np.unique(scores, return_counts=True)
    return rng.multinomial(len(scores), counts / len(scores), size=resamples) @ values


def ratings(results: Mapping[tuple[str, str], Sequence[float]], resamples: int = 1000, seed: int = 0) -> list[Rating]:
    """Bradley-Terry ratings on the Elo scale (mean 0), with 95 % bootstrap intervals.

    ``results[(a, b)]``: a's score in each game against b (1 win, 1/2 draw, 0 loss).
    Games are resampled within each pairing."""
    names = sorted({name for pair in results for name in pair})
    index = {name: i for i, name in enumerate(names)}
    arrays = {pair: np.asarray(scores, dtype=float) for pair, scores in results.items() if len(scores)}
    pairs = np.array([(index[a], index[b]) for a, b in arrays], dtype=int).reshape(-1, 2)

    def sides(points: np.ndarray, count: int) -> np.ndarray:
        return np.stack([points, count - points], axis=-1)

    point = _bradley_terry(len(names), pairs, np.array([sides(s.sum(), len(s)) for s in arrays.values()]))
    rng = np.random.default_rng(seed)
    resampled = [_resampled_sums(s, resamples, rng) for s in arrays.values()]
    boot = _bradley_terry(len(names), pairs,
                          np.stack([sides(points, len(s)) for points, s in zip(resampled, arrays.values())], axis=1)
                          if arrays else np.zeros((resamples, 0, 2)))
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    points = dict.fromkeys(names, 0.0)
    played = dict.fromkeys(names, 0)
    for (a, b), s in arrays.items():
        points[a] += float(s.sum())
        points[b] += float(len(s) - s.sum())
        played[a] += len(s)
        played[b] += len(s)
    out = [Rating(name, float(point[i]), float(low[i]), float(high[i]),
                  points[name] / played[name] if played[name] else 0.0, played[name])
           for i, name in enumerate(names)]
    return sorted(out, key=lambda rating: -rating.elo)


# --- cells and tables ---------------------------------------------------------------------------
def proportion_cell(successes: int, trials: int) -> str:
    low, high = wilson(successes, trials)
    return f"{successes / trials:.3f} ({low:.3f}..{high:.3f})"


def table(headers: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def deviations(items: list[tuple[str, str]]) -> list[str]:
    """The report's Deviations section: (what differs from the document, why)."""
    lines = ["## Deviations from the document's protocol", ""]
    if not items:
        return lines + ["None: this run follows the document's protocol as written.", ""]
    lines += [f"- **{what}** — {why}" for what, why in items]
    return lines + [""]


STATISTICS_NOTE = (
    "Verdicts: *differs* -- a two-sided test of equality (Fisher's exact test on two counts, with the "
    "document's sample size; an exact binomial test where it printed none; Welch's t-test for means) "
    "rejects at the 5 % level after Holm's correction over the table's tests; *equivalent within ±m* -- "
    "two one-sided tests reject a difference of m or more, corrected the same way (m, the margin, is "
    "stated with each verdict); *inconclusive* -- neither; *no test* -- fewer than two values or no "
    "spread, where a p-value would mean nothing. Each verdict prints both p-values it was decided by. A "
    "document's claim is *reproduced* when its test shows a difference the claimed way (or, for a claim of "
    "no difference or none the other way, shows the difference within the margin), *contradicted* when it "
    "shows the opposite, *not decided* when the test is inconclusive.")
