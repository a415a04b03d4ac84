"""The learning curve of a hidden-information training run (``boardzoo train geister``):
each chosen snapshot of the run (``weights/iter-NNNNN.npz``, those that joined its league)
played against an opponent, and, for a run on a member of the Geister family small enough
for its whole tree, each snapshot's exact exploitability; beside the hours the run had
trained when it took the snapshot (from ``history.jsonl``).

    python tools/hidden_curve.py runs/train-geister --opponent geister-expert --games 100 --every 50 --workers 2
    python tools/hidden_curve.py runs/train-geister --opponent geister-expert --every 200 \
        --player "mcts:policy=puct,model={weights},belief=network,time=0.17"    # each snapshot searched
    python tools/hidden_curve.py runs/train-tiny --exact

``--player`` is the agent that plays each snapshot, ``{weights}`` its file (by default
the network's own policy, ``network:weights={weights}``).

The games are results files in ``RUN/curve/`` (the arena's: run the command again and it
goes on where it stopped); the table is written to ``RUN/curve.md``, and with matplotlib
(the ``plot`` extra) the curve to ``RUN/curve.png``. The figures in the docs were made so.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

from boardzoo import arena
from boardzoo.agents.alphazero.network import Network
from boardzoo.ledger import write_atomic
from boardzoo.stats import wilson

SNAPSHOT = re.compile(r"iter-(\d+)\.npz")


def snapshots(run: str, every: int) -> list[tuple[int, str]]:
    """(iteration, path) of the run's snapshots whose iteration is a multiple of ``every``."""
    folder = os.path.join(run, "weights")
    found = sorted((int(m[1]), os.path.join(folder, name)) for name in os.listdir(folder)
                   if (m := SNAPSHOT.fullmatch(name)))
    return [(iteration, path) for iteration, path in found if iteration % every == 0]


def hours_at(run: str) -> dict[int, float]:
    with open(os.path.join(run, "history.jsonl"), encoding="utf-8") as handle:
        return {entry["iteration"]: entry["hours"] for entry in map(json.loads, handle)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="the run directory")
    parser.add_argument("--opponent", action="append", default=[], help="an agent spec played against (repeatable)")
    parser.add_argument("--games", type=int, default=100, help="games against each opponent (seats alternating)")
    parser.add_argument("--every", type=int, default=1, help="only the snapshots of iterations that are multiples")
    parser.add_argument("--player", default="network:weights={weights}",
                        help="the agent spec playing each snapshot, {weights} its file")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--exact", action="store_true", help="each snapshot's exact exploitability (small games)")
    args = parser.parse_args()
    if "{weights}" not in args.player:
        print("--player must name the snapshot's file as {weights}", file=sys.stderr)
        return 2
    with open(os.path.join(args.run, "config.json"), encoding="utf-8") as handle:
        config = json.load(handle)
    env = config["env"] + "".join(f"{',' if i else ':'}{k}={v}" for i, (k, v) in enumerate(config["params"].items()))
    hours = hours_at(args.run)
    chosen = snapshots(args.run, args.every)
    if not chosen:
        print(f"{args.run} has no snapshot of an iteration that is a multiple of {args.every}", file=sys.stderr)
        return 2
    tree = None
    if args.exact:
        from boardzoo.exploitability import build_tree, exploitability
        from boardzoo.exploitability.agents import network_policy

        tree = build_tree(config["game"], **config["params"])
    os.makedirs(os.path.join(args.run, "curve"), exist_ok=True)
    rows = []
    for iteration, path in chosen:
        row = {"iteration": iteration, "hours": hours.get(iteration)}
        for opponent in args.opponent:
            name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", opponent)[:80]
            player = re.sub(r"[^A-Za-z0-9_.=-]+", "_", args.player.replace("{weights}", ""))[:60]
            out = os.path.join(args.run, "curve", f"iter-{iteration:05d}-{player}-vs-{name}.jsonl")
            records = arena.run(env, args.player.replace("{weights}", path), opponent, games=args.games,
                                seed=iteration, workers=args.workers, out=out, progress=False)
            wins = sum(r["returns"]["a"] > 0 for r in records)
            draws = sum(r["returns"]["a"] == 0 for r in records)
            row[opponent] = {"wins": wins, "draws": draws, "games": len(records),
                             "win_interval": [round(x, 3) for x in wilson(wins, len(records))]}
        if tree is not None:
            row["exploitability"] = round(exploitability(tree, network_policy(tree, Network.load(path))), 4)
        rows.append(row)
        print(json.dumps(row), flush=True)
    write_atomic(os.path.join(args.run, "curve.md"), table(rows, args.opponent, tree is not None))
    plot(args.run, rows, args.opponent, tree is not None)
    return 0


def table(rows: list[dict], opponents: list[str], exact: bool) -> str:
    head = ["iteration", "hours", *(f"wins vs {o} (95 % interval)" for o in opponents)]
    head += ["exploitability"] if exact else []
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [str(row["iteration"]), "" if row["hours"] is None else f"{row['hours']:.2f}"]
        for o in opponents:
            found = row[o]
            low, high = found["win_interval"]
            cells.append(f"{found['wins']}/{found['games']} ({low:.2f}-{high:.2f})")
        if exact:
            cells.append(f"{row['exploitability']:.4f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(run: str, rows: list[dict], opponents: list[str], exact: bool) -> None:
    try:
        from boardzoo.experiments.plots import line_plot
    except ImportError:
        return
    series = {}
    for o in opponents:
        series[f"wins vs {o}"] = [(r["hours"], r[o]["wins"] / r[o]["games"], *r[o]["win_interval"]) for r in rows
                                  if r["hours"] is not None]
    if exact:
        series["exploitability"] = [(r["hours"], r["exploitability"], r["exploitability"], r["exploitability"])
                                    for r in rows if r["hours"] is not None]
    try:
        line_plot(os.path.join(run, "curve.png"), "Learning curve", "hours trained", "share", series)
    except ImportError:
        pass


if __name__ == "__main__":
    from boardzoo.errors import BoardzooError

    try:
        sys.exit(main())
    except (BoardzooError, OSError, ValueError, KeyError) as error:
        sys.exit(f"hidden_curve: {error}")
