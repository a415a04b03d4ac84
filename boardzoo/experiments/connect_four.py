"""Seeds 002 and 003 on Connect Four: minimax and alpha-beta with seed 002's evaluators
(time per move by depth, moves needed by the winner, draws, outcome by first column,
evaluator against evaluator), and seed 003's UCT variants against the heuristic player
scored with REWARD(m) (parameter sweeps, iterations study, round robin of the best four)."""

from __future__ import annotations

from collections import defaultdict
from functools import partial
from itertools import combinations
from statistics import mean

from boardzoo.experiments.framework import Experiment, Job, Report, sized, tally
from boardzoo.experiments.plots import line_plot
from boardzoo.experiments.stats import mean_interval, reward_m, table, verdict, wilson

EVALUATORS = ("simple", "three", "three2")
PUBLISHED_MS = {("alphabeta", 8): 33, ("alphabeta", 10): 483, ("alphabeta", 12): 6253,
                ("minimax", 7): 659, ("minimax", 8): 3745, ("minimax", 9): 36226}
PUBLISHED_WIN_LOSS = {"simple": (229, 371), "three": (278, 266), "three2": (405, 210)}


def searcher(algorithm: str, depth: int, evaluator: str) -> str:
    return f"{algorithm}:depth={depth},eval={evaluator},random_first=true"


def search_times(record: dict) -> list[float]:
    """Seconds of every searched decision: the first mover's random first move is left out."""
    times = []
    for label in ("a", "b"):
        seconds = record["decision_seconds"][label]
        times += seconds[1:] if label == record["first_mover"] else seconds
    return times


def winner_moves(record: dict) -> int | None:
    """Moves the winner made (its discs on the board at the end), None for a draw."""
    if record["winner_seat"] is None:
        return None
    seat = 0 if record["winner_seat"] == "player_0" else 1
    return sum(1 for player, _ in record["moves"] if player == seat)


