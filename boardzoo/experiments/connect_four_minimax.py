"""The Connect Four minimax study (source 002, Polish): depth-limited minimax at each
depth plays alpha-beta at each depth, twice with the starting player swapped, per
evaluator; the starting player's first move is random; ties go to the first best move
found, columns scanned left to right. Tables 1-4 (ms per move), 5-7 (moves the winner
needed), 8-9 (draws, who won), 10 (outcome by the random first column), 11-13 (each
evaluator's wins and losses).
"""

from __future__ import annotations

import math
from collections import defaultdict
from functools import partial
from itertools import combinations
from statistics import mean

from boardzoo.experiments.framework import Experiment, Job, Report, job_seed, sized, tally
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

ENV = "connect_four_v0"
EVALUATORS = ("simple", "three", "three2")
EVALUATOR_NAMES = {"simple": "SimpleEval", "three": "ThreeEval", "three2": "ThreeEval v2"}


# --- the minimax study (source 002) ------------------------------------------------------------
def searcher(algorithm: str, depth: int, evaluator: str) -> str:
    return f"{algorithm}:depth={depth},eval={evaluator},random_first=true,order=left"


#: Depths of the document's design: (minimax, alpha-beta) per evaluator (studies 1-4).
PUBLISHED_DEPTHS = {"simple": (range(3, 10), range(3, 14)), "three": (range(3, 9), range(3, 13)),
                    "three2": (range(3, 9), range(3, 13))}
DEFAULT_DEPTHS = (range(3, 7), range(3, 9))
#: Alpha-beta's depths against random in the default run, and the evaluators' match depth.
DEFAULT_RANDOM_DEPTHS = (3, 5, 7)
EVALUATOR_MATCH_DEPTH = 5
#: Study 5: alpha-beta at depths 7..11 against itself, every pair, per evaluator.
ROUND_ROBIN_DEPTHS = range(7, 12)
#: Table 1 (study 1, SimpleEval) and Table 4 (study 3, all three; Tables 2-3 are its
#: ThreeEval columns): mean ms per move, (algorithm, depth) -> ms.
PUBLISHED_MS_STUDY_1 = {
    ("alphabeta", 4): 0.67, ("alphabeta", 5): 0.00, ("alphabeta", 6): 1.57, ("alphabeta", 7): 1.86,
    ("alphabeta", 8): 33.00, ("alphabeta", 9): 21.50, ("alphabeta", 10): 482.79, ("alphabeta", 11): 908.00,
    ("alphabeta", 12): 6253.27, ("alphabeta", 13): 7746.31,
    ("minimax", 4): 2.29, ("minimax", 5): 20.38, ("minimax", 6): 117.50, ("minimax", 7): 659.19,
    ("minimax", 8): 3744.53, ("minimax", 9): 36225.50}
