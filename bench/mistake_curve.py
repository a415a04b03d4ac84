"""Connect Four mistake rates against training hours: each kept generation of a training
run judged on the solver-scored sets (``bench/make_mistake_sets.py``) with the search
at ``--simulations`` and by the network alone, by the outcome rule and the score rule
(``boardzoo/training/alphazero/referee.py``). One JSON line per generation goes to
``--out`` (the file is replaced whole at each line, so a stopped run keeps what it
measured, and a second run measures only the generations missing), and the curves of
the outcome rule are drawn beside it (``--plot``, the ``plot`` extra).

    python bench/mistake_curve.py RUN --weights KEPT --every 5 \
        --out docs/training/connect_four-mistakes.jsonl --plot docs/training/connect_four-mistakes.png

(``KEPT``: a folder where every generation's weights were copied as the run wrote them,
since a run keeps only its last ``keep_weights``; by default ``RUN/weights``.)
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re

from boardzoo.agents import make as make_agent
from boardzoo.ledger import write_atomic
from boardzoo.training.alphazero.referee import SET_NAMES, chooser, mistake_counts, read_mistake_sets

SETS_FILE = pathlib.Path(__file__).parent / "data" / "connect_four_mistake_sets.txt"
#: The targets with search (AlphaZero.jl's rates, outcome rule), in percent.
TARGETS = {"end-easy": 0.5, "middle-easy": 0.5, "middle-medium": 2, "begin-easy": 0.5, "begin-medium": 2,
           "begin-hard": 6}


def measured(path: pathlib.Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def judge(weights: pathlib.Path, simulations: int, sets: dict, limit: int) -> dict:
    """{"network" | "search": {rule: {set: rate}}, "positions": {set: n}} for one network."""
    entry: dict = {}
    for label, iterations in (("network", 0), ("search", simulations)):
        agent = make_agent(f"alphazero:weights={weights},iterations={iterations}", seed=0)
        counts = mistake_counts(chooser(agent), sets, limit)
        entry[label] = {rule: {name: round(getattr(c, rule) / c.positions, 4) for name, c in counts.items()
                               if c.positions} for rule in ("outcome", "score")}
        entry["positions"] = {name: c.positions for name, c in counts.items()}
    return entry


def plot(entries: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4.5))
    for index, name in enumerate(SET_NAMES):
        colour = f"C{index}"
        points = [(e["hours"], e["search"]["outcome"][name], e["network"]["outcome"][name])
                  for e in entries if name in e["search"]["outcome"]]
        if points:
            hours, search, network = zip(*points)
            axis.plot(hours, [100 * v for v in search], "-o", color=colour, markersize=3, label=f"{name}")
            axis.plot(hours, [100 * v for v in network], ":", color=colour)
            axis.axhline(TARGETS[name], color=colour, linestyle="--", linewidth=0.6)
    simulations = entries[-1]["simulations"]
    axis.set_xlabel("training hours")
    axis.set_ylabel("mistakes (%), outcome rule")
    axis.set_title(f"Connect Four: search at {simulations} simulations (solid), the network alone (dotted),\n"
                   "the targets (dashed)", fontsize=9)
    axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=pathlib.Path, help="the training run's folder (its history.jsonl)")
    parser.add_argument("--weights", type=pathlib.Path, help="where the generations' files are (default: RUN/weights)")
    parser.add_argument("--every", type=int, default=5, help="one generation in so many (and the newest)")
    parser.add_argument("--simulations", type=int, default=800)
    parser.add_argument("--limit", type=int, default=200, help="positions a set (the first ones)")
    parser.add_argument("--sets", type=pathlib.Path, default=SETS_FILE)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--plot")
    args = parser.parse_args()
    hours = {e["generation"]: e["hours"] for e in measured(args.run / "history.jsonl")}
    folder = args.weights or args.run / "weights"
    files = {int(m.group(1)): path for path in folder.glob("gen-*.npz")
             if (m := re.match(r"gen-(\d+)\.npz", path.name))}
    wanted = [g for g in sorted(files) if g in hours and (g % args.every == 0 or g == max(files))]
    sets = read_mistake_sets(str(args.sets))
    entries = measured(args.out)
    done = {(e["generation"], e["simulations"], e["limit"]) for e in entries}
    for generation in wanted:
        if (generation, args.simulations, args.limit) in done:
            continue
        entry = {"generation": generation, "hours": hours[generation], "simulations": args.simulations,
                 "limit": args.limit, **judge(files[generation], args.simulations, sets, args.limit)}
        entries.append(entry)
        entries.sort(key=lambda e: e["generation"])
        write_atomic(str(args.out), "".join(json.dumps(e) + "\n" for e in entries))
        print(f"generation {generation} ({hours[generation]:.2f} h): search {entry['search']['outcome']}, "
              f"network {entry['network']['outcome']}", flush=True)
    if args.plot and entries:
        plot(entries, args.plot)


if __name__ == "__main__":
    main()
