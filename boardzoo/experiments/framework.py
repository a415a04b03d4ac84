"""What every experiment shares: jobs of arena games, a resumable run into a folder,
executors (local processes or Ray), and the report with its plots.

An :class:`Experiment` lists its *jobs* — each a match of two agent specs on an env spec
for some number of games from a base seed — and turns their game records into a report.
A game depends only on (job, game number), so a run gives the same records serially,
with local workers or on Ray, and an interrupted run resumes where it stopped.

Output folder: ``games.jsonl`` (one record per game, streamed as games finish, each with
its ``job``), ``run.json`` (the configuration, checked on ``--resume``, with the command
that reproduces the run and, for every session that played its games, the code, the
machine and its load), ``report.md`` (ending with that provenance) and the plots (PNG;
only with matplotlib, the ``plot`` extra).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from boardzoo import __version__, arena, envs
from boardzoo.agents import AGENTS
from boardzoo.errors import BoardzooError, WorkerError
from boardzoo.ledger import Ledger, other_run, write_atomic
from boardzoo.progress import ProgressBar
from boardzoo.spec import parameters
from boardzoo.stats import require_tests
from boardzoo.strategy.engine import choose_engine
from boardzoo.values import whole
from boardzoo.workers import MAX_WORKERS, run_on_ray, run_parallel


class ExperimentError(BoardzooError):
    """An experiment cannot run as asked (bad name, size, output folder, executor)."""


@dataclass(frozen=True)
class Job:
    """``games`` arena games of agent ``a`` against agent ``b`` on ``env``; seats alternate
    unless ``a_first``."""

    key: str
    env: str
    a: str
    b: str
    games: int
    seed: int = 0
    #: ``f(model, agent) -> dict | None`` after every decision (a module-level function).
    probe: Callable | None = field(default=None, compare=False)
    #: Agent a moves first in every game (else seats alternate).
    a_first: bool = False

    def describe(self) -> dict:
        data = asdict(self)
        data["probe"] = None if self.probe is None else f"{self.probe.__module__}.{self.probe.__qualname__}"
        if not self.a_first:  # as runs made before the option describe their jobs, so they resume
            del data["a_first"]
        return data


#: What alternating seats does to a study whose document drew the first player at random.
SEATS_EFFECT = ("the same expected share (each seat played equally often, as random draws give on average), "
                "without the chance imbalance of seats, which only adds variance: no effect on what is estimated")


@dataclass
class Report:
    """Markdown text, plus plots: ``{file name: f(path)}`` drawn when matplotlib is there."""

    markdown: str
    plots: Mapping[str, Callable[[str], None]] = field(default_factory=dict)


#: The source documents the studies re-run, as far as the documents say who wrote them
#: and when (none was published beyond its course or project; no link is known).
SOURCES = {
    "000": "Maksym Telepchuk, \"Implementacja Monte Carlo Search Tree dla gry Nim\" (MCTS for the game of Nim), "
           "course report, Wybrane zagadnienia sztucznej inteligencji, assignment 1, April 2020; in Polish",
    "001": "\"Cantris. Search Strategy: MCTS\", a project write-up without author or date; in Chinese",
    "002": "\"Algorytmy rozwiązywania gier o sumie zerowej\" (algorithms for zero-sum games), lab report of "
           "exercise 3, Sztuczna Inteligencja i Inżynieria Wiedzy; no author or date given; in Polish",
    "003": "Patryk Fijałkowski and Mateusz Burczaniuk, \"Zastosowanie algorytmu UCT do stworzenia sztucznej "
           "inteligencji grającej w Connect4\" (UCT for a Connect Four player), final project report, "
           "15 June 2020; in Polish",
    "004": "\"モンテカルロ木探索 設計仕様書\" (MCTS design specification, after the book AlphaGo Kaitai Shinsho), a "
           "design note without author or date; in Japanese",
}


#: Where the default runs' times were measured (``experiment list`` says so under its list).
TIMES_MEASURED_ON = ("a 2-core x86-64 Linux machine, Python 3.11, with the default --workers 1 while other work "
                     "used the second core")


def citation(source: str) -> str:
    """The citation of an experiment's ``source`` ("source 002 (Polish): ...")."""
    number = source.split()[1] if source.startswith("source ") else ""
    return SOURCES.get(number, "")


