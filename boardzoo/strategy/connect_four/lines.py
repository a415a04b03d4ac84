"""``boardzoo solve``'s input: a stream of positions, one a line, each read within a
bounded length and solved on its own (a bad line is reported and the batch goes on)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from boardzoo.errors import BudgetError, excerpt
from boardzoo.strategy.connect_four.solver import MAX_LINE, InvalidPosition, Solver, parse_moves


def read_lines(stream, limit: int = MAX_LINE) -> Iterator[str]:
    """The lines of a text stream, each cut to ``limit + 1`` characters without ever
    holding more of a long line in memory (the rest of it is read and dropped)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith("\n"):
            while True:  # drop the rest of the line
                rest = stream.readline(65536)
                if not rest or rest.endswith("\n"):
                    break
        yield line


def solve_lines(lines: Iterable[str], solver: Solver | None = None):
    """Yield ``(position, score or None, error or None)`` for each non-empty input line:
    its first whitespace-separated field is the move string, the rest is ignored. A bad
    line (not a position, too long, past the timeout) gives an error and the batch goes on."""
    solver = solver or Solver()
    for line in lines:
        if len(line) > MAX_LINE:
            yield excerpt(line.strip()), None, f"the line is longer than {MAX_LINE} characters: not a position"
            continue
        fields = line.split()
        if not fields:
            continue
        moves = fields[0]
        try:
            state = parse_moves(moves, solver.rows, solver.cols)
            yield moves, solver.solve(state), None
        except (InvalidPosition, BudgetError) as error:
            yield excerpt(moves), None, str(error)
