"""RLlib's face of the boardzoo envs (its current API stack; ``pip install "boardzoo[rllib]"``):
a multi-agent env under RLlib's key names, action-masked PPO modules, a masked random
opponent, and self-play against frozen copies.

    from ray.rllib.algorithms.ppo import PPOConfig
    from boardzoo.training.rllib import RLlibBoardEnv, self_play_config
    config = self_play_config(PPOConfig(), "connect_four_v0")
    algorithm = config.build_algo()
    algorithm.train()

* :class:`RLlibBoardEnv`: agents ``player_0`` and ``player_1``; only the agent to move
  gets an observation, a dict ``{"observations": the AEC observation flattened (float32),
  "action_mask": (actions,) float32}`` -- the keys RLlib's action-masking module reads;
  rewards for both agents every step (+1/-1/0 at the end); chance events drawn from the
  env's seeded generator. An illegal action is an error, never replaced by a random
  one: the masked modules never choose one.
* :class:`MaskedRandomRLModule`: uniform over the legal actions (RLlib's own random
  module ignores masks).
* :class:`SelfPlayLeague`: logs ``main``'s win rate over its last 100 games; once it
  passes ``win_rate_threshold``, a frozen copy of ``main`` joins the league and ``main``
  plays copies drawn uniformly from then on (the first opponent is the masked random one).
* :func:`self_play_config`: all of it put into an algorithm config.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from typing import Any

import gymnasium
import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module import RLModule
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS

from boardzoo.envs import make as make_env
from boardzoo.envs.aec import AGENTS

#: The module trained, and the first opponent of the league.
MAIN, RANDOM = "main", "random"


class RLlibBoardEnv(MultiAgentEnv):
    """A boardzoo env for RLlib; ``config["env"]`` is its name or spec (RLlib passes the
    env config when it builds one on every env runner)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        self.env = make_env(str(config.get("env", "connect_four_v0")), raw=True)
        self.agents = self.possible_agents = list(AGENTS)
        inner = self.env.observation_spaces[AGENTS[0]]["observation"]
        assert isinstance(inner, gymnasium.spaces.Box)
        num_actions = int(self.env.action_spaces[AGENTS[0]].n)
        space = gymnasium.spaces.Dict({
            "observations": gymnasium.spaces.Box(float(np.min(inner.low)), float(np.max(inner.high)),
                                                 (int(np.prod(inner.shape or ())),), np.float32),
            "action_mask": gymnasium.spaces.Box(0.0, 1.0, (num_actions,), np.float32),
        })
        self.observation_spaces = {agent: space for agent in AGENTS}
        self.action_spaces = {agent: gymnasium.spaces.Discrete(num_actions) for agent in AGENTS}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.env.reset(seed=seed)
        return self._to_move(), {}

    def step(self, action_dict: dict):
        mover = self.env.agent_selection
        if mover not in action_dict:
            raise ValueError(f"RLlibBoardEnv: {mover} is to move; got actions for {sorted(action_dict)}")
        self.env.step(int(action_dict[mover]))  # an illegal action raises: masked modules never pick one
        terminated = any(self.env.terminations.values())
        truncated = any(self.env.truncations.values()) and not terminated
        rewards = {agent: float(self.env.rewards[agent]) for agent in AGENTS}
        observations = {} if terminated or truncated else self._to_move()
        return (observations, rewards, {**{a: terminated for a in AGENTS}, "__all__": terminated},
                {**{a: truncated for a in AGENTS}, "__all__": truncated}, {})

    def _to_move(self) -> dict[str, dict[str, np.ndarray]]:
        agent = self.env.agent_selection
        seen = self.env.observe(agent)
        return {agent: {"observations": seen["observation"].astype(np.float32).ravel(),
                        "action_mask": seen["action_mask"].astype(np.float32)}}


class MaskedRandomRLModule(RLModule):
    """Uniform over each observation's legal actions (never trained)."""

    def setup(self) -> None:
        super().setup()
        # One generator for the module's life, seeded from NumPy's global state, which
        # RLlib seeds per env runner from the config's seed (debugging(seed=...)).
        self.rng = np.random.default_rng(np.random.randint(2**31))

    def _forward(self, batch: dict, **kwargs) -> dict:
        masks = np.asarray(batch[Columns.OBS]["action_mask"]) > 0
        return {Columns.ACTIONS: np.array([self.rng.choice(np.flatnonzero(mask)) for mask in masks])}

    def _forward_train(self, *args, **kwargs):
        raise NotImplementedError("MaskedRandomRLModule is a fixed opponent: it is never trained")


