"""A trained Stable-Baselines3 policy as a boardzoo agent (the ``rl`` extra).

    make("sb3:path=runs/ppo_connect_four.zip")       # MaskablePPO (sb3-contrib) or PPO
    make("mcts:policy=puct,model=runs/ppo_connect_four.zip")   # its policy and value guide MCTS
    boardzoo arena connect_four_v0 sb3:path=runs/ppo_connect_four.zip alphabeta:depth=4

The policy gets the seat's observation array (what ``SingleAgentEnv`` trained it on) and,
for MaskablePPO, the action mask, so it only ever chooses legal moves; a policy trained
without masks that still picks an illegal move falls back to the legal move it rates
highest. A secret choice (Geister's placement) is drawn from the policy with the agent's
own generator, whatever ``deterministic`` says. Stable-Baselines3 is imported only when
such an agent is built.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import ClassVar

import numpy as np

from boardzoo.agents.base import Agent, drawn_secret, legal_from_mask
from boardzoo.agents.network_evaluator import NetworkEvaluator
from boardzoo.games.model import GameState

_LOADED: dict[tuple[str, float], object] = {}  # path, mtime -> model: arenas build agents per worker


def load_policy(path: str):
    if not os.path.exists(path):
        raise ValueError(f"sb3: no saved model at {path!r}")
    key = (os.path.abspath(path), os.path.getmtime(path))
    if key not in _LOADED:
        try:
            from sb3_contrib import MaskablePPO
            from stable_baselines3 import PPO
        except ImportError:
            raise ValueError("sb3 agents need the rl extra: pip install torch==2.13.0 && pip install 'boardzoo[rl]'") \
                from None
        errors = []
        for cls in (MaskablePPO, PPO):
            try:
                _LOADED[key] = cls.load(path, device="cpu")
                break
            except Exception as error:  # not that algorithm's file: try the next one
                errors.append(f"{cls.__name__}: {error}")
        else:
            raise ValueError(f"sb3: {path!r} is not a saved MaskablePPO or PPO model ({'; '.join(errors)})")
    return _LOADED[key]


class SB3Agent(Agent):
    name = "sb3"
    summary = "a saved Stable-Baselines3 policy (MaskablePPO or PPO), e.g. trained by examples/train_maskable_ppo.py"

    default_notes: ClassVar[Mapping[str, str]] = {"path": "(required: a saved .zip)"}

    def __init__(self, seed: int | None = None, path: str = "", deterministic: bool = True):
        super().__init__(seed)
        if not path:
            raise ValueError("sb3: give the saved model, e.g. sb3:path=runs/ppo_connect_four.zip")
        self.path, self.deterministic = path, deterministic
        self.policy = load_policy(path)

    def act(self, observation: dict, model: GameState) -> int:
        mask = np.asarray(observation["action_mask"], dtype=bool)
        legal = legal_from_mask(observation)
        obs = observation["observation"]
        if model is not None and model.secret_choice():  # drawn from the policy, never its argmax
            probabilities = self._probabilities(obs)
            drawn = drawn_secret(model, self.rng, [(int(a), float(probabilities[a])) for a in legal])
            assert drawn is not None
            return drawn
        try:
            action, _ = self.policy.predict(obs, action_masks=mask, deterministic=self.deterministic)
        except TypeError:  # plain PPO: no masks
            action, _ = self.policy.predict(obs, deterministic=self.deterministic)
        action = int(action)
        if mask[action]:
            return action
        # A maskless policy chose an illegal move: take the legal move it rates highest.
        probabilities = self._probabilities(obs)
        return int(legal[np.argmax(probabilities[legal])])

    def _probabilities(self, obs: np.ndarray) -> np.ndarray:
        """The policy's probability of every action."""
        import torch

        with torch.no_grad():
            tensor, _ = self.policy.policy.obs_to_tensor(obs)
            return self.policy.policy.get_distribution(tensor).distribution.probs[0].numpy()


class SB3Evaluator(NetworkEvaluator):
    """A saved Stable-Baselines3 actor-critic as an MCTS evaluator (``mcts:model=PATH``):
    its policy's move probabilities are the priors, its value head the leaf value.

    The network sees the observation its env gives the player to move (what
    ``SingleAgentEnv`` trained it on), so its value is that player's expected return:
    ``evaluate`` hands it to that player and its negation to the other, clipped into
    [-1, 1]. One forward pass serves both questions about a position: the answers are
    kept for the last ``cache`` positions (by their key)."""

    def __init__(self, path: str, cache: int = 50_000):
        import torch

        super().__init__(cache)
        self.model = load_policy(path)
        self.path = path
        self._observe: dict[str, Callable] = {}
        self._torch = torch
        torch.set_num_threads(1)  # one small network per position: threads only add overhead

    def _observation(self, state: GameState, player: int) -> np.ndarray:
        name = state.game_name
        if name not in self._observe:
            from boardzoo.games.registry import game

            self._observe[name] = game(name).observation
        obs = self._observe[name](state, player)
        expected = self.model.observation_space.shape
        if obs.shape != expected:
            raise ValueError(f"sb3: {self.path} takes observations of shape {expected}; {name} gives "
                             f"{obs.shape} (was it trained on this game and size?)")
        return obs

    def check(self, model: GameState) -> None:
        """Refuse, before play, a game whose observations this network was not trained on."""
        self._observation(model, max(model.current_player(), 0))

    def answer(self, state: GameState) -> tuple[float, list[tuple[int, float]]]:
        policy = self.model.policy
        with self._torch.no_grad():
            tensor, _ = policy.obs_to_tensor(self._observation(state, state.current_player()))
            probabilities = policy.get_distribution(tensor).distribution.probs[0].numpy()
            value = float(policy.predict_values(tensor)[0, 0])
        return max(-1.0, min(1.0, value)), [(a, float(probabilities[a])) for a in state.legal_actions()]
