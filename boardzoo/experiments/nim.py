"""The Nim MCTS study (source 000, Polish): MCTS against the random and greedy bots,
random against strategic and archival (tree-reuse) MCTS, Nim with a coin, the per-n
statistics of its Tables 1-4, and play-outs against think time.

The document's protocol: K = 3, a pile of 20..49 pawns drawn for each game (its tables
never show a decision at 50), a random first player, 300 games a match, MCTS with a
10 ms budget (100 ms against greedy), UCB1 ``w/n + sqrt(2) sqrt(ln N / n)`` on win
ratios (wins counted in [0, 1]: ``q=wins``), the final move by the best win ratio, the
tree rebuilt every move unless archival. The strategic MCTS's roll-outs steer only its
own moves (leave a multiple of K+1); the opponent's roll-out moves stay random.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import partial
from statistics import mean, median

from boardzoo.experiments.framework import SEATS_EFFECT, Experiment, Job, Report, search_probe, sized, tally
from boardzoo.experiments.plots import line_plot
from boardzoo.stats import (
    STATISTICS_NOTE,
    Comparison,
    compare_counts,
    compare_means,
    compare_samples,
    deviations,
    finding,
    mean_interval,
    table,
    to_decide,
    verdicts,
)
from boardzoo.strategy.nim.study import TABLES

#: The document's MCTS: UCB1 with C = sqrt 2 on win ratios, the final move by the best win ratio.
DOCUMENT_MCTS = "mcts:q=wins,c=1.4142,final=value"
PILES = "nim_v0:n=20..49"
COIN_PILES = "nim_v0:n=20..49,coin=true"


def timed(seconds: float = 0.01, extra: str = "") -> str:
    return f"{DOCUMENT_MCTS},time={seconds}{extra}"


def scheduled(table_name: str, extra: str = "") -> str:
    """The document's MCTS at the document's own play-out count at each pile (its table)."""
    return f"{DOCUMENT_MCTS},schedule=study-{table_name}{extra}"


STRATEGIC, ARCHIVAL = ",rollout=strategic", ",reuse=true"
#: Section 5.1's coin MCTS: the coin tossed on the way down and kept in no node.
DOCUMENT_COIN, CHANCE_NODES = ",chance=open", ",chance=tree"


class Match:
    """A published match: agent a against agent b, a's published wins of 300, and which of
    the two players the document's per-n table (if any) describes."""

    def __init__(self, key: str, env: str, a: str, b: str, published_a: int, printed: str,
                 table_name: str | None = None, table_agent: str = "a", default_games: int = 300):
        self.key, self.env, self.a, self.b = key, env, a, b
        self.published_a, self.printed = published_a, printed
        self.table_name, self.table_agent, self.default_games = table_name, table_agent, default_games


