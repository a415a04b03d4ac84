"""Small statistics for reports: confidence intervals, seed 003's REWARD(m), a verdict
that sets a published figure against our interval, and markdown tables."""

from __future__ import annotations

import math
from statistics import mean, stdev

Z95 = 1.959964


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


def mean_interval(values: list[float], z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): the normal 95 % interval of a mean; a single value has no width."""
    if not values:
        raise ValueError("mean_interval: no values")
    centre = mean(values)
    if len(values) < 2:
        return centre, centre, centre
    half = z * stdev(values) / math.sqrt(len(values))
    return centre, centre - half, centre + half


def reward_m(won: bool, moves: int) -> float:
    """Seed 003's score of a Connect Four game of ``moves`` moves for one player:
    ``0.8 * (1 - (m - 7) / 35)`` for a win (quicker wins score more, 0.8 at most), else
    ``(m - 7) / 35 - 1`` (a loss or draw; a draw on the full board scores 0)."""
    if moves < 7 or moves > 42:
        raise ValueError(f"reward_m: a Connect Four game lasts 7..42 moves, got {moves}")
    return 0.8 * (1 - (moves - 7) / 35) if won else (moves - 7) / 35 - 1


def verdict(published: float, low: float, high: float) -> str:
    """Plain words: does the published figure lie in our 95 % interval?"""
    if low <= published <= high:
        return "agrees"
    return f"disagrees: ours is {'higher' if low > published else 'lower'}"


def proportion_cell(successes: int, trials: int) -> str:
    low, high = wilson(successes, trials)
    return f"{successes / trials:.3f} ({low:.3f}..{high:.3f})"


def compare_proportion(published: float, successes: int, trials: int) -> list[str]:
    """[published, ours with CI, verdict] cells."""
    low, high = wilson(successes, trials)
    return [f"{published:.4g}", proportion_cell(successes, trials), verdict(published, low, high)]


def table(headers: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)
