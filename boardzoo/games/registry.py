"""What one game *is*, declared once: the :class:`Game` descriptor and its registry.

Each game module ends with one ``GAME = Game(...)`` naming everything about the game
that the rest of boardzoo needs: its parameters with their types and bounds, how to
build a new initial state, what it offers (hidden information, chance, players, its
longest game, its payoffs), its envs, the module that registers what players know
about it, the module of its compiled core, what a network sees of it and how a
network learns it (:class:`Learning`). The lists that
name the games (the envs with their descriptions, each game's observation encoder and
knowledge module, the games with a compiled core, the batched envs, the training
presets, the shipped networks) are derived from :data:`GAME_MODULES` and these
descriptors, so that a new game is declared in its own module and one line here.

    from boardzoo.games.registry import game, games
    connect_four = game("connect_four")
    state = connect_four.new_initial_state(rows=6, cols=7)
    connect_four.max_length({"rows": 6, "cols": 7})   # 42
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from boardzoo.games.model import GameState
from boardzoo.values import number, whole

#: One line per game: the module that declares its ``GAME``. The order is the listings'.
GAME_MODULES = (
    "boardzoo.games.connect_four",
    "boardzoo.games.nim",
    "boardzoo.games.cantris",
    "boardzoo.games.geister",
    "boardzoo.games.tic_tac_toe",
)


@dataclass(frozen=True)
class Param:
    """One game parameter: its type, default and bounds (inclusive), or its choices."""

    default: Any
    kind: type = int
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    doc: str = ""

    def check(self, game: str, name: str, value: Any) -> Any:
        """``value`` when it fits; ValueError naming the game, the parameter and the rule."""
        if self.kind is bool:
            if not isinstance(value, bool):
                raise ValueError(f"{game}: {name} must be True or False, got {value!r}")
            return value
        if self.kind is int:
            return whole(f"{game}: {name}", value, None if self.low is None else int(self.low),
                         None if self.high is None else int(self.high))
        if self.kind is float:
            return number(f"{game}: {name}", value, self.low, self.high)
        if self.kind is str and not isinstance(value, str):
            raise ValueError(f"{game}: {name} must be a string, got {value!r}")
        if self.choices and value not in self.choices:
            raise ValueError(f"{game}: {name} must be one of {', '.join(map(str, self.choices))}, got {value!r}")
        return value


@dataclass(frozen=True)
class Learning:
    """How a network learns the game by self-play (``boardzoo train GAME``): the env its
    games are played in, the settings that differ from the trainer's defaults (names as
    ``TrainingConfig``'s), the file of the network shipped for it (in the ``alphazero``
    agent's weights), and the generations of the run that made that network (where a run
    stops when told no other end)."""

    env: str
    settings: Mapping[str, Any]
    shipped: str
    generations: int
    #: The same game mirrored left to right, the actions being columns (a free doubling
    #: of the positions learned, and of the network's answers when averaged).
    mirrored: bool = False
    #: Who learns it: ``alphazero``, the searching self-play of games of perfect
    #: information (the ``alphazero`` agent plays the network), or ``hidden``, the
    #: self-play policy gradient over information states (the ``network`` agent plays it).
    trainer: str = "alphazero"
    #: ``f(view, unknown, logits) -> odds``: the network's belief head (logits of what the
    #: player to move cannot see) read as the game's belief about its ``unknown`` hidden
    #: pieces, as the determinizing searches draw them (``belief=network``); None: the
    #: game's network has no belief a search can read.
    belief_odds: Callable[[Any, list[int], Any], list[float]] | None = None
    #: ``f(inputs, ranks)``: a batch of network inputs rewritten in place so that each
    #: mover's own secret is a decoy drawn by ``ranks`` (a row of random numbers a game, one
    #: a cell of the input's plane): a past self playing from them shows no tell of its
    #: true secret (the ``disguised_share`` of a hidden-information run); None: the game
    #: has no decoy to offer.
    disguise: Callable[[Any, Any], None] | None = None


@dataclass(frozen=True)
class Game:
    """Everything about one game that is the same whoever plays it.

    ``make_state(rng, **params)`` builds a new initial state from checked parameters
    (``rng`` for games dealt at random, such as Cantris); ``max_length(params)`` is the
    most player moves a game can last; ``envs`` maps each env's name (``name_vN``) to its
    one-line description, oldest first; ``observation`` is ``f(state, seat) -> array``,
    what the game's env shows a seat (a learned evaluator reads it inside a search
    too); ``knowledge`` is the module (in ``boardzoo.strategy``) that registers what
    players know of the game (greedy rule, roll-outs, evaluators, beliefs), None for
    none.

    ``variants`` names the parameter sets the test suites (conformance, compiled twins)
    play, ``""`` the plain one: a ``(low, high)`` pair is an int drawn anew for each
    game (:meth:`variant_state`). ``small_envs`` names env specs small enough for the
    agent matrix to play every agent on."""

    name: str
    title: str
    state_class: type[GameState]
    make_state: Callable[..., GameState]
    parameters: Mapping[str, Param]
    max_length: Callable[[Mapping[str, Any]], int]
    envs: Mapping[str, str]
    observation: Callable[[Any, int], Any]
    knowledge: str | None = None
    #: The module of the game's own folder that holds its compiled core (the ``fast``
    #: extra; the interface is ``boardzoo.fast.core``'s): its batch, compiled searches and
    #: network input. None for a game with none.
    compiled_core: str | None = None
    #: The roll-out policies the compiled engine plays this game with (``mcts:rollout=``).
    compiled_rollouts: tuple[str, ...] = ("random",)
    #: Whether a seat's observation leaves out part of the position (the cores are the
    #: referee's full state; the seat's information set is its own class).
    hidden_information: bool = False
    #: What a seat's agent is handed of a full state (``f(state, seat)``): its information
    #: set where information is hidden, as the env's ``model(agent)``; None: a copy.
    seat_view: Callable[[Any, int], GameState] | None = None
    #: Whether chance events can occur (with some parameters, as Nim's coin).
    chance: bool = False
    #: The game's first position with every draw of its deal a chance event (``f(**params)``),
    #: for libraries that want chance in the tree (OpenSpiel, whole-tree analysis); None
    #: where ``make_state`` draws nothing.
    explicit_deal: Callable[..., GameState] | None = None
    #: The most outcomes one chance event has under these parameters (0: none occurs).
    max_chance_outcomes: Callable[[Mapping[str, Any]], int] = lambda params: 0
    players: int = 2
    zero_sum: bool = True
    utility: tuple[float, float] = (-1.0, 1.0)
    #: The least and the most value of the observation's entries (the generic env's box).
    observation_bounds: tuple[float, float] = (0.0, 1.0)
    #: What a learned network sees of a position, ``f(state, largest_pile) -> array`` in
    #: the input's shape (``largest_pile`` sizes a pile game's one-hot): the plain twin of
    #: the compiled writer; None for a game no network learns.
    network_input: Callable[[Any, int], Any] | None = None
    #: Self-play training of a network for the game; None where none is declared.
    learning: Learning | None = None
    variants: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: {"": {}})
    small_envs: Mapping[str, str] = field(default_factory=dict)

    def checked(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Every parameter, defaults filled in, each checked against its declaration."""
        unknown = sorted(set(params) - set(self.parameters))
        if unknown:
            raise ValueError(f"{self.name}: unknown parameter {unknown[0]!r}; parameters are "
                             f"{', '.join(self.parameters) or 'none'}")
        return {name: param.check(self.name, name, params.get(name, param.default))
                for name, param in self.parameters.items()}

    def new_initial_state(self, rng: random.Random | None = None, **params) -> GameState:
        """A new game's first position; ``rng`` deals the games dealt at random (a fresh
        seed when None)."""
        return self.make_state(rng if rng is not None else random.Random(), **self.checked(params))

    def variant_names(self) -> list[str]:
        """``name`` for the plain variant, ``name-KEY`` for the others."""
        return [f"{self.name}-{key}" if key else self.name for key in self.variants]

    def variant_state(self, key: str, rng: random.Random) -> GameState:
        """A new game of variant ``key``, its drawn parameters drawn from ``rng``."""
        params = {name: rng.randint(*value) if isinstance(value, tuple) else value
                  for name, value in self.variants[key].items()}
        return self.new_initial_state(rng, **params)

    def input_shape(self, state: GameState, largest_pile: int = 0) -> tuple[int, ...]:
        """The shape of what a network sees of ``state`` (see ``network_input``); a
        ValueError for a game no network learns."""
        if self.network_input is None:
            learned = [name for name, game in games().items() if game.network_input is not None]
            raise ValueError(f"no network input for {self.name}; networks learn {', '.join(learned)}")
        return tuple(self.network_input(state, largest_pile).shape)

    def explicit_first_position(self, **params) -> GameState:
        """A new game's first position with every draw of its deal left to chance events
        (``explicit_deal`` where the game has one): the root of a whole game tree."""
        params = self.checked(params)
        if self.explicit_deal is not None:
            return self.explicit_deal(**params)
        return self.make_state(None, **params)

    def model_for(self, state: GameState, seat: int) -> GameState:
        """What ``seat``'s agent searches: its view of ``state`` (see ``seat_view``)."""
        return self.seat_view(state, seat) if self.seat_view is not None else state.clone()

    def newest_env(self) -> str:
        return max(self.envs, key=lambda name: int(name.rsplit("_v", 1)[1]))


def variants() -> dict[str, tuple[Game, str]]:
    """Every game's test variants: ``name-KEY`` -> (the game, its variant key)."""
    return {name: (declared, key) for declared in games().values()
            for name, key in zip(declared.variant_names(), declared.variants)}


_GAMES: dict[str, Game] = {}


def games() -> dict[str, Game]:
    """Every game, in :data:`GAME_MODULES`' order (imports their modules once)."""
    if len(_GAMES) < len(GAME_MODULES):
        for module in GAME_MODULES:
            declared = importlib.import_module(module).GAME
            _GAMES.setdefault(declared.name, declared)
    return dict(_GAMES)


def declaring_module(declared: Game) -> ModuleType:
    """The module that declares ``declared`` (its docstring documents the game's env
    where the game has no env module of its own)."""
    for module in GAME_MODULES:
        found = importlib.import_module(module)
        if getattr(found, "GAME", None) is declared:
            return found
    raise ValueError(f"{declared.name} is not declared in any of GAME_MODULES")


def game(name: str) -> Game:
    """The game named ``name`` (a core's ``game_name``); ValueError listing them otherwise."""
    found = games().get(name)
    if found is None:
        raise ValueError(f"unknown game {name!r}; games are: {', '.join(games())}")
    return found