PUBLISHED_MS_STUDY_3 = {  # evaluator -> (algorithm, depth) -> ms
    "simple": {("alphabeta", 4): 1.00, ("alphabeta", 5): 1.33, ("alphabeta", 6): 1.70, ("alphabeta", 7): 2.40,
               ("alphabeta", 8): 27.27, ("alphabeta", 9): 23.94, ("alphabeta", 10): 358.54,
               ("alphabeta", 11): 671.35, ("alphabeta", 12): 6253.27,
               ("minimax", 4): 2.29, ("minimax", 5): 20.38, ("minimax", 6): 117.50, ("minimax", 7): 659.19,
               ("minimax", 8): 3744.53},
    "three": {("alphabeta", 3): 0.50, ("alphabeta", 4): 0.29, ("alphabeta", 5): 1.43, ("alphabeta", 6): 6.07,
              ("alphabeta", 7): 12.96, ("alphabeta", 8): 55.06, ("alphabeta", 9): 243.85,
              ("alphabeta", 10): 666.98, ("alphabeta", 11): 4132.72, ("alphabeta", 12): 12058.33,
              ("minimax", 3): 0.00, ("minimax", 4): 5.50, ("minimax", 5): 65.00, ("minimax", 6): 199.76,
              ("minimax", 7): 1466.58, ("minimax", 8): 9273.67},
    "three2": {("alphabeta", 3): 0.60, ("alphabeta", 4): 1.00, ("alphabeta", 5): 2.33, ("alphabeta", 6): 27.50,
               ("alphabeta", 7): 25.41, ("alphabeta", 8): 227.33, ("alphabeta", 9): 602.18,
               ("alphabeta", 10): 2614.99, ("alphabeta", 11): 9895.62, ("alphabeta", 12): 28238.43,
               ("minimax", 3): 1.00, ("minimax", 4): 8.13, ("minimax", 5): 92.80, ("minimax", 6): 447.62,
               ("minimax", 7): 2286.42, ("minimax", 8): 20741.39},
}
#: Table 5: the winner's mean moves, evaluator -> (algorithm, depth) -> moves.
PUBLISHED_WINNER_MOVES = {
    "simple": {("alphabeta", 4): 15.50, ("alphabeta", 5): 19.00, ("alphabeta", 6): 17.80, ("alphabeta", 7): 17.90,
               ("alphabeta", 8): 16.67, ("alphabeta", 9): 19.24, ("alphabeta", 10): 17.50,
               ("alphabeta", 11): 16.74, ("alphabeta", 12): 15.91, ("minimax", 4): 14.57, ("minimax", 5): 16.56,
               ("minimax", 6): 14.23, ("minimax", 7): 15.27, ("minimax", 8): 16.00},
    "three": {("alphabeta", 4): 17.86, ("alphabeta", 5): 18.00, ("alphabeta", 6): 18.73, ("alphabeta", 7): 16.93,
              ("alphabeta", 8): 16.64, ("alphabeta", 9): 15.82, ("alphabeta", 10): 17.25, ("alphabeta", 11): 15.56,
              ("alphabeta", 12): 10.00, ("minimax", 4): 18.13, ("minimax", 5): 16.17, ("minimax", 6): 17.94,
              ("minimax", 7): 17.33, ("minimax", 8): 16.83},
    "three2": {("alphabeta", 4): 15.25, ("alphabeta", 5): 18.67, ("alphabeta", 6): 14.00, ("alphabeta", 7): 16.87,
               ("alphabeta", 8): 15.78, ("alphabeta", 9): 14.63, ("alphabeta", 10): 15.34,
               ("alphabeta", 11): 13.39, ("alphabeta", 12): 10.14, ("minimax", 4): 17.13, ("minimax", 5): 17.70,
               ("minimax", 6): 15.38, ("minimax", 7): 18.17, ("minimax", 8): 14.44},
}
#: Table 6: the winning alpha-beta's mean moves in study 5, evaluator -> depth -> moves.
PUBLISHED_ROUND_ROBIN_MOVES = {"simple": {7: 20.67, 8: 20.00, 9: 19.29, 10: 19.89, 11: 18.30},
                               "three": {7: 18.36, 8: 18.33, 9: 17.87, 10: 18.62, 11: 16.52},
                               "three2": {7: 19.03, 8: 18.11, 9: 16.55, 10: 17.25, 11: 14.24}}
#: Table 7: the winner's mean moves by the loser's algorithm and depth (random: 7.13).
PUBLISHED_MOVES_BY_LOSER = {
    ("alphabeta", 3): 15.26, ("alphabeta", 4): 15.14, ("alphabeta", 5): 16.31, ("alphabeta", 6): 15.13,
    ("alphabeta", 7): 17.68, ("alphabeta", 8): 17.68, ("alphabeta", 9): 18.56, ("alphabeta", 10): 18.30,
    ("alphabeta", 11): 19.43, ("alphabeta", 12): 19.50, ("alphabeta", 13): 21.00,
    ("minimax", 3): 15.72, ("minimax", 4): 14.52, ("minimax", 5): 17.31, ("minimax", 6): 15.39,
    ("minimax", 7): 17.90, ("minimax", 8): 17.53, ("minimax", 9): 20.00, ("random", 0): 7.13}
PUBLISHED_DRAWS = (341, 1258)  # Table 8
#: Equivalence margins, fixed before the runs: a mean number of moves within 0.5 of the
#: document's, below the smallest gap its conclusions rest on (Table 6's evaluator means,
#: 19.34 / 17.88 / 16.79: 1.09 apart at the least); a share of games (draws, wins) within
#: 0.1, below the smallest gap between two evaluators' win shares it compares (Tables
#: 11-13: 0.382 / 0.511 / 0.659, 0.13 apart).
MOVES_MARGIN = 0.5
SHARE_MARGIN = 0.1
#: Search cost is compared in log10 nodes a move, within a factor of two.
LOG_NODES_MARGIN = 0.3
PUBLISHED_STARTER = (451, 466)  # Table 9: wins of the starting and of the second player
#: Table 10: the starting player's (wins, draws, losses) by its random first column.
PUBLISHED_FIRST_COLUMN = {
    "simple": {0: (1, 7, 59), 1: (1, 64, 7), 2: (5, 35, 14), 3: (32, 19, 9), 4: (41, 9, 23), 5: (10, 11, 44),
               6: (31, 25, 25)},
    "three": {0: (11, 18, 27), 1: (15, 12, 17), 2: (12, 22, 23), 3: (26, 5, 18), 4: (24, 7, 15), 5: (19, 15, 28),
              6: (23, 16, 16)},
    "three2": {0: (28, 12, 16), 1: (31, 12, 13), 2: (21, 14, 13), 3: (27, 9, 15), 4: (29, 6, 16), 5: (26, 12, 13),
               6: (38, 10, 19)},
}
PUBLISHED_WIN_LOSS = {"simple": (229, 371), "three": (278, 266), "three2": (405, 210)}  # Tables 11-13
#: The jobs that measure a deviation (alpha-beta's transposition table): each replays a
#: game job against random on its seeds with ``table=false``; they join no table.
NO_TABLE = "no table: "


