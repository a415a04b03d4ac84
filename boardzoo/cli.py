"""The ``boardzoo`` command line: list, play, arena, solve, serve, geister-client, experiment, train.

The top-level ``--help`` shows :data:`EXAMPLES`."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import textwrap
import threading
import traceback
import warnings
from collections.abc import Iterator

from boardzoo import __version__, arena
from boardzoo.agents import catalogue
from boardzoo.envs import ENVS, parameters_text
from boardzoo.errors import BoardzooError, BoardzooWarning, PlayerQuit, SpecError, excerpt, install_hint
from boardzoo.games.registry import games
from boardzoo.progress import ProgressBar
from boardzoo.strategy.connect_four.solver import DEFAULT_MEMORY_MB, MEMORY_LIMIT_MB
from boardzoo.strategy.engine import ENGINES


def _list(args: argparse.Namespace) -> int:
    print("envs (ENV, optionally name:key=value,...):")
    for name, summary in ENVS.items():
        print(f"  {name:<18} {summary}\n  {'':<18} parameters: {parameters_text(name)}")
    print("\nagents (SPEC, optionally name:key=value,...):")
    for name, params, summary in catalogue():
        print(f"  {name:<18} {summary}" + (f"\n  {'':<18} parameters: {params}" if params else ""))
    return 0


#: What --ray means, the same for every command that takes it.
RAY_HELP = ("play the games as Ray tasks on the cluster at ADDRESS (host:port, ray://host:10001, 'auto' for the "
            "one on this machine) or 'local' (Ray started here with --workers CPUs); the ray extra")
OPENING_HELP = ("start each pair of games (seats swapped) from its own opening of N uniformly random plies, so "
                "that agents which break no ties at random play more than two distinct games (default 0)")


def _play(args: argparse.Namespace) -> int:
    from boardzoo.terminal import play_in_terminal

    play_in_terminal(args.env, args.agent_a, args.agent_b, args.seed, args.render, args.delay)
    return 0


def _arena(args: argparse.Namespace) -> int:
    records = arena.run(args.env, args.agent_a, args.agent_b, args.games, seed=args.seed,
                        workers=args.workers, out=args.out, isolate=args.isolate, ray=args.ray,
                        opening_plies=args.opening_plies)
    summary = arena.summarize(records)
    if args.json:
        print(json.dumps(summary, allow_nan=False))
    else:
        print(arena.format_summary(summary))
    return 0


def _league(args: argparse.Namespace) -> int:
    from boardzoo import league

    if args.plot:
        league.check_plot(args.plot)
    known = league.read_report(args.known) if args.known else None
    result = league.run(args.env, args.agents, args.games, seed=args.seed, workers=args.workers, out=args.out,
                        isolate=args.isolate, ray=args.ray, opening_plies=args.opening_plies, known=known)
    formats = {"json": league.format_json, "markdown": league.format_markdown, "text": league.format_text}
    print(formats[args.format](result))
    if args.plot:
        league.plot(result, args.plot)
        print(f"plot: {args.plot}", file=sys.stderr)
    return 0


def _solve(args: argparse.Namespace) -> int:
    from boardzoo.strategy.connect_four import make_solver
    from boardzoo.strategy.connect_four.lines import read_lines, solve_lines

    watch = _SolveProgress()
    try:
        solver = make_solver(args.engine, memory_mb=args.memory, timeout=args.timeout, progress=watch)
    except ValueError as error:
        raise SpecError(str(error)) from None
    lines = args.positions if args.positions else read_lines(sys.stdin)
    failures = 0
    for moves, score, problem in solve_lines(lines, solver):
        watch.clear()
        if problem is not None:
            failures += 1
            print(f"{moves} error: {problem}", flush=True)
        elif args.verbose:
            print(f"{moves} {score} nodes={solver.nodes} ms={solver.last_seconds * 1000:.3f}", flush=True)
        else:
            print(f"{moves} {score}", flush=True)
    return 1 if failures else 0


class _SolveProgress:
    """Nodes searched and the score's bounds while a position takes longer than a second
    (a status line on a terminal, wiped when the score prints; a line a minute in a log)."""

    def __init__(self) -> None:
        self.bar: ProgressBar | None = None

    def __call__(self, nodes: int, seconds: float, low: int, high: int) -> None:
        if seconds < 1.0:
            return
        if self.bar is None:
            self.bar = ProgressBar(None, "solving", "nodes", leave=False)
        self.bar.set(nodes, f"score in [{low}, {high}]")

    def clear(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _geister_client(args: argparse.Namespace) -> int:
    from boardzoo.geister_client import run

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    run(args.host, args.port, args.agent, args.games, red=args.red, seed=args.seed, max_turns=args.max_turns,
        retries=args.retries, timeout=args.timeout, out=lambda line: print(line, flush=True),
        log=log if args.verbose else (lambda line: None), results=args.out)
    return 0


def _experiment_list(args: argparse.Namespace) -> int:
    from boardzoo.experiments import EXPERIMENTS
    from boardzoo.experiments.framework import TIMES_MEASURED_ON, citation

    for experiment in EXPERIMENTS.values():
        print(f"{experiment.name}\n  source:   {experiment.source}\n  cites:    {citation(experiment.source)}\n"
              f"  compares: {experiment.compares}\n"
              f"  default:  {experiment.default_size} ({experiment.expected_time})\n"
              f"  --full:   {experiment.full_size}\n"
              + (f"  --full time: {experiment.full_time}\n" if experiment.full_time else ""))
    print(f"Times measured on {TIMES_MEASURED_ON}.")
    return 0


def _experiment_run(args: argparse.Namespace) -> int:
    from boardzoo.experiments import get, run

    experiment = get(args.name)
    out = args.out or f"runs/{experiment.name}"
    run(experiment, out, games=args.games, full=args.full, workers=args.workers, executor=args.executor,
        resume=args.resume, isolate=args.isolate, engine=args.engine, ray=args.ray)
    print(f"{out}/report.md")
    return 0


def _train(args: argparse.Namespace) -> int:
    learning = games()[args.game].learning if args.game in games() else None
    try:
        if learning is not None and learning.trainer == "hidden":
            from boardzoo.training.hidden.cli import train
        else:
            from boardzoo.training.alphazero.cli import train
    except ImportError as error:
        raise SpecError(f"training needs PyTorch and the fast extra: {install_hint('rl,fast')} ({error})") \
            from None
    try:
        return train(args)
    except ValueError as error:
        raise SpecError(str(error)) from None


def _exploit(args: argparse.Namespace) -> int:
    try:
        from boardzoo.training.exploiter import exploit
    except ImportError as error:
        raise SpecError(f"exploit needs PyTorch and sb3-contrib: {install_hint('rl')} ({error})") from None
    out = args.out or f"runs/exploit-{args.agent.replace(':', '-').replace(',', '-').replace('=', '')}"
    exploit(args.agent, args.env, out, args.hours, batch=args.batch, seed=args.seed, eval_games=args.eval_games)
    print(f"{out}/report.md")
    return 0


def _serve(args: argparse.Namespace) -> int:
    try:
        from boardzoo.web.app import serve
    except ImportError as error:
        raise SpecError(f"the browser UI needs the web extra: {install_hint('web')} ({error})") from None
    from boardzoo.web.app import check_serve_settings

    check_serve_settings(args.host, args.port, args.searches, args.move_seconds, args.allow_remote)
    serve(args.host, args.port, args.replays, args.searches, args.move_seconds, args.allow_remote)
    return 0


DESCRIPTION = textwrap.fill(
    f"Two-player board games ({', '.join(declared.title for declared in games().values())}) and the classic "
    "search agents (random, greedy, minimax, alpha-beta, MCTS in its variants), to play, pit against each other "
    "and study. Envs and agents are written as specs, name:key=value,... ; 'boardzoo list' shows every name and "
    "parameter.", 88)

EXAMPLES = """\
examples:
  boardzoo list                                          envs, agents and their parameters
  boardzoo play connect_four_v0 mcts alphabeta:depth=5 --render --delay 0.5
  boardzoo play geister_v0 human mcts:iterations=300,belief=behaviour
  boardzoo arena nim_v0 greedy random --games 1000 --workers 2 --out games.jsonl
  boardzoo league connect_four_v0 random greedy alphabeta:depth=4 --games 50 --out league.jsonl
  echo 4453 | boardzoo solve connect_four                exact score of a position
  boardzoo serve                                         play and watch in the browser (web extra)
  boardzoo experiment list                               the studies of the source documents
  boardzoo experiment run nim-mcts --workers 2 --out runs/nim
  boardzoo train connect_four --hours 2 --workers 2     self-play training, resumable (rl, fast)
  boardzoo exploit geister-expert --hours 6              a learner against one agent, resumable (rl)