class ConnectFourMinimax(Experiment):
    name = "connect-four-minimax"
    source = "seed 002 (Polish): minimax and alpha-beta for Connect Four"
    compares = ("ms per move by depth (minimax 3-9, alpha-beta 3-13) and evaluator; moves needed by the winner; "
                "draws; outcome by first column; evaluator against evaluator")
    default_size = "minimax depths 3-5, alpha-beta 3-8, 4 games each; 10 vs random; 20 per evaluator pair"
    full_size = "minimax 3-9, alpha-beta 3-13, 10 games each; 50 vs random; 100 per evaluator pair (days)"
    expected_time = "under 1 min"

    def jobs(self, games: int | None, full: bool) -> list[Job]:
        depths = {"minimax": range(3, 10 if full else 6), "alphabeta": range(3, 14 if full else 9)}
        jobs = []
        for algorithm, algorithm_depths in depths.items():
            for evaluator in EVALUATORS:
                for depth in algorithm_depths:
                    spec = searcher(algorithm, depth, evaluator)
                    jobs.append(Job(f"self-{algorithm}-{evaluator}-d{depth}", "connect_four_v0", spec, spec,
                                    sized(games, full, 4, 10)))
        for evaluator in EVALUATORS:
            for depth in (2, 4, 6):
                jobs.append(Job(f"random-{evaluator}-d{depth}", "connect_four_v0",
                                searcher("alphabeta", depth, evaluator), "random", sized(games, full, 10, 50)))
        for first, second in combinations(EVALUATORS, 2):
            jobs.append(Job(f"pair-{first}-{second}", "connect_four_v0", searcher("alphabeta", 4, first),
                            searcher("alphabeta", 4, second), sized(games, full, 20, 100)))
        return jobs

    def report(self, results: dict[str, list[dict]], jobs: list[Job]) -> Report:
        timing_rows: list[list] = []
        series: defaultdict[str, list[tuple[float, float, float, float]]] = defaultdict(list)
        moves_rows: list[list] = []
        draws: list = []
        # first column -> first mover wins, draws, losses
        by_column: defaultdict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
        for job in jobs:
            if not job.key.startswith("self-"):
                continue
            _, algorithm, evaluator, depth_text = job.key.split("-")
            depth = int(depth_text[1:])
            records = results[job.key]
            times = [t * 1000 for r in records for t in search_times(r)]
            centre, low, high = mean_interval(times)
            published = PUBLISHED_MS.get((algorithm, depth)) if evaluator == "simple" else None
            timing_rows.append([algorithm, evaluator, depth, len(times), f"{centre:.1f} ({low:.1f}..{high:.1f})",
                                published or "", f"{centre / published:.2f}x" if published else ""])
            series[f"{algorithm} {evaluator}"].append((depth, centre, max(low, centre * 0.01), high))
            needed = [m for r in records if (m := winner_moves(r)) is not None]
            moves_rows.append([f"{algorithm} vs itself", evaluator, depth, len(records),
                               f"{mean(needed):.1f}" if needed else "-", sum(r["winner"] is None for r in records)])
            draws += [r["winner"] is None for r in records]
            for r in records:
                first = r["moves"][0][1] + 1
                outcome = 1 if r["winner_seat"] is None else 0 if r["winner_seat"] == "player_0" else 2
                by_column[first][outcome] += 1
        for job in jobs:
            if job.key.startswith("random-"):
                _, evaluator, depth_text = job.key.split("-")
                records = results[job.key]
                needed = [m for r in records if (m := winner_moves(r)) is not None and r["winner"] == "a"]
                wins = sum(r["winner"] == "a" for r in records)
                moves_rows.append(["alphabeta vs random", evaluator, int(depth_text[1:]), len(records),
                                   f"{mean(needed):.1f}" if needed else "-", f"(won {wins})"])
        draw_low, draw_high = wilson(sum(draws), len(draws))
        column_rows = [[c, *by_column[c], f"{by_column[c][0] / sum(by_column[c]):.2f}"] for c in sorted(by_column)]
        text = [
            "# Seed 002 — minimax and alpha-beta for Connect Four",
            "",
            "Evaluators: *simple* (only wins count), *three* (a window of three and an empty cell: 40 % "
            "of a win), *three2* (such windows scored by how soon their empty cell can be filled). In "
            "games of an AI against itself the first mover's first move is random, so games differ.",
            "",
            "## Mean time per move by depth (AI against itself)",
            "",
            "Seed 002 printed times for the simple evaluator only, from its own (unnamed) computer, so "
            "the ratio compares machines and languages as much as algorithms.",
            "",
            table(["algorithm", "evaluator", "depth", "moves", "ours ms (95% CI)", "seed 002 ms", "ours / theirs"],
                  timing_rows),
            "",
            "![ms per move vs depth](ms_per_move.png)",
            "",
            "## Moves needed by the winner",
            "",
            table(["games", "evaluator", "depth", "played", "winner's moves (mean)", "draws"], moves_rows),
            "",
            f"Draw ratio over all games of an AI against itself: {sum(draws)}/{len(draws)} = "
            f"{sum(draws) / len(draws):.3f} (95% CI {draw_low:.3f}..{draw_high:.3f}).",
            "",
            "## Outcome by the first mover's (random) first column",
            "",
            table(["column", "first mover won", "draws", "first mover lost", "first mover's share"], column_rows),
            "",
        ]
        text += self._evaluator_table(results)
        plots = {"ms_per_move.png": partial(line_plot, title="Mean time per move by depth (Connect Four)",
                                            xlabel="depth", ylabel="ms per move (log)", series=dict(series),
                                            logy=True)}
        return Report("\n".join(text), plots)

    @staticmethod
    def _evaluator_table(results: dict[str, list[dict]]) -> list[str]:
        won: defaultdict[str, int] = defaultdict(int)
        lost: defaultdict[str, int] = defaultdict(int)
        for first, second in combinations(EVALUATORS, 2):
            wins_a, _, wins_b = tally(results[f"pair-{first}-{second}"])
            won[first] += wins_a
            lost[first] += wins_b
            won[second] += wins_b
            lost[second] += wins_a
        rows = []
        for evaluator in EVALUATORS:
            theirs_won, theirs_lost = PUBLISHED_WIN_LOSS[evaluator]
            published = theirs_won / (theirs_won + theirs_lost)
            decided = won[evaluator] + lost[evaluator]
            if decided:
                low, high = wilson(won[evaluator], decided)
                ours = f"{won[evaluator]}/{lost[evaluator]} = {won[evaluator] / decided:.3f} ({low:.3f}..{high:.3f})"
                words = verdict(published, low, high)
            else:
                ours, words = "no decided games", "-"
            rows.append([evaluator, f"{theirs_won}/{theirs_lost} = {published:.3f}", ours, words])
        return ["## Evaluator against evaluator (alpha-beta depth 4, each pair with seats alternating)", "",
                "Wins/losses per evaluator and the share of its decided games it won (seed 002 does not "
                "say at which depths its counts were collected).", "",
                table(["evaluator", "seed 002 won/lost", "ours won/lost (95% CI)", "verdict"], rows), ""]