def search_cost(record: dict) -> list[tuple[str, float, int]]:
    """(agent label, seconds, nodes) of every searched decision (not the random first move)."""
    return [(p["agent"], p["seconds"], p["nodes"]) for p in record.get("probes", []) if not p.get("random_first")]


def depth_probe(model, agent) -> dict | None:
    """Minimax / alpha-beta statistics of a decision: nodes, seconds, the random first move."""
    stats = agent.stats
    if "nodes" not in stats:
        return None
    return {"nodes": stats["nodes"], "seconds": stats["seconds"], "random_first": stats.get("random_first", False)}


def winner_moves(record: dict) -> int | None:
    """Moves the winner made (its discs on the board at the end), None for a draw."""
    if record["winner_seat"] is None:
        return None
    seat = 0 if record["winner_seat"] == "player_0" else 1
    return sum(1 for player, _ in record["moves"] if player == seat)


def parse_player(spec: str) -> tuple[str, int, str]:
    """(algorithm, depth, evaluator) of a searcher spec; ("random", 0, "") for random."""
    if spec == "random":
        return "random", 0, ""
    name, _, options = spec.partition(":")
    values = dict(part.split("=") for part in options.split(","))
    return name, int(values["depth"]), values["eval"]


def distinct_games(records: list[dict]) -> list[dict]:
    """The games of one pairing of deterministic searchers that differ: after the starting
    player's random first move nothing is drawn, so a game is fixed by who starts and that
    column, and a repeat is the same game again (the first of each kept)."""
    kept: dict[tuple[str, int], dict] = {}
    for record in records:
        kept.setdefault((record["seat_of_a"], record["moves"][0][1]), record)
    return list(kept.values())