Each command has its own help: boardzoo COMMAND --help. Exit status 0 on success, 2 on a
bad input (with a one-line message), 130 when interrupted (Ctrl-C), 143 when terminated
(SIGTERM)."""


def _seconds_to_wait(text: str) -> float:
    """``--delay``: a pause of 0 to 60 seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, a number from 0 to 60, got {text!r}") from None
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to 60, got {text}")
    return value


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="boardzoo", description=DESCRIPTION, epilog=EXAMPLES,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    main.add_argument("--version", action="version", version=f"boardzoo {__version__}")
    commands = main.add_subparsers(dest="command", required=True)

    commands.add_parser("list", help="envs and agents with their parameters").set_defaults(run=_list)

    play = commands.add_parser("play", help="one game shown in the terminal (human plays too)")
    play.add_argument("env", help="env spec, e.g. connect_four_v0 or nim_v0:n=21,coin=true")
    play.add_argument("agent_a", metavar="A", help="agent spec of player_0 (moves first)")
    play.add_argument("agent_b", metavar="B", help="agent spec of player_1")
    play.add_argument("--render", action="store_true", help="show the board after every move")
    play.add_argument("--delay", type=_seconds_to_wait, default=0.0, metavar="SECONDS",
                      help="pause after each move of a machine player, to follow the game (0 to 60; default 0)")
    play.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    play.set_defaults(run=_play)

    match = commands.add_parser("arena", help="many games, seats alternating, JSON lines out")
    match.add_argument("env", help="env spec")
    match.add_argument("agent_a", metavar="A", help="agent spec A (player_0 in even games)")
    match.add_argument("agent_b", metavar="B", help="agent spec B")
    match.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    match.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    match.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    match.add_argument("--out", help="JSON-lines file of game records; an existing one is resumed")
    match.add_argument("--opening-plies", type=int, default=0, metavar="N", help=OPENING_HELP)
    match.add_argument("--ray", metavar="ADDRESS", help=RAY_HELP)
    match.add_argument("--isolate", action="store_true",
                       help="run each agent in a process of its own that sees only its observation and model "
                            "(for agent code you do not trust; slower)")
    match.add_argument("--json", action="store_true",
                       help="print the summary as one JSON object (games, a_wins, b_wins, ties, ...)")
    match.set_defaults(run=_arena)

    league = commands.add_parser(
        "league", help="a round robin among agents, with ratings and a win-rate matrix",
        description="Every pair of agents plays --games games, seats alternating, each pair exactly as "
                    "'boardzoo arena ENV A B' would play it from the same seed. Prints Bradley-Terry ratings "
                    "(Elo scale) with 95% intervals, the win-rate matrix with 95% intervals, draw rates and "
                    "each agent's time per move. With --out the games go to a results file (arena records) "
                    "that the same command resumes, and that a league with more agents extends.")
    league.add_argument("env", help="env spec")
    league.add_argument("agents", metavar="AGENT", nargs="+", help="two or more agent specs")
    league.add_argument("--games", type=int, default=20, help="games per pair (default 20)")
    league.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    league.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    league.add_argument("--out", help="JSON-lines file of game records; an existing one is resumed")
    league.add_argument("--opening-plies", type=int, default=0, metavar="N", help=OPENING_HELP)
    league.add_argument("--ray", metavar="ADDRESS", help=RAY_HELP)
    league.add_argument("--isolate", action="store_true", help="run each agent in a process of its own")
    league.add_argument("--known", metavar="REPORT",
                        help="a league's report (what --json prints) whose pairs are taken as played: a "
                             "published league extended by new agents without its results file")
    shown = league.add_mutually_exclusive_group()
    shown.add_argument("--json", dest="format", action="store_const", const="json", default="text",
                       help="print the tables as one JSON object")
    shown.add_argument("--markdown", dest="format", action="store_const", const="markdown",
                       help="print the ratings and the win-rate matrix as Markdown tables")
    league.add_argument("--plot", metavar="PNG", help="also draw the ratings and the matrix (plot extra)")
    league.set_defaults(run=_league)

    solve = commands.add_parser(
        "solve", help="exact scores of Connect Four positions (moves as 1-based column digits)",
        description="Prints 'MOVES SCORE' per position: from the side to move, 0 a draw, "
                    "22 - d for a win with its d-th disc, -(22 - d) for a loss to the opponent's "
                    "d-th disc. Positions come from the arguments or from stdin, one per line "
                    "(further fields on a line are ignored). A bad position prints "
                    "'MOVES error: ...'; the exit status is then 1.")
    solve.add_argument("game", choices=["connect_four", "connect_four_v0"], help="the game (connect_four)")
    solve.add_argument("positions", nargs="*", help="positions to solve (default: read stdin)")
    solve.add_argument("--verbose", action="store_true", help="also print nodes searched and milliseconds")
    solve.add_argument("--memory", type=float, default=DEFAULT_MEMORY_MB, metavar="MB",
                       help=f"memory for the solver's tables, 1 to {MEMORY_LIMIT_MB} (default {DEFAULT_MEMORY_MB}; "
                            "more can be faster on hard positions)")
    solve.add_argument("--timeout", type=float, metavar="SECONDS",
                       help="give up on a position after this long (it prints an error; the batch goes on)")
    solve.add_argument("--engine", choices=ENGINES, default="auto",
                       help="compiled (the fast extra) or python; auto (default) takes compiled when installed. "
                            "The scores are exact on either")
    solve.set_defaults(run=_solve)

    client = commands.add_parser(
        "geister-client", help="play Geister on a tournament server (one game per connection)",
        description="Connects to the seat that PORT serves (usually 10000 = first mover, 10001 = second), "
                    "plays GAMES games with AGENT and prints one line per game: won, lost or draw. "
                    "The games are one match: after each, the agent is told the final board (an agent "
                    "that learns its opponent, such as the default, reads the next game with it). "
                    "Exit status 0 when every game completed, 2 on NG, a dropped connection, a malformed "
                    "line or a server that keeps refusing connections.")
    client.add_argument("--host", default="localhost", help="server host (default localhost)")
    client.add_argument("--port", type=int, default=10000, help="server port (default 10000)")
    client.add_argument("--agent", default="geister-expert",
                        help="agent spec (default: geister-expert, boardzoo's strongest against outside "
                             "Geister programs)")
    client.add_argument("--games", type=int, default=1, help="games to play (default 1)")
    client.add_argument("--red", help="the 4 red ghosts, e.g. ABCD (default: the agent chooses)")
    client.add_argument("--seed", type=int, default=None, help="agent seed (default: random)")
    client.add_argument("--max-turns", type=int, default=300, help="the server's ply limit (default 300)")
    client.add_argument("--retries", type=int, default=8,
                        help="connection attempts after the first, with back-off 0.2 s doubling to 5 s (default 8)")
    client.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the server (default 60)")
    client.add_argument("--out", help="results file (JSON lines): each game is appended as it ends, as an arena "
                                      "record with both seats' moves (boardzoo serve replays it); an existing "
                                      "file gets the new games after its own")
    client.add_argument("--verbose", action="store_true", help="log every line sent and received to stderr")
    client.set_defaults(run=_geister_client)

    train = commands.add_parser(
        "train", help="self-play training of a network for the alphazero or network agent (rl, fast extras)",
        description="Trains a policy-value network by self-play in a run directory; run the same command again to "
                    "resume after an interruption. A game of perfect information learns by Gumbel AlphaZero on the "
                    "compiled engine: the network is RUN/weights/averaged.npz (the moving average of the "
                    "generations' networks; the newest alone is RUN/weights/latest.npz), played by "
                    "alphazero:weights=FILE. A game with hidden information (Geister) learns by a regularised "
                    "self-play policy gradient over each seat's information state, against a league of itself, its "
                    "past selves and roll-out policies: the network is RUN/weights/latest.npz, played by "
                    "network:weights=FILE.")
    learned = {name: each.learning.generations for name, each in games().items()
               if each.learning is not None and each.learning.trainer == "alphazero"}
    hidden = [name for name, each in games().items() if each.learning is not None and each.learning.trainer == "hidden"]
    train.add_argument("game", help=f"{', '.join([*learned, *hidden])} (the preset of that game; "
                                    f"{', '.join(hidden)} by the hidden-information trainer)")
    train.add_argument("--run", dest="run_dir", metavar="DIR", help="run directory (default runs/train-GAME)")
    train.add_argument("--env", metavar="SPEC",
                       help="a game with hidden information: the env and its parameters for a new run (a member of "
                            "the family, e.g. geister_v0:rows=3,cols=4,blue=1,red=1,max_turns=6,placement=dealt)")
    train.add_argument("--generations", type=int,
                       help="stop when the run has this many generations (iterations of the hidden-information "
                            "trainer, which needs a stop said) (default, when no --hours or --run-hours "
                            "is given: the shipped network's, "
                            + ", ".join(f"{n} for {name}" for name, n in sorted(learned.items(), key=lambda x: x[1]))
                            + ")")
    train.add_argument("--hours", type=float, help="stop after this many hours of this call (checked between phases)")
    train.add_argument("--run-hours", type=float, metavar="H",
                       help="the run's budget across all its calls: stop before a generation that would take the "
                            "run's own hours (self-play and learning) past H")
    train.add_argument("--workers", type=int, default=1, help="self-play and evaluation processes (or Ray CPUs)")
    train.add_argument("--ray", metavar="ADDRESS", help=RAY_HELP.replace("play the games", "run self-play"))
    train.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                       help="change one setting of the preset (repeatable; see docs/tutorials/alphazero.md)")
    train.add_argument("--branch-from", metavar="DIR",
                       help="start --run as a copy of the run in DIR where it is now, with --set's settings changed "
                            "(an ablation from the same network; DIR is only read); once made, resumed as any run")
    train.set_defaults(run=_train)

    exploiter = commands.add_parser(
        "exploit", help="train a learner against one agent: a lower bound of its exploitability (rl extra)",
        description="Trains a policy by reinforcement learning (MaskablePPO) against the frozen AGENT, then plays it "
                    "against the agent: its mean payoff, over both seats, is a lower bound of the agent's "
                    "exploitability. Run the same command again to resume; --hours is the run's budget over all "
                    "its calls.")
    exploiter.add_argument("agent", help="the agent exploited (a spec, e.g. geister-expert or mcts:iterations=200)")
    exploiter.add_argument("--env", default="geister_v0", help="the env (default geister_v0)")
    exploiter.add_argument("--hours", type=float, required=True, help="the run's training budget, in hours")
    exploiter.add_argument("--out", help="run directory (default runs/exploit-AGENT)")
    exploiter.add_argument("--batch", type=int, default=32, help="games learned from at once (default 32)")
    exploiter.add_argument("--eval-games", type=int, default=400, help="games of the evaluation (default 400)")
    exploiter.add_argument("--seed", type=int, default=0)
    exploiter.set_defaults(run=_exploit)

    web = commands.add_parser(
        "serve", help="the browser UI: play, watch arena runs, replay results files, look inside the search",
        description="Serves the UI at http://HOST:PORT/ (the web extra: pip install 'boardzoo[web]'). It listens "
                    "on 127.0.0.1 unless told otherwise, and reads results files for replay only from under the "
                    "--replays folder.")
    web.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    web.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, this machine only)")
    web.add_argument("--replays", default=".", metavar="FOLDER",
                     help="the folder whose results files (.jsonl) the Replay tab may open (default: here)")
    web.add_argument("--searches", type=int, default=2, metavar="N",
                     help="searches that run at once, each in a process of its own (default 2; more wait, up "
                          "to 8, and beyond that a request is told the server is busy)")
    web.add_argument("--move-seconds", type=float, default=10.0, metavar="S",
                     help="the longest an agent may think about one move, whatever its spec says (default 10, "
                          "at most 120); a move past it ends the search and loses the game")
    web.add_argument("--allow-remote", action="store_true",
                     help="let --host be an address other machines can reach (the server then plays and reads "
                          "results files for anyone who can reach it)")
    web.set_defaults(run=_serve)

    experiment = commands.add_parser("experiment", help="re-run the studies of the source documents")
    steps = experiment.add_subparsers(dest="step", required=True)
    steps.add_parser("list", help="the experiments, their sources, sizes and run times").set_defaults(
        run=_experiment_list)
    go = steps.add_parser("run", help="run one experiment and write its report",
                          description="Plays the experiment's games (streamed to OUT/games.jsonl), then writes "
                                      "OUT/report.md with our figures beside the published ones, and plots "
                                      "when matplotlib is installed.")
    go.add_argument("name", help="experiment name (see 'boardzoo experiment list')")
    go.add_argument("--games", type=int, help="games per match instead of the default size")
    go.add_argument("--full", action="store_true", help="the published sizes (slow: hours for some)")
    go.add_argument("--workers", type=int, default=1, help="parallel games (processes, or Ray CPUs)")
    go.add_argument("--executor", choices=["local", "ray"], default="local",
                    help="local processes (default) or Ray tasks (RAY_ADDRESS joins a cluster)")
    go.add_argument("--ray", metavar="ADDRESS", help=RAY_HELP + " (implies --executor ray)")
    go.add_argument("--out", help="output folder (default runs/NAME)")
    go.add_argument("--resume", action="store_true", help="continue the run in --out, playing only missing games")
    go.add_argument("--isolate", action="store_true", help="run each agent in a process of its own (see arena)")
    go.add_argument("--engine", choices=ENGINES, default="auto",
                    help="the agents' engine: auto (default: each agent's own, the reference python for MCTS), "
                         "python, or compiled (the fast extra)")
    go.set_defaults(run=_experiment_run)
    return main


