"""Line plots for reports (matplotlib, the optional ``plot`` extra, imported only here
and only when a report is drawn)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Point = tuple[float, float, float, float]  # x, y, low, high


def line_plot(path: str, title: str, xlabel: str, ylabel: str, series: Mapping[str, Sequence[Point]],
              logx: bool = False, logy: bool = False) -> None:
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 4.2))
    for label, points in series.items():
        points = sorted(points)
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        below = [max(p[1] - p[2], 0.0) for p in points]  # rounding can put an end a hair inside
        above = [max(p[3] - p[1], 0.0) for p in points]
        axes.errorbar(xs, ys, yerr=[below, above], marker="o", capsize=3, label=label)
    if logx:
        axes.set_xscale("log")
    if logy:
        axes.set_yscale("log")
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, alpha=0.3)
    if len(series) > 1:
        axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