class Experiment:
    """One study of a source document; subclasses fill in the class attributes, ``jobs``
    and ``report``."""

    name = ""
    source = ""  # the source document
    compares = ""  # one line: what it compares
    default_size = ""  # what the default run plays
    full_size = ""  # what --full plays (the published sizes)
    expected_time = ""  # the default run, measured on the machine of TIMES_MEASURED_ON
    full_time = ""  # --full on 2 cores, measured or estimated (by engine)

    def jobs(self, games: int | None, full: bool) -> list[Job]:
        raise NotImplementedError

    def report(self, results: dict[str, list[dict]], jobs: list[Job]) -> Report:
        raise NotImplementedError


def job_seed(key: str) -> int:
    """A base seed of a job's own, so that no two jobs share their openings."""
    return zlib.crc32(key.encode())


def with_engine(spec: str, engine: str) -> str:
    """``spec`` with ``engine=...`` added when its agent has an engine and the spec names
    none (``auto`` is every agent's default, so it adds nothing)."""
    name, _, options = spec.partition(":")
    agent = AGENTS.get(name.strip())
    if engine == "auto" or agent is None or "engine" not in parameters(agent) or "engine=" in options:
        return spec
    return f"{spec},engine={engine}" if options else f"{name.strip()}:engine={engine}"


# --- executors ------------------------------------------------------------------------------
def play_task(task: tuple) -> dict[str, Any]:
    """One game of one job (runs in any worker: a process or a Ray task)."""
    job, game, isolate = task
    record = arena.play_cached(job.env, job.a, job.b, game, job.seed, isolate, job.probe, job.a_first)
    record["job"] = job.key
    return record


def _local(tasks: list[tuple], workers: int, address: str | None) -> Iterator[dict]:
    if workers <= 1 or len(tasks) <= 1:
        try:
            for task in tasks:
                yield play_task(task)
        finally:
            arena.release_cached()
        return
    yield from run_parallel(play_task, tasks, min(workers, len(tasks)))


def _ray(tasks: list[tuple], workers: int, address: str | None) -> Iterator[dict]:
    # Without an address, RAY_ADDRESS (Ray's usual setting) joins a cluster; unset, Ray starts here.
    yield from run_on_ray(play_task, tasks, address or os.environ.get("RAY_ADDRESS") or "local", workers)


EXECUTORS = {"local": _local, "ray": _ray}


# --- provenance -----------------------------------------------------------------------------
def reproducing_command(experiment: Experiment, games: int | None, full: bool, engine: str) -> str:
    """The command that plays the same games (workers, executor and isolation change how
    fast they are played, never which)."""
    return " ".join(["boardzoo experiment run", experiment.name] + (["--full"] if full else [])
                    + ([f"--games {games}"] if games is not None else [])
                    + ([f"--engine {engine}"] if engine != "auto" else []))


def code_version() -> str:
    """This code: its git commit (and whether the checkout has changes) when it runs from
    boardzoo's own checkout, else the package's version."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.isdir(os.path.join(root, ".git")) and os.path.isfile(os.path.join(root, "pyproject.toml")):
        try:
            commit = subprocess.run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                                    text=True, timeout=20, check=True).stdout.strip()
            changed = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                                     capture_output=True, text=True, timeout=20, check=True).stdout.strip()
            return f"commit {commit}" + (" with local changes" if changed else "")
        except (OSError, subprocess.SubprocessError):
            pass
    return f"boardzoo {__version__}"


def session_record(workers: int, executor: str) -> dict[str, Any]:
    """Who played a session's games: the code, when, the machine and how loaded it was
    (timings in a report are this machine's, at this load)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"code": code_version(), "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
            "machine": f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores",
            "load": None if load is None else round(load, 2), "workers": workers, "executor": executor}


def provenance(config: Mapping[str, Any]) -> list[str]:
    """The report's closing section: the command, and what played the games."""
    lines = ["## How this report was made", "", f"Command: `{config.get('command', 'not recorded')}`", ""]
    sessions = [s for s in config.get("sessions", []) if isinstance(s, dict)]
    for session in sessions:
        load, played = session.get("load"), session.get("played")
        lines.append(("- ?" if not isinstance(played, int) else f"- {played:,}")
                     + f" games played on {session.get('date')} by {session.get('code')}: {session.get('machine')}, "
                       f"{session.get('workers')} worker(s) ({session.get('executor')}), load average "
                     + ("not known" if load is None else f"{load:g}") + " at the start")
    if not sessions:
        lines.append("- no record of the sessions that played the games (a run from before they were recorded)")
    lines += [f"- report written by {code_version()}", ""]
    return lines


