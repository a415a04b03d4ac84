"""The race to the exits on a full Geister state: who wins it when nothing can stop the
runners, so that a search can score a leaf whose result lies beyond its horizon
(``mcts:adjudicate=race``).

A *free runner* is a blue ghost that no opponent ghost can catch on its way out. It walks
the shortest way to one of its exits, ``d`` steps, and leaves with one more move. An
opponent ghost ``g`` steps from that exit square cannot capture it on the way: when the
runner's side moves first, ``g > d`` keeps every square of the path out of the
opponent's reach in time; when the opponent moves first, ``g > d + 1``. (A guard standing
nearer could step onto the path, or wait beside the exit.) The runner's way goes around
its own side's ghosts, which stand still while it runs. What can still upset a long race
is the other side ending the game first, or the runner's side needing its other ghosts;
so a race is adjudicated only when its winner needs at most :data:`RACE_HORIZON` moves,
and not when the loser has a blue near enough to leave first.

Between two free runners, the side to move wins a tie: it leaves on its ``n``-th move,
before the opponent's ``n``-th.
"""

from __future__ import annotations

import random

from boardzoo.games.geister.information import GeisterView
from boardzoo.games.geister.rules import GeisterState
from boardzoo.strategy.geister.players import exit_distance

#: The most moves a race's winner may need for the race to be adjudicated. Four was the
#: setting measured against the expert (the Geister learning log); a longer race is left
#: to the search and its evaluator.
RACE_HORIZON = 4


def free_runner_moves(state: GeisterState, seat: int, moves_first: bool) -> int | None:
    """The fewest moves a free runner of ``seat`` needs to leave the board (``moves_first``:
    ``seat`` is to move), or None when ``seat`` has no free runner. Reads the colours of
    ``seat``'s own ghosts, and of the opponent's only when ``seat`` has taken all their
    reds but one (a red in the runner's way cannot be taken then)."""
    shape = state.shape
    cols, ghosts = shape.cols, shape.ghosts
    own = range(ghosts * seat, ghosts * (seat + 1))
    enemies = [square for square in state.pos[ghosts * (1 - seat):ghosts * (2 - seat)] if square >= 0]
    slack = 0 if moves_first else 1
    best = None
    for exit_square in shape.exit_squares[seat]:
        guard = min((_apart(e, exit_square, cols) for e in enemies), default=shape.squares)
        # a runner d steps away is free when every guard is more than d (+ slack) away:
        # only runners that near are looked at, and their paths only then walked
        reach = guard - 1 - slack
        runners = [g for g in own if state.pos[g] >= 0 and not state.red[g]
                   and _apart(state.pos[g], exit_square, cols) <= reach]
        if not runners:
            continue
        steps = _steps_to(state, seat, exit_square)
        for g in runners:
            d = steps.get(state.pos[g])
            if d is not None and d <= reach and (best is None or d + 1 < best):
                best = d + 1
    return best


def _apart(a: int, b: int, cols: int) -> int:
    """Steps between squares ``a`` and ``b`` on an open board of ``cols`` columns."""
    return abs(a % cols - b % cols) + abs(a // cols - b // cols)


def _steps_to(state: GeisterState, seat: int, exit_square: int) -> dict[int, int]:
    """Steps from each square to ``exit_square`` for a ghost of ``seat``: around ``seat``'s
    other ghosts (which stand still while the runner runs), through the opponent's (a
    runner may capture its way out) unless taking one would lose. The exit is out of
    reach when a blocked square is the exit itself: only a ghost standing there is 0
    steps away."""
    shape, board, ghosts = state.shape, state.board, state.shape.ghosts
    # a capture on the way that would be the runner's side's last red taken loses: such
    # a ghost is in the way as much as an own ghost is
    last_red = state.lost[1 - seat][1] == shape.red - 1

    def blocked(occupant: int) -> bool:
        return occupant >= 0 and (occupant // ghosts == seat or last_red and bool(state.red[occupant]))

    if blocked(board[exit_square]):
        return {exit_square: 0}
    found = {exit_square: 0}
    frontier = [exit_square]
    neighbours = shape.target[0]
    while frontier:
        following = []
        for square in frontier:
            d = found[square] + 1
            for n in neighbours[square]:
                if n is None or n < 0 or n in found:
                    continue
                found[n] = d  # a blocked square is reached (the runner may stand there), not passed
                if not blocked(board[n]):
                    following.append(n)
        frontier = following
    return found


def escape_race(state: GeisterState, horizon: int = RACE_HORIZON) -> tuple[float, float] | None:
    """The returns of a race to the exits that nothing can stop, its winner needing at
    most ``horizon`` moves; None when no race is settled so: when neither side has a free
    runner, when the loser has a blue of its own near enough to leave first by its
    shortest way (free or not, the winner would have to answer it), when the turn limit
    comes first, or when the game is over or the ghosts are still being placed."""
    if state.over or state.placing:
        return None
    mover = state.player
    ours = free_runner_moves(state, mover, True)
    theirs = free_runner_moves(state, 1 - mover, False)
    if ours is not None and (theirs is None or ours <= theirs):
        winner, moves, plies = mover, ours, 2 * ours - 1
    elif theirs is not None:
        winner, moves, plies = 1 - mover, theirs, 2 * theirs
    else:
        return None
    if moves > horizon or state.plies + plies > state.max_turns:
        return None
    loser, shape = 1 - winner, state.shape
    loser_moves = plies // 2  # the loser's moves before the runner leaves
    ghosts = shape.ghosts
    for g in range(ghosts * loser, ghosts * (loser + 1)):
        square = state.pos[g]
        if square >= 0 and not state.red[g] and exit_distance(loser, square, shape) <= loser_moves:
            return None
    return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


def guarded_moves(view: GeisterView) -> list[int]:
    """The moves of ``view``'s seat after which no opponent ghost, read as blue whatever
    its colour (the purple reading), is a free runner that leaves before a free runner
    of ours (``mcts:guard=exits``); every legal move when none is so guarded, or while
    the ghosts are still being placed. A sampled search reads a runner it believes red
    as harmless, and one that offers reds first teaches that belief to read every runner
    red: an exploiter trained against the learned player walked its blues to our exits
    with no guard of ours near (the Geister learning log). Only the position and our own
    colours are read, never a hidden colour."""
    legal = view.legal_actions()
    if view.over or any(not placed for placed in view.placed):
        return legal
    seat = view.seat
    # A full state with every hidden ghost blue: any of them may run. The colours drawn
    # here are overwritten, so no belief is needed.
    purple = view.determinize(random.Random(0))
    for g in view.unknown_ghosts():
        purple.red[g] = False
    guarded = []
    for action in legal:
        after = purple.clone()
        after.apply(action)
        if after.over:  # our escape, or a capture of what the purple reading takes for the last blue
            guarded.append(action)
            continue
        theirs = free_runner_moves(after, 1 - seat, moves_first=True)
        ours = free_runner_moves(after, seat, moves_first=False)
        if theirs is None or ours is not None and ours < theirs:
            guarded.append(action)
    return guarded or legal


#: The root move filters of ``mcts:guard=NAME``.
GUARDS = {"exits": guarded_moves}