class ConnectFourMinimax(Experiment):
    name = "connect-four-minimax"
    source = "source 002 (Polish): the minimax and alpha-beta study"
    compares = ("minimax at each depth against alpha-beta at each depth, both seat orders, per evaluator: ms and "
                "nodes per move (Tables 1-4), moves the winner needed (5-7), draws (8), starter (9), outcome by "
                "first column (10), evaluators' wins and losses (11-13); the transposition table's effect")
    default_size = ("minimax 3-6 x alpha-beta 3-8, four games (each seat order twice) per pairing and evaluator; 6 "
                    "games of alpha-beta (3, 5, 7) vs random per evaluator, each replayed without the transposition "
                    "table; 100 games per evaluator pair")
    full_size = ("the document's depths (minimax 3-9 / 3-8, alpha-beta 3-13 / 3-12), two games per pairing; "
                 "study 5 (alpha-beta 7-11 round robin); 10 games per depth vs random (and again without the table); "
                 "100 per evaluator pair")
    expected_time = "about 4 min (measured: 3 min 40 s)"
    full_time = ("about 2.5 hours on 2 cores, alone on the machine (measured: 2 h 30 min with 2 workers, 1,374 "
                 "games, the deepest minimax taking 7-11 s a move); its millisecond tables need an otherwise idle "
                 "machine")

    def jobs(self, games: int | None, full: bool) -> list[Job]:
        jobs = []
        for evaluator in EVALUATORS:
            minimax_depths, alphabeta_depths = PUBLISHED_DEPTHS[evaluator] if full else DEFAULT_DEPTHS
            for dm in minimax_depths:
                for da in alphabeta_depths:
                    key = f"{evaluator}: minimax {dm} vs alphabeta {da}"
                    jobs.append(Job(key, ENV, searcher("minimax", dm, evaluator), searcher("alphabeta", da, evaluator),
                                    sized(games, full, 4, 2), job_seed(key), probe=depth_probe))
            if full:
                for shallow, deep in combinations(ROUND_ROBIN_DEPTHS, 2):
                    key = f"{evaluator}: alphabeta {shallow} vs alphabeta {deep}"
                    jobs.append(Job(key, ENV, searcher("alphabeta", shallow, evaluator),
                                    searcher("alphabeta", deep, evaluator), sized(games, full, 2, 2), job_seed(key),
                                    probe=depth_probe))
            for depth in (alphabeta_depths if full else DEFAULT_RANDOM_DEPTHS):
                key = f"{evaluator}: alphabeta {depth} vs random"
                jobs.append(Job(key, ENV, searcher("alphabeta", depth, evaluator), "random",
                                sized(games, full, 6, 10), job_seed(key), probe=depth_probe))
                jobs.append(Job(NO_TABLE + key, ENV, searcher("alphabeta", depth, evaluator) + ",table=false",
                                "random", sized(games, full, 6, 10), job_seed(key), probe=depth_probe))
        for first, second in combinations(EVALUATORS, 2):
            key = f"evaluators: {first} vs {second}"
            jobs.append(Job(key, ENV, searcher("alphabeta", EVALUATOR_MATCH_DEPTH, first),
                            searcher("alphabeta", EVALUATOR_MATCH_DEPTH, second),
                            sized(games, full, 100, 100), job_seed(key)))
        return jobs

    def report(self, results: dict[str, list[dict]], jobs: list[Job]) -> Report:
        design = [job for job in jobs if " vs random" not in job.key and not job.key.startswith("evaluators")]
        text = [
            "# Source 002 — the minimax and alpha-beta study (Connect Four)",
            "",
            "Evaluators: *simple* (only wins count), *three* (a window of three and an empty cell: 40 % "
            "of a win), *three2* (such windows scored by how soon their empty cell can be filled). Every "
            "searcher plays the document's way: the starting player's first move is random (over all seven "
            "columns, every job with seeds of its own), and ties go to the first best move, columns scanned "
            "left to right (`order=left`).",
            "",
            STATISTICS_NOTE,
            "",
        ]
        costs = self._costs(results, design)
        text += self._timings(costs)
        text += self._winner_moves(results, jobs, design)
        text += self._outcomes(results, design)
        text += self._evaluator_table(results)
        table_lines, table_summary = self._table_effect(results, jobs)
        text += table_lines
        text += self._conclusions(results, design, costs)
        text += deviations([
            ("Machine and language", "the document's times come from its own (unnamed) computer and language; "
             "ours from Python on 2 cores. Expected effect: absolute times differ by the machines' factor, so "
             "times are compared by ratio, and node counts (which do not depend on the machine) are given beside "
             "them."),
            ("Transposition table", "boardzoo's alpha-beta keeps a transposition table; the document's does not "
             "say it has one. It changes no move or value (a test holds them equal, position by position), only "
             f"the cost: {table_summary} (see *The transposition table's effect*)."),
            ("Depths and games (default run)", "minimax 3-6 and alpha-beta 3-8 rather than 3-9 and 3-13, four games "
             "a pairing (each seat order twice) rather than two, and no study 5 (alpha-beta 7-11, Table 6): the deep "
             "searches take hours in Python. `--full` plays the document's design. Expected effect: the deepest "
             "rows of the document's tables have no counterpart; the rest is judged on the depths played."),
            ("Study 6's random opponent and the evaluator pairs", "the document gives neither the depths it played "
             "against random nor how its evaluator win/loss counts were collected (in games of one evaluator "
             "against itself every decided game is one win and one loss, so its Tables 11-13 must come from "
             "mixed games); we play alpha-beta at depth 5 of each evaluator against each other. Expected effect: "
             "our shares describe one depth where the document's pool several, so they compare in direction "
             "more than in value."),
            ("Seats", "every pairing plays twice with the starting player swapped, as the document does "
             "(listed for completeness; no effect)."),
            ("Whose time", "the document records the mean processing time of the *winning* player (\"średni czas "
             "przetwarzania gracza wygrywającego\"); ours averages every searched decision of both players. "
             "Expected effect: small on the shape (both players of a pairing search at their own depths, and a "
             "cell pools one algorithm and depth), but a cell of ours holds the losers' decisions too."),
            ("Symmetric evaluators", "the document scores Three and Three v2 for the player to move's windows; ours "
             "scores both players' windows (a player's minus the opponent's), so that a position is worth the "
             "same to both sides with the sign flipped. Expected effect: stronger heuristics than the document's, "
             "so more decided games between equal depths."),
            ("Where the outcome tables come from", "the document's draws (Table 8) and starters (Table 9) pool "
             "1,258 games from its studies 1-6 and extra random games, its first-column table (Table 10) too; "
             "ours come from the minimax x alpha-beta design alone (study 6's games against random are left out: "
             "the random side decides them). Expected effect: a different mix of depths and opponents, so the "
             "shares are comparable in kind, not as samples of one population."),
            ("Independence", "the games of one pairing repeat when the seats and the first column repeat (both "
             "searchers are deterministic after it); every statistic of outcomes and moves counts each distinct "
             "game once, where the document counts every game played. Expected effect: fewer units and wider "
             "intervals than counting every game, and no bias."),
        ])
        plots = {"ms_per_move.png": partial(line_plot, title="Mean time per move by depth (Connect Four)",
                                            xlabel="depth", ylabel="ms per move (log)",
                                            series=self._timing_series(costs), logy=True)}
        return Report("\n".join(text), plots)

    @staticmethod
    def _costs(results: dict[str, list[dict]], design: list[Job]) -> dict[tuple[str, str, int], list[tuple]]:
        costs: dict[tuple[str, str, int], list[tuple]] = defaultdict(list)
        for job in design:
            players = {"a": parse_player(job.a), "b": parse_player(job.b)}
            for record in results[job.key]:
                for label, seconds, nodes in search_cost(record):
                    algorithm, depth, evaluator = players[label]
                    costs[(evaluator, algorithm, depth)].append((seconds * 1000, nodes))
        return costs

    @staticmethod
    def _timings(costs: dict[tuple[str, str, int], list[tuple]]) -> list[str]:
        rows = []
        for (evaluator, algorithm, depth), values in sorted(costs.items()):
            ms = [v[0] for v in values]
            centre, low, high = mean_interval(ms)
            study_1 = PUBLISHED_MS_STUDY_1.get((algorithm, depth)) if evaluator == "simple" else None
            study_3 = PUBLISHED_MS_STUDY_3[evaluator].get((algorithm, depth))
            rows.append([evaluator, algorithm, depth, len(values), f"{centre:.1f} ({low:.1f}..{high:.1f})",
                         f"{mean(v[1] for v in values):,.0f}",
                         "" if study_1 is None else f"{study_1:g} ({centre / study_1:.2f}x)" if study_1 else "0",
                         "" if study_3 is None else f"{study_3:g} ({centre / study_3:.2f}x)" if study_3 else "0"])
        return ["## Time per move (Tables 1-4)", "",
                "Every searched decision of the design's games (the random first move left out). The document's "
                "times come from another machine and language, so each cell shows the ratio ours / theirs; what "
                "should agree is the *shape*: alpha-beta far cheaper than minimax, times growing exponentially "
                "with depth, the heuristics slower than Simple. Node counts are machine-free.", "",
                table(["evaluator", "algorithm", "depth", "decisions", "ours ms (95% CI)", "nodes per move",
                       "Table 1 ms (ours/theirs)", "Table 4 ms (ours/theirs)"], rows), "",
                "![ms per move vs depth](ms_per_move.png)", ""]

    @staticmethod
    def _timing_series(costs: dict[tuple[str, str, int], list[tuple]]) -> dict:
        series: dict[str, list] = defaultdict(list)
        for (evaluator, algorithm, depth), values in costs.items():
            centre, low, high = mean_interval([v[0] for v in values])
            series[f"{algorithm} {evaluator}"].append((depth, centre, max(low, centre * 0.01), high))
        return dict(series)

    @staticmethod
    def _winner_moves(results: dict[str, list[dict]], jobs: list[Job], design: list[Job]) -> list[str]:
        by_winner: dict[tuple[str, str, int], list[int]] = defaultdict(list)
        by_loser: dict[tuple[str, int], list[int]] = defaultdict(list)
        round_robin: dict[tuple[str, int], list[int]] = defaultdict(list)
        for job in jobs:
            if job.key.startswith(("evaluators", NO_TABLE)):
                continue
            players = {"a": parse_player(job.a), "b": parse_player(job.b)}
            for record in results[job.key] if " vs random" in job.key else distinct_games(results[job.key]):
                needed = winner_moves(record)
                if needed is None:
                    continue
                winner, loser = players[record["winner"]], players["b" if record["winner"] == "a" else "a"]
                if job in design and "alphabeta" in job.a and "alphabeta" in job.b:
                    round_robin[(winner[2], winner[1])].append(needed)
                elif job in design:
                    by_winner[(winner[2], winner[0], winner[1])].append(needed)
                by_loser[(loser[0], loser[1])].append(needed)
        rows, tests = [], []
        for (evaluator, algorithm, depth), moves in sorted(by_winner.items()):
            published = PUBLISHED_WINNER_MOVES[evaluator].get((algorithm, depth))
            rows.append([evaluator, algorithm, depth, len(moves), f"{mean(moves):.2f}",
                         "" if published is None else f"{published:.2f}"])
            tests.append(None if published is None else compare_means(moves, published, None, MOVES_MARGIN))
        loser_rows, loser_tests = [], []
        for (algorithm, depth), moves in sorted(by_loser.items()):
            published = PUBLISHED_MOVES_BY_LOSER.get((algorithm, depth))
            loser_rows.append([algorithm, depth or "-", len(moves), f"{mean(moves):.2f}",
                               "" if published is None else f"{published:.2f}"])
            loser_tests.append(None if published is None else compare_means(moves, published, None, MOVES_MARGIN))
        rows = [row + [verdict] for row, verdict in zip(rows, verdicts(tests))]
        loser_rows = [row + [verdict] for row, verdict in zip(loser_rows, verdicts(loser_tests))]
        lines = ["## Moves the winner needed (Tables 5 and 7)", "",
                 "Table 5: by the winner's algorithm, depth and evaluator. The document prints no sample sizes, so "
                 "its means are taken as exact (one-sample t-tests); the equivalence margin is "
                 f"{MOVES_MARGIN:g} moves.", "",
                 table(["evaluator", "winner", "depth", "wins", "ours", "document", "verdict"], rows), "",
                 "Table 7: by the *loser's* algorithm and depth (all evaluators).", "",
                 table(["loser", "depth", "wins", "winner's moves (ours)", "document", "verdict"], loser_rows), ""]
        if round_robin:
            rr_rows, rr_tests = [], []
            for (evaluator, depth), moves in sorted(round_robin.items()):
                published_rr = PUBLISHED_ROUND_ROBIN_MOVES[evaluator].get(depth)
                rr_rows.append([evaluator, depth, len(moves), f"{mean(moves):.2f}",
                                "" if published_rr is None else f"{published_rr:.2f}"])
                rr_tests.append(None if published_rr is None else
                                compare_means(moves, published_rr, None, MOVES_MARGIN))
            rr_rows = [row + [verdict] for row, verdict in zip(rr_rows, verdicts(rr_tests))]
            lines += ["Table 6 (study 5, alpha-beta 7-11 against itself):", "",
                      table(["evaluator", "depth", "wins", "ours", "document", "verdict"], rr_rows), ""]
        return lines

    @staticmethod
    def _table_effect(results: dict[str, list[dict]], jobs: list[Job]) -> tuple[list[str], str]:
        """The section measuring the table, and its one-line summary: each game against
        random replayed on its seeds by alpha-beta without the table."""
        rows, ratios, same, games = [], [], 0, 0
        for job in jobs:
            if not job.key.startswith(NO_TABLE):
                continue
            _, depth, evaluator = parse_player(job.a)
            costs = {}
            for key in (job.key.removeprefix(NO_TABLE), job.key):
                decisions = [cost for record in results[key] for cost in search_cost(record) if cost[0] == "a"]
                costs[key] = (mean(d[2] for d in decisions), mean(d[1] * 1000 for d in decisions))
            pairs = list(zip(results[job.key.removeprefix(NO_TABLE)], results[job.key]))
            identical = sum(a["moves"] == b["moves"] for a, b in pairs)
            same, games = same + identical, games + len(pairs)
            (nodes, ms), (nodes_bare, ms_bare) = costs.values()
            ratios.append(nodes_bare / nodes)
            rows.append([evaluator, depth, f"{identical}/{len(pairs)}", f"{nodes:,.0f}", f"{nodes_bare:,.0f}",
                         f"{nodes_bare / nodes:.2f}", f"{ms:.1f}", f"{ms_bare:.1f}", f"{ms_bare / ms:.2f}"])
        summary = (f"the same moves in {same} of {games} replayed games; without it alpha-beta searched "
                   f"{min(ratios):.2f}-{max(ratios):.2f} times the nodes")
        lines = ["## The transposition table's effect", "",
                 "Each game of alpha-beta against random, replayed on the same seeds by alpha-beta without its "
                 "transposition table (`table=false`): whether the game came out move for move the same, and "
                 "alpha-beta's mean nodes and ms per searched move with and without the table.", "",
                 table(["evaluator", "depth", "same games", "nodes (table)", "nodes (none)", "ratio",
                        "ms (table)", "ms (none)", "ratio"], rows), ""]
        return lines, summary

    @staticmethod
    def _outcomes(results: dict[str, list[dict]], design: list[Job]) -> list[str]:
        records = [r for job in design for r in distinct_games(results[job.key])]
        draws = sum(r["winner"] is None for r in records)
        draw_test = compare_counts(draws, len(records), PUBLISHED_DRAWS[0] / PUBLISHED_DRAWS[1], PUBLISHED_DRAWS[1],
                                   SHARE_MARGIN)
        starter = sum(r["winner_seat"] == "player_0" for r in records)
        second = sum(r["winner_seat"] == "player_1" for r in records)
        published_share = PUBLISHED_STARTER[0] / sum(PUBLISHED_STARTER)
        starter_test = compare_counts(starter, max(starter + second, 1), published_share, sum(PUBLISHED_STARTER),
                                      SHARE_MARGIN)
        by_column: dict[str, dict[int, list[int]]] = {e: defaultdict(lambda: [0, 0, 0]) for e in EVALUATORS}
        for job in design:
            evaluator = parse_player(job.a)[2]
            for r in distinct_games(results[job.key]):
                outcome = 1 if r["winner_seat"] is None else 0 if r["winner_seat"] == "player_0" else 2
                by_column[evaluator][r["moves"][0][1]][outcome] += 1
        rows, tests = [], []
        for evaluator in EVALUATORS:
            for column in range(7):
                ours = by_column[evaluator][column]
                theirs = PUBLISHED_FIRST_COLUMN[evaluator][column]
                games = sum(ours)
                tests.append(compare_counts(ours[0], games, theirs[0] / sum(theirs), sum(theirs), SHARE_MARGIN)
                             if games else "no games")
                rows.append([evaluator, column, "/".join(map(str, theirs)), "/".join(map(str, ours)),
                             f"{theirs[0] / sum(theirs):.2f}", f"{ours[0] / games:.2f}" if games else "-"])
        rows = [row + [verdict] for row, verdict in zip(rows, verdicts(tests))]
        simple_zero = by_column["simple"][0]
        return ["## Draws, the starting player, the first column (Tables 8-10)", "",
                "The unit here is a distinct game: both searchers are deterministic after the starting player's "
                "random first move, so the games of one pairing with the same seat order and first column are "
                "one game played again, not new evidence; each counts once.", "",
                f"- Draws: ours {draws} of {len(records)} ({draws / len(records):.3f}); the document 341 of 1,258 "
                f"(0.271) — {draw_test.words}.",
                f"- Decided games won by the starting player: ours {starter}:{second}; the document 451:466 — "
                f"{starter_test.words}.",
                f"- The document's signature: *Simple practically cannot win starting from column 0* (1 win in 67). "
                f"Ours: Simple starting from column 0 won {simple_zero[0]}, drew {simple_zero[1]}, lost "
                f"{simple_zero[2]}.", "",
                "The starting player's wins / draws / losses by its random first column (the win share tested):", "",
                table(["evaluator", "first column", "document W/D/L", "ours W/D/L", "document win share",
                       "ours", "verdict"], rows), ""]

    @staticmethod
    def _conclusions(results: dict[str, list[dict]], design: list[Job],
                     costs: dict[tuple[str, str, int], list[tuple]]) -> list[str]:
        """The document's own conclusions, each a claim about a difference in our games,
        tested together (Holm) and judged by the one rule."""
        claims: list[tuple[str, str, str, Comparison | str]] = []  # (claim, direction, ours in words, test)
        for depth in sorted({d for (e, a, d) in costs if a == "minimax" and (e, "alphabeta", d) in costs}):
            for evaluator in EVALUATORS:
                if (evaluator, "minimax", depth) not in costs or (evaluator, "alphabeta", depth) not in costs:
                    continue
                pruned = [math.log10(max(v[1], 1)) for v in costs[(evaluator, "alphabeta", depth)]]
                full = [math.log10(max(v[1], 1)) for v in costs[(evaluator, "minimax", depth)]]
                test = compare_samples(pruned, full, LOG_NODES_MARGIN)
                claims.append((f"alpha-beta pruning cuts the search: {evaluator}, depth {depth}", "lower",
                               f"log10 nodes a move {test.ours:.2f} against minimax's {test.published:.2f}",
                               test if test.p is not None else f"no test ({test.reason})"))
        records = [r for job in design for r in distinct_games(results[job.key])]
        starter = sum(r["winner_seat"] == "player_0" for r in records)
        second = sum(r["winner_seat"] == "player_1" for r in records)
        claims.append(("who starts seems not to change the chance of winning", "no different",
                       f"the starting player won {starter} of {starter + second} decided games, against 1/2",
                       compare_counts(starter, starter + second, 0.5, None, SHARE_MARGIN) if starter + second
                       else "no test (no decided games)"))
        simple = [r for job in design if parse_player(job.a)[2] == "simple" for r in distinct_games(results[job.key])]
        from_zero = [r for r in simple if r["moves"][0][1] == 0]
        elsewhere = [r for r in simple if r["moves"][0][1] != 0]
        won_zero = sum(r["winner_seat"] == "player_0" for r in from_zero)
        won_elsewhere = sum(r["winner_seat"] == "player_0" for r in elsewhere)
        claims.append(("Simple can hardly win starting from column 0", "lower",
                       f"Simple's starting player won {won_zero} of {len(from_zero)} games from column 0, "
                       f"{won_elsewhere} of {len(elsewhere)} from the other columns",
                       compare_counts(won_zero, len(from_zero), won_elsewhere / len(elsewhere), len(elsewhere),
                                      SHARE_MARGIN) if from_zero and elsewhere else "no test (no such games)"))
        won: defaultdict[str, int] = defaultdict(int)
        decided: defaultdict[str, int] = defaultdict(int)
        for first, second in combinations(EVALUATORS, 2):
            wins_a, _, wins_b = tally(distinct_games(results[f"evaluators: {first} vs {second}"]))
            won[first], won[second] = won[first] + wins_a, won[second] + wins_b
            decided[first], decided[second] = decided[first] + wins_a + wins_b, decided[second] + wins_a + wins_b
        for evaluator, direction in (("three2", "higher"), ("simple", "lower")):
            claims.append((f"the evaluator matters: {EVALUATOR_NAMES[evaluator]} "
                           + ("wins" if direction == "higher" else "loses") + " more than half its decided games",
                           direction, f"{won[evaluator]} of {decided[evaluator]} against 1/2",
                           compare_counts(won[evaluator], decided[evaluator], 0.5, None, SHARE_MARGIN)
                           if decided[evaluator] else "no test (no decided games)"))
        lines = []
        for (claim, direction, ours, tested), verdict in zip(claims, verdicts([c for *_, c in claims])):
            judged = finding(direction, verdict, None if isinstance(tested, str) else tested.difference)
            lines.append(f"- *{claim}* — {ours}: **{judged}**" + to_decide(judged, tested, len(claims)))
        return ["## The document's conclusions, judged on our games", "",
                "Its conclusions (time, the starting player, the first column, the evaluators), each a claim "
                "about a difference in our games, tested together (Holm) and judged by the one rule of the "
                f"statistics note. Search cost is compared in log10 nodes a move (margin ±{LOG_NODES_MARGIN:g}, "
                "a factor of two), games as distinct games.", "", *lines, ""]

    @staticmethod
    def _evaluator_table(results: dict[str, list[dict]]) -> list[str]:
        won: defaultdict[str, int] = defaultdict(int)
        lost: defaultdict[str, int] = defaultdict(int)
        for first, second in combinations(EVALUATORS, 2):
            wins_a, _, wins_b = tally(distinct_games(results[f"evaluators: {first} vs {second}"]))
            won[first] += wins_a
            lost[first] += wins_b
            won[second] += wins_b
            lost[second] += wins_a
        rows, tests = [], []
        for evaluator in EVALUATORS:
            theirs_won, theirs_lost = PUBLISHED_WIN_LOSS[evaluator]
            decided = won[evaluator] + lost[evaluator]
            tests.append(compare_counts(won[evaluator], decided, theirs_won / (theirs_won + theirs_lost),
                                        theirs_won + theirs_lost, SHARE_MARGIN) if decided else "no decided games")
            rows.append([evaluator, f"{theirs_won}/{theirs_lost} ({theirs_won / (theirs_won + theirs_lost):.3f})",
                         f"{won[evaluator]}/{lost[evaluator]}"
                         + (f" ({won[evaluator] / decided:.3f})" if decided else "")])
        rows = [row + [verdict] for row, verdict in zip(rows, verdicts(tests))]
        return ["## The evaluators' wins and losses (Tables 11-13)", "",
                "Each evaluator's share of its decided games, alpha-beta at depth 5 of each evaluator against the "
                "others, seats alternating (see Deviations). Both searchers are deterministic after the random "
                "first move, so a pair plays at most 14 different games (two seat orders, seven first columns); "
                "each counts once.", "",
                table(["evaluator", "document won/lost", "ours won/lost", "verdict"], rows), ""]