# --- running ------------------------------------------------------------------------------
def check_size(games: int | None) -> None:
    if games is not None:
        whole("--games", games, 1, arena.MAX_GAMES, error=ExperimentError)


#: Probes that moved to another module since runs were written: old path -> new, so
#: that those runs still resume.
MOVED_PROBES = {
    "boardzoo.experiments.connect_four.depth_probe": "boardzoo.experiments.connect_four_minimax.depth_probe",
}


def _moved(jobs: Any) -> Any:
    """A run's jobs as written, each moved probe named by its path today."""
    if not isinstance(jobs, list):
        return jobs
    return [{**job, "probe": MOVED_PROBES.get(job["probe"], job["probe"])}
            if isinstance(job, dict) and isinstance(job.get("probe"), str) else job for job in jobs]


def _read_config(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(1_000_000)
        config = json.loads(text)
    except OSError as error:
        raise ExperimentError(f"cannot read {path}: {error.strerror or error}") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ExperimentError(f"{path} is not a boardzoo run description (not JSON"
                              + (", the file is empty" if not text.strip() else "")
                              + "); move it away to resume from games.jsonl alone") from None
    if not isinstance(config, dict) or "experiment" not in config or not isinstance(config.get("jobs"), list):
        raise ExperimentError(f"{path} is not a boardzoo run description (no experiment and jobs); "
                              "move it away to resume from games.jsonl alone")
    return config


def _grown_into(old: Any, new: dict[str, Any]) -> bool:
    """Whether job ``old`` (a run's description of it) is ``new``, or ``new`` with fewer games."""
    if old == new:
        return True
    if not isinstance(old, dict) or set(old) != set(new) or not isinstance(old.get("games"), int):
        return False
    return all(old[key] == new[key] for key in new if key != "games") and old["games"] <= new["games"]


def open_ledger(path: str, jobs: list[Job]) -> Ledger:
    """The experiment's ``games.jsonl``, opened for appending: every record in it must be
    a game of one of ``jobs`` (same env, agents and seed), or the run is refused."""
    by_key = {job.key: job for job in jobs}

    def check(record: dict) -> str | None:
        key = record.get("job")
        job = by_key.get(key) if isinstance(key, str) else None
        if job is None:
            return (f"game of job {record.get('job')!r}, which this configuration does not have "
                    "(another experiment or other options)")
        problem = other_run(record, job.env, job.a, job.b, job.seed)
        return None if problem is None else f"job {job.key!r}: {problem} (other options)"

    return Ledger(path, key=lambda record: (record.get("job"), record["game"]), check=check)


def run(experiment: Experiment, out: str, games: int | None = None, full: bool = False, workers: int = 1,
        executor: str = "local", resume: bool = False, progress: bool | None = None, isolate: bool = False,
        engine: str = "auto",
        log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
        ray: str | None = None) -> dict[str, list[dict]]:
    """Run (or resume) ``experiment`` into folder ``out``; write its report; return the
    records per job. ``ray``: the games are Ray tasks on the cluster at that address (the
    ``ray`` executor; see boardzoo.workers)."""
    if ray is not None:
        executor = "ray"
    require_tests()  # before the games, not after them
    check_size(games)
    whole("--workers", workers, 1, MAX_WORKERS, error=ExperimentError)
    try:
        choose_engine("--engine", engine, exact_twin=False)
    except ValueError as error:
        raise ExperimentError(str(error)) from None
    if executor not in EXECUTORS:
        raise ExperimentError(f"--executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    jobs = [replace(job, a=with_engine(job.a, engine), b=with_engine(job.b, engine))
            for job in experiment.jobs(games, full)]
    for job in jobs:  # fail on a bad spec now, not inside a worker
        arena.close_agents(arena.make_agents(job.a, job.b, envs.make(job.env)))
    described = [j.describe() for j in jobs]
    config: dict[str, Any] = {"experiment": experiment.name, "games": games, "full": full,
                              "command": reproducing_command(experiment, games, full, engine), "jobs": described}
    if os.path.exists(out) and not os.path.isdir(out):
        raise ExperimentError(f"--out {out} is a file, not a folder")
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as error:
        raise ExperimentError(f"cannot create the folder {out}: {error.strerror or error}") from None
    games_path, config_path = os.path.join(out, "games.jsonl"), os.path.join(out, "run.json")
    if (os.path.exists(games_path) or os.path.exists(config_path)) and not resume:
        raise ExperimentError(f"{out} already holds a run: add --resume to continue it, or choose another --out")
    added = 0
    if os.path.exists(config_path):
        previous = _read_config(config_path)
        kept = _moved(previous.get("jobs"))
        # A run whose experiment has since gained jobs (a deviation measured, a table added),
        # or whose jobs play more games (a larger design: the same games first, the same
        # seeds), resumes: its games stay, only the new ones are played. Any job changed
        # otherwise, or made smaller, is another run.
        if (previous.get("experiment") != config["experiment"] or not isinstance(kept, list)
                or any(not any(_grown_into(job, new) for new in described) for job in kept)):
            raise ExperimentError(f"{out} holds a different run ({previous.get('experiment')}, other jobs or "
                                  "sizes): resume it with the same options, or choose another --out")
        added = len(described) - len(kept)
        grown = sum(job not in described for job in kept)
        if grown:
            log(f"note: {grown} job(s) of this run play more games now; the games played stay, the rest are played")
        sessions = previous.get("sessions")
        config["sessions"] = [s for s in sessions if isinstance(s, dict)] if isinstance(sessions, list) else []
    with open_ledger(games_path, jobs) as ledger:
        if added:
            log(f"note: the experiment has {added} job(s) this run did not have; they are played now")
        for note in ledger.notes:
            log(f"note: {note}")
        done = dict(ledger.records)
        write_atomic(config_path, json.dumps(config, indent=1))
        tasks = [(job, g, isolate) for job in jobs for g in range(job.games) if (job.key, g) not in done]
        # This session's record, its count of games written when it ends ("?" in a report
        # if it never did: a run killed outright).
        session: dict[str, Any] | None = None
        if tasks:
            session = {**session_record(workers, executor), "played": None}
            config.setdefault("sessions", []).append(session)
            write_atomic(config_path, json.dumps(config, indent=1))
        total = sum(job.games for job in jobs)
        log(f"{experiment.name}: {total} games in {len(jobs)} jobs, {total - len(tasks)} already played, "
            f"{executor} executor, {workers} worker(s)" + (", agents isolated" if isolate else ""))
        bar = None if progress is False or not tasks else ProgressBar(
            total, experiment.name, "games", initial=total - len(tasks), interactive=progress)
        try:
            for record in EXECUTORS[executor](tasks, workers, ray):
                done[(record["job"], record["game"])] = record
                ledger.append(record)
                if session is not None:
                    session["played"] = (session["played"] or 0) + 1
                if bar:
                    bar.update(status=record["job"])
        except WorkerError as error:
            raise WorkerError(f"{error}; the games finished so far are in {games_path}: "
                              "add --resume to the same command to play the rest") from None
        finally:
            if bar:
                bar.close()
            if session is not None:
                write_atomic(config_path, json.dumps(config, indent=1))
    results = {job.key: [done[(job.key, g)] for g in range(job.games)] for job in jobs}
    write_report(experiment, results, jobs, out, log, config)
    return results


def write_report(experiment: Experiment, results: dict[str, list[dict]], jobs: list[Job], out: str,
                 log: Callable[[str], None], config: Mapping[str, Any] | None = None) -> str:
    report = experiment.report(results, jobs)
    text = report.markdown.rstrip("\n") + "\n\n" + "\n".join(provenance(config or {}))
    if report.plots:
        try:
            import matplotlib

            matplotlib.use("Agg")
        except ImportError:  # no links to pictures that were never drawn
            text = "\n".join(line for line in text.split("\n") if _linked_picture(line) not in report.plots)
            text += ("\n\n*Plots skipped: matplotlib is not installed (`pip install 'boardzoo[plot]'`); "
                     "the tables above hold the same figures.*\n")
        else:
            for name, draw in report.plots.items():
                draw(os.path.join(out, name))
    path = os.path.join(out, "report.md")
    write_atomic(path, text)
    log(f"report: {path}")
    return path


def _linked_picture(line: str) -> str | None:
    """The file a markdown line that is only a picture, ``![caption](file.png)``, shows."""
    line = line.strip()
    if line.startswith("![") and line.endswith(")") and "](" in line:
        return line[line.rindex("](") + 2:-1]
    return None


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
    keys = ("action", "iterations", "playouts", "convincity", "value", "path_mean", "path_median", "path_max",
            "leaf_depth_mean", "leaf_depth_median", "leaf_depth_max", "reused_tree", "seconds")
    found = {key: stats[key] for key in keys if key in stats}
    pawns = getattr(model, "pawns", None)  # Nim: the decision's pile
    if pawns is not None:
        found["n"] = pawns
    return found
