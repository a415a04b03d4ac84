"""The agent interface every boardzoo agent implements.

    action = agent.act(observation, model)

``observation`` is what the env's ``observe``/``last`` returned for the agent's seat (a
dict with ``"observation"`` and ``"action_mask"``); ``model`` is the seat's search model
(``env.unwrapped.model(agent)``), which agents that don't search may ignore. All
randomness comes from ``self.rng``, a ``random.Random`` seeded by ``seed``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from boardzoo.games.model import GameState
from boardzoo.values import seconds as in_seconds
from boardzoo.values import whole

if TYPE_CHECKING:
    from boardzoo.spec import Registry


class Agent:
    #: Registry name, as written in specs.
    name: ClassVar[str] = "agent"
    #: One line for ``boardzoo list``.
    summary: ClassVar[str] = ""
    #: True for agents that need a person at the terminal (the arena refuses them).
    interactive: bool = False
    #: Spec parameters that choose a part from a registry (``{"policy": SELECTION}``): the
    #: chosen part's own parameters become spec parameters too (see boardzoo.spec.Registry).
    parts: ClassVar[Mapping[str, Registry]] = {}
    #: What a parameter's default (None in the signature) really is, for listings:
    #: ``{"depth": "4 without time="}``.
    default_notes: ClassVar[Mapping[str, str]] = {}
    #: The games (``GameState.game_name``) the agent is written for; None: every game.
    games: ClassVar[frozenset[str] | None] = None

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(_seed(seed))
        #: The spec the agent was made from, and what it stands for (a preset's own spec).
        self.spec = self.full_spec = self.name
        #: The games of the preset the agent was made from, when it plays fewer than its class.
        self.preset_games: frozenset[str] | None = None
        self._checked: tuple | None = None
        #: Statistics of the last decision (search agents fill it in).
        self.stats: dict[str, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        """A new game starts; reseed when ``seed`` is given."""
        if seed is not None:
            self.rng.seed(_seed(seed))

    def act(self, observation: dict, model: GameState) -> int:
        raise NotImplementedError

    def end_of_game(self, final: GameState, seat: int) -> None:
        """A game of a match against one opponent is over: ``final`` is its last
        position with every colour shown (a Geister server reveals them at the end) and
        the public evidence of the whole game; ``seat`` is this agent's. An agent that
        learns its opponent over a match (``purple:belief=profile``) learns here; the
        default forgets it. Only a match calls this (the tournament client); the arena
        and the league never do, so their games stay independent of their order."""

    def check(self, model: GameState) -> None:
        """Raise ValueError when this agent's options do not fit the game of ``model``
        (a roll-out policy, belief or evaluator the game does not have). The arena calls
        it before the first game, so a bad option fails before anything is played."""
        self.check_game(model)

    def check_game(self, model: GameState) -> None:
        """Raise ValueError when ``model``'s game is not one that this agent, or the preset
        it was made from, plays: checked before the options, whose refusal would name a part
        instead of the game."""
        for games in (self.games, self.preset_games):
            if games is not None and model.game_name not in games:
                raise ValueError(f"{self.spec.split(':', 1)[0]}: plays {', '.join(sorted(games))} only, "
                                 f"not {model.game_name}")

    def check_once(self, model: GameState) -> None:
        """:meth:`check` the first time this agent meets ``model``'s game (its class and
        name), not again at every move; the arena calls it before the first game."""
        key = (type(model), model.game_name)
        if key != self._checked:
            self.check_game(model)
            self.check(model)
            self._checked = key

    def warm_up(self, model: GameState) -> None:
        """Do now, before any move is timed, the one-off work that would otherwise slow
        this agent's first move in a process: compiling or loading compiled code,
        allocating tables. ``model`` is a position of the game to be played (an agent
        must not keep anything of it). The arena calls it once per process, after
        :meth:`check`; the default has nothing to do."""

    def close(self) -> None:
        """Release what the agent holds (processes, files); the agent is not used again."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


def legal_from_mask(observation: dict) -> np.ndarray:
    """The legal actions of an observation's action mask."""
    legal = np.flatnonzero(observation["action_mask"])
    if len(legal) == 0:
        raise ValueError("no legal action: the action mask is all zeros (is it this agent's turn?)")
    return legal


def drawn_secret(model: GameState, rng: random.Random,
                 prior: Sequence[tuple[int, float]] | None = None) -> int | None:
    """At a secret choice (:meth:`~boardzoo.games.model.GameState.secret_choice`), a move
    drawn from ``prior`` (pairs of a legal move and its probability: a learned player's
    mixed strategy), or uniformly among the legal moves without one; None elsewhere.

    A search picks the secret it values most, a strong search the same one every game,
    and the opponent sees it the first time a game shows it (Geister's captured ghosts
    show their colours): from then on the secret is no secret. A secret has to be mixed."""
    if not model.secret_choice():
        return None
    if prior:
        moves, weights = zip(*prior)
        if sum(weights) > 0:
            return int(rng.choices(moves, weights)[0])
    actions = model.legal_actions()
    return actions[int(rng.random() * len(actions))]


#: The longest time budget a move may have, in seconds: budgets are finite by design.
MAX_SECONDS = 3600.0
#: The largest count budgets (a search tree grows by about a node per iteration).
MAX_COUNTS = {"iterations": 10_000_000, "playouts": 100_000_000, "depth": 100}


def check_budget(agent: str, count_name: str, count, seconds) -> None:
    """Validate a search budget: ``count`` (iterations, depth) an int from 1 to its
    maximum and ``seconds`` a positive, finite number up to ``MAX_SECONDS``, each when
    given."""
    if count is not None:
        whole(f"{agent}: {count_name}", count, 1, MAX_COUNTS[count_name])
    if seconds is not None:
        in_seconds(f"{agent}: time", seconds, MAX_SECONDS)


def _seed(seed: Any) -> int | None:
    """An agent's seed: None (a fresh one) or an int, NumPy's included (``random.Random``
    takes only Python's)."""
    return None if seed is None else whole("agent seed", seed)
