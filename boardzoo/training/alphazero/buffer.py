"""The replay buffer: the newest positions self-play taught, sampled for learning, and
kept in the checkpoint packed (0/1 network inputs eight to a byte)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


class ReplayBuffer:
    """The newest ``capacity`` positions (a ring): inputs as float16 (exact for the 0/1
    planes), improved policies and results."""

    def __init__(self, capacity: int, input_size: int, actions: int):
        self.capacity = capacity
        self.inputs = np.zeros((capacity, input_size), dtype=np.float16)
        self.policies = np.zeros((capacity, actions), dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.size = self.cursor = 0

    def add(self, inputs: np.ndarray, policies: np.ndarray, values: np.ndarray) -> None:
        for start in range(0, len(values), self.capacity):
            chunk = slice(start, start + self.capacity)
            n = len(values[chunk])
            rows = (self.cursor + np.arange(n)) % self.capacity
            self.inputs[rows], self.policies[rows], self.values[rows] = inputs[chunk], policies[chunk], values[chunk]
            self.cursor = int((self.cursor + n) % self.capacity)
            self.size = min(self.capacity, self.size + n)

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rows = rng.integers(0, self.size, size=n)
        return self.inputs[rows].astype(np.float32), self.policies[rows], self.values[rows]

    def state(self) -> dict[str, Any]:
        """The positions, oldest first; inputs that are all 0 or 1 (every game's planes)
        packed eight to a byte, others as float16."""
        n = self.size
        order = (self.cursor - n + np.arange(n)) % self.capacity
        inputs = self.inputs[order]
        stored = {"policies": torch.from_numpy(self.policies[order]), "values": torch.from_numpy(self.values[order])}
        if ((inputs == 0) | (inputs == 1)).all():
            return {**stored, "packed_inputs": torch.from_numpy(np.packbits(inputs.astype(bool), axis=1))}
        return {**stored, "inputs": torch.from_numpy(inputs)}

    def load(self, state: dict[str, Any], where: str) -> None:
        inputs, policies, values = (state.get(key) for key in ("inputs", "policies", "values"))
        packed = state.get("packed_inputs")
        if isinstance(packed, torch.Tensor) and packed.dtype == torch.uint8 and packed.ndim == 2 \
                and packed.shape[1] == -(-self.inputs.shape[1] // 8):
            inputs = torch.from_numpy(np.unpackbits(packed.numpy(), axis=1, count=self.inputs.shape[1])
                                      .astype(np.float16))
        if not (isinstance(inputs, torch.Tensor) and isinstance(policies, torch.Tensor)
                and isinstance(values, torch.Tensor)) \
                or inputs.shape[1:] != self.inputs.shape[1:] or policies.shape[1:] != self.policies.shape[1:] \
                or not len(inputs) == len(policies) == len(values):
            raise ValueError(f"{where}: the replay buffer does not fit this run's game")
        self.size = self.cursor = 0
        self.add(inputs.numpy(), policies.numpy(), values.numpy())
