"""How well beliefs read an opponent's hidden colours, in recorded Geister games: at each
of one side's turns, each belief's probability that each of the opponent's unknown ghosts
is blue, scored against the colour it had (log-loss, and how often the likelier colour
was right), over all readings and apart over those that decide games: of ghosts in reach
of a capture, and of ghosts near an exit. The games are an arena results file
(``boardzoo arena ... --out FILE``).

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
from boardzoo.strategy.geister.beliefs import adaptive_readings, blue_probabilities, mixed_reading
from boardzoo.strategy.geister.players import exit_distance

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


#: The readings scored apart, beside all of them: those that decide games.
GROUPS = ("all", "in reach", "near an exit")
#: A ghost this many steps from leaving (``players``' exit distance, one to go off) is near an exit.
NEAR_EXIT = 2


def groups_of(view, seat: int, ghost: int) -> list[str]:
    """The groups a reading of the opponent's ``ghost`` belongs to: ``in reach`` when one of
    ``seat``'s ghosts stands next to it (a capture is possible now), ``near an exit`` when
    it is at most :data:`NEAR_EXIT` steps from leaving the board."""
    shape, square = view.shape, view.pos[ghost]
    found = ["all"]
    neighbours = [n for n in shape.target[1 - seat][square] if n is not None and n >= 0]
    if any(view.board[n] >= 0 and view.board[n] // shape.ghosts == seat for n in neighbours):
        found.append("in reach")
    if exit_distance(1 - seat, square, shape) <= NEAR_EXIT:
        found.append("near an exit")
    return found


def scores(records: list[dict], side: str, network_file: str | None) -> dict[tuple[str, str], Score]:
    """Each (belief, group)'s score over the games ``records``, read at ``side``'s turns."""
    network = load_network(network_file) if network_file else None
    found: dict[tuple[str, str], Score] = {}
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
                    bluffer, as_bluffer, plain = adaptive_readings(view, unknown, blues)
                    readings = {"adaptive": mixed_reading(bluffer, as_bluffer, plain), "plain": plain,
                                "uniform": [blues / len(unknown)] * len(unknown)}
                    if network is not None:
                        reader = reader or NetworkBelief.for_model(view, network)
                        readings["network"] = blue_probabilities(reader(view, unknown), blues)
                    colours = [not truth.red[g] for g in unknown]
                    for name, probabilities in readings.items():
                        for ghost, p, blue in zip(unknown, probabilities, colours):
                            for group in groups_of(view, seat, ghost):
                                found.setdefault((name, group), Score()).add([p], [blue])
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
    print(f"{len(records)} games, side {args.side}'s turns; log-loss (likelier colour right) of the readings")
    counts = " | ".join(f"{group} ({found['uniform', group].count:,})" for group in GROUPS
                        if ("uniform", group) in found)
    print(f"| belief | {counts} |\n|---|" + "---|" * len(GROUPS))
    names = sorted({name for name, _ in found}, key=lambda name: found[name, "all"].loss / found[name, "all"].count)
    for name in names:
        cells = [f"{score.loss / score.count:.3f} ({score.right / score.count:.2f})"
                 for group in GROUPS if (score := found.get((name, group)))]
        print(f"| {name} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
