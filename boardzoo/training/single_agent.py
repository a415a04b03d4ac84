"""A Gymnasium single-agent view of any boardzoo env: one seat against a fixed opponent.

    from boardzoo.training.single_agent import SingleAgentEnv
    env = SingleAgentEnv("connect_four_v0", opponent="greedy", seat="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))

* observation: the seat's ``observation`` array (the env's observation space without
  the mask); the mask is in ``info["action_mask"]`` and from :meth:`action_masks` (the
  method sb3-contrib's ``MaskablePPO`` calls);
* reward: the seat's final reward (+1/-1/0), 0 on every earlier step;
* ``seat``: ``"player_0"``, ``"player_1"`` or ``"random"`` (drawn at every reset from the
  wrapper's seeded generator); the opponent plays its moves inside ``reset``/``step``;
* ``illegal_action``: ``"lose"`` (the default, boardzoo's rule on every face a learner
  plays through, as PettingZoo's classic envs: the episode ends with -1 and a
  :class:`~boardzoo.errors.BoardzooWarning`) or ``"raise"`` (IllegalActionError, the
  episode left as it was).
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np

from boardzoo.agents import Agent
from boardzoo.agents import make as make_agent
from boardzoo.envs.aec import AGENTS, RENDER_MODES, BoardGameEnv, as_action
from boardzoo.errors import BoardzooWarning, IllegalActionError, ResetNeededError
from boardzoo.values import whole


class SingleAgentEnv(gymnasium.Env):
    metadata = {"render_modes": list(RENDER_MODES)}

    def __init__(self, env: str | BoardGameEnv = "connect_four_v0", opponent: str | Agent = "random",
                 seat: str = "random", illegal_action: str = "lose", render_mode: str | None = None):
        if isinstance(env, str):
            from boardzoo.envs import make as make_env

            env = make_env(env, raw=True, render_mode=render_mode)
        self.env: BoardGameEnv = env.unwrapped
        if seat not in (*AGENTS, "random"):
            raise ValueError(f"SingleAgentEnv: seat must be 'player_0', 'player_1' or 'random', got {seat!r}")
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"SingleAgentEnv: illegal_action must be 'raise' or 'lose', got {illegal_action!r}")
        self.opponent = make_agent(opponent) if isinstance(opponent, str) else opponent
        self.seat_choice, self.illegal_action = seat, illegal_action
        self.render_mode = self.env.render_mode
        # the class lists every mode any env has (gymnasium.make reads it); an instance, its env's own
        self.metadata = {**self.metadata, "render_modes": list(self.env.metadata["render_modes"]),
                         "render_fps": self.env.metadata.get("render_fps")}
        inner = self.env.observation_space(AGENTS[0])
        self.observation_space = inner["observation"]
        self.action_space = self.env.action_space(AGENTS[0])
        self.seat = AGENTS[0]
        self._ready = False  # True once a reset succeeded

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=None if seed is None else whole("SingleAgentEnv: seed", seed, 0))
        if self.seat_choice == "random":
            self.seat = AGENTS[int(self.np_random.integers(2))]
        else:
            self.seat = self.seat_choice
        env_seed, opponent_seed = (int(s) for s in self.np_random.integers(2**31, size=2))
        self._ready = False
        self.env.reset(seed=env_seed, options=options)
        self._ready = True
        self.opponent.reset(opponent_seed)
        self._opponent_moves()
        return self._view()

    def step(self, action: Any):
        env = self.env
        if not self._ready:
            raise ResetNeededError("SingleAgentEnv: call reset() before step()")
        if env.terminations.get(self.seat) or env.truncations.get(self.seat) or env.agent_selection != self.seat:
            raise ResetNeededError("SingleAgentEnv: the episode is over; call reset()")
        game = env._require_reset()
        action = as_action(action, game.num_actions, str(env.metadata["name"]))
        if not game.is_legal(action):
            why = game.explain_illegal(action)
            if self.illegal_action == "raise":
                raise IllegalActionError(str(env.metadata["name"]), self.seat, action, why)
            reason = f"illegal action {action}: {why}"
            warnings.warn(f"{env.metadata['name']}: {self.seat} played {env.public_reason(reason)} and loses",
                          BoardzooWarning, stacklevel=2)
            env.forfeit(self.seat, reason)
            observation, info = self._view()
            return observation, -1.0, True, False, info
        env.step(action)
        self._opponent_moves()
        terminated = env.terminations[self.seat]
        truncated = env.truncations[self.seat] and not terminated
        reward = float(env._cumulative_rewards[self.seat]) if terminated or truncated else 0.0
        observation, info = self._view()
        return observation, reward, terminated, truncated, info

    def _opponent_moves(self) -> None:
        env = self.env
        while (env.agent_selection != self.seat and not env.terminations[env.agent_selection]
               and not env.truncations[env.agent_selection]):
            other = env.agent_selection
            env.step(self.opponent.act(env.observe(other), env.model(other)))

    def _view(self) -> tuple[np.ndarray, dict]:
        """The seat's observation and info, from one call to the env's observe()."""
        seen = self.env.observe(self.seat)
        return seen["observation"], {"action_mask": seen["action_mask"], "seat": self.seat}

    def action_masks(self) -> np.ndarray:
        """Boolean mask of legal actions (sb3-contrib's MaskablePPO calls this)."""
        return self.env.observe(self.seat)["action_mask"].astype(bool)

    def render(self):
        return self.env.render()
