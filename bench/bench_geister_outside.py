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

from boardzoo.stats import wilson

SEAT_NAMES = ("first", "second")


def play_seat(args: argparse.Namespace, seat: int, games: int, seed: int) -> list[str]:
    ours, theirs = 10000 + seat, 10001 - seat
    opponent_command = args.opponent.format(games=games, port=theirs)
    # what the opponent prints goes to a log beside the results (or nowhere without --out)
    log = open(os.path.join(args.out, f"opponent-{SEAT_NAMES[seat]}.log"), "a") if args.out else subprocess.DEVNULL
    try:
        opponent = subprocess.Popen(shlex.split(opponent_command), cwd=os.path.expanduser(args.opponent_dir),
                                    stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, text=True)
        assert opponent.stdin is not None
        opponent.stdin.write(args.opponent_input.format(games=games, port=theirs) + "\n")
        opponent.stdin.close()
        time.sleep(0.5)
        agent = ["--agent", args.agent] if args.agent else []
        results = ["--out", os.path.join(args.out, f"{SEAT_NAMES[seat]}.jsonl")] if args.out else []
        command = [sys.executable, "-m", "boardzoo", "geister-client", "--port", str(ours), *agent,
                   "--games", str(games), "--seed", str(seed), *results]
        client = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stdout, stderr = wait_for_client(client, opponent)
        hung = False
        try:
            opponent.wait(timeout=60)
        except subprocess.TimeoutExpired:  # it stopped answering and never exits by itself
            hung = True
            opponent.kill()
            opponent.wait()
    finally:
        if args.out:
            log.close()
    lines = stdout.splitlines()
    for line in lines:
        print(f"seat {seat}: {line}", flush=True)
    if client.returncode:
        why = stderr.strip() or f"stopped with status {client.returncode}"
        if hung:
            why += " (the opponent had stopped answering; it was killed)"
        elif opponent.returncode not in (None, 0) or why.startswith("stopped"):
            why += f" (the opponent had exited with status {opponent.returncode})"
        print(f"seat {seat}: the client stopped: {why}", flush=True)
    return lines


#: How long the client may go on once the opponent program has exited: long enough for
#: the last game's verdict, far shorter than the client's own 60 s of silence.
GRACE = 5.0


def wait_for_client(client: subprocess.Popen, opponent: subprocess.Popen) -> tuple[str, str]:
    """The client's output once it is done, or once the opponent has exited (it crashed,
    or played all its games) and the client has not finished within :data:`GRACE`."""
    exited_at = None
    while True:
        try:
            return client.communicate(timeout=0.5)
        except subprocess.TimeoutExpired:
            pass
        if opponent.poll() is not None:
            exited_at = exited_at or time.monotonic()
            if time.monotonic() - exited_at > GRACE:
                client.terminate()
                return client.communicate()


def play_seat_on_a_fresh_server(args: argparse.Namespace, seat: int, games: int, seed: int) -> list[str]:
    """Games in one seat on a server of their own: the reference server's per-move clocks
    can outlive their game (600 s of budget and 10 s more) and end a later game, so no
    server is kept for longer than one seat's games."""
    server = subprocess.Popen(shlex.split(args.server), cwd=os.path.expanduser(args.server_dir),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(3)
    try:
        return play_seat(args, seat, games, seed)
    finally:
        server.terminate()
        server.wait(timeout=10)


def is_ruled(line: str) -> bool:
    """A game the server decided on a clock, not on the board (the opponent hung)."""
    return "the server's ruling" in line


def play_all_of_a_seat(args: argparse.Namespace, seat: int) -> list[str]:
    """``args.games`` games decided on the board in ``seat``: when the opponent hangs
    (some outside programs stop answering in rare positions), the server rules on its
    clock and the client stops; the seat goes on with a fresh server, opponent and client
    for the games still missing, at most ``args.restarts`` times. A restarted client
    starts a new match: what its agent learned of the opponent is gone."""
    lines: list[str] = []
    missing = args.games
    for part in range(args.restarts + 1):
        new = [line for line in play_seat_on_a_fresh_server(args, seat, missing, args.seed + seat + 1000 * part)
               if line.startswith("game ")]
        lines += new
        decided = sum(not is_ruled(line) for line in new)
        missing -= decided
        if missing <= 0 or not new:
            break
        print(f"seat {seat}: {missing} games missing; a fresh server, opponent and client", flush=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games in each seat (default 10)")
    parser.add_argument("--agent", help="agent spec (default: the client's own default, geister-expert)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--restarts", type=int, default=3,
                        help="how often a seat starts again when the opponent hangs (default 3)")
    parser.add_argument("--server", required=True, help="the command that starts the tournament server")
    parser.add_argument("--server-dir", default=".")
    parser.add_argument("--opponent", required=True,
                        help="the command that starts the outside program ({games}, {port} filled in)")
    parser.add_argument("--opponent-dir", default=".")
    parser.add_argument("--opponent-input", default="", help="what the opponent reads on stdin ({games}, {port})")
    parser.add_argument("--out", help="a folder for the client's results files, first.jsonl and second.jsonl "
                                      "(games are appended; tools/geister_offer_rates.py reads them)")
    args = parser.parse_args(argv)
    if args.out and not os.path.isdir(args.out):
        parser.error(f"--out {args.out}: no such folder")
    lines = [line for seat in (0, 1) for line in play_all_of_a_seat(args, seat)]
    ruled = sum(map(is_ruled, lines))
    games = [line for line in lines if not is_ruled(line)]
    won = sum(": won" in line for line in games)
    drawn = sum(": draw" in line for line in games)
    low, high = wilson(won, len(games)) if games else (0.0, 0.0)
    lost = len(games) - won - drawn
    print(f"{args.agent or 'the default agent'}: {won} won, {drawn} drawn, {lost} lost of {len(games)} "
          f"(win rate {won / max(1, len(games)):.3f}, 95% CI {low:.3f}..{high:.3f})"
          + (f"; {ruled} more decided by the server's clock, left out" if ruled else ""))
    return 0 if len(games) == 2 * args.games else 1


if __name__ == "__main__":
    sys.exit(main())
