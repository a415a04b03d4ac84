"""How often each kind of Geister player offers its ghosts, by colour: the figures
behind ``belief=adaptive``'s bluffer rates (``BLUFFER_RATES`` in
``boardzoo/games/geister/information.py``).

    python tools/geister_offer_rates.py runs/naotti/first.jsonl runs/naotti/second.jsonl
    python tools/geister_offer_rates.py runs/geister-league.jsonl

Reads Geister results files, arena or league records or the tournament client's
(``boardzoo geister-client --out``, whose records rebuild the outside program's moves),
plays every game again and counts, for each player and each colour, its ghosts' moves
and how many of them ended next to one of the opponent's ghosts (an *offer*: the ghost
may be taken next). A bluffer offers its reds and keeps its blues away; a plain player
offers both alike. Prints the two rates with 95 % Wilson intervals, per player (every
outside program reached over a server counts as one player, ``server``).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

from boardzoo.arena import SEATS
from boardzoo.envs import make as make_env
from boardzoo.errors import BoardzooError
from boardzoo.games.geister import GHOSTS, GeisterState
from boardzoo.ledger import read_records
from boardzoo.stats import wilson

MAX_RECORDS = 1_000_000


def offer_counts(paths: list[str]) -> tuple[dict[str, list[int]], int]:
    """player -> [red offers, red moves, blue offers, blue moves] over the games of
    ``paths``, and how many games had no moves to count (the client's games whose moves
    could not be rebuilt)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    skipped = 0
    for path in paths:
        records, _ = read_records(path, MAX_RECORDS)
        for record in records:
            if not record["env"].startswith("geister_v0"):
                raise BoardzooError(f"{path}: game {record['game']} is {record['env']}, not Geister")
            if not record["moves"]:
                skipped += 1
                continue
            state = GeisterState(make_env(record["env"], raw=True).max_turns)
            try:
                for _, action in record["moves"]:
                    state.apply(action)
            except ValueError as error:
                raise BoardzooError(f"{path}: game {record['game']} does not play again: {error}") from None
            seat_of = {record["seat_of_a"]: "a", SEATS[1 - SEATS.index(record["seat_of_a"])]: "b"}
            for seat, label in seat_of.items():
                player = "server" if record[label].startswith("server ") else record[label]
                tally = counts[player]
                for g in range(GHOSTS * SEATS.index(seat), GHOSTS * SEATS.index(seat) + GHOSTS):
                    column = 0 if state.red[g] else 2
                    tally[column] += state.offered[g]
                    tally[column + 1] += state.moved[g]
    return counts, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="Geister results files (arena, league or geister-client --out)")
    args = parser.parse_args(argv)
    try:
        counts, skipped = offer_counts(args.files)
    except BoardzooError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{'player':<60} {'red offers / moves':>28} {'blue offers / moves':>28}")
    for player, (red_offers, red_moves, blue_offers, blue_moves) in sorted(counts.items()):
        cells = []
        for offers, moves in ((red_offers, red_moves), (blue_offers, blue_moves)):
            low, high = wilson(offers, moves) if moves else (float("nan"), float("nan"))
            rate = offers / moves if moves else float("nan")
            cells.append(f"{offers}/{moves} {rate:.3f} ({low:.3f}..{high:.3f})")
        print(f"{player:<60} {cells[0]:>28} {cells[1]:>28}")
    if skipped:
        print(f"({skipped} games without moves were left out)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
