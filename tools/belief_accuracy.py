"""How well beliefs read an opponent's hidden colours, in recorded Geister games: at each
of one side's turns, each belief's probability that each of the opponent's unknown ghosts
is blue, scored against the colour it had (log-loss, and how often the likelier colour
was right). The games are an arena results file (``boardzoo arena ... --out FILE``).

    python tools/belief_accuracy.py games.jsonl --side a --network runs/geister-bait/weights/latest.npz

The beliefs: ``network`` (the belief head of ``--network``), ``adaptive`` (the expert's
opponent model learned in the game), ``plain`` (advanced ghosts are blue), ``uniform``
(every colouring alike). Each is read from the side's information state alone; the truth
comes from the replayed game. A belief learned from its own players' tells can score worse
than ``uniform`` against an opponent that moves its colours otherwise: the figures in the
Geister learning log were made so.
"""

from __future__ import annotations

import argparse
import math
import sys

from boardzoo.agents.alphazero.evaluator import load_network
from boardzoo.agents.network import NetworkBelief
from boardzoo.envs import make
from boardzoo.errors import BoardzooError
from boardzoo.ledger import read_records
from boardzoo.strategy.geister.beliefs import adaptive_blue_probabilities, blue_probabilities, plain_reading

SEATS = ("player_0", "player_1")
#: The most games read from the file.
MAX_GAMES = 100_000
#: Probabilities are clipped this far from 0 and 1 for the log-loss (a sure belief that is
#: wrong costs log(1/EPSILON), not infinity).
EPSILON = 1e-4


class Score:
    """A belief's log-loss and hits over the ghosts it read."""

    def __init__(self) -> None:
        self.loss, self.count, self.right = 0.0, 0, 0

    def add(self, probabilities: list[float], truth: list[bool]) -> None:
        for p, blue in zip(probabilities, truth):
            p = min(max(p, EPSILON), 1 - EPSILON)
            self.loss -= math.log(p if blue else 1 - p)
            self.count += 1
            self.right += (p > 0.5) == blue


def scores(records: list[dict], side: str, network_file: str | None) -> dict[str, Score]:
    network = load_network(network_file) if network_file else None
    found: dict[str, Score] = {}
    for record in records:
        env = make(record["env"])
        env.reset(seed=record["seed"])
        seat = SEATS.index(record["seat_of_a"]) ^ (side == "b")
        reader = None
        for player, action in record["moves"]:
            if player == seat:
                view = env.unwrapped.model(SEATS[seat])
                unknown = [] if view.placing else view.unknown_ghosts()
                if unknown:
                    truth = env.unwrapped.game
                    blues = view.shape.blue - view.lost[1 - seat][0]
                    readings = {"adaptive": adaptive_blue_probabilities(view, unknown, blues),
                                "plain": plain_reading(view, unknown, blues),
                                "uniform": [blues / len(unknown)] * len(unknown)}
                    if network is not None:
                        reader = reader or NetworkBelief.for_model(view, network)
                        readings["network"] = blue_probabilities(reader(view, unknown), blues)
                    colours = [not truth.red[g] for g in unknown]
                    for name, probabilities in readings.items():
                        found.setdefault(name, Score()).add(probabilities, colours)
            if player >= 0:
                env.step(action)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", help="an arena results file of Geister games")
    parser.add_argument("--side", choices=("a", "b"), default="a", help="whose beliefs are read (default a)")
    parser.add_argument("--network", help="a network of the hidden-information trainer (its belief head)")
    args = parser.parse_args()
    try:
        records, notes = read_records(args.games, MAX_GAMES)
        for note in notes:
            print(f"belief_accuracy: {note}", file=sys.stderr)
        others = sorted({record["env"] for record in records if not record["env"].startswith("geister")})
        if others:
            raise ValueError(f"{args.games} holds games of {', '.join(others)}, not only Geister")
        found = scores(records, args.side, args.network)
    except (OSError, ValueError, BoardzooError) as error:
        print(f"belief_accuracy: {error}", file=sys.stderr)
        return 2
    print(f"{len(records)} games, side {args.side}'s turns")
    print("| belief | log-loss | likelier colour right | ghosts read |\n|---|---|---|---|")
    for name, score in sorted(found.items(), key=lambda item: item[1].loss / item[1].count):
        print(f"| {name} | {score.loss / score.count:.3f} | {score.right / score.count:.3f} | {score.count:,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
