"""The search model: the clone/step interface every game core implements.

Agents see a game only through this interface, so one MCTS, one alpha-beta and one
random agent serve every game. A game core is a *mutable* state object that is its own
model; nothing here imports gymnasium or pettingzoo.

Required
    ``num_actions``          size of the action space (actions are ``0..num_actions-1``)
    ``current_player()``     0 or 1 for the player to move; :data:`CHANCE` at a chance
                             event; :data:`TERMINAL` once the game is over
    ``legal_actions()``      list of legal actions (outcomes at a chance event)
    ``apply(action)``        play ``action`` in place (for a chance event: the outcome)
    ``clone()``              an independent copy, cheap: tree search calls it constantly
    ``is_terminal()``
    ``returns()``            ``(r0, r1)``: +1/-1/0 per player once terminal, (0, 0) before
    ``chance_outcomes()``    ``[(outcome, probability), ...]`` at a chance event

Optional fast paths (agents use them when present, fall back otherwise)
    ``playout(rng)``         uniform random play-out to the end, in place, in one tight
                             loop; returns ``returns()``. ``rng`` is a ``random.Random``.
    ``key()``                hashable identity of the position, for transposition tables

Hidden information
    A seat of a hidden-information game gets an *information set* as its model: it sets
    ``hidden_information = True``, answers ``current_player``/``legal_actions`` for the
    seat's own turn, and ``determinize(rng, belief)`` returns a full state (one of the
    above) consistent with what the seat has seen. Search agents sample from it.

Game knowledge that plugs into the generic agents lives beside the game, as methods:
    ``greedy_action(rng)``   the game's greedy/heuristic move
    ``rollout_policies``     named roll-out policies for MCTS (``fast_rollouts``: the same
                             as tight loops ``f(state, rng, limit) -> returns``)
    ``evaluators``           named leaf evaluators for minimax/alpha-beta
    ``ordered_legal_actions()``  legal actions, most promising first
    ``action_label(a)`` / ``parse_action(text)``   how people write moves
    ``explain_illegal(a)``   why an action is illegal, for error messages
"""

from __future__ import annotations

import random
from typing import Hashable, Sequence

#: ``current_player()`` at a chance event (e.g. the Nim coin).
CHANCE = -1
#: ``current_player()`` once the game is over.
TERMINAL = -2


class GameState:
    """Base class of the game cores; subclasses override the rules.

    Defaults are provided for everything that can be derived from the required methods,
    so a new game needs only the rules themselves.
    """

    __slots__ = ()

    #: Size of the action space; set by each subclass (per instance where it varies).
    num_actions: int
    #: Short name of the game, used in messages and registries.
    game_name: str = "game"

    # --- required ----------------------------------------------------------------
    def current_player(self) -> int:
        raise NotImplementedError

    def legal_actions(self) -> list[int]:
        raise NotImplementedError

    def apply(self, action: int) -> None:
        raise NotImplementedError

    def clone(self) -> "GameState":
        raise NotImplementedError

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def returns(self) -> tuple[float, float]:
        raise NotImplementedError

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Outcomes and their probabilities at a chance event; [] elsewhere."""
        return []

    # --- derived defaults --------------------------------------------------------
    def legal_mask(self) -> list[int]:
        """0/1 per action of the action space (all zero at terminal and chance nodes)."""
        mask = [0] * self.num_actions
        if self.current_player() >= 0:
            for action in self.legal_actions():
                mask[action] = 1
        return mask

    def is_legal(self, action: int) -> bool:
        return self.current_player() >= 0 and action in self.legal_actions()

    def explain_illegal(self, action: int) -> str:
        """Why ``action`` is not legal here (called only for illegal actions)."""
        if self.is_terminal():
            return "the game is over"
        return f"legal actions are {self.legal_actions()}"

    def sample_chance(self, rng: random.Random) -> int:
        """Draw an outcome of the chance event by its probability."""
        outcomes = self.chance_outcomes()
        x = rng.random()
        for outcome, probability in outcomes:
            x -= probability
            if x < 0:
                return outcome
        return outcomes[-1][0]

    def playout(self, rng: random.Random) -> tuple[float, float]:
        """Generic uniform random play-out; games override it with a tight loop."""
        return play_out(self, rng)

    def ordered_legal_actions(self) -> list[int]:
        """Legal actions, most promising first (alpha-beta searches them in this order)."""
        return self.legal_actions()

    def is_initial(self) -> bool:
        """True before the first move of the game (``random_first`` of minimax needs it)."""
        raise NotImplementedError(f"{self.game_name} cannot tell its first move")

    #: Named leaf evaluators for minimax/alpha-beta (``eval=NAME``) beyond the generic
    #: ``simple``: ``name -> f(state, player, max_depth) -> score for player``.
    evaluators: dict = {}

    #: Named roll-out policies, ``name -> f(state, rng) -> action``, for ``mcts:rollout=NAME``.
    rollout_policies: dict = {}

    def key(self) -> Hashable:
        raise NotImplementedError(f"{self.game_name} has no position key")

    def greedy_action(self, rng: random.Random) -> int:
        raise NotImplementedError(f"{self.game_name} has no greedy rule")

    def action_label(self, action: int) -> str:
        return str(action)

    def parse_action(self, text: str) -> int:
        """Inverse of :meth:`action_label`; raises ValueError with a clear message."""
        try:
            return int(text.strip())
        except ValueError:
            raise ValueError(f"{text.strip()!r} is not a move number") from None


def play_out(state: GameState, rng: random.Random, policy=None, limit: int = 0) -> tuple[float, float]:
    """Play ``state`` to the end in place and return its returns: chance events drawn by
    their probabilities, moves by ``policy(state, rng)`` (uniform when None). With a
    ``limit``, a game still going after that many moves is scored as a draw."""
    moves = 0
    while True:
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()
        if player == CHANCE:
            state.apply(state.sample_chance(rng))
            continue
        if limit and moves >= limit:
            return (0.0, 0.0)
        if policy is None:
            actions = state.legal_actions()
            state.apply(actions[int(rng.random() * len(actions))])
        else:
            state.apply(policy(state, rng))
        moves += 1


def check_int(game: str, name: str, value, low: int) -> None:
    """Raise a clear ValueError unless ``value`` is an int (not a bool) of at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{game}: {name} must be an int, got {value!r}")
    if value < low:
        raise ValueError(f"{game}: {name} must be at least {low}, got {value}")


_WIN_RETURNS = {0: (1.0, -1.0), 1: (-1.0, 1.0)}


def returns_of_winner(winner: int) -> tuple[float, float]:
    """Per-player returns when ``winner`` (0 or 1) won; a draw (0, 0) for anything else."""
    return _WIN_RETURNS.get(winner, (0.0, 0.0))


def play_sequence(state: GameState, actions: Sequence[int]) -> GameState:
    """Apply ``actions`` one after another (handy in tests and tools); returns ``state``."""
    for action in actions:
        state.apply(action)
    return state
