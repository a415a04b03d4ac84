"""Seed 000: MCTS for Nim (Polish). K = 3, piles of 20..50 drawn per game, seats
alternating (the seed draws the first player at random), MCTS with a time budget per move."""

from __future__ import annotations

from collections import defaultdict
from functools import partial
from statistics import mean, median

from boardzoo.experiments.framework import Experiment, Job, Report, search_probe, sized, tally
from boardzoo.experiments.plots import line_plot
from boardzoo.experiments.stats import compare_proportion, mean_interval, table

MCTS_10 = "mcts:time=0.01"
# (key, env, a, b, published wins of a out of 300 or None, what the seed printed)
MATCHES = [
    ("random-vs-mcts", "nim_v0", "random", MCTS_10, 3 / 300,
     "297:3 as printed, the labels look swapped: MCTS should win, so read 3:297"),
    ("mcts-vs-strategic", "nim_v0", MCTS_10, f"{MCTS_10},rollout=strategic", 157 / 300, "157:143"),
    ("mcts-vs-archival", "nim_v0", MCTS_10, f"{MCTS_10},reuse=true", 217 / 300, "217:83"),
    ("greedy-vs-mcts-100ms", "nim_v0", "greedy", "mcts:time=0.1", 298 / 300, "298:2"),
    ("coin-mcts-vs-greedy", "nim_v0:coin=true", MCTS_10, "greedy", 258 / 300, "258:42"),
]
THINK_TIMES = (0.01, 0.03, 0.1)


class NimMCTS(Experiment):
    name = "nim-mcts"
    source = "seed 000 (Polish): MCTS for Nim"
    compares = ("random-roll-out MCTS vs random, strategic, archival (tree reuse), greedy; "
                "per-n statistics; play-outs vs think time; Nim with a coin")
    default_size = "100 games per match, 10 per think time"
    full_size = "300 games per match, 30 per think time"
    expected_time = "about 1 min"

    def jobs(self, games: int | None, full: bool) -> list[Job]:
        jobs = [Job(key, env, a, b, sized(games, full, 100, 300), probe=search_probe)
                for key, env, a, b, _, _ in MATCHES]
        for seconds in THINK_TIMES:
            jobs.append(Job(f"think-{seconds * 1000:g}ms", "nim_v0:n=10", f"mcts:time={seconds}", "random",
                            sized(games, full, 10, 30), probe=search_probe))
        return jobs

    def report(self, results: dict[str, list[dict]], jobs: list[Job]) -> Report:
        rows = []
        for key, env, a, b, published, printed in MATCHES:
            records = results[key]
            wins_a, ties, wins_b = tally(records)
            rows.append([key, f"`{a}` vs `{b}` ({env})", printed, len(records), f"{wins_a}:{wins_b}",
                         *compare_proportion(published, wins_a, len(records))])
        text = [
            "# Seed 000 — MCTS for Nim",
            "",
            "K = 3, a pile of 20..50 pawns drawn for each game, agents alternate seats; MCTS is UCB1 "
            "with c = sqrt(2), random roll-outs, the tree rebuilt every move unless archival (reuse). "
            "Time budgets depend on the machine: the seed's figures came from a different computer.",
            "",
            "## Matches (share of games won by the first agent named)",
            "",
            table(["match", "agents", "seed 000 printed", "games", "ours", "published share", "ours (95% CI)",
                   "verdict"], rows),
            "",
        ]
        text += self._per_n(results["random-vs-mcts"])
        think, plot = self._think_times(results)
        text += think
        plots = {"playouts_vs_think_time.png": plot}
        per_n = self._per_n_series(results["random-vs-mcts"])
        if per_n:
            plots["per_n_convincity.png"] = partial(line_plot, title="Convincity of the chosen move by pile",
                                                    xlabel="pawns left (n)", ylabel="win ratio of the chosen child",
                                                    series={"random-roll-out MCTS (10 ms)": per_n[0]})
            plots["per_n_playouts.png"] = partial(line_plot, title="Play-outs per decision by pile",
                                                  xlabel="pawns left (n)", ylabel="play-outs",
                                                  series={"random-roll-out MCTS (10 ms)": per_n[1]})
            text += ["![convincity per n](per_n_convincity.png) ![play-outs per n](per_n_playouts.png)", ""]
        return Report("\n".join(text), plots)

    @staticmethod
    def _decisions(records: list[dict]) -> dict[int, list[tuple[dict, bool]]]:
        by_n: dict[int, list[tuple[dict, bool]]] = defaultdict(list)
        for record in records:
            for probe in record["probes"]:
                if "n" in probe:
                    by_n[probe["n"]].append((probe, record["winner"] == probe["agent"]))
        return by_n

    def _per_n(self, records: list[dict]) -> list[str]:
        by_n = self._decisions(records)
        rows = []
        for n in sorted(by_n, reverse=True):
            decisions = by_n[n]
            probes = [p for p, _ in decisions]
            rows.append([n, len(decisions), f"{mean(p['convincity'] for p in probes):.3f}",
                         f"{mean(p['iterations'] for p in probes):.0f}",
                         f"{mean(p['path_mean'] for p in probes):.2f}",
                         f"{median(p['path_median'] for p in probes):g}",
                         max(p["path_max"] for p in probes),
                         f"{sum(won for _, won in decisions) / len(decisions):.2f}"])
        return ["## Per-n statistics of the random-roll-out MCTS (its decisions against random)", "",
                "The seed collects these columns but prints no figures to compare with.", "",
                table(["n", "popularity", "convincity", "play-outs", "mean path", "median path", "max path",
                       "games won"], rows), ""]

    def _per_n_series(self, records: list[dict]):
        by_n = self._decisions(records)
        if not by_n:
            return None
        convincity, playouts = [], []
        for n, decisions in by_n.items():
            convincity.append((n, *mean_interval([p["convincity"] for p, _ in decisions])))
            playouts.append((n, *mean_interval([p["iterations"] for p, _ in decisions])))
        return convincity, playouts

    def _think_times(self, results: dict[str, list[dict]]):
        rows, points = [], []
        for seconds in THINK_TIMES:
            probes = [p for r in results[f"think-{seconds * 1000:g}ms"] for p in r["probes"] if p["agent"] == "a"]
            centre, low, high = mean_interval([p["iterations"] for p in probes])
            rows.append([f"{seconds * 1000:g} ms", len(probes), f"{centre:.0f} ({low:.0f}..{high:.0f})",
                         f"{centre / (seconds * 1000):.0f}"])
            points.append((seconds * 1000, centre, low, high))
        first, last = points[0], points[-1]
        per_ms = [p[1] / p[0] for p in points]
        linear = max(per_ms) / min(per_ms) < 1.5
        verdict = ("agrees: play-outs per millisecond stay within 1.5x across budgets"
                   if linear else "disagrees: play-outs per millisecond vary by more than 1.5x across budgets")
        text = ["## Play-outs vs think time (pile of 10, MCTS against random)", "",
                "Seed 000: play-outs grow linearly with the time budget (no figures printed).", "",
                table(["budget", "decisions", "play-outs per decision (95% CI)", "per ms"], rows), "",
                f"From {first[0]:g} to {last[0]:g} ms the play-outs grow {last[1] / max(first[1], 1):.1f}x "
                f"for {last[0] / first[0]:g}x the time — {verdict}.", "",
                "![play-outs vs think time](playouts_vs_think_time.png)", ""]
        plot = partial(line_plot, title="Play-outs per decision vs think time", xlabel="think time (ms)",
                       ylabel="play-outs per decision", series={"MCTS, pile of 10": points})
        return text, plot
