"""TorchRL's face of the batched games (``pip install "boardzoo[torchrl]"``): one
``EnvBase`` whose batch is B games, and the masked actor and critic that go with it.

    from boardzoo.training.torchrl import BoardzooTorchEnv, masked_actor_critic
    env = BoardzooTorchEnv("connect_four_v0", num_envs=64, opponent="random")
    actor, critic = masked_actor_critic(env)
    rollout = env.rollout(32, actor, break_when_any_done=False)

Why TorchRL rather than Tianshou: a TorchRL env is batched by design (``batch_size``), so
B compiled games are one env stepped in one call, while Tianshou's vector envs are lists
of single envs that would split the batch into B Python envs again; and masks are first
class in TorchRL (``MaskedCategorical``).

The env is :class:`~boardzoo.training.vector_env.LearnerVectorEnv` in TorchRL's terms:
``observation`` (float32, the AEC encoding) and ``action_mask`` (bool) of the learning
seat, ``action`` one index a game, ``reward`` +1/-1/0 at the end of a game, ``done`` /
``terminated`` / ``truncated``; the action spec carries the mask, so its random actions
(``rand_step``, a rollout without a policy) are legal too. Games that end start afresh
inside the step (the step's ``next`` observation is the new game's: a value is never
bootstrapped from it, as the game was done), so a partial reset has nothing left to do.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.data import Binary, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator

from boardzoo.training.vector_env import LearnerVectorEnv


class BoardzooTorchEnv(EnvBase):
    """``num_envs`` games of ``env`` as one TorchRL env of batch size ``[num_envs]``
    (arguments as :class:`LearnerVectorEnv`'s)."""

    def __init__(self, env: str = "connect_four_v0", num_envs: int = 64, opponent: Any = "random",
                 seat: str = "random", engine: str = "auto", **params: Any):
        super().__init__(batch_size=torch.Size([num_envs]), device="cpu")
        self.games = LearnerVectorEnv(env, num_envs, opponent, seat, engine, **params)
        shape = tuple(self.games.single_observation_space.shape or ())
        actions = self.games.games.num_actions
        self.observation_spec = Composite(
            observation=Unbounded(shape=(num_envs, *shape), dtype=torch.float32),
            action_mask=Binary(n=actions, shape=(num_envs, actions), dtype=torch.bool),
            shape=(num_envs,))
        self.action_spec = Categorical(n=actions, shape=(num_envs,), dtype=torch.int64)
        self.reward_spec = Unbounded(shape=(num_envs, 1), dtype=torch.float32)
        self.done_spec = Composite({key: Categorical(n=2, shape=(num_envs, 1), dtype=torch.bool)
                                    for key in ("done", "terminated", "truncated")}, shape=(num_envs,))
        self._seed: int | None = None
        self._started = False

    def _reset(self, tensordict: TensorDict | None = None, **kwargs: Any) -> TensorDict:
        partial = tensordict is not None and "_reset" in tensordict.keys() and not bool(tensordict["_reset"].all())
        if partial and self._started:  # the games that ended were dealt again in the step
            observations, masks = self.games.observations(), self.games.action_masks()
        else:
            observations, infos = self.games.reset(seed=self._seed)
            masks, self._started = infos["action_mask"], True
        none = torch.zeros((self.games.num_envs, 1), dtype=torch.bool)
        self.action_spec.update_mask(torch.as_tensor(masks))
        return TensorDict({"observation": torch.as_tensor(observations, dtype=torch.float32),
                           "action_mask": torch.as_tensor(masks), "done": none, "terminated": none.clone(),
                           "truncated": none.clone()}, batch_size=self.batch_size)

    def _step(self, tensordict: TensorDict) -> TensorDict:
        observations, rewards, terminated, truncated, infos = self.games.step(tensordict["action"].numpy())
        self.action_spec.update_mask(torch.as_tensor(infos["action_mask"]))
        return TensorDict({
            "observation": torch.as_tensor(observations, dtype=torch.float32),
            "action_mask": torch.as_tensor(infos["action_mask"]),
            "reward": torch.as_tensor(rewards, dtype=torch.float32).unsqueeze(-1),
            "done": torch.as_tensor(terminated | truncated).unsqueeze(-1),
            "terminated": torch.as_tensor(terminated).unsqueeze(-1),
            "truncated": torch.as_tensor(truncated).unsqueeze(-1),
        }, batch_size=self.batch_size)

    def _set_seed(self, seed: int | None) -> None:
        self._seed = seed


def masked_actor_critic(env: BoardzooTorchEnv, hidden: tuple[int, ...] = (128, 128)) -> tuple[Any, Any]:
    """An actor that samples only legal actions (``MaskedCategorical`` over its logits and
    the ``action_mask``) and a critic, two MLPs over the flattened observation."""
    size = int(np.prod(env.games.single_observation_space.shape or ()))
    actions = env.games.games.num_actions

    def mlp(out: int) -> nn.Sequential:
        layers: list[nn.Module] = [nn.Flatten(-len(env.games.single_observation_space.shape or ()))]
        width = size
        for h in hidden:
            layers += [nn.Linear(width, h), nn.Tanh()]
            width = h
        return nn.Sequential(*layers, nn.Linear(width, out))

    actor = ProbabilisticActor(TensorDictModule(mlp(actions), in_keys=["observation"], out_keys=["logits"]),
                               in_keys={"logits": "logits", "mask": "action_mask"}, out_keys=["action"],
                               distribution_class=MaskedCategorical, return_log_prob=True)
    critic = ValueOperator(mlp(1), in_keys=["observation"])
    return actor, critic


def greedy_win_rate(env: BoardzooTorchEnv, actor: Any, games: int) -> float:
    """Games won by ``actor``'s most likely legal action over the first ``games`` games
    that end, from a fresh reset of ``env`` (the next rollout starts afresh); draws
    count as not won."""
    observations, infos = env.games.reset(seed=12345)
    env._started = False
    results: list[float] = []
    module = actor.module[0] if hasattr(actor, "module") else actor
    while len(results) < games:
        with torch.no_grad():
            logits = module(TensorDict({"observation": torch.as_tensor(observations, dtype=torch.float32)},
                                       batch_size=[env.games.num_envs]))["logits"]
        logits[~torch.as_tensor(infos["action_mask"])] = -torch.inf
        observations, rewards, terminated, truncated, infos = env.games.step(logits.argmax(-1).numpy())
        results += rewards[terminated | truncated].tolist()
    return sum(r > 0 for r in results[:games]) / games