class SelfPlayLeague(RLlibCallback):
    """Self-play against frozen copies of ``main`` (see the module docstring)."""

    def __init__(self, win_rate_threshold: float = 0.9):
        super().__init__()
        self.win_rate_threshold = win_rate_threshold
        self.copies = 0
        self.matches: dict[str, int] = defaultdict(int)

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        main = next((agent for agent in AGENTS if episode.module_for(agent) == MAIN), None)
        if metrics_logger is not None and main in episode.agent_episodes:
            # main's return is its final reward: +1 is a win
            won = episode.agent_episodes[main].get_return() > 0
            metrics_logger.log_value("win_rate", float(won), reduce="mean", window=100)

    def on_train_result(self, *, algorithm, result: dict, **kwargs) -> None:
        win_rate = result.get(ENV_RUNNER_RESULTS, {}).get("win_rate")
        if win_rate is not None and win_rate > self.win_rate_threshold:
            self.copies += 1
            copy_id = f"main_v{self.copies}"
            main = algorithm.get_module(MAIN)
            algorithm.add_module(module_id=copy_id, module_spec=RLModuleSpec.from_module(main),
                                 new_agent_to_module_mapping_fn=functools.partial(against_copies, self.copies))
            algorithm.set_state({"learner_group": {"learner": {"rl_module": {copy_id: main.get_state()}}}})
        result["league_size"] = self.copies + 2


def against_random(agent_id: str, episode: Any, **kwargs) -> str:
    """``main`` in one seat, the masked random module in the other, seats by episode."""
    return MAIN if hash(episode.id_) % 2 == AGENTS.index(agent_id) else RANDOM


def against_copies(copies: int, agent_id: str, episode: Any, **kwargs) -> str:
    """``main`` against a frozen copy drawn uniformly for the episode (from its id)."""
    if hash(episode.id_) % 2 == AGENTS.index(agent_id):
        return MAIN
    return f"main_v{1 + hash((episode.id_, 'opponent')) % copies}"


def self_play_config(config: Any, env: str = "connect_four_v0", win_rate_threshold: float = 0.9,
                     hidden: tuple[int, ...] = (128, 128)) -> Any:
    """``config`` (an RLlib algorithm config, PPO's) set for self-play on env ``env``:
    the env, the masked ``main`` module trained against the masked random one and then
    against its frozen copies (:class:`SelfPlayLeague`)."""
    return (config
            .environment(RLlibBoardEnv, env_config={"env": env})
            .callbacks(functools.partial(SelfPlayLeague, win_rate_threshold=win_rate_threshold))
            .multi_agent(policies={MAIN, RANDOM}, policy_mapping_fn=against_random, policies_to_train=[MAIN])
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
                MAIN: RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"head_fcnet_hiddens": list(hidden), "fcnet_hiddens": list(hidden)}),
                RANDOM: RLModuleSpec(module_class=MaskedRandomRLModule),
            })))


def greedy_actions(module: RLModule, observations: list[dict[str, np.ndarray]]) -> np.ndarray:
    """The action ``module`` (a masked one) rates highest for each observation."""
    import torch

    batch = {Columns.OBS: {key: torch.as_tensor(np.stack([o[key] for o in observations]))
                           for key in ("observations", "action_mask")}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return logits.argmax(dim=-1).numpy()


def win_rate_against_random(module: RLModule, env: str, games: int, seed: int = 0) -> float:
    """Games won by ``module`` (playing its best action) against uniform random legal
    moves, seats alternating, on env ``env``; draws count as not won."""
    board = RLlibBoardEnv({"env": env})
    rng = np.random.default_rng(seed)
    wins = 0
    for game in range(games):
        me = AGENTS[game % 2]
        observations, _ = board.reset(seed=int(rng.integers(2**31)))
        while observations:
            agent, seen = next(iter(observations.items()))
            if agent == me:
                action = int(greedy_actions(module, [seen])[0])
            else:
                action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
            observations, rewards, *_ = board.step({agent: action})
        wins += rewards[me] > 0
    return wins / games