PUBLISHED_GAMES = 300
#: Equivalence margins, fixed before the runs. A match's win share within 0.10 of the
#: document's: below the smallest gap between two of the document's matches (0.86 against
#: 0.99, 0.13), so no difference its comparisons rest on fits inside it. A mean
#: convincity within 0.05 (a twentieth of its range). Play-outs a decision within 100 (a
#: tenth of the 1,000 a 10 ms decision runs); the deepest leaf within one level.
MATCH_MARGIN = 0.10
CONVINCITY_MARGIN = 0.05
PLAYOUTS_MARGIN = 100.0
DEPTH_MARGIN = 1.0
#: Play-outs grow linearly with the think time when the play-outs a millisecond at the
#: longest budget are within a fifth of those at the shortest (fixed before the runs).
LINEAR_MARGIN = 0.2
#: The fewest decisions at one pile, on each side, for its convincities to be compared.
MIN_DECISIONS = 10
MATCHES = [
    Match("mcts-vs-random", PILES, timed(), "random", 297,
          "random 297 : MCTS 3 as printed; the labels are swapped (MCTS wins), so MCTS 297", "random"),
    Match("mcts-vs-strategic", PILES, timed(), timed(extra=STRATEGIC), 157, "random MCTS 157 : strategic 143",
          "strategic", "b"),
    Match("mcts-vs-archival", PILES, timed(), timed(extra=ARCHIVAL), 217, "random MCTS 217 : archival 83",
          "archival", "b"),
    Match("greedy-vs-mcts-100ms", PILES, "greedy", timed(0.1), 298, "greedy 298 : MCTS 2 (100 ms)",
          default_games=100),
    Match("coin-mcts-vs-greedy", COIN_PILES, timed(extra=DOCUMENT_COIN), "greedy", 258,
          "MCTS 258 : greedy 42 (with the coin)", "coin"),
    # boardzoo's own coin MCTS (each toss a chance node), beside the document's: the difference.
    Match("coin-mcts-vs-greedy, chance nodes", COIN_PILES, timed(extra=CHANCE_NODES), "greedy", 258,
          "(as above; boardzoo's chance-node search)"),
]
# The same matches at the document's own play-out counts (its tables' mean play-outs at each n).
SCHEDULED = [
    Match("at-playouts: mcts-vs-random", PILES, scheduled("random"), "random", 297, "", "random",
          default_games=150),
    Match("at-playouts: mcts-vs-strategic", PILES, scheduled("random"), scheduled("strategic", STRATEGIC), 157, "",
          "strategic", "b", default_games=150),
    Match("at-playouts: mcts-vs-archival", PILES, scheduled("random"), scheduled("archival", ARCHIVAL), 217, "",
          "archival", "b", default_games=150),
    Match("at-playouts: coin-mcts-vs-greedy", COIN_PILES, scheduled("coin", DOCUMENT_COIN), "greedy", 258, "",
          "coin", default_games=150),
]
THINK_TIMES = (0.01, 0.03, 0.1)
CAPTIONS = {"random": "Table 1 — random-roll-out MCTS (against the random bot)",
            "strategic": "Table 2 — strategic-roll-out MCTS (against random-roll-out MCTS)",
            "archival": "Table 3 — archival MCTS (against random-roll-out MCTS)",
            "coin": "Table 4 — MCTS in Nim with the coin (against greedy)"}
#: Pile-size bands for the per-n comparisons (the decisions of the tables pooled, weighted
#: by popularity as the document's own means would be).
BANDS = ((1, 4), (5, 12), (13, 19), (20, 49))


