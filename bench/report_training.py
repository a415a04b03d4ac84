"""A training run's history as the tables of the docs: rating with its interval and the
score against each opponent by generation, and the mistake rates where measured. The
hours are the run's own (self-play and learning, as its networks record them); the wall
hours add each generation's evaluation, what the machine spent in all.

    python bench/report_training.py runs/train-connect_four [--every 5]
"""

from __future__ import annotations

import argparse
import json
import pathlib

from common import table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=pathlib.Path)
    parser.add_argument("--every", type=int, default=1, help="one generation in so many (and the last)")
    args = parser.parse_args()
    history = [json.loads(line) for line in (args.run / "history.jsonl").read_text().splitlines()]
    wall, spent = {}, 0.0
    for e in history:
        spent += e.get("selfplay_seconds", 0) + e.get("learn_seconds", 0) + e.get("eval_seconds", 0)
        wall[e["generation"]] = spent / 3600
    shown = [e for e in history if e["generation"] % args.every == 0 or e is history[-1]]
    opponents = sorted({name for e in history for name in e.get("scores", {}) if not name.startswith("gen-")})
    rows = [[e["generation"], f"{e['hours']:.2f}", f"{wall[e['generation']]:.2f}", e["games"],
             f"{e['plies_per_game']:.1f}",
             f"{e['draw_share']:.2f}" if "draw_share" in e else "", f"{e['policy_loss']:.3f}", f"{e['value_loss']:.3f}",
             f"{e['elo']:+.0f} ({e['elo_low']:+.0f}..{e['elo_high']:+.0f})" if "elo" in e else "",
             *(f"{e['scores'][name]:.2f}" if name in e.get("scores", {}) else "" for name in opponents)]
            for e in shown]
    print(table(["generation", "hours", "wall hours", "games", "plies a game", "draws", "policy loss", "value loss",
                 "rating (95 % interval)",
                 *(f"vs `{name}`" for name in opponents)], rows))
    for key, rule in (("outcome_mistakes", "outcome"), ("mistakes", "score")):
        measured = [e for e in history if key in e]
        if measured:
            sets = list(measured[0][key]["search"])
            print(f"\nMistake rates, {rule} rule (network alone / search):\n")
            print(table(["generation", "hours", *sets],
                        [[e["generation"], f"{e['hours']:.2f}",
                          *(f"{e[key]['network'][name]:.1%} / {e[key]['search'][name]:.1%}" for name in sets)]
                         for e in measured]))


if __name__ == "__main__":
    main()
