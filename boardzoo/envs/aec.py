"""The one PettingZoo AEC adapter shared by every boardzoo game.

A game's env module subclasses :class:`BoardGameEnv` and supplies only what is specific
to it: the state constructor, the observation encoding and spaces, and rendering. This
class does the rest the same way for every game: agents ``player_0`` (moves first) and
``player_1``, seeding, the ``{"observation", "action_mask"}`` dict, rewards +1/-1/0 when
the game ends, terminations (game over) versus truncations (a ply limit), chance events
resolved by the env's seeded generator, clear errors for bad actions, text, RGB and SVG
rendering, and a per-seat search model.

Unlike PettingZoo's classic envs, an env in progress survives ``copy.deepcopy`` and
pickle as an independent, playable copy: nothing here holds a window, a clock or a
constructor-replaying pickle hook.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar, cast

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from boardzoo.envs.svg import SvgImage
from boardzoo.errors import BoardzooWarning, IllegalActionError, InvalidActionError, ResetNeededError
from boardzoo.games.model import CHANCE, GameState
from boardzoo.values import whole

AGENTS = ("player_0", "player_1")
SEAT_OF = {"player_0": 0, "player_1": 1}
RENDER_MODES = ("ansi", "human", "rgb_array", "svg")


def as_action(action: Any, num_actions: int, env_name: str) -> int:
    """Coerce ``action`` to a plain int of the action space or raise InvalidActionError."""
    if type(action) is not int:
        if isinstance(action, np.ndarray) and action.shape == () or isinstance(action, np.integer):
            action = action.item()
        if isinstance(action, bool) or not isinstance(action, int):
            raise InvalidActionError(
                f"{env_name}: an action must be an int in 0..{num_actions - 1}, got {action!r} "
                f"of type {type(action).__name__}"
            )
    if not 0 <= action < num_actions:
        raise InvalidActionError(
            f"{env_name}: action {action} is outside the action space Discrete({num_actions})"
        )
    return action


S = TypeVar("S", bound=GameState)


class BoardGameEnv(AECEnv, Generic[S]):
    """Generic two-player AEC env around a :class:`GameState` core of type ``S``."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "boardgame", "is_parallelizable": False,
                "render_fps": 2}
    #: What a constructor parameter's default (None in the signature) really is, for
    #: listings: ``{"rows": "the board's"}``.
    default_notes: ClassVar[Mapping[str, str]] = {}

    #: Keys ``reset(options=...)`` understands; others are ignored with a warning
    #: (PettingZoo's api_test passes an unknown option and expects it to be tolerated).
    reset_options: frozenset[str] = frozenset()
    #: Plies after which the game is truncated (a draw); None for games that always end.
    max_plies: int | None = None
    #: True when seats hold secrets (Geister's colours): why a move is illegal may name one,
    #: so only the seat that made it learns the reason.
    hidden_information: bool = False
    #: How each seat's pieces look in the drawings (``("red discs", "yellow discs")``), for
    #: telling a person which are theirs; None where the seats have no pieces of their own.
    seat_pieces: tuple[str, str] | None = None

    def __init__(self, render_mode: str | None = None):
        super().__init__()
        modes = tuple(cast(list, self.metadata["render_modes"]))
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"{self.metadata['name']}: render_mode must be one of {modes} or None, "
                             f"got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self._game: S | None = None
        self._mask: np.ndarray | None = None  # the legal mask of the position, made once

    def _set_spaces(self, observation: spaces.Box, num_actions: int) -> None:
        """The same spaces for both seats: ``{"observation", "action_mask"}`` around the
        game's observation box, ``Discrete(num_actions)`` actions; ``state()`` shares the box."""
        space = spaces.Dict({
            "observation": observation,
            "action_mask": spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8),
        })
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces: dict[str, spaces.Discrete] = {agent: spaces.Discrete(num_actions)
                                                          for agent in self.possible_agents}
        self.state_space = observation

    # --- what a game supplies -----------------------------------------------------------
    def _new_game(self, options: dict) -> S:
        """A fresh game (may draw from ``self.np_random``); ``options`` as given to reset."""
        raise NotImplementedError

    def _observation(self, player: int) -> np.ndarray:
        """The observation array of seat ``player`` (0 or 1)."""
        raise NotImplementedError

    def _after_apply(self, player: int, action: int) -> None:
        """Hook after every event (``player`` may be CHANCE): keep incremental views."""

    def _update_infos(self) -> None:
        """Hook after reset and after every move: games with public extras (scores) put
        them into ``self.infos`` here."""

    def _legal_mask(self) -> np.ndarray:
        """A fresh int8 mask of the legal actions of the player to move."""
        if self._mask is None:
            self._mask = np.array(self._live.legal_mask(), dtype=np.int8)
        return self._mask.copy()

    def state(self) -> np.ndarray:
        """The global view of the game, for centralised critics and spectators."""
        raise NotImplementedError

    def _render_text(self) -> str:
        raise NotImplementedError

    def _render_rgb(self) -> np.ndarray:
        raise NotImplementedError

    def _render_svg(self, view: int | None, animate: bool) -> SvgImage:
        raise NotImplementedError

    # --- the AEC API -----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def game(self) -> GameState:
        """A copy of the true game state, for spectators and tests (agents get :meth:`model`
        instead). Each access makes a fresh copy: nothing done to it changes the env."""
        return self._require_reset().clone()

    @property
    def _live(self) -> S:
        """The game in play (the env was reset)."""
        return self._require_reset()

    def _require_reset(self) -> S:
        """The game, or a ResetNeededError when ``reset()`` has not been called yet."""
        if self._game is None:
            raise ResetNeededError(f"{self.metadata['name']}: call reset() before using the env")
        return self._game

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. A reset that fails (a bad option) changes nothing: the env
        stays as it was, and one that was never reset still says a reset is needed."""
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"{self.metadata['name']}: reset options must be a dict, got {type(options).__name__}")
        previous = (self.np_random, self.np_random_seed, self.np_random.bit_generator.state)
        if seed is not None:  # NumPy's integers too (a seed drawn by a generator is one)
            self.np_random, self.np_random_seed = seeding.np_random(whole(f"{self.metadata['name']}: seed", seed, 0))
        options = dict(options or {})
        try:
            game = self._new_game(options)
        except BaseException:
            self.np_random, self.np_random_seed = previous[:2]
            self.np_random.bit_generator.state = previous[2]
            raise
        unknown = sorted(set(options) - self.reset_options)
        if unknown:
            warnings.warn(
                f"{self.metadata['name']}: ignoring unknown reset option(s) {unknown}; "
                f"known: {sorted(self.reset_options) or 'none'}", BoardzooWarning, stacklevel=3
            )
        self._game = game
        self.history: list[tuple[int, int]] = []  # (player or CHANCE, action), every event
        self.agents = self.possible_agents[:]
        self.rewards: dict[str, float] = {agent: 0 for agent in self.agents}
        self._cumulative_rewards: dict[str, float] = {agent: 0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict] = {agent: {} for agent in self.agents}
        self._mask = None
        self._resolve_chance()
        self.agent_selection = self.possible_agents[self._live.current_player()]
        self._update_infos()
        if self.render_mode == "human":
            self.render()

    def starting_position(self) -> GameState:
        """A new game's first position as :meth:`reset` builds it, before the chance events
        it draws (for a batch that draws them itself)."""
        return self._new_game({})

    def _resolve_chance(self) -> None:
        game = self._live
        while game.current_player() == CHANCE:
            x = self.np_random.random()
            for outcome, probability in game.chance_outcomes():  # noqa: B007 (the outcome drawn)
                x -= probability
                if x < 0:
                    break
            game.apply(outcome)
            self.history.append((CHANCE, outcome))
            self._after_apply(CHANCE, outcome)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._require_reset()
        player = self._seat(agent)  # raises with the list of agents
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            mask = self._legal_mask()
        else:
            mask = np.zeros(game.num_actions, dtype=np.int8)
        return {"observation": self._observation(player), "action_mask": mask}

    def last(self, observe: bool = True):
        self._require_reset()
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: Any) -> None:
        game = self._require_reset()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        name = str(self.metadata["name"])
        action = as_action(action, game.num_actions, name)
        if not game.is_legal(action):
            raise IllegalActionError(name, agent, action, game.explain_illegal(action), game.action_label(action))
        self._play(agent, action)

    def _play(self, agent: str, action: int) -> None:
        """Play a checked, legal ``action`` of ``agent`` and settle what follows."""
        game = self._live
        player = game.current_player()
        self._cumulative_rewards[agent] = 0
        game.apply(action)
        self.history.append((player, action))
        self._after_apply(player, action)
        next_player = game.current_player()
        if next_player == CHANCE:
            self._resolve_chance()
            next_player = game.current_player()
        self._mask = None
        self._update_infos()
        rewards = self.rewards
        if next_player < 0:  # terminal
            rewards["player_0"], rewards["player_1"] = game.returns()
            for other in self.agents:
                self.terminations[other] = True
            self.agent_selection = self._next_agent(agent)
        else:
            rewards["player_0"] = rewards["player_1"] = 0
            if self.max_plies is not None and len(self.history) >= self.max_plies:
                for other in self.agents:
                    self.truncations[other] = True
            self.agent_selection = self.possible_agents[next_player]
        cumulative = self._cumulative_rewards
        for other, reward in rewards.items():
            cumulative[other] += reward
        if self.render_mode == "human":
            self.render()

    def _next_agent(self, agent: str) -> str:
        return self.possible_agents[1 - self._seat(agent)]

    def _seat(self, agent: str) -> int:
        if agent in SEAT_OF:
            return SEAT_OF[agent]
        raise ValueError(f"{self.metadata['name']}: unknown agent {agent!r}; agents are {AGENTS}")

    def public_reason(self, reason: str) -> str:
        """What seats other than the forfeiter are told of ``reason``: all of it, unless
        the game hides information (then the reason could name a secret)."""
        return "an illegal move (the reason is told to that seat only)" if self.hidden_information else reason

    def forfeit(self, agent: str, reason: str, public: str | None = None) -> None:
        """End the game because ``agent`` broke the rules: -1 for it, 0 for the other.

        PettingZoo's convention for illegal moves (TerminateIllegalWrapper), kept so that
        boardzoo envs are drop-in replacements; ``infos`` say who forfeited and why:
        ``reason`` to the forfeiter, ``public`` to the others (by default
        :meth:`public_reason`; a referee's reason that names no secret, such as a time
        limit, is told to everyone).
        """
        self._cumulative_rewards[agent] = 0
        public = self.public_reason(reason) if public is None else public
        for other in self.agents:
            self.rewards[other] = 0
            self.terminations[other] = True
            self.infos[other]["forfeit"] = {"agent": agent, "reason": reason if other == agent else public}
        self.rewards[agent] = -1
        self._accumulate_rewards()
        self._mask = None

    def model(self, agent: str) -> GameState:
        """The search model handed to ``agent``: an independent copy of the position.

        Perfect-information games give the true state; hidden-information games override
        this with an information-set view.
        """
        self._seat(agent)
        return self._require_reset().clone()

    def render(self) -> str | np.ndarray | None:
        self._require_reset()
        if self.render_mode is None:
            warnings.warn(
                f"{self.metadata['name']}: render() called without a render_mode; "
                f"pass render_mode='ansi', 'human', 'rgb_array' or 'svg' to the constructor",
                BoardzooWarning, stacklevel=3
            )
            return None
        if self.render_mode == "rgb_array":
            return self._render_rgb()
        if self.render_mode == "svg":
            return self.svg(self.render_view_seat())
        text = self._render_text()
        if self.render_mode == "human":
            print(text, flush=True)
            return None
        return text

    def move_text(self, agent: str, action: int, viewer: str | None) -> str:
        """How ``agent`` playing ``action`` here is announced to ``viewer`` (None: a
        spectator who sees everything): ``"plays 4"``. Call it before the move. Games with
        secrets override it so that a seat is never told what it may not know."""
        return f"plays {self._require_reset().action_label(action)}"

    def render_view_seat(self) -> str | None:
        """The seat whose view ``render()`` shows (None: the spectator's, everything)."""
        return None

    def svg(self, view: str | None = None, animate: bool = False) -> SvgImage:
        """The position as an SVG document, whatever the render mode: from seat ``view``'s
        side with what only that seat may see (None: the spectator's view, which shows
        everything; it matters only in hidden-information games), with the last move
        animated when ``animate`` (the browser UI's)."""
        self._require_reset()
        return self._render_svg(None if view is None else self._seat(view), animate)

    def close(self) -> None:
        pass

    def _status_line(self) -> str:
        game = self._live
        if game.is_terminal():
            r0, _ = game.returns()
            result = "player_0 wins" if r0 > 0 else "player_1 wins" if r0 < 0 else "draw"
            return f"game over: {result}"
        if self.truncations.get(self.agent_selection):
            return "game over: draw (ply limit)"
        return f"to move: {self.agent_selection}"
