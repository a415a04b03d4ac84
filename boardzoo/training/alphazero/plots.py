"""The training curves of a run as one figure (the ``plot`` extra): losses by
generation, ratings with their intervals and mistake rates against training hours."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the file backend)

from boardzoo.ledger import write_atomic_with  # noqa: E402


def plot_history(history: list[dict[str, Any]], path: str, anchors: dict[str, float] | None = None) -> None:
    """Draw ``history`` (the run's ``history.jsonl`` records) into the PNG ``path``, with
    the ``anchors``' ratings (name -> Elo) as dashed lines, and a panel for each probe of
    the game that the run measured (mistake rates on solver-scored sets, agreement with
    a pile game's theory); a probe never measured gets no panel."""
    key = "outcome_mistakes" if any("outcome_mistakes" in e for e in history) else "mistakes"
    probes = [probe for probe, measured in ((_mistakes, any(key in e for e in history)),
                                            (_theory, any("pile_theory" in e for e in history))) if measured]
    figure, (losses, rating, *panels) = plt.subplots(1, 2 + len(probes), figsize=(5 * (2 + len(probes)), 4.2))
    generations = [e["generation"] for e in history]
    losses.plot(generations, [e["policy_loss"] for e in history], label="policy (cross-entropy)")
    losses.plot(generations, [e["value_loss"] for e in history], label="value (squared error)")
    losses.set_xlabel("generation")
    losses.set_title("training losses")
    losses.legend()
    rated = [e for e in history if "elo" in e]
    if rated:
        hours = [e["hours"] for e in rated]
        rating.plot(hours, [e["elo"] for e in rated], marker=".", label="network + search")
        rating.fill_between(hours, [e["elo_low"] for e in rated], [e["elo_high"] for e in rated], alpha=0.3)
        for name, elo in (anchors or {}).items():
            rating.axhline(elo, linestyle="--", linewidth=0.8, color="grey")
            rating.annotate(name, (hours[0], elo), fontsize=7, color="grey", va="bottom")
    rating.set_xlabel("training hours")
    rating.set_title("rating (Elo, random = 0; 95 % intervals)")
    for probe, panel in zip(probes, panels):
        probe(history, panel, key)
    figure.tight_layout()
    write_atomic_with(path, lambda handle: figure.savefig(handle, format="png", dpi=90))
    plt.close(figure)


def _mistakes(history: list[dict[str, Any]], panel: Any, key: str) -> None:
    # The outcome rule is the published anchors' (the referee's docstring); histories
    # written before it was measured hold the score rule alone, shown then.
    measured = [e for e in history if key in e]
    for label, style in (("search", "-"), ("network", ":")):
        names = sorted({name for e in measured for name in e[key].get(label, {})})
        for name in names:
            points = [(e["hours"], e[key][label][name]) for e in measured if name in e[key][label]]
            panel.plot(*zip(*points), style, label=f"{name} ({label})")
    panel.set_xlabel("training hours")
    panel.set_title(f"mistake rate on the solver-scored sets ({key.split('_')[0] if '_' in key else 'score'} rule)")
    panel.legend(fontsize=7)


def _theory(history: list[dict[str, Any]], panel: Any, key: str) -> None:
    measured = [e for e in history if "pile_theory" in e]
    panel.plot([e["hours"] for e in measured], [e["pile_theory"] for e in measured], marker=".")
    panel.set_ylim(0, 1.05)
    panel.set_xlabel("training hours")
    panel.set_title("winning piles where the network alone plays the theory")
