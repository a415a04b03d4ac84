"""Geister: 6x6, two players with 4 blue and 4 red ghosts each, the colours of the
opponent's ghosts hidden (``docs/rules-geister.md``, source 004).

Frames. Squares are ``y * 6 + x`` in **player_0's frame** (x to the east, y to the
south, player_0's home rows y = 4, 5). Each seat sees itself at the bottom, as on the
tournament server: player_1's own frame is player_0's turned by 180 degrees, which on
square numbers is ``35 - square``. Directions are the mover's own: NORTH = toward the
opponent.

Ghosts. ``g = 8 * seat + i``; ``i`` = 0..7 are the protocol letters A..H of that seat (A..D
its front row, E..H its back row, left to right from its own side). ``pos[g]`` is a square,
:data:`CAPTURED` or :data:`ESCAPED`.

Actions (``Discrete(102)``, the same for both seats)
    0..31    move ghost ``a // 4`` (A..H) one square ``a % 4`` = NORTH, EAST, SOUTH, WEST.
             From the opponent's back corner (own-frame (0, 0) with NORTH or WEST, (5, 0)
             with NORTH or EAST) a blue ghost moves off the board: an escape.
    32..101  the placement: ``RED_SETS[a - 32]``, the 4 ghosts that are red (70 sets of
             4 of the 8 letters, in lexicographic order: ABCD, ABCE, ..., EFGH).
The game opens with player_0's placement, then player_1's, then player_0 moves.

A move onto an opponent ghost captures it (any colour; its colour becomes public). A seat
wins when one of its blue ghosts escapes, when it captured all 4 opponent blues, or when
the opponent captured all 4 of its reds. After ``max_turns`` moves (plies, placements not
counted) without a winner the game is a draw; a win on the last ply counts.

Hidden information: :class:`GeisterState` is the whole truth (for the referee, spectators
and determinized search). A seat gets :class:`GeisterView` instead: everything that seat
has seen, the opponent's on-board colours unknown, and :meth:`GeisterView.determinize` to
sample full states consistent with it under a *belief* (the named ones are in
``boardzoo.strategy.geister.beliefs``).
"""


from math import comb

from boardzoo.games.geister.board import (
    CAPTURED,
    CLASSIC,
    DIRECTIONS,
    EMPTY,
    ESCAPED,
    EXITS,
    GHOSTS,
    LETTERS,
    MAX_GHOSTS,
    MAX_SIDE,
    MOVE_ACTIONS,
    NUM_ACTIONS,
    OWN_STEPS,
    RED_SET_INDEX,
    RED_SETS,
    SIZE,
    SQUARES,
    TARGET,
    Layout,
    home_square,
    layout,
    parse_red,
    placement_action,
    red_letters,
    to_own,
)
from boardzoo.games.geister.information import (
    OBSERVATION_SIZE,
    PLANES,
    GeisterView,
    blue_odds,
    disguised_colours,
    network_input,
    observation_of,
    observation_size,
    weighted_sample,
)
from boardzoo.games.geister.protocol import (
    HiddenColours,
    board_string,
    moves_from_boards,
    parse_board_string,
    position_from_board_string,
    positions_of,
)
from boardzoo.games.geister.rules import GeisterState
from boardzoo.games.registry import Game, Learning, Param

#: The longest game a Geister env or core accepts (plies); games are stopped at max_turns.
MAX_TURNS_LIMIT = 100_000

#: How the colours are set: each player chooses its reds (an action), or they are dealt
#: at random (a chance event per seat).
PLACEMENTS = ("chosen", "dealt")


def _new_geister(rng, max_turns: int, rows: int, cols: int, blue: int, red: int, exits: int,
                 placement: str) -> GeisterState:
    return GeisterState(max_turns, shape=layout(rows, cols, blue, red, exits), dealt=placement == "dealt")


GAME = Game(
    name=GeisterState.game_name,
    title="Geister",
    state_class=GeisterState,
    make_state=_new_geister,
    parameters={"max_turns": Param(200, int, 1, MAX_TURNS_LIMIT, doc="moves (plies) before a draw"),
                "rows": Param(6, int, 3, MAX_SIDE, doc="rows of the board"),
                "cols": Param(6, int, 3, MAX_SIDE, doc="columns of the board"),
                "blue": Param(4, int, 1, MAX_GHOSTS - 1, doc="blue ghosts a side"),
                "red": Param(4, int, 1, MAX_GHOSTS - 1, doc="red ghosts a side"),
                "exits": Param(2, int, 1, 2, doc="exits a side: both far corners, or the far left one"),
                "placement": Param("chosen", str, choices=PLACEMENTS,
                                   doc="the colours chosen by the players, or dealt at random")},
    max_length=lambda params: params["max_turns"] + 2,  # the two placements, then the moves
    envs={"geister_v0": "Geister, 6x6 with hidden ghost colours; red placement as actions; the family's "
                        "smaller boards and ghost counts as parameters"},
    observation=observation_of,
    network_input=network_input,
    # A magnet a tenth of the trainer's default: at 0.5 the full game's policy did not move
    # from where it started in 53 iterations; at 0.05 it learned at once. The expert in the
    # league (searched to depth 3, no clock, so the games are reproducible) is the player
    # whose bluffs a belief learned only from roll-out players misreads.
    learning=Learning(env="geister_v0", shipped="geister.npz", generations=0, trainer="hidden",
                      settings={"magnet_weight": 0.05,
                                "fixed_opponents": ("rushing", "forward", "baiting",
                                                    "geister-expert:time=none,depth=3")},
                      belief_odds=blue_odds, disguise=disguised_colours),
    knowledge="boardzoo.strategy.geister",
    compiled_core="boardzoo.games.geister.compiled",
    compiled_rollouts=("random", "forward", "rushing", "baiting"),
    hidden_information=True,
    seat_view=GeisterView,
    chance=True,
    max_chance_outcomes=lambda params: (comb(params["blue"] + params["red"], params["red"])
                                        if params["placement"] == "dealt" else 0),
    variants={"": {"max_turns": (10, 200)}, "small": {"rows": 5, "cols": 4, "blue": 2, "red": 2, "max_turns": 40},
              "tiny-dealt": {"rows": 3, "cols": 4, "blue": 1, "red": 1, "max_turns": 12, "placement": "dealt"}},
    small_envs={"geister": "geister_v0:max_turns=12",
                "geister-small": "geister_v0:rows=5,cols=4,blue=2,red=2,exits=1,max_turns=12,placement=dealt"},
)

__all__ = [
    "CAPTURED", "CLASSIC", "DIRECTIONS", "EMPTY", "ESCAPED", "EXITS", "GAME", "GHOSTS", "GeisterState", "GeisterView",
    "HiddenColours", "LETTERS", "Layout", "MAX_TURNS_LIMIT", "MOVE_ACTIONS", "NUM_ACTIONS", "OBSERVATION_SIZE",
    "OWN_STEPS", "PLACEMENTS", "PLANES", "RED_SETS", "RED_SET_INDEX", "SIZE", "SQUARES", "TARGET", "board_string",
    "home_square", "layout", "moves_from_boards", "observation_of", "observation_size", "parse_board_string",
    "parse_red", "placement_action",
    "position_from_board_string", "positions_of", "red_letters", "to_own", "weighted_sample",
]