# --- seed 003 ---------------------------------------------------------------------------------
SWEEP = [  # family, label, spec fragment
    ("UCB1", "c=0.5", "policy=ucb1,c=0.5"), ("UCB1", "c=1", "policy=ucb1,c=1.0"),
    ("UCB1", "c=1.41", "policy=ucb1,c=1.41"), ("UCB1", "c=2", "policy=ucb1,c=2.0"),
    ("UCB-V", "c=1.0, zeta=1.0", "policy=ucbv,c=1.0,zeta=1.0"),
    ("UCB-V", "c=1.4, zeta=0.5", "policy=ucbv,c=1.4,zeta=0.5"),
    ("UCB-V", "c=1.4, zeta=1.0", "policy=ucbv,c=1.4,zeta=1.0"),
    ("UCB-Minimal", "C1=1, C2=1", "policy=ucb-minimal,c1=1,c2=1"),
    ("UCB-Minimal", "C1=11, C2=1", "policy=ucb-minimal,c1=11,c2=1"),
    ("UCB-Minimal", "C1=2, C2=0.5", "policy=ucb-minimal,c1=2,c2=0.5"),
]
PUBLISHED_BEST = {"UCB-V c=1.4, zeta=0.5": 0.560, "UCB1 c=2": 0.552, "UCB1 c=1.41": 0.529,
                  "UCB-Minimal C1=11, C2=1": -0.091}
PUBLISHED_FAMILY = {"UCB-V": 0.306, "UCB1": 0.112, "UCB-Minimal": -0.472}
BEST_FOUR = ["UCB-V c=1.4, zeta=0.5", "UCB1 c=2", "UCB1 c=1.41", "UCB-Minimal C1=11, C2=1"]
ITERATIONS = (100, 500, 1000, 2500, 5000, 10000, 15000, 20000)


def rewards(records: list[dict], label: str = "a") -> list[float]:
    return [reward_m(r["winner"] == label, r["plies"]) for r in records]


