"""What every experiment shares: jobs of arena games, a resumable run into a folder,
executors (local processes or Ray), and the report with its plots.

An :class:`Experiment` lists its *jobs* — each a match of two agent specs on an env spec
for some number of games from a base seed — and turns their game records into a report.
A game depends only on (job, game number), so a run gives the same records serially,
with local workers or on Ray, and an interrupted run resumes where it stopped.

Output folder: ``games.jsonl`` (one record per game, streamed as games finish, each with
its ``job``), ``run.json`` (the configuration, checked on ``--resume``), ``report.md``
and the plots (PNG; only with matplotlib, the ``plot`` extra).
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterator

from boardzoo import arena
from boardzoo.agents import make as make_agent
from boardzoo.errors import BoardzooError


class ExperimentError(BoardzooError):
    """An experiment cannot run as asked (bad name, size, output folder, executor)."""


@dataclass(frozen=True)
class Job:
    """``games`` arena games of agent ``a`` against agent ``b`` on ``env``; seats alternate."""

    key: str
    env: str
    a: str
    b: str
    games: int
    seed: int = 0
    #: ``f(model, agent) -> dict | None`` after every decision (a module-level function).
    probe: Callable | None = field(default=None, compare=False)

    def describe(self) -> dict:
        data = asdict(self)
        data["probe"] = None if self.probe is None else f"{self.probe.__module__}.{self.probe.__qualname__}"
        return data


@dataclass
class Report:
    """Markdown text, plus plots: ``{file name: f(path)}`` drawn when matplotlib is there."""

    markdown: str
    plots: dict[str, Callable[[str], None]] = field(default_factory=dict)


class Experiment:
    """One study of a source document; subclasses fill in the class attributes, ``jobs``
    and ``report``."""

    name = ""
    source = ""  # the source document
    compares = ""  # one line: what it compares
    default_size = ""  # what the default run plays
    full_size = ""  # what --full plays (the published sizes)
    expected_time = ""  # default run on 2 cores

    def jobs(self, games: int | None, full: bool) -> list[Job]:
        raise NotImplementedError

    def report(self, results: dict[str, list[dict]], jobs: list[Job]) -> Report:
        raise NotImplementedError


# --- executors ------------------------------------------------------------------------------
def play_task(task: tuple[Job, int]) -> dict[str, Any]:
    """One game of one job (runs in any worker: a process or a Ray task)."""
    job, game = task
    record = arena.play_game(job.env, job.a, job.b, game, job.seed, probe=job.probe)
    record["job"] = job.key
    return record


def _local(tasks: list[tuple[Job, int]], workers: int) -> Iterator[dict]:
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield play_task(task)
        return
    import multiprocessing

    with multiprocessing.Pool(min(workers, len(tasks))) as pool:
        yield from pool.imap_unordered(play_task, tasks, chunksize=1)


def _ray(tasks: list[tuple[Job, int]], workers: int) -> Iterator[dict]:
    try:
        import ray
    except ImportError:
        raise ExperimentError("--executor ray needs Ray: pip install 'boardzoo[ray]'") from None
    if not ray.is_initialized():
        # RAY_ADDRESS (Ray's usual setting) joins an existing cluster; unset, a local one starts.
        ray.init(address=os.environ.get("RAY_ADDRESS") or None, include_dashboard=False,
                 log_to_driver=False, **({} if os.environ.get("RAY_ADDRESS") else {"num_cpus": workers}))
    remote = ray.remote(play_task)
    pending = [remote.remote(task) for task in tasks]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield ray.get(done[0])


EXECUTORS = {"local": _local, "ray": _ray}


# --- running ------------------------------------------------------------------------------
def check_size(games: int | None) -> None:
    if games is not None and (isinstance(games, bool) or not isinstance(games, int) or games < 1):
        raise ExperimentError(f"--games must be an int >= 1, got {games!r}")


def run(experiment: Experiment, out: str, games: int | None = None, full: bool = False, workers: int = 1,
        executor: str = "local", resume: bool = False, progress: bool | None = None,
        log: Callable[[str], None] = lambda line: print(line, file=sys.stderr)) -> dict[str, list[dict]]:
    """Run (or resume) ``experiment`` into folder ``out``; write its report; return the
    records per job."""
    check_size(games)
    if workers < 1:
        raise ExperimentError(f"--workers must be at least 1, got {workers}")
    if executor not in EXECUTORS:
        raise ExperimentError(f"--executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    jobs = experiment.jobs(games, full)
    for job in jobs:  # fail on a bad spec now, not inside a worker
        arena.make_env(job.env)
        make_agent(job.a), make_agent(job.b)
    config = {"experiment": experiment.name, "games": games, "full": full, "jobs": [j.describe() for j in jobs]}
    os.makedirs(out, exist_ok=True)
    games_path, config_path = os.path.join(out, "games.jsonl"), os.path.join(out, "run.json")
    done: dict[tuple[str, int], dict] = {}
    if os.path.exists(games_path) or os.path.exists(config_path):
        if not resume:
            raise ExperimentError(f"{out} already holds a run: add --resume to continue it, or choose another --out")
        if os.path.exists(config_path):
            with open(config_path, encoding="utf-8") as handle:
                previous = json.load(handle)
            if previous.get("experiment") != config["experiment"] or previous.get("jobs") != config["jobs"]:
                raise ExperimentError(f"{out} holds a different run ({previous.get('experiment')}, other jobs or "
                                      "sizes): resume it with the same options, or choose another --out")
        if os.path.exists(games_path):
            for record in arena.read_records(games_path):
                done[(record["job"], record["game"])] = record
            # drop a torn last line (an interrupted write) before appending
            arena.rewrite_complete(games_path, done.values(), key=lambda r: (r["job"], r["game"]))
    with open(config_path, "w", encoding="utf-8") as handle:
        json.dump(config, handle, indent=1)
    tasks = [(job, g) for job in jobs for g in range(job.games) if (job.key, g) not in done]
    total = sum(job.games for job in jobs)
    log(f"{experiment.name}: {total} games in {len(jobs)} jobs, {total - len(tasks)} already played, "
        f"{executor} executor, {workers} worker(s)")
    start = time.perf_counter()
    show = sys.stderr.isatty() if progress is None else progress
    with open(games_path, "a", encoding="utf-8") as sink:
        for count, record in enumerate(EXECUTORS[executor](tasks, workers), 1):
            done[(record["job"], record["game"])] = record
            sink.write(json.dumps(record) + "\n")
            sink.flush()
            if show:
                print(f"\r{count}/{len(tasks)} games  {time.perf_counter() - start:.0f}s", end="", file=sys.stderr)
    if show and tasks:
        print(file=sys.stderr)
    results = {job.key: [done[(job.key, g)] for g in range(job.games)] for job in jobs}
    write_report(experiment, results, jobs, out, log)
    return results


def write_report(experiment: Experiment, results: dict[str, list[dict]], jobs: list[Job], out: str,
                 log: Callable[[str], None]) -> str:
    report = experiment.report(results, jobs)
    text = report.markdown
    if report.plots:
        try:
            import matplotlib

            matplotlib.use("Agg")
        except ImportError:
            text += ("\n\n*Plots skipped: matplotlib is not installed (`pip install 'boardzoo[plot]'`); "
                     "the tables above hold the same figures.*\n")
        else:
            for name, draw in report.plots.items():
                draw(os.path.join(out, name))
    path = os.path.join(out, "report.md")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    log(f"report: {path}")
    return path


# --- helpers for reports ----------------------------------------------------------------------
def tally(records: list[dict], field: str = "winner", mine: str = "a", theirs: str = "b") -> tuple[int, int, int]:
    """(wins, ties, losses) of ``mine``: by default agent a's; ``field="winner_seat"``
    with ``mine="player_0"`` counts the first mover's."""
    wins = sum(r[field] == mine for r in records)
    losses = sum(r[field] == theirs for r in records)
    return wins, len(records) - wins - losses, losses


def sized(games: int | None, full: bool, default: int, published: int) -> int:
    """Games of a job: ``--games`` when given, the published size with ``--full``, else the default."""
    return games if games is not None else published if full else default


def search_probe(model, agent) -> dict | None:
    """The search statistics of a decision (MCTS and flat Monte Carlo), for experiments."""
    stats = agent.stats
    if "iterations" not in stats and "playouts" not in stats:
        return None
    keys = ("iterations", "playouts", "convincity", "value", "path_mean", "path_median", "path_max", "seconds")
    found = {key: stats[key] for key in keys if key in stats}
    pawns = getattr(model, "pawns", None)  # Nim: the decision's pile
    if pawns is not None:
        found["n"] = pawns
    return found
