"""Seed 004: MCTS design for Geister (Japanese). Determinized MCTS with each belief about
the hidden colours against random, the rushing player and flat Monte Carlo, and a round
robin of the beliefs; draw rates and mean game length (200-ply limit)."""

from __future__ import annotations

from itertools import combinations

from boardzoo.experiments.framework import Experiment, Job, Report, sized, tally
from boardzoo.experiments.stats import mean_interval, table, wilson

BELIEFS = ("uniform", "nearest-blue", "behaviour")
OPPONENTS = {"random": "random", "rushing": "greedy", "flat MC": "flatmc:playouts=5,rollout=forward,max_rollout=60"}


def mcts(belief: str, iterations: int, rollout: str = "forward") -> str:
    # Seed 004's findings: forward-biased roll-outs, cut off as a draw after 60 moves.
    return f"mcts:iterations={iterations},rollout={rollout},max_rollout=60,belief={belief}"


class GeisterMCTS(Experiment):
    name = "geister-mcts"
    source = "seed 004 (Japanese): MCTS design for Geister"
    compares = ("determinized MCTS per belief vs random, rushing, flat Monte Carlo; round robin of beliefs; "
                "roll-outs as the opponent model")
    default_size = "MCTS at 100 iterations, 20 games per pairing"
    full_size = "MCTS at 300 iterations, 100 games per pairing (the seed prints no sizes)"
    expected_time = "about 3 min"

    def jobs(self, games: int | None, full: bool) -> list[Job]:
        iterations = 300 if full else 100
        count = sized(games, full, 20, 100)
        jobs = [Job(f"{belief} vs {name}", "geister_v0", mcts(belief, iterations), spec, count)
                for belief in BELIEFS for name, spec in OPPONENTS.items()]
        jobs += [Job(f"{first} vs {second}", "geister_v0", mcts(first, iterations), mcts(second, iterations), count)
                 for first, second in combinations(BELIEFS, 2)]
        # The roll-out policy is MCTS's model of both players beyond the tree: rushing roll-outs
        # against the two fixed opponents show what that model is worth.
        jobs += [Job(f"behaviour, rushing roll-outs, vs {name}", "geister_v0",
                     mcts("behaviour", iterations, "rushing"), OPPONENTS[name], count)
                 for name in ("random", "rushing")]
        return jobs

    def report(self, results: dict[str, list[dict]], jobs: list[Job]) -> Report:
        rows = []
        for job in jobs:
            records = results[job.key]
            wins, draws, losses = tally(records)
            low, high = wilson(wins, len(records))
            plies, plies_low, plies_high = mean_interval([r["plies"] for r in records])
            rows.append([job.key, len(records), f"{wins}/{draws}/{losses}",
                         f"{wins / len(records):.2f} ({low:.2f}..{high:.2f})", f"{draws / len(records):.2f}",
                         f"{plies:.0f} ({plies_low:.0f}..{plies_high:.0f})"])
        share = {key: tally(results[key])[0] / len(results[key]) for key in results}
        flat = {belief: share[f"{belief} vs flat MC"] for belief in BELIEFS}
        rushing = {belief: share[f"{belief} vs rushing"] for belief in BELIEFS}
        text = [
            "# Seed 004 — MCTS for Geister",
            "",
            "Determinized MCTS (each iteration samples the opponent's hidden colours from a belief), "
            "forward-biased roll-outs cut off as a draw after 60 moves, against the random player, the "
            "rushing player (`greedy`) and flat Monte Carlo; the game is drawn after 200 plies. Seed 004 "
            "reports findings, not tables, so there is no published figure to set beside ours. Actions "
            "per game count the two placements.",
            "",
            table(["pairing (MCTS belief first)", "games", "won/drawn/lost", "win rate (95% CI)", "draw rate",
                   "mean actions (95% CI)"], rows),
            "",
            "## Seed 004's findings against our figures",
            "",
            "- *Colour prediction is very important*: the beliefs' win rates against the rushing player "
            f"range over {min(rushing.values()):.2f}..{max(rushing.values()):.2f} and against flat Monte "
            f"Carlo over {min(flat.values()):.2f}..{max(flat.values()):.2f}.",
            "- *Deciding that the ghosts nearest our side are blue cannot beat primitive Monte Carlo*: "
            f"nearest-blue wins {flat['nearest-blue']:.2f} of its games against flat Monte Carlo, "
            f"uniform {flat['uniform']:.2f}, behaviour {flat['behaviour']:.2f} — "
            + ("consistent: nearest-blue does worst there." if all(
                flat["nearest-blue"] < flat[b] for b in BELIEFS if b != "nearest-blue")
               else "not reproduced: nearest-blue does no worse than the other beliefs there."),
            "- *Biasing play-outs forward cut back-and-forth loops*: all MCTS players here use it, except the "
            "last two rows; `bench/bench_geister.py` measures the play-outs (mean length and draws with and "
            "without it).",
            "- Roll-outs are MCTS's model of how the game goes on: with rushing roll-outs MCTS wins "
            f"{share['behaviour, rushing roll-outs, vs rushing']:.2f} against the rushing player (forward: "
            f"{rushing['behaviour']:.2f}) but {share['behaviour, rushing roll-outs, vs random']:.2f} against "
            f"random (forward: {share['behaviour vs random']:.2f}): the closer the model to the opponent, "
            "the stronger the search.",
            "",
        ]
        return Report("\n".join(text))