class NimMCTS(Experiment):
    name = "nim-mcts"
    source = "source 000 (Polish): the Nim MCTS study"
    compares = ("MCTS vs random, strategic, archival (tree reuse), greedy, and with the coin, at 10 ms and at "
                "the document's own play-out counts; the per-n Tables 1-4; play-outs vs think time")
    default_size = ("300 games per 10 ms match (100 at 100 ms), 150 per play-out-count match, "
                    "100 per think time")
    full_size = "300 games per match and per think time (published)"
    expected_time = "about 7 min (measured: 7 min 14 s)"
    full_time = "longer than the default run's 7 min on 2 cores (not measured)"

    def jobs(self, games: int | None, full: bool) -> list[Job]:
        jobs = [Job(m.key, m.env, m.a, m.b, sized(games, full, m.default_games, PUBLISHED_GAMES), probe=search_probe)
                for m in MATCHES + SCHEDULED]
        for seconds in THINK_TIMES:
            jobs.append(Job(f"think-{seconds * 1000:g}ms", "nim_v0:n=10", timed(seconds), "random",
                            sized(games, full, 100, PUBLISHED_GAMES), probe=search_probe))
        return jobs

    def report(self, results: dict[str, list[dict]], jobs: list[Job]) -> Report:
        text = [
            "# Source 000 — the Nim MCTS study",
            "",
            "K = 3, a pile of 20..49 pawns drawn for each game; MCTS is the document's: UCB1 with "
            "C = sqrt 2 on win ratios (`q=wins`), random roll-outs, the final move by the best win ratio "
            "(`final=value`), the tree rebuilt every move unless archival (`reuse=true`). The strategic "
            "roll-out steers the searching player's moves only (leave a multiple of K+1); the "
            "opponent's roll-out moves stay random, as the document says.",
            "",
            f"Agents: `{timed()}` (10 ms a move) and `{scheduled('random')}` (the document's own "
            "play-out count at each pile, from its tables).",
            "",
            "## Matches (wins of the first agent named, against the document's 300 games)",
            "",
            STATISTICS_NOTE,
            "",
            table(["match", "budget", "agents", "document printed", "published", "ours", "difference (95% CI)",
                   "verdict"], self._match_rows(results)),
            "",
        ]
        text += self._archival(results)
        for match in MATCHES:
            if match.table_name:
                text += self._per_n(match, results)
        think, plot = self._think_times(results)
        text += think
        text += ["## The document's conclusions (sections 4 and 6), judged on our runs", "",
                 "Each conclusion as a claim about a difference our 10 ms matches can test, with the test beside "
                 "it, the tests corrected together (Holm) and judged by the one rule of the statistics note.", "",
                 *document_conclusions(results), ""]
        text += deviations(DEVIATIONS)
        plots = {"playouts_vs_think_time.png": plot,
                 "per_n_convincity.png": partial(line_plot, title="Convincity of the chosen move by pile",
                                                 xlabel="pawns left (n)", ylabel="win ratio of the chosen child",
                                                 series=self._convincity_series(results))}
        text += ["![convincity per n](per_n_convincity.png)", ""]
        return Report("\n".join(text), plots)

    # --- matches ---------------------------------------------------------------------------------
    @staticmethod
    def _match_rows(results: dict[str, list[dict]]) -> list[list]:
        rows, tests = [], []
        for match in MATCHES + SCHEDULED:
            records = results[match.key]
            wins_a, _, wins_b = tally(records)
            result = compare_counts(wins_a, len(records), match.published_a / PUBLISHED_GAMES, PUBLISHED_GAMES,
                                    MATCH_MARGIN)
            tests.append(result)
            budget = "play-outs as published" if match in SCHEDULED else (
                "100 ms" if "time=0.1" in match.a + match.b else "10 ms")
            rows.append([match.key.removeprefix("at-playouts: "), budget, f"`{match.a}` vs `{match.b}`",
                         match.printed or "(as above)", f"{match.published_a}:{PUBLISHED_GAMES - match.published_a}",
                         f"{wins_a}:{wins_b} of {len(records)}",
                         f"{result.difference:+.3f} ({result.low:+.3f}..{result.high:+.3f})"])
        for row, verdict in zip(rows, verdicts(tests)):
            row.append(verdict)
        return rows

    def _archival(self, results: dict[str, list[dict]]) -> list[str]:
        """What the evidence says about archival MCTS: its match results, and its per-n
        statistics set beside the plain MCTS's (in the document's tables and in ours)."""
        lines = ["## Archival (tree-reuse) MCTS: what the evidence supports", ""]
        published_1, published_3 = TABLES["random"], TABLES["archival"]
        lines += ["Popularity-weighted means of the document's tables over the piles that are won for the player "
                  "to move (n not a multiple of 4; at the lost piles the share of decisions depends on the "
                  "opponent, not on the search):", ""]
        for band in BANDS:
            low, high = band
            theirs_plain = _weighted(published_1, low, high, "convincity", winning_only=True)
            theirs_archival = _weighted(published_3, low, high, "convincity", winning_only=True)
            plain_playouts = _weighted(published_1, low, high, "playouts", winning_only=True)
            archival_playouts = _weighted(published_3, low, high, "playouts", winning_only=True)
            lines.append(f"- n = {low}..{high}: the document's convincity {theirs_plain:.3f} (plain, Table 1) vs "
                         f"{theirs_archival:.3f} (archival, Table 3); play-outs {plain_playouts:.0f} vs "
                         f"{archival_playouts:.0f}.")
        plain = self._decisions(results["mcts-vs-archival"], "a")
        archival = self._decisions(results["mcts-vs-archival"], "b")
        ours = [(n, p) for n, decisions in plain.items() for p, _ in decisions]
        kept = [p for decisions in archival.values() for p, _ in decisions]
        reused = sum(bool(p.get("reused_tree")) for p in kept)
        wins_a, _, wins_b = tally(results["mcts-vs-archival"])

        def popularity(rows: dict, low: int, high: int) -> int:
            return sum(row.popularity for n, row in rows.items() if low <= n <= high)

        def converted(by_n: dict) -> tuple[int, int]:
            return (sum(len(by_n.get(n, [])) for n in (5, 6, 7)),
                    sum(won for n in (1, 2, 3) for _, won in by_n.get(n, [])))

        our_winnable, our_closing = converted(archival)
        kept_tree = (compare_counts(wins_b, wins_a + wins_b, 0.5, None, MATCH_MARGIN) if wins_a + wins_b
                     else "no test (no decided games)")
        no_difference = verdicts([kept_tree])[0]
        judged_kept = finding("no different", no_difference, wins_b / max(wins_a + wins_b, 1) - 0.5)
        lines += [
            "",
            "The document's own bookkeeping: a player that decides at n = 1..3 takes the rest and wins, and one "
            "that decides at n = 5..7 can leave 4 and win. Table 1's plain MCTS decided "
            f"{popularity(published_1, 5, 7)} times at n = 5..7 and {popularity(published_1, 1, 3)} times at "
            f"n = 1..3 ({MATCHES[0].published_a} games won). Table 3's archival MCTS decided "
            f"{popularity(published_3, 5, 7)} times at n = 5..7 but only {popularity(published_3, 1, 3)} times at "
            f"n = 1..3 -- exactly its {PUBLISHED_GAMES - MATCHES[2].published_a} wins: it reached winnable piles "
            "far more often than it won, so it gave most won endgames away "
            f"(Table 2 keeps the same books: {popularity(TABLES['strategic'], 1, 3)} decisions at n = 1..3, "
            f"its {PUBLISHED_GAMES - MATCHES[1].published_a} wins). Near the end the whole game fits in any "
            "tree, so a search that throws away won piles is not a weaker search but a faulty one.",
            "",
            f"Ours (10 ms): plain MCTS won {wins_a}:{wins_b}; the archival player reused a tree in {reused} of "
            f"its {len(kept)} decisions, decided {our_winnable} times at n = 5..7 and closed {our_closing} games "
            "at n = 1..3; both chose with mean convincity "
            f"{mean(p['convincity'] for _, p in ours) if ours else 0:.3f} (plain) and "
            f"{mean(p['convincity'] for p in kept) if kept else 0:.3f} (archival). boardzoo does not "
            "reproduce the document's archival player, which by its own tables apparently blundered. Whether a "
            "kept tree as boardzoo implements it changes the result, as a claim of no difference (a tree kept "
            "or not, the end of the game is searched completely either way): archival's "
            f"{wins_b} of {wins_a + wins_b} decided games against 1/2 — "
            f"**{judged_kept}**." + to_decide(judged_kept, kept_tree, 1),
            ""]
        return lines

    # --- per-n tables ----------------------------------------------------------------------------
    @staticmethod
    def _decisions(records: list[dict], label: str) -> dict[int, list[tuple[dict, bool]]]:
        by_n: dict[int, list[tuple[dict, bool]]] = defaultdict(list)
        for record in records:
            for probe in record["probes"]:
                if "n" in probe and probe["agent"] == label:
                    by_n[probe["n"]].append((probe, record["winner"] == label))
        return by_n

    def _per_n(self, match: Match, results: dict[str, list[dict]]) -> list[str]:
        published = TABLES[match.table_name or ""]
        timed_by_n = self._decisions(results[match.key], match.table_agent)
        scheduled_match = next(m for m in SCHEDULED if m.table_name == match.table_name)
        counted_by_n = self._decisions(results[scheduled_match.key], scheduled_match.table_agent)
        rows = []
        for n in sorted(set(published) | set(timed_by_n) | set(counted_by_n)):
            theirs = published.get(n)
            cells = [n, theirs.popularity if theirs else "-"]
            for by_n in (timed_by_n, counted_by_n):
                cells.append(len(by_n.get(n, [])))
            cells.append(f"{theirs.convincity:.3f}" if theirs else "-")
            for by_n in (timed_by_n, counted_by_n):
                probes = [p for p, _ in by_n.get(n, [])]
                cells.append(f"{mean(p['convincity'] for p in probes):.3f}" if probes else "-")
            cells.append(f"{theirs.playouts:.0f}" if theirs else "-")
            probes = [p for p, _ in timed_by_n.get(n, [])]
            cells.append(f"{mean(p['iterations'] for p in probes):.0f}" if probes else "-")
            cells.append(f"{theirs.path_mean:.2f} / {theirs.path_median:g} / {theirs.path_max}" if theirs else "-")
            probes = [p for p, _ in counted_by_n.get(n, [])]
            cells.append(f"{mean(p['leaf_depth_mean'] for p in probes):.2f} / "
                         f"{median(p['leaf_depth_median'] for p in probes):g} / "
                         f"{max(p['leaf_depth_max'] for p in probes)}" if probes else "-")
            rows.append(cells)
        tested, tests = [], []
        for n, theirs in sorted(published.items()):
            for label, by_n in (("10 ms", timed_by_n), ("play-outs as published", counted_by_n)):
                values = [p["convincity"] for p, _ in by_n.get(n, [])]
                if theirs.popularity >= MIN_DECISIONS and len(values) >= MIN_DECISIONS:
                    tests.append(compare_means(values, theirs.convincity, theirs.popularity, CONVINCITY_MARGIN))
                    tested.append([n, label, f"{theirs.convincity:.3f} ({theirs.popularity})",
                                   f"{mean(values):.3f} ({len(values)})"])
        tested = [row + [verdict] for row, verdict in zip(tested, verdicts(tests))]
        agent = match.b if match.table_agent == "b" else match.a
        return [f"## {CAPTIONS[match.table_name or '']}", "",
                f"Decisions of `{agent}` grouped by the pile n at the decision. *Ours (10 ms)* comes from match "
                f"`{match.key}`, *ours (play-outs)* from the same match at the document's play-out counts. "
                "Path columns are the depths of the final tree's leaves (mean / median / max over decisions; "
                "ours at the document's play-out counts).", "",
                table(["n", "popularity (doc)", "ours (10 ms)", "ours (play-outs)", "convincity (doc)",
                       "ours (10 ms)", "ours (play-outs)", "play-outs (doc)", "ours (10 ms)",
                       "path mean/median/max (doc)", "ours (play-outs)"], rows), "",
                f"Convincity at each n where both sides decided at least {MIN_DECISIONS} times. The pile only "
                "shrinks, so a player decides at one pile at most once a game: the decisions at one n come from "
                "different games and are independent (pooling piles, as bands of n would, counts one game many "
                "times and mixes won and lost piles). The document's mean is a sample of its popularity's "
                f"decisions, with our spread (Welch); the equivalence margin is {CONVINCITY_MARGIN:g}; Holm over "
                "the table.", "",
                table(["n", "budget", "document (decisions)", "ours (decisions)", "verdict"], tested), ""]

    def _convincity_series(self, results: dict[str, list[dict]]):
        series = {}
        for match in MATCHES:
            if match.table_name in ("random", "strategic"):
                by_n = self._decisions(results[match.key], match.table_agent)
                series[f"{match.table_name} MCTS, ours (10 ms)"] = [
                    (n, *mean_interval([p["convincity"] for p, _ in decisions])) for n, decisions in by_n.items()]
                series[f"{match.table_name} MCTS, document"] = [
                    (n, row.convincity, row.convincity, row.convincity) for n, row in TABLES[match.table_name].items()]
        return series

    # --- think time ------------------------------------------------------------------------------
    def _think_times(self, results: dict[str, list[dict]]):
        rows, points = [], []
        for seconds in THINK_TIMES:
            probes = [p for r in results[f"think-{seconds * 1000:g}ms"] for p in r["probes"] if p["agent"] == "a"]
            centre, low, high = mean_interval([p["iterations"] for p in probes])
            rows.append([f"{seconds * 1000:g} ms", len(probes), f"{centre:.0f} ({low:.0f}..{high:.0f})",
                         f"{centre / (seconds * 1000):.0f}"])
            points.append((seconds * 1000, centre, low, high))
        first, last = points[0], points[-1]
        rates = {seconds: [p["iterations"] / (seconds * 1000) for r in results[f"think-{seconds * 1000:g}ms"]
                           for p in r["probes"] if p["agent"] == "a"] for seconds in THINK_TIMES}
        shortest, longest = rates[THINK_TIMES[0]], rates[THINK_TIMES[-1]]
        margin = LINEAR_MARGIN * mean(shortest) if shortest else 1.0
        test = compare_samples(longest, shortest, margin)
        judged = verdicts([test if test.p is not None else f"no test ({test.reason})"])[0]
        judged_linear = finding("no different", judged, None if test.p is None else test.difference)
        words = (f"play-outs a millisecond at {last[0]:g} ms against {first[0]:g} ms, as a claim of no difference "
                 f"(linear growth; margin a fifth of the shortest budget's rate, ±{margin:.1f}): "
                 f"**{judged_linear}**" + to_decide(judged_linear, test, 1))
        text = ["## Play-outs vs think time (a pile of 10, MCTS against random)", "",
                "The document: play-outs grow linearly with the time budget (a plot, no figures; it does not "
                "name the opponent).", "",
                table(["budget", "decisions", "play-outs per decision (95% CI)", "per ms"], rows), "",
                f"From {first[0]:g} to {last[0]:g} ms the play-outs grow {last[1] / max(first[1], 1):.1f}x "
                f"for {last[0] / first[0]:g}x the time; {words}.", "",
                "![play-outs vs think time](playouts_vs_think_time.png)", ""]
        plot = partial(line_plot, title="Play-outs per decision vs think time", xlabel="think time (ms)",
                       ylabel="play-outs per decision", series={"MCTS, pile of 10": points})
        return text, plot


