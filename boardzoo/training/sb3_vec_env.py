"""Stable-Baselines3's face of the batched games (the ``rl`` extra): a ``VecEnv`` over
:class:`~boardzoo.training.vector_env.LearnerVectorEnv`, so that SB3 and sb3-contrib's
MaskablePPO step B games in one call instead of B Python envs.

    from sb3_contrib import MaskablePPO
    from boardzoo.training.sb3_vec_env import vec_env
    model = MaskablePPO("MlpPolicy", vec_env("connect_four_v0", num_envs=64, opponent="random"))

SB3's conventions: ``step_wait`` returns ``dones`` (terminated or truncated) and one info
dict a game, with ``terminal_observation`` (and ``TimeLimit.truncated``) where a game
ended; the masks come from ``env_method("action_masks")``, which is what MaskablePPO
calls. :func:`vec_env` wraps it in SB3's ``VecMonitor`` for the episode statistics SB3
logs. ``seed(s)`` seeds the next reset (the whole batch from one seed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from boardzoo.training.vector_env import LearnerVectorEnv


class BoardzooVecEnv(VecEnv):
    """SB3's ``VecEnv`` over one :class:`LearnerVectorEnv`."""

    def __init__(self, env: LearnerVectorEnv):
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self):
        observations, _ = self.env.reset(seed=self._seeds[0])
        self._reset_seeds()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64)

    def step_wait(self):
        observations, rewards, terminated, truncated, infos = self.env.step(self._actions)
        dones = terminated | truncated
        per_game: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones).tolist():
            per_game[i] = {"terminal_observation": infos["final_obs"][i],
                           "TimeLimit.truncated": bool(truncated[i] and not terminated[i])}
        return observations, rewards.astype(np.float32), dones, per_game

    def close(self) -> None:
        pass

    def _games(self, indices) -> Sequence[int]:
        return self._get_indices(indices)  # type: ignore[return-value]

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self.env, attr_name)] * len(self._games(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        games = list(self._games(indices))
        if method_name == "action_masks":
            return list(self.env.action_masks()[games])
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(games)

    def env_is_wrapped(self, wrapper_class: type, indices=None) -> list[bool]:
        return [False] * len(self._games(indices))


def vec_env(env: str = "connect_four_v0", num_envs: int = 64, opponent: Any = "random", seat: str = "random",
            engine: str = "auto", **params: Any) -> VecMonitor:
    """``num_envs`` games of ``env`` for SB3 (arguments as :class:`LearnerVectorEnv`'s),
    with SB3's episode statistics."""
    return VecMonitor(BoardzooVecEnv(LearnerVectorEnv(env, num_envs, opponent, seat, engine, **params)))
