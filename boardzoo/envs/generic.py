"""The env of a game that has no env module of its own, built from its declaration.

A game's ``Game`` descriptor says everything an env needs: its parameters (the
constructor's, typed and bounded), a new initial state, the number of actions, the
observation encoder per seat. :func:`env_module` turns it into what an env module offers
(``raw_env``, ``env``, ``observation_of``, the docstring), so a new game is playable by
every agent, the arena and the command line from its own folder. It renders as text
(``ansi``, ``human``); a game wanting pictures writes an env module of its own.
"""

from __future__ import annotations

import inspect
import random
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.wrapper import wrap
from boardzoo.games.model import GameState
from boardzoo.games.registry import Game, declaring_module


class GameEnv(BoardGameEnv[GameState]):
    """A game's env from its declaration (``game_declaration``, set per game)."""

    game_declaration: ClassVar[Game]
    metadata = {**BoardGameEnv.metadata, "render_modes": ["ansi", "human"]}

    def __init__(self, render_mode: str | None = None, **params: Any):
        super().__init__(render_mode)
        self.params = self.game_declaration.checked(params)
        sample = self._fresh(random.Random(0))
        example = self.game_declaration.observation(sample, 0)
        low, high = self.game_declaration.observation_bounds
        self._set_spaces(spaces.Box(low, high, shape=example.shape, dtype=example.dtype), sample.num_actions)

    def _fresh(self, rng: random.Random) -> GameState:
        return self.game_declaration.make_state(rng, **self.params)

    def _new_game(self, options: dict) -> GameState:
        # A game dealt at random deals from the env's seeded generator.
        return self._fresh(random.Random(int(self.np_random.integers(2**63))))

    def _observation(self, player: int) -> np.ndarray:
        return self.game_declaration.observation(self._live, player)

    def state(self) -> np.ndarray:
        return self.game_declaration.observation(self._require_reset(), 0)

    def _render_text(self) -> str:
        return f"{self._live.to_text()}\n{self._status_line()}"


def env_module(game: Game, name: str) -> ModuleType:
    """Env ``name`` of ``game`` as a module object: ``raw_env`` (its constructor takes the
    game's parameters, with their declared types and defaults), ``env`` (wrapped),
    ``observation_of`` and the game package's docstring as its documentation."""

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        GameEnv.__init__(self, render_mode, **params)

    keyword = inspect.Parameter.KEYWORD_ONLY
    __init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(key, keyword, default=param.default, annotation=param.kind)
           for key, param in game.parameters.items()]
        + [inspect.Parameter("render_mode", keyword, default=None, annotation=str | None)])
    __init__.__annotations__ = {**{key: param.kind for key, param in game.parameters.items()},
                                "render_mode": str | None}
    raw_env = type("raw_env", (GameEnv,), {
        "__init__": __init__, "game_declaration": game, "__module__": f"boardzoo.envs.{name}",
        "metadata": {**GameEnv.metadata, "name": name}, "__doc__": f"The {game.title} env."})

    def env(**kwargs: Any) -> BoardGameEnv:
        """The env with PettingZoo's usual checks (illegal move = loss); see ``raw_env``."""
        return wrap(raw_env(**kwargs))

    module = ModuleType(f"boardzoo.envs.{name}", declaring_module(game).__doc__ or game.title)
    module.raw_env, module.env, module.observation_of = raw_env, env, game.observation  # type: ignore[attr-defined]
    return module
