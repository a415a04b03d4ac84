"""Helpers shared by the benchmark scripts: timing loops and a markdown table."""

from __future__ import annotations

import platform
import time
from collections.abc import Callable


def rate(run_once: Callable[[], int], seconds: float) -> float:
    """Units per second of ``run_once`` (which returns how many units it did), over ``seconds``."""
    run_once()  # warm-up
    units, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        units += run_once()
    return units / elapsed


def compare(runs: dict[str, Callable[[], int]], seconds: float, rounds: int = 5) -> dict[str, float]:
    """Rates of several ``runs`` measured in interleaved rounds; the median round of each.

    Interleaving keeps a slow spell of a shared machine from landing on one side only, so
    the ratios between the entries are steadier than their absolute figures.
    """
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run_once in runs.items():
            samples[name].append(rate(run_once, seconds / rounds))
    return {name: sorted(values)[len(values) // 2] for name, values in samples.items()}


def machine() -> str:
    import os

    return f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores"


def table(headers: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)
