"""Seed 001: MCTS for Cantris (Chinese), against a random opponent on 8x4 (500
iterations a move) and 10x5 (250), a fresh random deal each game, seats alternating."""

from __future__ import annotations

from boardzoo.experiments.framework import Experiment, Job, Report, sized, tally
from boardzoo.experiments.stats import table, verdict, wilson

# Seed 001 writes UCB1 as q/n + c*sqrt(2 ln N / n): its c = 1.0 is our c = sqrt(2).
C_SEED_1 = 1.414
SETTINGS = [  # key, agent a (against random), what seed 001 calls it
    ("random", "random", "random vs random (exp 0)"),
    ("q-wins", f"mcts:q=wins,c={C_SEED_1},final=value,c_final={C_SEED_1}", "MCTS q = win (exp 1.1)"),
    ("q-win-lose", f"mcts:q=win-lose,c={C_SEED_1},final=value,c_final={C_SEED_1}", "MCTS q = win - lose (exp 1.2)"),
    ("final-c0", f"mcts:q=win-lose,c={C_SEED_1},final=value,c_final=0", "q = win - lose, final choice c = 0 (exp 2.2)"),
]
BOARDS = {"8x4": 500, "10x5": 250}
PUBLISHED = {  # (board, setting) -> win, tie, lose of agent a
    ("8x4", "random"): (0.4881, 0.0281, 0.4838), ("10x5", "random"): (0.4940, 0.0175, 0.4885),
    ("8x4", "q-wins"): (0.8790, 0.0048, 0.1162), ("10x5", "q-wins"): (0.7865, 0.0062, 0.2073),
    ("8x4", "q-win-lose"): (0.9486, 0.0046, 0.0468), ("10x5", "q-win-lose"): (0.9043, 0.0041, 0.0916),
    ("8x4", "final-c0"): (0.9884, 0.0014, 0.0102), ("10x5", "final-c0"): (0.9856, 0.0014, 0.0130),
}
FIRST_MOVER = {"8x4": (0.5453, 0.0287, 0.4260), "10x5": (0.5929, 0.0187, 0.3884)}


def agent_spec(setting: str, board: str) -> str:
    spec = dict((key, a) for key, a, _ in SETTINGS)[setting]
    return spec if spec == "random" else f"{spec},iterations={BOARDS[board]}"


class CantrisMCTS(Experiment):
    name = "cantris-mcts"
    source = "seed 001 (Chinese): MCTS for Cantris"
    compares = ("against random on 8x4 (500 it.) and 10x5 (250 it.): random, MCTS q=wins vs q=win-lose, "
                "final choice c=1 vs c=0; random-play first-mover statistics")
    default_size = "100 games per setting and board"
    full_size = "10 000 games per setting and board (published)"
    expected_time = "about 2 min"
    full_time = ("8.4 min with --engine compiled --workers 2 (measured, 80,000 games); "
                 "about 1.1 h on the Python engine (estimated from 3 timed games per job)")

    def jobs(self, games: int | None, full: bool) -> list[Job]:
        return [Job(f"{board}-{setting}", f"cantris_v0:board={board}", agent_spec(setting, board), "random",
                    sized(games, full, 100, 10_000))
                for board in BOARDS for setting, _, _ in SETTINGS]

    def report(self, results: dict[str, list[dict]], jobs: list[Job]) -> Report:
        rows = []
        for board in BOARDS:
            for setting, _, label in SETTINGS:
                records = results[f"{board}-{setting}"]
                counts = tally(records)
                rows += outcome_rows(f"{board}: {label}", PUBLISHED[(board, setting)], counts, len(records))
        first_rows = []
        for board in BOARDS:
            records = results[f"{board}-random"]  # random vs random: who moved first decides
            counts = tally(records, "winner_seat", "player_0", "player_1")
            first_rows += outcome_rows(f"{board}: first mover", FIRST_MOVER[board], counts, len(records))
        text = [
            "# Seed 001 — MCTS for Cantris",
            "",
            "Against a random opponent, a fresh deal each game, seats alternating (the seed draws the first "
            "player at random). Seed 001 writes UCB1 as `q/n + c*sqrt(2 ln N / n)`; its c = 1.0 is our "
            f"c = {C_SEED_1}. The board plays this project's reconstruction of the rules (the seed's own "
            "rules are not published), so the figures need not match exactly.",
            "",
            "## Results of agent A (win / tie / lose)",
            "",
            table(["setting", "outcome", "seed 001", "ours (95% CI)", "verdict"], rows),
            "",
            "## Random play: the first mover's results (the calibration of the reconstructed rules)",
            "",
            table(["board", "outcome", "seed 001", "ours (95% CI)", "verdict"], first_rows),
            "",
        ]
        return Report("\n".join(text))


def outcome_rows(label: str, published: tuple[float, float, float], counts: tuple[int, int, int],
                 games: int) -> list[list[str]]:
    rows = []
    for name, theirs, count in zip(("win", "tie", "lose"), published, counts):
        low, high = wilson(count, games)
        rows.append([label, name, f"{theirs:.4f}", f"{count / games:.4f} ({low:.4f}..{high:.4f})",
                     verdict(theirs, low, high)])
    return rows
