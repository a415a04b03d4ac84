"""Generate the Connect Four mistake-rate sets (bench/data/connect_four_mistake_sets.txt):
six sets of positions built as Pascal Pons built his solver benchmarks, each position
with the exact score of every legal move, so that a player's move can be judged a
mistake (its score below the best move's) without solving anything again.

Positions come from random games (seeded, one generator per sample number), cut at a
ply drawn in the set's range, kept when the game is not over and the player to move
cannot win at once. The begin sets' games are uniformly random; the middle and end sets'
games avoid moves that end the game or hand the opponent a win where they can: two of
three uniformly random games are over, or hold a win in one, by the middle of the game,
and most of the rest are won within a few moves, so the middle-medium set would need
about six times the samples (the end set could hardly be filled at all). They are sorted
by discs played and by moves left under perfect play (from the solver's score):

    end-easy        28..41 discs played   fewer than 14 moves left
    middle-easy     14..27                fewer than 14
    middle-medium   14..27                14 to 27
    begin-easy       6..13                fewer than 14
    begin-medium     6..13                14 to 27
    begin-hard       6..13                28 or more

(Pons' begin sets start at the empty board; here they start at 6 discs, since solving
every move of a position with fewer discs takes the solver minutes on these machines and
a thousand of them would take weeks.)

Each line is ``SET MOVES SCORE V1 .. V7``: the moves played (columns 1..7), the
position's score and each column's score for the player to move ('.' where the column is
full), in the solver's convention (positive: the mover wins; larger: sooner). Lines are
appended one at a time and flushed in sample order whatever the number of workers, and
the next sample number is kept beside the file, so an interrupted run goes on where it
stopped (a torn last line is dropped):

    python bench/make_mistake_sets.py [--count 1000] [--seed 2026] [--hours 2] [--workers 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pathlib
import random
import time

from make_solver_positions import random_position

from boardzoo.strategy.connect_four import make_solver, move_values
from boardzoo.strategy.connect_four.solver import remaining_moves

OUT = pathlib.Path(__file__).parent / "data" / "connect_four_mistake_sets.txt"
#: Set -> (fewest discs played, most discs played, fewest moves left, most moves left).
SETS = {"end-easy": (28, 41, 0, 13), "middle-easy": (14, 27, 0, 13), "middle-medium": (14, 27, 14, 27),
        "begin-easy": (6, 13, 0, 13), "begin-medium": (6, 13, 14, 27), "begin-hard": (6, 13, 28, 42)}
NAMES = list(SETS)
#: An easy set's positions end in fewer moves than this under perfect play.
EASY = 14
COLUMNS = 7
#: Each worker's solver table: a begin-hard position's children take an hour or more
#: with 64 MB and about a minute with this much (and the position's own solve warm in it).
SOLVER_MEMORY_MB = 768


def read_sets(path: pathlib.Path) -> dict[str, list[str]]:
    """The lines already generated, by set; a torn last line (no newline) is cut off,
    any other malformed line is an error naming it."""
    found: dict[str, list[str]] = {name: [] for name in SETS}
    if not path.exists():
        return found
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        data = data[: data.rfind(b"\n") + 1]
        with open(path, "r+b") as handle:  # cut in place: the whole lines are never rewritten
            handle.truncate(len(data))
    for number, line in enumerate(data.decode().splitlines(), 1):
        fields = line.split()
        if len(fields) != 3 + COLUMNS or fields[0] not in SETS:
            raise SystemExit(f"{path}:{number}: not a mistake-set line: {line!r}")
        found[fields[0]].append(line)
    return found


_SOLVER = None


def ends_soon(solver, state) -> bool:
    """Whether perfect play ends the game in fewer than ``EASY`` moves: two null-window
    searches near the ends of the score range (a quick win, a quick loss), far cheaper
    than the exact score of a long game."""
    wins = [s for s in range(1, 23) if remaining_moves(s, state.plies) < EASY]
    losses = [s for s in range(-22, 0) if remaining_moves(s, state.plies) < EASY]
    quick_win = bool(wins) and solver.at_least(state, min(wins))
    return quick_win or bool(losses) and not solver.at_least(state, max(losses) + 1)


def judge(task: tuple[int, int, frozenset]) -> tuple[int, str | None]:
    """Sample ``sample`` (a worker's task): its position, and the line describing it when
    it belongs to a set not yet full. The set a sample aims at is fixed by its number, so
    the lines do not depend on how many workers drew them."""
    global _SOLVER
    seed, sample, full = task
    if _SOLVER is None:
        _SOLVER = make_solver(memory_mb=SOLVER_MEMORY_MB)
    rng = random.Random(f"{seed}:{sample}")
    target = NAMES[sample % len(NAMES)]
    drawn = random_position(rng, *SETS[target][:2], careful=not target.startswith("begin"))
    if drawn is None:
        return sample, None
    state, moves = drawn
    open_sets = [name for name, (low, high, _, _) in SETS.items() if low <= state.plies <= high and name not in full]
    if not open_sets or (all(SETS[name][3] < EASY for name in open_sets) and not ends_soon(_SOLVER, state)):
        return sample, None  # it could only join a full set: spared its exact score
    score = _SOLVER.solve(state)
    left = remaining_moves(score, state.plies)
    for name, (low, high, fewest, most) in SETS.items():
        if low <= state.plies <= high and fewest <= left <= most:
            if name in full:
                return sample, None
            values = move_values(state, seconds=24 * 3600, solver=_SOLVER)  # its table has just solved state
            scores = " ".join(str(values[c]) if c in values else "." for c in range(COLUMNS))
            return sample, f"{name} {moves} {score} {scores}"
    return sample, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1000, help="positions a set")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--hours", type=float, default=24.0, help="stop (resumably) after this long")
    parser.add_argument("--workers", type=int, default=1, help="processes solving positions")
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    args = parser.parse_args()
    found = read_sets(args.out)
    seen = {line.split()[1] for lines in found.values() for line in lines}
    progress = args.out.with_suffix(".next")
    start = int(progress.read_text()) if progress.exists() else 0
    deadline = time.monotonic() + args.hours * 3600
    args.out.parent.mkdir(exist_ok=True)

    def tasks():
        sample = start
        while True:
            yield args.seed, sample, frozenset(name for name in SETS if len(found[name]) >= args.count)
            sample += 1

    sample = start
    with open(args.out, "a") as handle, \
            multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for sample, line in pool.imap(judge, tasks()):  # in sample order, whoever solved it
            name = line.split()[0] if line else None
            if line and len(found[name]) < args.count and line.split()[1] not in seen:
                handle.write(line + "\n")
                handle.flush()
                os.fsync(handle.fileno())
                found[name].append(line)
                seen.add(line.split()[1])
            tmp = progress.with_suffix(".next.tmp")
            tmp.write_text(str(sample + 1))
            os.replace(tmp, progress)
            if time.monotonic() > deadline or all(len(found[n]) >= args.count for n in SETS):
                break
    print(" ".join(f"{name}: {len(lines)}" for name, lines in found.items()) + f" (next sample {sample + 1})")


if __name__ == "__main__":
    main()
