"""boardzoo's games as OpenSpiel games (the ``openspiel`` extra).

Importing this module registers every boardzoo game with ``pyspiel`` as a Python game
named ``boardzoo_<game>``, so that OpenSpiel's algorithms (MCTS, CFR, exploitability, best
responses, NFSP, ...) and the libraries built on it (TorchRL's ``OpenSpielWrapper``) play
it. Parameters go through OpenSpiel's game string::

    import pyspiel
    import boardzoo.interop.openspiel  # registers the games

    game = pyspiel.load_game("boardzoo_connect_four(rows=5,cols=6)")
    state = game.new_initial_state()
    state.apply_action(3)

Each game keeps its true type: sequential, two players, zero-sum, terminal rewards;
explicit chance where the game has chance (Nim's coin, a dealt Geister's colours, Cantris'
deal tile by tile: the game's ``explicit_deal``), its outcomes numbered from 0 in the
core's order; perfect or imperfect information. A seat's observation tensor is what
boardzoo's env shows that seat (the game's ``observation``); its observation string is
the position as text, or in Geister what the seat sees of it. The information state
(:class:`RecallObserver`) of a perfect-information game is its history as text, as
OpenSpiel's own such games have it; of Geister, every view and observation of the seat
so far. Every state serialises (OpenSpiel writes its actions and replays them), clones
and pickles; :func:`tabular_policy` carries an OpenSpiel policy into boardzoo's tree of
the same game (:mod:`boardzoo.exploitability`).

The rules are boardzoo's own cores, stepped in Python: OpenSpiel's algorithms that walk
the tree state by state run as fast as a Python game can (OpenSpiel's own note: fine for
prototyping and small games, slow for search-heavy algorithms on big ones).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from boardzoo.errors import install_hint

try:
    import pyspiel
except ImportError as missing:  # pragma: no cover - exercised without the extra
    raise ImportError(f"boardzoo.interop.openspiel needs OpenSpiel: {install_hint('openspiel')}") from missing

from boardzoo.exploitability.best_response import TabularPolicy
from boardzoo.exploitability.game_tree import GameTree
from boardzoo.games.model import CHANCE, TERMINAL, GameState
from boardzoo.games.registry import Game, games

#: OpenSpiel's name of a boardzoo game: this prefix, then boardzoo's name.
PREFIX = "boardzoo_"


def spiel_name(declared: Game) -> str:
    return PREFIX + declared.name


def game_type(declared: Game) -> pyspiel.GameType:
    """The OpenSpiel type of ``declared``: what kind of game it is, and its parameters
    with their defaults (OpenSpiel's game string accepts exactly these)."""
    kinds = pyspiel.GameType
    return pyspiel.GameType(
        short_name=spiel_name(declared),
        long_name=f"boardzoo {declared.title}",
        dynamics=kinds.Dynamics.SEQUENTIAL,
        chance_mode=(kinds.ChanceMode.EXPLICIT_STOCHASTIC if declared.chance or declared.explicit_deal
                     else kinds.ChanceMode.DETERMINISTIC),
        information=(kinds.Information.IMPERFECT_INFORMATION if declared.hidden_information
                     else kinds.Information.PERFECT_INFORMATION),
        utility=kinds.Utility.ZERO_SUM if declared.zero_sum else kinds.Utility.GENERAL_SUM,
        reward_model=kinds.RewardModel.TERMINAL,
        max_num_players=declared.players,
        min_num_players=declared.players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={name: param.default for name, param in declared.parameters.items()})


def _parameters(declared: Game, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """OpenSpiel's parameters as boardzoo's checked ones (a ValueError naming the rule)."""
    given = dict(params or {})
    for name, value in given.items():
        param = declared.parameters.get(name)
        if param is not None and param.kind is float and isinstance(value, int) and not isinstance(value, bool):
            given[name] = float(value)  # OpenSpiel reads "c=1" as an int
    return declared.checked(given)


class BoardzooGame(pyspiel.Game):
    """One boardzoo game under one set of parameters, as OpenSpiel sees it. A class of
    its own is made per game (:func:`register`): OpenSpiel builds games from a class."""

    declared: Game

    def __init__(self, params: Mapping[str, Any] | None = None):
        self.parameters = _parameters(self.declared, params)
        first = self.first_position()
        self._observation_shape = np.shape(self.declared.observation(first, 0))
        info = pyspiel.GameInfo(
            num_distinct_actions=first.num_actions,
            max_chance_outcomes=self.declared.max_chance_outcomes(self.parameters),
            num_players=self.declared.players,
            min_utility=float(self.declared.utility[0]),
            max_utility=float(self.declared.utility[1]),
            utility_sum=0.0,
            max_game_length=self.declared.max_length(self.parameters))
        super().__init__(game_type(self.declared), info, dict(self.parameters))

    def first_position(self) -> GameState:
        """boardzoo's core of a new game; a game with a deal deals it as chance events."""
        return self.declared.explicit_first_position(**self.parameters)

    def new_initial_state(self) -> BoardzooState:
        return BoardzooState(self, self.first_position())

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"{spiel_name(self.declared)}: observation parameters are not supported, got {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return RecallObserver(self.declared, self._observation_shape, self.max_game_length())
        return SeatObserver(self.declared, self._observation_shape)


class BoardzooState(pyspiel.State):
    """A boardzoo core stepped by OpenSpiel: the core keeps the rules, this object
    OpenSpiel's names for them."""

    def __init__(self, game: BoardzooGame, core: GameState):
        super().__init__(game)
        self.core = core
        # A hidden-information game: what each seat has seen, position by position (its
        # information state, with perfect recall), as its view and its observation.
        self.seen: list[list[str]] | None = None
        self.observed: list[list[bytes]] | None = None
        if game.declared.hidden_information:
            self.seen, self.observed = [[], []], [[], []]
            self._see()

    def current_player(self) -> int:
        player = self.core.current_player()
        if player == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        return pyspiel.PlayerId.CHANCE if player == CHANCE else player

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.core.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        # OpenSpiel numbers a chance event's outcomes from 0: the core's, in order.
        return [(index, probability) for index, (_, probability) in enumerate(sorted(self.core.chance_outcomes()))]

    def _apply_action(self, action: int) -> None:
        if self.core.current_player() == CHANCE:
            action = sorted(self.core.chance_outcomes())[action][0]
        self.core.apply(int(action))
        if self.seen is not None:
            self._see()

    def _see(self) -> None:
        """Each seat's view and observation of the position now (bytes: clones share them)."""
        assert self.seen is not None and self.observed is not None
        observation = games()[self.core.game_name].observation
        for seat in range(2):
            self.seen[seat].append(repr(self.core.view_key(seat)))
            self.observed[seat].append(np.asarray(observation(self.core, seat), np.float32).tobytes())

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance outcome {action}"
        return self.core.action_label(int(action))

    def is_terminal(self) -> bool:
        return self.core.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self.core.returns()]

    def __str__(self) -> str:
        return self.core.to_text()


class SeatObserver:
    """What one seat observes now: boardzoo's observation array (the env's) as OpenSpiel's
    tensor; as text, the position, or in a hidden-information game what the seat sees of
    it (its ``view_key``)."""

    def __init__(self, declared: Game, shape: tuple[int, ...]):
        self.declared = declared
        self.tensor = np.zeros(math.prod(shape), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: BoardzooState, player: int) -> None:
        self.tensor[:] = np.asarray(self.declared.observation(state.core, player), np.float32).ravel()

    def string_from(self, state: BoardzooState, player: int) -> str:
        if state.seen is not None:
            return f"seat {player}: {state.seen[player][-1]}"
        return state.core.to_text()


class RecallObserver:
    """What one seat knows with perfect recall (its information state). In a
    hidden-information game: what it saw at every position so far, as text its views one
    after another and as a tensor its observations, a row a position (rows beyond the
    game's length zero). In a game of perfect information: the history of moves as text
    (as OpenSpiel's own such games have it) and, as a tensor, the position's observation
    and the player to move, which decide everything that follows."""

    def __init__(self, declared: Game, shape: tuple[int, ...], length: int):
        self.declared = declared
        size = math.prod(shape)
        if declared.hidden_information:
            self.tensor = np.zeros((length + 1) * size, np.float32)
            self.dict = {"observations": self.tensor.reshape((length + 1, *shape))}
        else:
            self.tensor = np.zeros(size + 2, np.float32)
            self.dict = {"observation": self.tensor[:size].reshape(shape), "to_move": self.tensor[size:]}

    def set_from(self, state: BoardzooState, player: int) -> None:
        self.tensor[:] = 0.0
        if state.observed is not None:
            rows = self.tensor.reshape(len(self.dict["observations"]), -1)
            for row, seen in enumerate(state.observed[player][:len(rows)]):
                rows[row] = np.frombuffer(seen, np.float32)
            return
        size = self.dict["observation"].size
        self.tensor[:size] = np.asarray(self.declared.observation(state.core, player), np.float32).ravel()
        mover = state.current_player()
        if mover >= 0:
            self.tensor[size + mover] = 1.0

    def string_from(self, state: BoardzooState, player: int) -> str:
        if state.seen is not None:
            return f"seat {player}: " + " | ".join(state.seen[player])
        return state.history_str()


def tabular_policy(tree: GameTree, game: pyspiel.Game, policy) -> TabularPolicy:
    """An OpenSpiel ``policy`` of ``game`` (the same boardzoo game as ``tree``) as a
    strategy over ``tree``'s information sets, for boardzoo's exact best responses and
    CFR: both trees are walked in step, and each set asks the policy at one history."""
    if game.get_type().short_name != spiel_name(games()[tree.game]):
        raise ValueError(f"an OpenSpiel policy of {game.get_type().short_name} cannot play {tree.game}")
    offsets = tree.action_offsets.copy()
    probabilities = np.zeros(offsets[-1])
    filled = np.zeros(len(tree.infoset_seat), dtype=bool)
    stack = [(0, game.new_initial_state())]
    while stack:
        node, state = stack.pop()
        count = int(tree.children[node])
        infoset = int(tree.infoset[node])
        if infoset >= 0 and not filled[infoset]:
            chosen = policy.action_probabilities(state, state.current_player())
            probabilities[offsets[infoset]:offsets[infoset + 1]] = [chosen.get(a, 0.0)
                                                                    for a in tree.actions_of(infoset)]
            filled[infoset] = True
        actions = range(count) if state.is_chance_node() else sorted(state.legal_actions())
        for index, action in enumerate(actions):
            stack.append((int(tree.first_child[node]) + index, state.child(action)))
    return TabularPolicy(offsets, probabilities)


_CLASSES: dict[str, type[BoardzooGame]] = {}


def register() -> list[str]:
    """Register every boardzoo game with OpenSpiel (once); their OpenSpiel names."""
    registered = set(pyspiel.registered_names())
    for declared in games().values():
        name = spiel_name(declared)
        if name not in _CLASSES:
            _CLASSES[name] = type(f"Boardzoo_{declared.name}", (BoardzooGame,), {"declared": declared})
        if name not in registered:
            pyspiel.register_game(game_type(declared), _CLASSES[name])
    return sorted(_CLASSES)


register()
