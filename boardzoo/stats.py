"""Statistics for reports: intervals, the comparison of our counts with a document's
published counts (a two-sample test with its power), bootstrap intervals for sweeps
with the best-of-k correction, Bradley-Terry ratings with intervals, the UCT study's
REWARD(m), and markdown tables.

How a published figure is judged (:func:`compare_counts`, :func:`compare_means`):

* **differs (p = ...)** — a two-sided two-sample test rejects equality at the 5 % level
  (Fisher's exact test on the two 2x2 counts; Welch's t-test for means);
* **agrees** — it does not, and the test had at least 80 % power to detect a *relevant*
  difference (Cohen's h = 0.2 for proportions, a "small" effect; a stated margin for
  means), so a difference that size would most likely have shown;
* **inconclusive** — it does not, but the power was under 80 %: the report says how many
  games (ours, the document's sample size kept) would reach 80 %, or that none would.

The document's sample size is used where it printed one; where it did not, its figure is
treated as exact (a one-sample comparison), which the report says.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist, mean, stdev

import numpy as np

Z95 = 1.959964
ALPHA = 0.05
POWER = 0.8
#: Cohen's h of a "small" difference between two proportions: the relevant difference.
SMALL_H = 0.2
_NORMAL = NormalDist()


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


# --- two-sample comparison of counts ------------------------------------------------------------
def _log_choose(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def fisher_exact(x1: int, n1: int, x2: int, n2: int) -> float:
    """Two-sided p-value of Fisher's exact test of ``x1/n1`` against ``x2/n2``: the
    probability, with the margins fixed, of a table no more likely than the one seen."""
    for x, n in ((x1, n1), (x2, n2)):
        if n <= 0 or not 0 <= x <= n:
            raise ValueError(f"fisher_exact: counts must be 0 <= x <= n, n > 0; got {x}/{n}")
    total, successes = n1 + n2, x1 + x2
    low, high = max(0, successes - n2), min(successes, n1)
    base = _log_choose(total, successes)
    logs = np.array([_log_choose(n1, k) + _log_choose(n2, successes - k) - base for k in range(low, high + 1)])
    observed = logs[x1 - low]
    # The relative tolerance keeps tables exactly as likely as the observed one (ties).
    return float(min(1.0, np.exp(logs[logs <= observed + 1e-7]).sum()))


def difference_interval(x1: int, n1: int, x2: int, n2: int) -> tuple[float, float, float]:
    """(difference, low, high) of ``x1/n1 - x2/n2``: Newcombe's hybrid score interval
    (from the two Wilson intervals; sound near 0 and 1)."""
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1)
    l2, u2 = wilson(x2, n2)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def _h_shift(p: float, h: float) -> float:
    """The proportion at Cohen's distance ``h`` from ``p``, towards 1/2 (the side where a
    difference is harder to see)."""
    angle = 2 * math.asin(math.sqrt(p))
    return math.sin((angle - h if p > 0.5 else angle + h) / 2) ** 2


def power_two_proportions(p1: float, p2: float, n1: float, n2: float, alpha: float = ALPHA) -> float:
    """Normal-approximation power of a two-sided two-sample test of proportions."""
    se = math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    if se == 0:
        return 1.0 if p1 != p2 else 0.0
    z = _NORMAL.inv_cdf(1 - alpha / 2)
    shift = abs(p1 - p2) / se
    return _NORMAL.cdf(shift - z) + _NORMAL.cdf(-shift - z)


def games_for_power(p1: float, p2: float, n2: float | None, power: float = POWER,
                    alpha: float = ALPHA) -> int | None:
    """Games of ours for ``power`` to tell ``p1`` from ``p2`` with the other side's ``n2``
    samples kept (``None``: the other side exact); None when no number would do."""
    z = _NORMAL.inv_cdf(1 - alpha / 2) + _NORMAL.inv_cdf(power)
    room = (p1 - p2) ** 2 / z ** 2 - (0 if n2 is None else p2 * (1 - p2) / n2)
    if room <= 0:
        return None
    return max(1, math.ceil(p1 * (1 - p1) / room))


@dataclass(frozen=True)
class Comparison:
    """Our count against a published one: the verdict and the figures behind it."""

    ours: float
    published: float
    difference: float
    low: float
    high: float
    p: float
    power: float
    needed: int | None
    words: str


def _verdict(p: float, power: float, needed: int | None, relevant: str = "") -> str:
    """differs / agrees / inconclusive, as the module docstring defines them."""
    if p < ALPHA:
        return f"differs ({_p_text(p)})"
    if power >= POWER:
        return f"agrees ({_p_text(p)}, power {power:.2f})"
    more = ("no sample of ours would do, given the document's" if needed is None
            else f"about {needed:,} games would reach 0.8")
    return f"inconclusive ({_p_text(p)}, power {power:.2f}{relevant}; {more})"


def compare_counts(ours: int, games: int, published: float, published_games: int | None,
                   h: float = SMALL_H) -> Comparison:
    """Our ``ours`` successes in ``games`` against the document's share ``published`` of
    ``published_games`` (None: not printed, the share is taken as exact)."""
    if games <= 0:
        raise ValueError("compare_counts: no games")
    p1 = ours / games
    if published_games is None:
        # A one-sample exact comparison: the published share as a fixed point.
        low, high = wilson(ours, games)
        p = _binomial_two_sided(ours, games, published)
        d, dlow, dhigh = p1 - published, low - published, high - published
        n2: int | None = None
    else:
        x2 = round(published * published_games)
        p = fisher_exact(ours, games, x2, published_games)
        d, dlow, dhigh = difference_interval(ours, games, x2, published_games)
        n2 = published_games
    relevant = _h_shift(published, h)
    power = power_two_proportions(relevant, published, games, n2 if n2 else math.inf)
    needed = games_for_power(relevant, published, n2)
    return Comparison(p1, published, d, dlow, dhigh, p, power, needed, _verdict(p, power, needed))


def _binomial_two_sided(x: int, n: int, p: float) -> float:
    """Exact two-sided binomial p-value of ``x`` in ``n`` against the share ``p``."""
    if p <= 0 or p >= 1:
        return 1.0 if (x == 0 and p <= 0) or (x == n and p >= 1) else 0.0
    ks = np.arange(n + 1)
    logs = np.array([_log_choose(n, k) for k in range(n + 1)]) + ks * math.log(p) + (n - ks) * math.log1p(-p)
    return float(min(1.0, np.exp(logs[logs <= logs[x] + 1e-7]).sum()))


def _p_text(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}" if p < 0.1 else f"p = {p:.2f}"


def compare_means(values: Sequence[float], published: float, published_n: int | None, margin: float) -> Comparison:
    """Our sample mean against a published mean. With ``published_n`` it is Welch's test
    with the document's spread taken as ours (the document printed no spread); without,
    the published mean is a fixed point. ``margin`` is the relevant difference."""
    n = len(values)
    if n < 2:
        nan = float("nan")
        centre = values[0] if values else nan
        return Comparison(centre, published, centre - published, nan, nan, nan, 0.0, None,
                          "too few games to test (fewer than 2)")
    centre, sd = mean(values), stdev(values)
    variance = sd * sd / n + (0 if published_n is None else sd * sd / published_n)
    se = math.sqrt(variance)
    z = _NORMAL.inv_cdf(1 - ALPHA / 2)
    d = centre - published
    if se == 0:
        p = 1.0 if d == 0 else 0.0
        power = 1.0
    else:
        p = 2 * (1 - _NORMAL.cdf(abs(d) / se))
        power = _NORMAL.cdf(margin / se - z) + _NORMAL.cdf(-margin / se - z)
    zz = z + _NORMAL.inv_cdf(POWER)
    room = margin ** 2 / zz ** 2 - (0 if published_n is None else sd * sd / published_n)
    needed = None if room <= 0 else max(2, math.ceil(sd * sd / room))
    words = _verdict(p, power, needed, f" for a difference of {margin:g}")
    return Comparison(centre, published, d, d - z * se, d + z * se, p, power, needed, words)


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
    "Verdicts: *differs* — a two-sided two-sample test (Fisher's exact test on the counts, with the "
    "document's sample size; Welch's test for means) rejects equality at the 5 % level; *agrees* — it "
    "does not, and the test had at least 80 % power to detect a small difference (Cohen's h = 0.2 for "
    "shares, the stated margin for means); *inconclusive* — it does not, but with less power: the games "
    "needed for 80 % power are given (with the document's own sample size kept).")

