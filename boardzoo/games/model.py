"""The search model: the clone/step interface every game core implements.

Agents see a game only through this interface, so one MCTS, one alpha-beta and one
random agent serve every game. A game core is a *mutable* state object that is its own
model; nothing here imports gymnasium or pettingzoo.

Required
    ``num_actions``          size of the action space (actions are ``0..num_actions-1``)
    ``current_player()``     0 or 1 for the player to move; :data:`CHANCE` at a chance
                             event; :data:`TERMINAL` once the game is over
    ``legal_actions()``      the legal actions as a *fresh* list, one the caller may
                             shuffle or pop from (outcomes at a chance event)
    ``apply(action)``        play ``action`` in place (for a chance event: the outcome)
    ``clone()``              an independent copy, cheap: tree search calls it constantly
    ``is_terminal()``
    ``returns()``            ``(r0, r1)``: +1/-1/0 per player once terminal, (0, 0) before
    ``chance_outcomes()``    ``[(outcome, probability), ...]`` at a chance event

Declared capabilities (``capabilities``, one :class:`Capabilities` per core class)
    ``fast_playout``         ``playout(rng)`` is the game's own tight loop (a uniform random
                             play-out to the end, in place, returning ``returns()``)
    ``key``                  ``key()`` is a hashable identity of the position: equal keys
                             for equal positions (transposition tables, tree reuse)
    ``chance``               chance events can occur (``current_player() == CHANCE``)
    ``initial``              ``is_initial()`` tells the first move of a game
    ``hidden_information``   the object is a seat's *information set*: it answers
                             ``current_player``/``legal_actions`` for the seat's own turn,
                             ``determinize(rng, belief)`` returns a full state (a perfect-
                             information core) consistent with what the seat has seen, drawn
                             with a belief's odds (``f(view, unknown) -> weights``; None:
                             every consistent state alike), and
                             ``view_key(seat)`` on such full states is what the seat sees
Agents check the capabilities they need when they meet a game (``Agent.check``), so a
missing one is a clear error before the first move, not a failure deep in a search.

Also used when present: ``how_it_ended()`` (why a finished game ended, in words: the
analysis of a whole game tree counts its endings), ``ordered_legal_actions()`` (alpha-beta's move order),
``action_label(a)`` / ``parse_action(text)`` (how people write moves) and
``explain_illegal(a)`` (error messages). What a *player* knows about a game — greedy
rule, roll-out policies, evaluators, beliefs — is registered apart from the rules, in
:mod:`boardzoo.strategy.knowledge`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from boardzoo.values import whole

#: ``current_player()`` at a chance event (e.g. the Nim coin).
CHANCE = -1
#: ``current_player()`` once the game is over.
TERMINAL = -2


@dataclass(frozen=True)
class Capabilities:
    """What a game core offers beyond the required methods (see the module docstring)."""

    fast_playout: bool = False
    key: bool = False
    chance: bool = False
    initial: bool = False
    hidden_information: bool = False


#: How messages name each capability: "<agent>: <purpose> needs <this>".
CAPABILITY_TEXT = {
    "fast_playout": "a fast play-out",
    "key": "position keys (key())",
    "chance": "chance events",
    "initial": "a game that tells its first move (is_initial())",
    "hidden_information": "hidden information",
    "perfect_information": "perfect information",
}


def require(agent: str, model: GameState, capability: str, purpose: str) -> None:
    """Raise ValueError unless ``model``'s game declares ``capability`` (or, for
    ``perfect_information``, does not hide information): what agents check at set-up."""
    declared = model.capabilities
    if capability == "perfect_information":
        ok = not declared.hidden_information
    else:
        ok = getattr(declared, capability)
    if not ok:
        lacks = "hides information" if capability == "perfect_information" else \
            f"does not declare {capability}"
        raise ValueError(f"{agent}: {purpose} needs {CAPABILITY_TEXT[capability]}; "
                         f"{model.game_name} {lacks}")


class GameState:
    """Base class of the game cores; subclasses override the rules.

    Defaults are provided for everything that can be derived from the required methods,
    so a new game needs only the rules themselves.
    """

    __slots__ = ()

    @property
    def num_actions(self) -> int:
        """Size of the action space: a class attribute or a property of each core."""
        raise NotImplementedError
    #: Short name of the game, used in messages and registries.
    game_name: str = "game"
    #: What this core offers beyond the required methods.
    capabilities: ClassVar[Capabilities] = Capabilities()

    # --- required ----------------------------------------------------------------
    def current_player(self) -> int:
        raise NotImplementedError

    def legal_actions(self) -> list[int]:
        raise NotImplementedError

    def apply(self, action: int) -> None:
        raise NotImplementedError

    def clone(self) -> GameState:
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
        """Why ``action`` is not legal here (called only for illegal actions), in the
        player's terms: a move named as :meth:`action_label` writes it."""
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

    def key(self) -> Hashable:
        raise NotImplementedError(f"{self.game_name} has no position key")

    # --- hidden information (the ``hidden_information`` capability) ---------------------
    def determinize(self, rng: random.Random, belief: Callable | None = None) -> GameState:
        """A seat's information set: one full state consistent with it, drawn with
        ``belief``'s odds (every consistent state alike when None)."""
        raise NotImplementedError(f"{self.game_name} hides nothing: it has no determinize()")

    def secret_choice(self) -> bool:
        """True when the move to make now is a secret the opponent never sees played
        (Geister's choice of its red ghosts). A player that makes the same secret choice
        every game gives it away to anyone who has seen one of its games, so agents draw
        such a move from a mixed strategy (:func:`boardzoo.agents.base.drawn_secret`)
        rather than pick their best."""
        return False

    def view_key(self, seat: int) -> Hashable:
        """A full state of a hidden-information game: what ``seat`` knows of it, equal to
        the ``key()`` of that seat's information set."""
        raise NotImplementedError(f"{self.game_name} has no seat views")

    def action_label(self, action: int) -> str:
        return str(action)

    def to_text(self) -> str:
        """The position as text: the terminal's board and the envs' ``ansi`` render."""
        raise NotImplementedError(f"{self.game_name} has no text drawing")

    def input_help(self) -> str:
        """How a person writes a move in this phase of the game, for the terminal's
        prompt; empty where the prompt's list of legal moves says it all."""
        return ""

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
    whole(f"{game}: {name}", value, low=low)


_WIN_RETURNS = {0: (1.0, -1.0), 1: (-1.0, 1.0)}


def returns_of_winner(winner: int) -> tuple[float, float]:
    """Per-player returns when ``winner`` (0 or 1) won; a draw (0, 0) for anything else."""
    return _WIN_RETURNS.get(winner, (0.0, 0.0))


def play_sequence(state: GameState, actions: Sequence[int]) -> GameState:
    """Apply ``actions`` one after another (handy in tests and tools); returns ``state``."""
    for action in actions:
        state.apply(action)
    return state
