"""What ``env()`` returns: :class:`PettingZooWrapper`, PettingZoo's usual checks around
a :class:`~boardzoo.envs.aec.BoardGameEnv` in one fast layer (:func:`wrap`)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from boardzoo.envs.aec import BoardGameEnv, as_action
from boardzoo.envs.svg import SvgImage
from boardzoo.errors import BoardzooWarning, ResetNeededError
from boardzoo.games.model import GameState


class PettingZooWrapper(BaseWrapper):
    """What ``env()`` returns: PettingZoo's usual three wrappers in one fast layer.

    * order: using the env before ``reset()`` raises :class:`ResetNeededError`;
    * bounds: an action outside the action space raises :class:`InvalidActionError`;
    * illegal moves: a masked-out action ends the game with -1 for the offender
      (``raw_env`` raises :class:`IllegalActionError` instead).

    The hot attributes are forwarded as properties: BaseWrapper's ``__getattr__``
    fallback costs more than a whole Connect Four move.
    """

    def __init__(self, env: BoardGameEnv):
        super().__init__(env)
        self._has_reset = False

    def _env(self) -> BoardGameEnv:
        if not self._has_reset:
            raise ResetNeededError(
                f"{self.env.metadata['name']}: call reset() before step(), observe(), last(), "
                "render(), state() or agent_iter()"
            )
        return self.env

    def __getattr__(self, name: str) -> Any:
        if name in {"rewards", "terminations", "truncations", "infos", "agent_selection",
                    "num_agents", "agents"} and not self.__dict__.get("_has_reset"):
            raise AttributeError(f"{name} cannot be accessed before reset()")
        return super().__getattr__(name)

    agent_selection = property(lambda self: self.env.agent_selection)
    agents = property(lambda self: self.env.agents)
    terminations = property(lambda self: self.env.terminations)
    truncations = property(lambda self: self.env.truncations)
    rewards = property(lambda self: self.env.rewards)
    infos = property(lambda self: self.env.infos)
    _cumulative_rewards = property(lambda self: self.env._cumulative_rewards)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._has_reset = True  # only once a reset succeeded

    def step(self, action: Any) -> None:
        if not self._has_reset:
            self._env()  # raises ResetNeededError
        env = self.env
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(action)
            return
        game = env._game
        action = as_action(action, game.num_actions, env.metadata["name"])
        if game.is_legal(action):
            env._play(agent, action)
            return
        reason = f"illegal action {action}: {game.explain_illegal(action)}"
        warnings.warn(f"{env.metadata['name']}: {agent} played {env.public_reason(reason)} and loses",
                      BoardzooWarning, stacklevel=2)
        env.forfeit(agent, reason)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._env().observe(agent)

    def last(self, observe: bool = True):
        if not self._has_reset:
            self._env()  # raises ResetNeededError
        return self.env.last(observe)

    def state(self) -> np.ndarray:
        return self._env().state()

    def render(self):
        return self._env().render()

    def svg(self, view: str | None = None, animate: bool = False) -> SvgImage:
        return self._env().svg(view, animate)

    def agent_iter(self, max_iter: int = 2**63):
        return self._env().agent_iter(max_iter)

    def model(self, agent: str) -> GameState:
        return self._env().model(agent)


def wrap(raw: BoardGameEnv) -> PettingZooWrapper:
    return PettingZooWrapper(raw)