class ConnectFourUCT(Experiment):
    name = "connect-four-uct"
    source = "seed 003 (Polish): UCT variants for Connect Four"
    compares = ("UCB1 / UCB-V / UCB-Minimal parameter sweeps against the heuristic player scored with REWARD(m); "
                "iterations study; round robin of the best four")
    default_size = "1000 iterations a move, 10 games per setting; iterations 100-2500; 10 games per pair"
    full_size = "15 000 iterations, 15 games per setting; iterations 100-20 000; 80 games per pair"
    expected_time = "about 2 min"
    full_time = ("2.8 min with --engine compiled --workers 2 (measured, 750 games); "
                 "about 10x that on the Python engine (its simulation rate)")

    def _labels(self) -> dict[str, str]:
        return {f"{family} {label}": spec for family, label, spec in SWEEP}

    def jobs(self, games: int | None, full: bool) -> list[Job]:
        iterations = 15000 if full else 1000
        labels = self._labels()
        jobs = [Job(f"sweep {name}", "connect_four_v0", f"mcts:{spec},iterations={iterations}", "greedy",
                    sized(games, full, 10, 15)) for name, spec in labels.items()]
        for count in ITERATIONS if full else ITERATIONS[:4]:
            jobs.append(Job(f"iterations {count}", "connect_four_v0", f"mcts:{labels['UCB1 c=2']},iterations={count}",
                            "greedy", sized(games, full, 10, 15)))
        for first, second in combinations(BEST_FOUR, 2):
            jobs.append(Job(f"pair {first} | {second}", "connect_four_v0",
                            f"mcts:{labels[first]},iterations={iterations}",
                            f"mcts:{labels[second]},iterations={iterations}", sized(games, full, 10, 80)))
        return jobs

    def report(self, results: dict[str, list[dict]], jobs: list[Job]) -> Report:
        rows: list[list] = []
        families: defaultdict[str, list] = defaultdict(list)
        for family, label, _ in SWEEP:
            name = f"{family} {label}"
            scores = rewards(results[f"sweep {name}"])
            families[family] += scores
            centre, low, high = mean_interval(scores)
            published = PUBLISHED_BEST.get(name)
            wins, ties, losses = tally(results[f"sweep {name}"])
            rows.append([family, label, f"{wins}/{ties}/{losses}", f"{centre:+.3f} ({low:+.3f}..{high:+.3f})",
                         "" if published is None else f"{published:+.3f}",
                         "" if published is None else verdict(published, low, high)])
        family_rows = []
        for family, published in PUBLISHED_FAMILY.items():
            centre, low, high = mean_interval(families[family])
            family_rows.append([family, f"{centre:+.3f} ({low:+.3f}..{high:+.3f})", f"{published:+.3f}",
                                verdict(published, low, high)])
        iteration_rows, reward_points, win_points = [], [], []
        for job in jobs:
            if job.key.startswith("iterations "):
                count = int(job.key.split()[1])
                records = results[job.key]
                centre, low, high = mean_interval(rewards(records))
                wins = sum(r["winner"] == "a" for r in records)
                win_low, win_high = wilson(wins, len(records))
                iteration_rows.append([count, len(records), f"{centre:+.3f} ({low:+.3f}..{high:+.3f})",
                                       f"{wins / len(records):.2f} ({win_low:.2f}..{win_high:.2f})"])
                reward_points.append((count, centre, low, high))
                win_points.append((count, wins / len(records), win_low, win_high))
        text = [
            "# Seed 003 — UCT variants for Connect Four",
            "",
            "Each MCTS setting plays the heuristic player (`greedy`: win now, else block, else the centre), "
            "seats alternating, and is scored per game with seed 003's REWARD(m): `0.8 * (1 - (m - 7) / 35)` "
            "for a win in m moves, `(m - 7) / 35 - 1` otherwise. Seed 003 used 15 000 iterations a move "
            "and 15 seeds per setting; the default run is far smaller, so expect wide intervals.",
            "",
            "## Parameter sweeps (mean REWARD(m) of the MCTS player)",
            "",
            table(["family", "parameters", "won/drawn/lost", "ours (95% CI)", "seed 003", "verdict"], rows),
            "",
            "Means per family:",
            "",
            table(["family", "ours (95% CI)", "seed 003", "verdict"], family_rows),
            "",
            "## Iterations study (UCB1, c = 2, against the heuristic player)",
            "",
            table(["iterations", "games", "mean REWARD(m) (95% CI)", "win rate (95% CI)"], iteration_rows),
            "",
            "![win rate vs iterations](win_rate_vs_iterations.png)",
            "",
        ]
        text += self._round_robin(results)
        plots = {"win_rate_vs_iterations.png": partial(
            line_plot, title="UCB1 (c=2) against the heuristic player", xlabel="iterations per move (log)",
            ylabel="win rate", series={"win rate": win_points, "mean REWARD(m)": reward_points}, logx=True)}
        return Report("\n".join(text), plots)

    @staticmethod
    def _round_robin(results: dict[str, list[dict]]) -> list[str]:
        rows: list[list] = []
        total: defaultdict[str, float] = defaultdict(float)
        for first, second in combinations(BEST_FOUR, 2):
            records = results[f"pair {first} | {second}"]
            wins_a, ties, wins_b = tally(records)
            total[first] += wins_a + ties / 2
            total[second] += wins_b + ties / 2
            rows.append([first, second, f"{wins_a}:{wins_b}", f"{ties / len(records):.2f}"])
        standings = sorted(total.items(), key=lambda item: -item[1])
        leader = standings[0][0]
        words = ("agrees: UCB1 c=2 won overall" if leader == "UCB1 c=2"
                 else f"disagrees: {leader} won overall, not UCB1 c=2")
        return ["## Round robin of the best four (seats alternating)", "",
                table(["player A", "player B", "wins A:B", "draw rate"], rows), "",
                "Points (a win 1, a draw 1/2): " + ", ".join(f"{name} {points:g}" for name, points in standings)
                + f". Seed 003: UCB1 (c=2) won overall — {words}.", ""]
