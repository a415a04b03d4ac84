"""A trained Stable-Baselines3 policy as a boardzoo agent (the ``rl`` extra).

    make("sb3:path=runs/ppo_connect_four.zip")       # MaskablePPO (sb3-contrib) or PPO
    boardzoo arena connect_four_v0 sb3:path=runs/ppo_connect_four.zip alphabeta:depth=4

The policy gets the seat's observation array (what ``SingleAgentEnv`` trained it on) and,
for MaskablePPO, the action mask, so it only ever chooses legal moves; a policy trained
without masks that still picks an illegal move falls back to the legal move it rates
highest. Stable-Baselines3 is imported only when such an agent is built.
"""

from __future__ import annotations

import os

import numpy as np

from boardzoo.agents.base import Agent, legal_from_mask
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
        try:
            action, _ = self.policy.predict(obs, action_masks=mask, deterministic=self.deterministic)
        except TypeError:  # plain PPO: no masks
            action, _ = self.policy.predict(obs, deterministic=self.deterministic)
        action = int(action)
        if mask[action]:
            return action
        # A maskless policy chose an illegal move: take the legal move it rates highest.
        import torch

        with torch.no_grad():
            tensor, _ = self.policy.policy.obs_to_tensor(obs)
            probabilities = self.policy.policy.get_distribution(tensor).distribution.probs[0].numpy()
        return int(legal[np.argmax(probabilities[legal])])
