"""One learning seat against a boardzoo opponent in B games at once: a Gymnasium
``VectorEnv`` over :mod:`boardzoo.vector`'s batched games.

    import gymnasium, boardzoo
    envs = gymnasium.make_vec("boardzoo/connect_four-v0", num_envs=1024,
                              vectorization_mode="vector_entry_point", opponent="random")
    observations, infos = envs.reset(seed=0)            # infos["action_mask"]: (B, actions) bool
    observations, rewards, terminations, truncations, infos = envs.step(actions)

Every game of the batch is at the learning seat's turn when ``reset`` and ``step``
return: the opponent's moves are played inside them, batched.

* observations: ``(B, *observation shape)``, the learning seat's observation in each game
  (the AEC env's encoding, so a policy trained here plays the AEC env as it is);
* ``infos["action_mask"]``: the legal actions, ``(B, actions)`` bool, after ``reset`` and
  every ``step``; :meth:`LearnerVectorEnv.action_masks` returns the same (MaskablePPO);
  ``infos["seat"]``: the learning seat of each game, 0 or 1;
* rewards: the seat's final reward (+1/-1/0) in the step that ends its game, 0 before;
* games that end start afresh in the same step (Gymnasium's ``SAME_STEP`` autoreset): the
  observation returned is the new game's, the last one of the ended game is in
  ``infos["final_obs"]`` (an object array, set where ``infos["_final_obs"]`` is true);
* ``opponent``: ``"random"`` (drawn by ``boardzoo.vector.random_actions``), a batched
  policy ``f(observations, action_masks) -> actions`` given the opponent's observations
  of every game (only the games where it moves are read), or any boardzoo agent spec
  (``"greedy"``, ``"mcts:iterations=200"``...), one agent per game: an agent needs its
  seat's search model, which only the reference batch's AEC envs give, so such an
  opponent plays at the AEC env's speed, and ``engine="compiled"`` refuses it;
* ``seat``: ``"player_0"``, ``"player_1"`` or ``"random"`` (drawn for every game that
  starts, from the env's seeded generator);
* ``illegal_action``: ``"lose"`` (the default, boardzoo's rule on every face a learner
  plays through, as PettingZoo's classic envs): a game where the learner's action is
  illegal ends there with -1 for it (terminated, restarted as any ended game), with a
  :class:`~boardzoo.errors.BoardzooWarning` counting such games; ``"raise"``: a
  ValueError naming the game, the batch left as it was. An action outside the action
  space (or a wrong shape) is always a ValueError.

The same seed gives the same games, the opponent's draws included.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from boardzoo.agents import Agent
from boardzoo.agents import make as make_agent
from boardzoo.envs.aec import AGENTS
from boardzoo.errors import BoardzooWarning
from boardzoo.values import whole
from boardzoo.vector import MAX_BATCH, Batch, make, random_actions

#: A batched opponent: (its observations (B, ...), the legal-action masks (B, actions)) -> actions (B,).
BatchPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: Rounds of dealing again the games an opponent ends before the learning seat's first move.
MAX_REDEALS = 100


class LearnerVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of env ``env`` (a name or spec; ``params`` go to its constructor),
    one seat learning, the other played by ``opponent`` (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, env: str = "connect_four_v0", num_envs: int = 1, opponent: str | BatchPolicy = "random",
                 seat: str = "random", engine: str = "auto", illegal_action: str = "lose", **params: Any):
        whole("LearnerVectorEnv: num_envs", num_envs, 1, MAX_BATCH)  # in the caller's word, not the batch's
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"LearnerVectorEnv: illegal_action must be 'raise' or 'lose', got {illegal_action!r}")
        self.illegal_action = illegal_action
        if seat not in (*AGENTS, "random"):
            raise ValueError(f"LearnerVectorEnv: seat must be 'player_0', 'player_1' or 'random', got {seat!r}")
        self.agent_spec: str | None = None
        if isinstance(opponent, str) and opponent != "random":
            make_agent(opponent)  # a bad spec is refused here, not at the first step
            if engine == "compiled":
                raise ValueError(f"LearnerVectorEnv: opponent {opponent!r} is a boardzoo agent, which needs the "
                                 "reference batch's search models: use engine='auto' or 'python', or a batched "
                                 "policy function")
            self.agent_spec, engine = opponent, "python"
        elif not (opponent == "random" or callable(opponent)):
            raise ValueError("LearnerVectorEnv: opponent must be 'random', a boardzoo agent spec or a function "
                             f"(observations, masks) -> actions, got {type(opponent).__name__}")
        self.opponent = opponent
        self.seat_choice = seat
        self.games = make(env, batch=num_envs, auto_reset=False, engine=engine, **params)
        self.num_envs = num_envs
        box = self.games.template.observation_spaces[AGENTS[0]]["observation"]
        self.single_observation_space = box
        self.single_action_space = gymnasium.spaces.Discrete(self.games.num_actions)
        self.observation_space = batch_space(box, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.agents: list[Agent] = []
        self.rng = np.random.default_rng()
        self.batch: Batch | None = None
        self.seats = np.zeros(num_envs, dtype=np.int8)
        self._games = np.arange(num_envs)
        # The random opponent on a compiled batch: each step one compiled call (the same games).
        self.loop = None
        if opponent == "random" and getattr(self.games, "kernels", None) is not None:
            from boardzoo.vector.compiled import RandomOpponentLoop

            self.loop = RandomOpponentLoop(self.games, -1 if seat == "random" else AGENTS.index(seat), MAX_REDEALS)

    # --- the Gymnasium API ------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Every game afresh; ``seed`` seeds the games, the seats and the opponent."""
        self.rng = np.random.default_rng(seed)
        if self.loop is not None:
            if not self.loop.reset(int(self.rng.integers(2**63)), self.rng):
                raise self._too_short()
            self.seats = self.loop.seats
            return self.observations(), self._infos()
        batch = self.games.reset(seed=int(self.rng.integers(2**63)))
        if self.agent_spec is not None:
            self.agents = [make_agent(self.agent_spec) for _ in range(self.num_envs)]
        starting = np.ones(self.num_envs, dtype=bool)
        self.batch = self._start(batch, starting)
        return self.observations(), self._infos()

    def step(self, actions: Any):
        if self.loop is not None:
            return self._step_in_one_call(actions)
        if self.batch is None:
            raise ValueError("LearnerVectorEnv: call reset() before step()")
        forfeited = self._illegal(actions)
        # every game is at the learner's turn; one it forfeits is not stepped, and ends below
        if forfeited.any():
            batch = self.games.step(self.batch, np.where(forfeited, 0, actions), ~forfeited)
        else:
            batch = self.games.step(self.batch, actions)
        rewards = batch.rewards[self._games, self.seats].astype(np.float64)
        truncated = batch.truncated.copy()
        batch, more, cut = self._opponents_move(batch)
        rewards += more
        truncated |= cut
        if forfeited.any():
            rewards[forfeited] = -1.0
            players = np.where(forfeited, -1, batch.current_player).astype(np.int8)
            batch = dataclasses.replace(batch, current_player=players)
        ended = batch.current_player < 0
        infos: dict[str, Any] = {}
        if ended.any():
            final = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(ended).tolist():
                final[i] = batch.observation[i, self.seats[i]]
            infos["final_obs"], infos["_final_obs"] = final, ended
            batch = self._start(self.games.restart(batch), ended)
        self.batch = batch
        infos.update(self._infos())
        return self.observations(), rewards, ended & ~truncated, truncated, infos

    def _step_in_one_call(self, actions: Any):
        """:meth:`step` on the compiled loop: the same games, one compiled call."""
        loop = self.loop
        assert loop is not None
        if not self._started():
            raise ValueError("LearnerVectorEnv: call reset() before step()")
        if not loop.step(actions, self.illegal_action == "lose"):
            raise self._too_short()
        if loop.forfeits.any():
            self._warn_illegal(loop.forfeits)
        infos = self._infos()
        ended = loop.ended.copy()
        games = np.flatnonzero(ended)
        if len(games):
            final = np.full(self.num_envs, None, dtype=object)
            final[games] = np.fromiter(loop.final[games], dtype=object, count=len(games))  # one copy, a view each
            infos["final_obs"], infos["_final_obs"] = final, ended
        return self.observations(), loop.rewards.copy(), ended, np.zeros(self.num_envs, dtype=bool), infos

    def _too_short(self) -> ValueError:
        return ValueError(f"LearnerVectorEnv: the opponent won {MAX_REDEALS} deals in a row before the learning "
                          "seat moved; the game is too short to learn (a larger board or pile?)")

    def _illegal(self, actions: Any) -> np.ndarray:
        """Which games the learner forfeits with an action the rules forbid (none under
        ``illegal_action="raise"``, where stepping refuses them); an action outside the
        action space is left for the step to refuse."""
        actions = np.asarray(actions)
        if self.illegal_action == "raise" or actions.shape != (self.num_envs,) or \
                actions.dtype.kind not in "iu" or actions.min() < 0 or \
                actions.max() >= self.games.num_actions:
            return np.zeros(self.num_envs, dtype=bool)
        illegal = ~self._mask()[self._games, actions]
        if illegal.any():
            self._warn_illegal(illegal)
        return illegal

    def _warn_illegal(self, illegal: np.ndarray) -> None:
        warnings.warn(f"{self.games.name}: the learning seat played an illegal action in {int(illegal.sum())} "
                      f"of {self.num_envs} games, which it loses (game {int(np.flatnonzero(illegal)[0])} first)",
                      BoardzooWarning, stacklevel=4)

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game, ``(B, actions)`` bool (MaskablePPO calls this)."""
        if not self._started():
            raise ValueError("LearnerVectorEnv: call reset() before action_masks()")
        return self._mask().copy()

    def _started(self) -> bool:
        return hasattr(self.loop, "states") if self.loop is not None else self.batch is not None

    def _mask(self) -> np.ndarray:
        return self.loop.mask if self.loop is not None else self.batch.legal_action_mask  # type: ignore[union-attr]

    # --- the games around the learner ----------------------------------------------------------
    def _start(self, batch: Batch, starting: np.ndarray) -> Batch:
        """The games ``starting`` (just dealt) get their seats and opponents, and the
        opponent's opening moves; a game the opponent ends before the learner moved is
        dealt again."""
        for _ in range(MAX_REDEALS):
            if self.seat_choice == "random":  # seat 1 where a draw is below one half (as the compiled loop draws)
                self.seats[starting] = np.where(self.rng.random(int(starting.sum())) < 0.5, 1, 0)
            else:
                self.seats[starting] = AGENTS.index(self.seat_choice)
            for i in np.flatnonzero(starting).tolist() if self.agents else ():
                self.agents[i].reset(int(self.rng.integers(2**63)))
            batch, _, _ = self._opponents_move(batch)
            starting = batch.current_player < 0
            if not starting.any():
                return batch
            batch = self.games.restart(batch)
        raise self._too_short()

    def _opponents_move(self, batch: Batch) -> tuple[Batch, np.ndarray, np.ndarray]:
        """The opponent plays in every game where it is to move until the learner is (or
        the game is over); the learner's rewards and the truncations of those moves."""
        rewards = np.zeros(self.num_envs)
        truncated = np.zeros(self.num_envs, dtype=bool)
        while True:
            playing = (batch.current_player >= 0) & (batch.current_player != self.seats)
            if not playing.any():
                return batch, rewards, truncated
            batch = self.games.step(batch, self._opponent_actions(batch, playing), playing)
            rewards += batch.rewards[self._games, self.seats]
            truncated |= batch.truncated

    def _opponent_actions(self, batch: Batch, playing: np.ndarray) -> np.ndarray:
        if self.opponent == "random":
            return np.maximum(random_actions(batch, self.rng), 0)
        if self.agent_spec is None:
            assert callable(self.opponent)
            actions = np.asarray(self.opponent(batch.observation[self._games, 1 - self.seats],
                                               batch.legal_action_mask))
            return np.where(playing, actions, 0).astype(np.int64)
        actions = np.zeros(self.num_envs, dtype=np.int64)
        for i in np.flatnonzero(playing).tolist():
            env, agent = batch.state.envs[i], AGENTS[1 - self.seats[i]]
            actions[i] = self.agents[i].act(env.observe(agent), env.model(agent))
        return actions

    def observations(self) -> np.ndarray:
        """The learning seat's observation in every game, as the last reset or step returned it."""
        if not self._started():
            raise ValueError("LearnerVectorEnv: call reset() before observations()")
        observation = self.loop.observation if self.loop is not None else self.batch.observation  # type: ignore
        return observation[self._games, self.seats]

    def _infos(self) -> dict[str, Any]:
        return {"action_mask": self._mask().copy(), "seat": self.seats.copy()}