def _game_means(records: list[dict], label: str, field: str, piles: Callable[[int], bool]) -> list[float | None]:
    """Per game, the mean ``field`` of player ``label``'s decisions at the piles chosen
    (None where it made none): a game's decisions depend on each other, games do not."""
    means = []
    for record in records:
        values = [p[field] for p in record["probes"] if p["agent"] == label and "n" in p and piles(p["n"])]
        means.append(mean(values) if values else None)
    return means


def _share(records: list[dict], label: str) -> tuple[int, int]:
    return sum(r["winner"] == label for r in records), len(records)


def document_conclusions(results: dict[str, list[dict]]) -> list[str]:
    """The document's qualitative conclusions (its sections 4 and 6), each a claim about a
    difference judged on our 10 ms matches by the test named beside it, the tests
    corrected together (Holm), the words by the one rule (:func:`boardzoo.stats.finding`)."""
    early, late, end = (lambda n: n >= 20), (lambda n: n <= 12), (lambda n: n <= 10)
    # (section, claim, its direction, evidence in words, the comparison or why there is none)
    claims: list[tuple[str, str, str, str, Comparison | str]] = []

    def paired(key: str, label: str, field: str, before, after, direction: str, section: str, claim: str):
        first = _game_means(results[key], label, field, before)
        second = _game_means(results[key], label, field, after)
        differences = [b - a for a, b in zip(first, second) if a is not None and b is not None]
        margin = PLAYOUTS_MARGIN if field == "iterations" else CONVINCITY_MARGIN
        test = compare_means(differences, 0.0, None, margin)
        change = f"{mean(differences):+.0f}" if field == "iterations" else f"{mean(differences):+.3f}"
        claims.append((section, claim, direction, f"mean change {change} over {len(differences)} games (paired by "
                       "game: a game's decisions depend on each other, games do not)",
                       test if test.p is not None else f"no test ({test.reason})"))

    def share(key: str, label: str, direction: str, section: str, claim: str):
        won, games = _share(results[key], label)
        claims.append((section, claim, direction, f"{won}/{games} against 1/2",
                       compare_counts(won, games, 0.5, None, MATCH_MARGIN)))

    share("greedy-vs-mcts-100ms", "a", "higher", "4", "a simple heuristic (greedy) beats MCTS")
    share("mcts-vs-strategic", "b", "not higher", "4", "the strategic roll-out does not beat the random one")
    paired("mcts-vs-strategic", "b", "convincity", early, late, "lower", "4",
           "strategic MCTS grows less sure of its moves towards the end (n <= 12 against n >= 20)")
    paired("mcts-vs-random", "a", "convincity", early, late, "higher", "4",
           "random-roll-out MCTS grows surer of its moves towards the end")
    share("mcts-vs-archival", "b", "not higher", "4", "archival data does not help (archival MCTS does not win more)")
    paired("mcts-vs-random", "a", "iterations", early, end, "higher", "4",
           "play-outs stay level through the game and grow at the end (n <= 10 against n >= 20)")
    depth_a = _game_means(results["mcts-vs-strategic"], "a", "leaf_depth_max", lambda n: True)
    depth_b = _game_means(results["mcts-vs-strategic"], "b", "leaf_depth_max", lambda n: True)
    deeper = [a - b for a, b in zip(depth_a, depth_b) if a is not None and b is not None]
    test = compare_means(deeper, 0.0, None, DEPTH_MARGIN)
    claims.append(("4", "random-roll-out MCTS reaches deeper leaves than strategic MCTS", "higher",
                   f"mean difference in the deepest leaf {mean(deeper) if deeper else float('nan'):+.2f} over "
                   f"{len(deeper)} games (paired by game)", test if test.p is not None else f"no test ({test.reason})"))
    coin = [v for v in _game_means(results["coin-mcts-vs-greedy"], "a", "convincity", lambda n: True) if v is not None]
    plain = [v for v in _game_means(results["mcts-vs-random"], "a", "convincity", lambda n: True) if v is not None]
    test = compare_samples(coin, plain, CONVINCITY_MARGIN)
    claims.append(("6", "with the coin MCTS is not surer of its moves than without it", "not higher",
                   f"mean convincity a game {test.ours:.3f} against {test.published:.3f}",
                   test if test.p is not None else f"no test ({test.reason})"))

    def hopeless(n: int) -> bool:
        return n in (4, 8)

    coin_lost = [v for v in _game_means(results["coin-mcts-vs-greedy"], "a", "convincity", hopeless) if v is not None]
    plain_lost = [v for v in _game_means(results["mcts-vs-random"], "a", "convincity", hopeless) if v is not None]
    test = compare_samples(coin_lost, plain_lost, CONVINCITY_MARGIN)
    claims.append(("6", "with the coin the piles of 4 and 8 are no longer hopeless (surer there than without)",
                   "higher", f"mean convincity at n = 4, 8: {test.ours:.3f} against {test.published:.3f}",
                   test if test.p is not None else f"no test ({test.reason})"))
    coin_won, coin_games = _share(results["coin-mcts-vs-greedy"], "a")
    plain_won, plain_games = _share(results["greedy-vs-mcts-100ms"], "b")
    claims.append(("6", "with the coin MCTS fares better against the simple heuristic", "higher",
                   f"{coin_won}/{coin_games} with the coin against {plain_won}/{plain_games} without",
                   compare_counts(coin_won, coin_games, plain_won / plain_games, plain_games, MATCH_MARGIN)))
    at_four = [p for r in results["coin-mcts-vs-greedy"] for p in r["probes"] if p["agent"] == "a" and p.get("n") == 4]
    took_three = sum(p.get("action") == 2 for p in at_four)
    if at_four:
        claims.append(("6", "at 4 pawns MCTS takes 3 and waits for heads, an even chance", "higher",
                       f"took 3 in {took_three} of {len(at_four)} decisions against 1/2, mean convincity "
                       f"{mean(p['convincity'] for p in at_four):.3f}",
                       compare_counts(took_three, len(at_four), 0.5, None, MATCH_MARGIN)))
    judged = verdicts([tested for *_, tested in claims])
    lines = []
    for (section, claim, direction, evidence, tested), verdict in zip(claims, judged):
        if isinstance(tested, str):
            lines.append(f"- §{section}: *{claim}* -- {evidence}: **{finding(direction, verdict, None)}**.")
        else:
            judged_claim = finding(direction, verdict, tested.difference)
            lines.append(f"- §{section}: *{claim}* -- {evidence}: **{judged_claim}**."
                         + to_decide(judged_claim, tested, len(claims)))
    return lines


