"""A run's records summed up: wins, draws and losses per agent and per seat, moves and
decision times (:func:`summarize`), and the table the command line prints
(:func:`format_summary`)."""

from __future__ import annotations

import math
from typing import Any

from boardzoo.envs.aec import AGENTS as SEATS


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Wins/ties/losses per agent and per seat, mean decision time, mean game length."""
    summary: dict[str, Any] = {
        "games": len(records),
        "a_wins": sum(r["winner"] == "a" for r in records),
        "b_wins": sum(r["winner"] == "b" for r in records),
        "ties": sum(r["winner"] is None for r in records),
        "forfeits": sum(r["forfeit"] is not None for r in records),
        "mean_plies": _mean([r["plies"] for r in records]),
        # Deterministic agents on a game without chance play the same two games over and
        # over (one with each seating); a count of 100 is then 2 games, and says so.
        "distinct_games": len({(r["seat_of_a"], tuple(map(tuple, r["moves"]))) for r in records}),
    }
    if records:
        summary["env"], summary["a"], summary["b"] = records[0]["env"], records[0]["a"], records[0]["b"]
        summary["opening_plies"] = records[0].get("opening_plies", 0)
    for label in ("a", "b"):
        times = [t for r in records for t in r["decision_seconds"][label]]
        summary[f"{label}_mean_decision_ms"] = _mean(times) * 1000 if times else None
        for seat in SEATS:
            mine = [r for r in records if (r["seat_of_a"] == seat) == (label == "a")]
            summary[f"{label}_as_{seat}"] = {
                "games": len(mine),
                "wins": sum(r["winner"] == label for r in mine),
                "ties": sum(r["winner"] is None for r in mine),
                "losses": sum(r["winner"] not in (label, None) for r in mine),
            }
    return summary


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def format_summary(summary: dict[str, Any]) -> str:
    """The summary as a table for the terminal; the agent column is as wide as the
    longest spec (specs are bounded, see boardzoo.spec.MAX_SPEC), so names are never cut."""
    names = {label: f"{label}: {summary.get(label, '?')}" for label in ("a", "b")}
    width = max(28, *map(len, names.values()))
    repeated = summary["games"] - summary["distinct_games"]
    lines = [
        f"{summary.get('env', '?')}: {summary['games']} games, mean length {summary['mean_plies']:.1f} plies"
        + (f", {summary['forfeits']} forfeits" if summary["forfeits"] else "")
        + (f", each pair from a random opening of {summary['opening_plies']} plies"
           if summary.get("opening_plies") else ""),
        *([f"note: only {summary['distinct_games']} of the {summary['games']} games differ: deterministic agents "
           f"on a game without chance repeat them move for move, so these counts weigh "
           f"{summary['distinct_games']} games many times"] if repeated else []),
        f"{'agent':<{width}} {'wins':>6} {'ties':>6} {'losses':>6} {'win %':>7} "
        f"{'as player_0 (w/t/l)':>20} {'as player_1 (w/t/l)':>20} {'ms/move':>9}",
    ]
    for label in ("a", "b"):
        seats = [summary[f"{label}_as_{seat}"] for seat in SEATS]
        wins = sum(s["wins"] for s in seats)
        ties = sum(s["ties"] for s in seats)
        losses = sum(s["losses"] for s in seats)
        ms = summary[f"{label}_mean_decision_ms"]
        lines.append(
            f"{names[label]:<{width}} {wins:>6} {ties:>6} {losses:>6} {100 * wins / max(summary['games'], 1):>6.1f}% "
            + " ".join(f"{s['wins']}/{s['ties']}/{s['losses']}".rjust(20) for s in seats)
            + f" {ms if ms is not None else float('nan'):>9.3f}"
        )
    return "\n".join(lines)
