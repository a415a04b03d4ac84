"""The ``boardzoo`` command line: list, play, arena, solve.

    boardzoo list
    boardzoo play connect_four greedy random --render
    boardzoo play nim_v0:coin=true human greedy
    boardzoo arena nim_v0 greedy random --games 200 --seed 0 --workers 2 --out games.jsonl
    echo 4453 | boardzoo solve connect_four
"""

from __future__ import annotations

import argparse
import json
import sys

from boardzoo import __version__, arena
from boardzoo.agents import catalogue
from boardzoo.agents import make as make_agent
from boardzoo.envs import ENVS, env_module
from boardzoo.errors import BoardzooError
from boardzoo.spec import describe


def _list(args: argparse.Namespace) -> int:
    print("envs (ENV, optionally name:key=value,...):")
    for name, summary in ENVS.items():
        params = describe(env_module(name).raw_env, hidden=("render_mode",))
        print(f"  {name:<18} {summary}\n  {'':<18} parameters: {params}")
    print("\nagents (SPEC, optionally name:key=value,...):")
    for name, params, summary in catalogue():
        print(f"  {name:<18} {summary}" + (f"\n  {'':<18} parameters: {params}" if params else ""))
    return 0


def _play(args: argparse.Namespace) -> int:
    specs = {"a": args.agent_a, "b": args.agent_b}
    agents = {label: make_agent(spec) for label, spec in specs.items()}
    show = args.render or any(agent.interactive for agent in agents.values())
    env = arena.make_env(args.env, render_mode="ansi")
    names = {"player_0": f"{args.agent_a} (a)", "player_1": f"{args.agent_b} (b)"}

    def render(env):
        if show:
            print(env.render() + "\n", flush=True)

    if show:
        print(f"player_0: {names['player_0']}   player_1: {names['player_1']}\n")
    record = arena.play_game(args.env, args.agent_a, args.agent_b, 0, args.seed, env, agents,
                             on_step=render)
    winner = record["winner"]
    result = "draw" if winner is None else f"{names[record['winner_seat']]} wins"
    if record["forfeit"]:
        result += f" ({specs[record['forfeit']['by']]} forfeited: {record['forfeit']['reason']})"
    print(f"result: {result} after {record['plies']} plies")
    return 0


def _arena(args: argparse.Namespace) -> int:
    records = arena.run(args.env, args.agent_a, args.agent_b, args.games, seed=args.seed,
                        workers=args.workers, out=args.out)
    summary = arena.summarize(records)
    if args.json:
        print(json.dumps(summary))
    else:
        print(arena.format_summary(summary))
    return 0


def _solve(args: argparse.Namespace) -> int:
    from boardzoo.games.connect_four_solver import Solver, solve_lines

    solver = Solver()
    lines = args.positions if args.positions else sys.stdin
    failures = 0
    for moves, score, error in solve_lines(lines, solver):
        if error is not None:
            failures += 1
            print(f"{moves} error: {error}", flush=True)
        elif args.verbose:
            print(f"{moves} {score} {solver.nodes} {solver.last_seconds * 1000:.3f}", flush=True)
        else:
            print(f"{moves} {score}", flush=True)
    return 1 if failures else 0


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="boardzoo", description=__doc__.split("\n\n")[0])
    main.add_argument("--version", action="version", version=f"boardzoo {__version__}")
    commands = main.add_subparsers(dest="command", required=True)

    commands.add_parser("list", help="envs and agents with their parameters").set_defaults(run=_list)

    play = commands.add_parser("play", help="one game shown in the terminal (human plays too)")
    play.add_argument("env", help="env spec, e.g. connect_four_v0 or nim_v0:n=21,coin=true")
    play.add_argument("agent_a", metavar="A", help="agent spec of player_0 (moves first)")
    play.add_argument("agent_b", metavar="B", help="agent spec of player_1")
    play.add_argument("--render", action="store_true", help="show the board after every move")
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
    match.add_argument("--json", action="store_true",
                       help="print the summary as one JSON object (games, a_wins, b_wins, ties, ...)")
    match.set_defaults(run=_arena)

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
    solve.set_defaults(run=_solve)
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except (BoardzooError, ValueError, EOFError) as error:
        print(f"boardzoo {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\nboardzoo {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