def _weighted(rows: dict, low: int, high: int, column: str, winning_only: bool = False) -> float:
    """The popularity-weighted mean of a published column over n in low..high (nan if
    none); ``winning_only``: only the piles won for the player to move (K = 3)."""
    chosen = [row for n, row in rows.items() if low <= n <= high and not (winning_only and n % 4 == 0)]
    total = sum(row.popularity for row in chosen)
    return sum(getattr(row, column) * row.popularity for row in chosen) / total if total else float("nan")


DEVIATIONS = [
    ("Seats alternate", "the document draws the first player at random; alternating seats is the balanced form "
     "of the same design: " + SEATS_EFFECT + "."),
    ("Time budgets on another machine and language", "at 10 ms our Python engine runs about 1,000 play-outs "
     "a decision where the document ran 1,100-1,300 at large piles and up to 6,700 near the end; so every "
     "match is also played at the document's own play-out count at each pile (`schedule=study-...`). Expected "
     "effect: at 10 ms our searches are a little smaller at large piles and much smaller near the end; the "
     "play-out-count matches remove that difference."),
    ("Piles of 20..49", "the document says 20 to 50, but none of its four tables shows a decision at 50 "
     "(in about 150 games the MCTS player would have moved first from a pile of 50 about 5 times), so its "
     "generator drew 20..49. Expected effect: none measurable (one pile value in thirty)."),
    ("Table 1's match labels", "printed as random 297 : MCTS 3; read as MCTS 297. No text says which side won; "
     "the evidence is Table 1 itself, whose MCTS player decided at n = 1, 2 and 3 in 97 + 95 + 105 = 297 games, "
     "exactly the games it won. Section 3.4 likewise labels greedy's 298 wins as \"archival MCTS\". Expected "
     "effect: none on our games; it decides which published share the first match is compared with."),
    ("The coin MCTS", "section 5.1's: the coin is tossed on every step down the tree and the heads counted, "
     "the tree keeps no coin node, and a play-out ends when the coin takes the last pawn (`chance=open`). The "
     "document's words stop the play-out when the pile is *smaller* than the heads counted, which would play "
     "on past an empty pile; we read it as the rules do, the game ending when the coin empties the pile. "
     "boardzoo's own coin MCTS, each toss a chance node of the tree (`chance=tree`), plays the same match "
     "beside it (`coin-mcts-vs-greedy, chance nodes`): the difference between the two rows is its effect."),
    ("Think-time study", "the document does not name the opponent nor print figures; ours plays the random bot. "
     "Expected effect: small; at a pile of 10 a decision's play-outs depend on the time and the pile more than "
     "on who plays the other side."),
    ("Sample sizes (default run)", "150 games per play-out-count match, 100 at 100 ms and per think time; "
     "`--full` plays the document's 300 everywhere. Expected effect: wider intervals only."),
]
