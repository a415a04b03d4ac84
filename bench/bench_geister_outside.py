"""boardzoo's Geister client against an outside program, over a real tournament server.

    CP=build:misc/geister_20170108.jar:libs/mjlib.jar
    python bench/bench_geister_outside.py --games 20 --server-dir ~/src/geister_server.java \
        --server "java -cp $CP net.wasamon.geister.server.TCPServerWithBlock" \
        --opponent "./naotti" --opponent-dir ~/src/Naotti-2020 --opponent-input "{games} {port} 127.0.0.1 6"

starts a server for each seat (the reference server's clocks can outlive a game, so none
serves more than one seat's games) and plays ``--games`` games in each seat: the opponent program on
the other port (its command gets ``--opponent-input`` on stdin, with ``{games}`` and
``{port}`` filled in, since many tournament programs ask for them there), and
``boardzoo geister-client`` on ours, with its default agent (``geister-expert``) unless
``--agent`` names another. With ``--out FOLDER`` the client appends each seat's games to
``FOLDER/first.jsonl`` and ``FOLDER/second.jsonl`` (arena records with both sides' moves:
``boardzoo serve`` replays them, ``tools/geister_offer_rates.py`` measures them).
It prints each game's line and the totals with a 95 % Wilson interval, and exits non-zero
when a seat did not complete its games (a protocol error, a crash).

None of the outside programs are part of boardzoo: ``docs/tutorials/geister-expert.md``
says where to get and how to build the ones we measured against.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time

from boardzoo.experiments.stats import wilson

SEAT_NAMES = ("first", "second")


def play_seat(args: argparse.Namespace, seat: int) -> list[str]:
    ours, theirs = 10000 + seat, 10001 - seat
    opponent = subprocess.Popen(shlex.split(args.opponent), cwd=os.path.expanduser(args.opponent_dir),
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    assert opponent.stdin is not None
    opponent.stdin.write(args.opponent_input.format(games=args.games, port=theirs) + "\n")
    opponent.stdin.close()
    time.sleep(0.5)
    agent = ["--agent", args.agent] if args.agent else []
    results = ["--out", os.path.join(args.out, f"{SEAT_NAMES[seat]}.jsonl")] if args.out else []
    command = [sys.executable, "-m", "boardzoo", "geister-client", "--port", str(ours), *agent,
               "--games", str(args.games), "--seed", str(args.seed + seat), *results]
    client = subprocess.run(command, capture_output=True, text=True)
    try:
        opponent.wait(timeout=60)
    except subprocess.TimeoutExpired:
        opponent.kill()
    lines = client.stdout.splitlines()
    for line in lines:
        print(f"seat {seat}: {line}", flush=True)
    if client.returncode:
        print(f"seat {seat}: the client stopped: {client.stderr.strip()}", flush=True)
    return lines


def play_seat_on_a_fresh_server(args: argparse.Namespace, seat: int) -> list[str]:
    """One seat's games on a server of their own: the reference server's per-move clocks
    can outlive their game (600 s of budget and 10 s more) and end a later game, so no
    server is kept for longer than one seat's games."""
    server = subprocess.Popen(shlex.split(args.server), cwd=os.path.expanduser(args.server_dir),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(3)
    try:
        return play_seat(args, seat)
    finally:
        server.terminate()
        server.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games in each seat (default 10)")
    parser.add_argument("--agent", help="agent spec (default: the client's own default, geister-expert)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--server", required=True, help="the command that starts the tournament server")
    parser.add_argument("--server-dir", default=".")
    parser.add_argument("--opponent", required=True, help="the command that starts the outside program")
    parser.add_argument("--opponent-dir", default=".")
    parser.add_argument("--opponent-input", default="", help="what the opponent reads on stdin ({games}, {port})")
    parser.add_argument("--out", help="a folder for the client's results files, first.jsonl and second.jsonl "
                                      "(games are appended; tools/geister_offer_rates.py reads them)")
    args = parser.parse_args(argv)
    if args.out and not os.path.isdir(args.out):
        parser.error(f"--out {args.out}: no such folder")
    lines = [line for seat in (0, 1) for line in play_seat_on_a_fresh_server(args, seat)]
    games = [line for line in lines if line.startswith("game ")]
    won = sum(": won" in line for line in games)
    drawn = sum(": draw" in line for line in games)
    low, high = wilson(won, len(games)) if games else (0.0, 0.0)
    lost = len(games) - won - drawn
    print(f"{args.agent or 'the default agent'}: {won} won, {drawn} drawn, {lost} lost of {len(games)} "
          f"(win rate {won / max(1, len(games)):.3f}, 95% CI {low:.3f}..{high:.3f})")
    return 0 if len(games) == 2 * args.games else 1


if __name__ == "__main__":
    sys.exit(main())