def _one_line_warnings(command: str) -> None:
    """boardzoo's warnings as one line each on the command line (the default shows the
    file and the source line that raised them, which say nothing to a user)."""
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if issubclass(category, BoardzooWarning):
            print(f"boardzoo {command}: warning: {message}", file=sys.stderr if file is None else file)
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show


class Terminated(BaseException):
    """SIGTERM arrived: the polite stop that ``kill``, service managers and batch queues
    send. A BaseException, as KeyboardInterrupt is, so that no ``except Exception`` on the
    way up swallows it."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated


@contextlib.contextmanager
def _terminated_as_an_exception() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` for the command's run, so that it unwinds as
    Ctrl-C does: worker processes stopped, files closed, the run resumable, no traceback
    and no leaked-semaphore warnings (the default action ends the process where it
    stands). Only the main thread may set a signal handler; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    command_line = parser()
    args, extra = command_line.parse_known_args(argv)
    if extra:
        # argparse stops filling ``solve``'s positions at the first option: take the rest too.
        if args.command == "solve" and not any(item.startswith("-") for item in extra):
            args.positions = [*args.positions, *extra]
        else:
            command_line.error(f"unrecognized arguments: {' '.join(extra)}")
    _one_line_warnings(args.command)
    try:
        with _terminated_as_an_exception():
            return args.run(args)
    except PlayerQuit as left:
        print(f"boardzoo {args.command}: {left}", file=sys.stderr)
        return 0
    except BoardzooError as error:
        print(f"boardzoo {args.command}: error: {excerpt(str(error), 2000)}", file=sys.stderr)
        return error.exit_status
    except EOFError:
        print(f"boardzoo {args.command}: error: the input ended", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\nboardzoo {args.command}: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print(f"\nboardzoo {args.command}: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except BrokenPipeError:
        # Whoever read our output stopped (``| head``): stop quietly, as command-line tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except Exception:
        traceback.print_exc()
        print(f"\nboardzoo {args.command}: this is a bug in boardzoo, not in what you typed; please report it "
              f"with the command line and the traceback above (boardzoo {__version__}, Python "
              f"{sys.version.split()[0]})", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
