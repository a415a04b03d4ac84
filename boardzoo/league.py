"""The league (layer 4): a round robin among agent specs on one env, with ratings.

    boardzoo league geister_v0 random greedy "flatmc:playouts=5" "mcts:iterations=300" --games 200

Every pair of specs plays ``games`` games, seats alternating, exactly as
``boardzoo arena ENV A B --games N --seed S`` would play them: game ``i`` of every pair
comes from ``(S, i)``, so the pairs meet the same deals and placements (common random
numbers, which makes their comparison fairer), and a league's games of one pair are that
pair's arena games, record for record. Results go to one results file of arena records
(``--out``; :mod:`boardzoo.ledger`: appended, validated, locked), so a league resumes
after any interruption, grows when specs are added (the pairs already played are kept),
and can start from an arena run's file. Records of pairs outside the league are kept in
the file and left out of the tables. With ``opening_plies`` every pair of games starts
from a random opening of that many plies (the arena's; the same openings for every
pair), so that agents which break no ties at random meet in more than two games.

A league that adds agents to a published one needs none of the old games: given the
old league's report (``--json``) as ``known``, the pairs it holds are taken from it as
played (their wins, draws and losses; the ratings need no more) and only the new pairs
are played.

The report: Bradley-Terry ratings on the Elo scale with 95 % bootstrap intervals (a draw
half a win; :func:`boardzoo.stats.ratings`), the matrix of win rates (row
against column, 95 % Wilson intervals), draw rates, and each spec's time per move (mean, 99th percentile, longest);
as text or as JSON, and as a picture with the ``plot`` extra.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

from boardzoo import arena, envs
from boardzoo.agents import Agent
from boardzoo.errors import SpecError, install_hint
from boardzoo.ledger import Ledger, check_writable_path, describe_openings, preset_change
from boardzoo.progress import ProgressBar
from boardzoo.stats import Rating, ratings, wilson

#: The most specs in one league (the pairs grow as the square).
MAX_SPECS = 32


@dataclass(frozen=True)
class PairResult:
    """How ``a`` fared against ``b`` (a's point of view)."""

    a: str
    b: str
    games: int
    a_wins: int
    b_wins: int
    draws: int
    forfeits: int

    @property
    def a_score(self) -> float:
        return (self.a_wins + 0.5 * self.draws) / self.games if self.games else math.nan

    def win_rate(self, spec: str) -> tuple[float, float, float]:
        """``spec``'s win rate in this pair with its 95 % Wilson interval."""
        wins = self.a_wins if spec == self.a else self.b_wins
        low, high = wilson(wins, self.games)
        return wins / self.games, low, high


@dataclass(frozen=True)
class LeagueResult:
    env: str
    base_seed: int
    games_per_pair: int
    specs: tuple[str, ...]
    pairs: tuple[PairResult, ...]
    ratings: tuple[Rating, ...]
    ms_per_move: dict[str, float]
    #: spec -> the longest decision in milliseconds, and the 99th percentile: what a per-move
    #: time limit (a tournament's, say) is measured against, where the mean says little
    ms_longest: dict[str, float]
    ms_p99: dict[str, float]
    opening_plies: int = 0

    def pair(self, x: str, y: str) -> PairResult:
        return next(p for p in self.pairs if {p.a, p.b} == {x, y})

    def as_json(self) -> dict[str, Any]:
        return {
            "env": self.env, "base_seed": self.base_seed, "games_per_pair": self.games_per_pair,
            "opening_plies": self.opening_plies,
            "ratings": [asdict(r) for r in self.ratings],
            "pairs": [{**asdict(p), "a_score": p.a_score, "draw_rate": p.draws / p.games if p.games else None,
                       "a_win_rate": p.win_rate(p.a), "b_win_rate": p.win_rate(p.b)} for p in self.pairs],
            "ms_per_move": self.ms_per_move, "ms_p99": self.ms_p99, "ms_longest": self.ms_longest,
        }


def pairings(specs: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of specs once, in the order given (the first named is agent A)."""
    return list(combinations(specs, 2))


@dataclass(frozen=True)
class Report:
    """A league's report as another league reads it (``known``): its pairs' outcomes and
    its agents' times a move, from the JSON that ``--json`` prints."""

    env: str
    base_seed: int
    games_per_pair: int
    opening_plies: int
    pairs: dict[tuple[str, str], PairResult]
    ms_per_move: dict[str, float]
    ms_p99: dict[str, float]
    ms_longest: dict[str, float]

    def pair(self, a: str, b: str) -> PairResult | None:
        """The pair of ``a`` and ``b`` as this report has it, turned to put ``a`` first."""
        if (a, b) in self.pairs:
            return self.pairs[(a, b)]
        known = self.pairs.get((b, a))
        if known is None:
            return None
        return PairResult(a, b, known.games, known.b_wins, known.a_wins, known.draws, known.forfeits)


def read_report(path: str) -> Report:
    """The report in file ``path`` (``boardzoo league --json``); SpecError, naming what is
    wrong, for a file that is not one."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as error:
        raise SpecError(f"league: cannot read the report {path}: {error.strerror}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise SpecError(f"league: the report {path} is not JSON: {error}") from None
    where = f"league: the report {path}"
    if not isinstance(data, dict):
        raise SpecError(f"{where} is not a league report (boardzoo league --json): not a JSON object")

    def field(name: str, kind: type, default: Any = None) -> Any:
        value = data.get(name, default)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise SpecError(f"{where} has no valid {name!r} (a league report is what boardzoo league --json prints)")
        return value

    header = (field("env", str), field("base_seed", int), field("games_per_pair", int), field("opening_plies", int, 0))
    pairs: dict[tuple[str, str], PairResult] = {}
    for item in field("pairs", list):
        try:
            pair = PairResult(*(item[key] for key in ("a", "b")),
                              *(item[key] for key in ("games", "a_wins", "b_wins", "draws", "forfeits")))
        except (KeyError, TypeError):
            raise SpecError(f"{where}: a pair without a, b, games, a_wins, b_wins, draws and forfeits") from None
        counts = (pair.games, pair.a_wins, pair.b_wins, pair.draws, pair.forfeits)
        if not (isinstance(pair.a, str) and isinstance(pair.b, str)) \
                or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts) \
                or pair.a_wins + pair.b_wins + pair.draws != pair.games:
            raise SpecError(f"{where}: the pair {item.get('a')!r} vs {item.get('b')!r} does not add up "
                            "(wins, draws and losses must be whole numbers that make its games)")
        pairs[(pair.a, pair.b)] = pair
    times = []
    for name in ("ms_per_move", "ms_p99", "ms_longest"):
        figures = field(name, dict)
        wrong = next((spec for spec, ms in figures.items()
                      if ms is not None and (not isinstance(ms, (int, float)) or isinstance(ms, bool))), None)
        if wrong is not None:
            raise SpecError(f"{where}: {name} of {wrong!r} is {figures[wrong]!r}, not a number of milliseconds")
        times.append({spec: math.nan if ms is None else float(ms) for spec, ms in figures.items()})
    return Report(*header, pairs, *times)


def _check_known(known: Report, env: str, seed: int, games: int, opening_plies: int) -> None:
    """A report extends only the league that would have played its games."""
    ours = (env, seed, games, opening_plies)
    theirs = (known.env, known.base_seed, known.games_per_pair, known.opening_plies)
    if ours != theirs:
        raise SpecError(f"league: the known report is of {known.env}, seed {known.base_seed}, "
                        f"{known.games_per_pair} games a pair{describe_openings(known.opening_plies)}; this league "
                        f"is {env}, seed {seed}, {games} games a pair{describe_openings(opening_plies)}: it would "
                        "not have played the same games")


def check_specs(specs: Sequence[str]) -> list[str]:
    specs = [spec.strip() if isinstance(spec, str) else spec for spec in specs]
    if not 2 <= len(specs) <= MAX_SPECS:
        raise SpecError(f"league: give 2 to {MAX_SPECS} agent specs, got {len(specs)}")
    repeated = sorted({spec for spec in specs if specs.count(spec) > 1})
    if repeated:
        raise SpecError(f"league: {repeated[0]!r} is named twice; each agent spec enters the league once")
    return specs


def run(env_spec: str, specs: Sequence[str], games: int, seed: int = 0, workers: int = 1,
        out: str | None = None, progress: bool | None = None, isolate: bool = False,
        log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
        ray: str | None = None, opening_plies: int = 0, known: Report | None = None) -> LeagueResult:
    """Play the round robin (games already in ``out`` are not played again, nor the pairs
    of the ``known`` report) and rate it; ``ray`` and ``opening_plies`` as in
    :func:`boardzoo.arena.run`."""
    specs = check_specs(specs)
    arena.check_run("league", games, workers, seed, opening_plies)
    if known is not None:
        _check_known(known, env_spec, seed, games, opening_plies)
    pairs = [(a, b) for a, b in pairings(specs) if known is None or known.pair(a, b) is None]
    if len(pairs) * games > arena.MAX_GAMES:  # the list of games to play is held in memory
        raise SpecError(f"league: {len(pairs)} pairs x {games:,} games is more than {arena.MAX_GAMES:,} games; "
                        "play fewer games a pair")
    env = envs.make(env_spec)
    if out is not None:
        check_writable_path(out)
    _check_agents(specs, env)
    ledger = None
    if out is not None:
        ledger = Ledger(out, key=lambda r: (r["a"], r["b"], r["game"]),
                        check=lambda r: _other_league(r, env_spec, seed, opening_plies))
        ledger.open()
    built: dict[tuple[str, str], dict[str, Agent]] = {}

    def agents_for(a: str, b: str) -> dict[str, Agent]:
        if (a, b) not in built:
            built[(a, b)] = arena.make_agents(a, b, env, isolate)
        return built[(a, b)]

    try:
        done = dict(ledger.records) if ledger is not None else {}
        for note in ledger.notes if ledger is not None else ():
            log(f"note: {note}")
        todo = [(a, b, g) for a, b in pairs for g in range(games) if (a, b, g) not in done]
        total = len(pairs) * games
        bar = None if progress is False else ProgressBar(total, "league", "games", initial=total - len(todo),
                                                          interactive=progress)

        def finished(record: dict) -> None:
            done[(record["a"], record["b"], record["game"])] = record
            if bar:
                bar.update(status=f"{record['a']} vs {record['b']}")

        try:
            arena.play_jobs(env_spec, todo, seed, workers, env, agents_for, isolate, ledger, finished, ray,
                            opening_plies)
        finally:
            if bar:
                bar.close()
    finally:
        for agents in built.values():
            arena.close_agents(agents)
        if ledger is not None:
            ledger.close()
    records = [done[(a, b, g)] for a, b in pairs for g in range(games)]
    return summarize(env_spec, seed, games, specs, records, opening_plies, known)


def _check_agents(specs: Sequence[str], env) -> None:
    """Build each spec once and check it against the game, before any game is played."""
    from boardzoo.agents import make

    for spec in specs:
        agent = make(spec)
        try:
            arena.refuse_interactive("league", {spec: agent})
            arena.check_agents([agent], env)
        finally:
            agent.close()


def _other_league(record: dict, env: str, base_seed: int, opening_plies: int) -> str | None:
    then = record.get("opening_plies", 0)
    if (record["env"], record["base_seed"], then) == (env, base_seed, opening_plies):
        return preset_change(record)
    return (f"game {record['game']} ({record['a']} vs {record['b']}) belongs to another run ({record['env']}, "
            f"seed {record['base_seed']}{describe_openings(then)}; this league is {env}, seed {base_seed}"
            f"{describe_openings(opening_plies)})")


def summarize(env: str, base_seed: int, games: int, specs: Sequence[str], records: list[dict],
              opening_plies: int = 0, known: Report | None = None) -> LeagueResult:
    """The league's tables from its records (every pair's games, a as the first spec
    named) and the pairs of the ``known`` report. A spec's times a move are those of its
    games in the records, or the report's when it played none of them."""
    known_pairs = {(a, b): pair for a, b in pairings(specs)
                   if known is not None and (pair := known.pair(a, b)) is not None}
    by_pair: dict[tuple[str, str], list[dict]] = {pair: [] for pair in pairings(specs) if pair not in known_pairs}
    for record in records:
        by_pair[(record["a"], record["b"])].append(record)
    played = {(a, b): PairResult(a, b, len(rs), sum(r["winner"] == "a" for r in rs),
                                 sum(r["winner"] == "b" for r in rs), sum(r["winner"] is None for r in rs),
                                 sum(r["forfeit"] is not None for r in rs))
              for (a, b), rs in by_pair.items()}
    pairs = tuple({**known_pairs, **played}[pair] for pair in pairings(specs))
    # the ratings read each pair's outcomes alone: a known pair's totals are all they need
    scores = {(p.a, p.b): [1.0] * p.a_wins + [0.0] * p.b_wins + [0.5] * p.draws for p in pairs}
    times: dict[str, list[float]] = {spec: [] for spec in specs}
    for record in records:
        for label in ("a", "b"):
            times[record[label]].extend(record["decision_seconds"][label])

    def figure(spec: str, measure: Callable[[list[float]], float], reported: str) -> float:
        if times[spec]:
            return 1000 * measure(times[spec])
        return getattr(known, reported).get(spec, math.nan) if known is not None else math.nan

    ms = {spec: figure(spec, lambda t: sum(t) / len(t), "ms_per_move") for spec in specs}
    longest = {spec: figure(spec, max, "ms_longest") for spec in specs}
    p99 = {spec: figure(spec, lambda t: sorted(t)[math.ceil(0.99 * len(t)) - 1], "ms_p99") for spec in specs}
    return LeagueResult(env, base_seed, games, tuple(specs), pairs, tuple(ratings(scores)), ms, longest, p99,
                        opening_plies)


def _starts(result: LeagueResult) -> str:
    if result.opening_plies:
        return f"seats alternating on random openings of {result.opening_plies} plies"
    return "seats alternating"


def format_text(result: LeagueResult) -> str:
    """Ratings, then the win-rate matrix (row's wins against column), then each pair."""
    order = [r.name for r in result.ratings]
    number = {spec: i + 1 for i, spec in enumerate(order)}
    width = max(len(spec) for spec in order) + 5
    lines = [f"{result.env}: {len(result.specs)} agents, {result.games_per_pair} games a pair, {_starts(result)}, "
             f"seed {result.base_seed}", "",
             f"{'agent':<{width}} {'rating (95% CI)':>22} {'score':>6} {'games':>6} {'ms/move':>9} "
             f"{'p99 ms':>8} {'max ms':>8}"]
    for rating in result.ratings:
        label = f"{number[rating.name]:>2}. {rating.name}"
        interval = f"{rating.elo:+.0f} ({rating.low:+.0f}..{rating.high:+.0f})"
        lines.append(f"{label:<{width}} {interval:>22} {rating.score:>6.3f} {rating.games:>6} "
                     f"{result.ms_per_move[rating.name]:>9.2f} {result.ms_p99[rating.name]:>8.1f} "
                     f"{result.ms_longest[rating.name]:>8.1f}")
    lines += ["", "win rate of the row against the column (95% CI); draws are neither",
              f"{'':>4}" + "".join(f"{n:>20}" for n in range(1, len(order) + 1))]
    for row in order:
        cells = []
        for column in order:
            if row == column:
                cells.append(f"{'-':>20}")
            else:
                rate, low, high = result.pair(row, column).win_rate(row)
                cells.append(f"{rate:.2f} ({low:.2f}..{high:.2f})".rjust(20))
        lines.append(f"{number[row]:>3}." + "".join(cells))
    lines += ["", f"{'pair':<{2 * width}} {'W/D/L':>13} {'draws':>6}"]
    for p in result.pairs:
        pair = f"{number[p.a]}. {p.a} vs {number[p.b]}. {p.b}"
        lines.append(f"{pair:<{2 * width}} {f'{p.a_wins}/{p.draws}/{p.b_wins}':>13} "
                     f"{p.draws / p.games if p.games else math.nan:>6.3f}"
                     + (f"  ({p.forfeits} forfeits)" if p.forfeits else ""))
    return "\n".join(lines)


def format_markdown(result: LeagueResult) -> str:
    """The ratings and the win-rate matrix as Markdown tables (for a README or a report):
    each agent's rating with its interval, score, draw rate and time per move (mean, 99th
    percentile, longest), then the row's win rate against each column with its 95 % interval."""
    order = [r.name for r in result.ratings]
    number = {spec: i + 1 for i, spec in enumerate(order)}
    lines = [f"`{result.env}`, {result.games_per_pair} games a pair, {_starts(result)}, seed {result.base_seed}",
             "", "| # | agent | rating (95% CI) | score | draws | games | ms/move | p99 ms | longest ms |",
             "|---|---|---|---|---|---|---|---|---|"]
    for rating in result.ratings:
        drawn = sum(p.draws for p in result.pairs if rating.name in (p.a, p.b))
        interval = f"{rating.elo:+.0f} ({rating.low:+.0f}..{rating.high:+.0f})"
        draw_rate = drawn / rating.games if rating.games else math.nan
        lines.append(f"| {number[rating.name]} | `{rating.name}` | {interval} | {rating.score:.3f} | {draw_rate:.3f}"
                     f" | {rating.games} | {result.ms_per_move[rating.name]:.1f}"
                     f" | {result.ms_p99[rating.name]:.0f} | {result.ms_longest[rating.name]:.0f} |")
    lines += ["", "Win rate of the row against the column (95% interval); a draw is neither.", "",
              "| | " + " | ".join(str(n) for n in range(1, len(order) + 1)) + " |",
              "|---" * (len(order) + 1) + "|"]
    for row in order:
        cells = []
        for column in order:
            if row == column:
                cells.append("-")
            else:
                rate, low, high = result.pair(row, column).win_rate(row)
                cells.append(f"{rate:.2f} ({low:.2f}..{high:.2f})")
        lines.append(f"| **{number[row]}** | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_json(result: LeagueResult) -> str:
    """One JSON document; a figure with no value (the time a move of an agent that never
    moved) is ``null``, as in ``arena --json``: JSON has no NaN."""
    return json.dumps(_defined(result.as_json()), allow_nan=False)


def _defined(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _defined(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_defined(item) for item in value]
    return value


def check_plot(path: str):
    """matplotlib's pyplot, once ``path`` is known to be writable (a CLI checks this before
    the games, so a bad --plot does not wait for the end of a long run)."""
    check_writable_path(path)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SpecError(f"league: --plot needs matplotlib: {install_hint('plot')}") from None
    return plt


def _short(spec: str, width: int = 40) -> str:
    """A spec cut to fit a plot's axis (the text and Markdown reports keep it whole)."""
    return spec if len(spec) <= width else spec[: width - 1] + "…"


def plot(result: LeagueResult, path: str) -> None:
    """Ratings with their intervals beside the win-rate matrix, as a PNG (the plot extra)."""
    plt = check_plot(path)
    order = [r.name for r in result.ratings]
    k = len(order)
    figure, (left, right) = plt.subplots(1, 2, figsize=(7 + 0.7 * k, 2 + 0.5 * k),
                                         gridspec_kw={"width_ratios": [1, 1.3]})
    positions = list(range(k))[::-1]
    elo = [r.elo for r in result.ratings]
    below = [r.elo - r.low for r in result.ratings]
    above = [r.high - r.elo for r in result.ratings]
    left.errorbar(elo, positions, xerr=[below, above], fmt="o", capsize=3)
    left.set_yticks(positions, [f"{i + 1}. {_short(name)}" for i, name in enumerate(order)], fontsize=8)
    left.set_xlabel("Bradley-Terry rating (Elo scale, 95% CI)")
    left.grid(axis="x", alpha=0.3)
    # percentages: two decimals do not fit a cell once the league is large
    matrix = [[math.nan if r == c else 100 * result.pair(r, c).win_rate(r)[0] for c in order]
              for r in order]
    image = right.imshow(matrix, vmin=0, vmax=100, cmap="RdYlGn")
    right.set_xticks(range(k), [str(i + 1) for i in range(k)])
    right.set_yticks(range(k), [str(i + 1) for i in range(k)])
    for i in range(k):
        for j in range(k):
            if i != j:
                right.text(j, i, f"{matrix[i][j]:.0f}", ha="center", va="center", fontsize=7)
    right.set_title("win rate of row vs column (%)", fontsize=9)
    figure.colorbar(image, ax=right, fraction=0.046)
    figure.suptitle(f"{result.env}: {result.games_per_pair} games a pair", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
