"""The learner's games against its league (:mod:`.league`) on the compiled batch: many
games at once, every seat the learner holds deciding from its own network input (its
information state) in one network call per ply, the others by their snapshot's network,
the game's roll-out policy (compiled) or an agent (in Python, from the position the core
decodes, through its seat's view as the env would hand it). Each of the learner's
decisions is kept with what it learns from: the action, its probability, the value the
network gave, and the secret the seat could not see (a belief's target). When a game
ends, its decisions get their advantages: generalised advantage estimation (Schulman et
al., 2016) over each seat's own decisions, the game's result its one reward.

A game still playing when an iteration has its decisions plays on in the next (its
decisions by the older network keep their probabilities: PPO's ratio weighs them)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from boardzoo.agents import make as make_agent
from boardzoo.agents.base import Agent
from boardzoo.games.registry import game as declared_game
from boardzoo.jit import seed_state
from boardzoo.training.hidden.config import HiddenConfig
from boardzoo.training.hidden.league import FIXED_POLICY, LEARNER, SNAPSHOT, League
from boardzoo.vector.compiled import CompiledVectorGame


@dataclass
class Decisions:
    """The learner's decisions in finished games: what PPO learns from."""

    inputs: np.ndarray       # (n, *input shape) float32
    masks: np.ndarray        # (n, actions) bool
    actions: np.ndarray      # (n,) int64
    log_probs: np.ndarray    # (n,) float32: of the action, when it was chosen
    advantages: np.ndarray   # (n,) float32
    returns: np.ndarray      # (n,) float32: the value target
    secrets: np.ndarray      # (n, cells) float32: what the seat could not see
    known: np.ndarray        # (n, cells) float32: 1 where ``secrets`` applies

    def __len__(self) -> int:
        return len(self.actions)


@dataclass
class Tally:
    """How the finished games went, by the learner's opponent: games and the learner's score."""

    games: dict[str, int] = field(default_factory=dict)
    score: dict[str, float] = field(default_factory=dict)

    def add(self, opponent: str, score: float) -> None:
        self.games[opponent] = self.games.get(opponent, 0) + 1
        self.score[opponent] = self.score.get(opponent, 0.0) + score

    def rates(self) -> dict[str, float]:
        return {name: round(self.score[name] / self.games[name], 4) for name in self.games}


def sample_actions(logits: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One action per row drawn from the softmax of ``logits`` over the legal actions (the
    Gumbel-max draw, from ``rng``), and its log-probability."""
    masked = np.where(masks, logits.astype(np.float64), -np.inf)
    chosen = np.argmax(masked + rng.gumbel(size=masked.shape), axis=1)
    top = masked.max(axis=1, keepdims=True)
    log_normaliser = np.log(np.exp(masked - top).sum(axis=1)) + top[:, 0]
    return chosen, (masked[np.arange(len(chosen)), chosen] - log_normaliser).astype(np.float32)


def advantages_of(values: np.ndarray, result: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE(lambda) with no discount over one seat's decisions in one game, whose only reward
    is ``result`` after the last: the advantages and the value targets (advantage + value)."""
    following = np.append(values[1:], result)
    deltas = following - values
    advantages = np.empty_like(deltas)
    running = 0.0
    for t in range(len(deltas) - 1, -1, -1):
        running = deltas[t] + lam * running
        advantages[t] = running
    return advantages, advantages + values


class _Store:
    """The decisions of games still playing and of those ready, in arrays that grow."""

    def __init__(self, shapes: dict[str, tuple[tuple[int, ...], type]]):
        self.shapes = shapes
        self.arrays: dict[str, np.ndarray] = {name: np.empty((1024, *shape), dtype)
                                              for name, (shape, dtype) in shapes.items()}
        self.size = 0

    def append(self, **rows: np.ndarray) -> int:
        """Add the rows; the index of the first."""
        n = len(rows["actions"])
        if self.size + n > len(self.arrays["actions"]):
            capacity = max(2 * len(self.arrays["actions"]), self.size + n)
            for name, array in self.arrays.items():
                grown = np.empty((capacity, *array.shape[1:]), array.dtype)
                grown[:self.size] = array[:self.size]
                self.arrays[name] = grown
        for name, values in rows.items():
            self.arrays[name][self.size:self.size + n] = values
        first, self.size = self.size, self.size + n
        return first

    def keep(self, indices: np.ndarray) -> None:
        """Keep only the rows ``indices`` (in that order: they become 0, 1, ...)."""
        for array in self.arrays.values():
            array[:len(indices)] = array[indices]
        self.size = len(indices)


class LeagueGames:
    """``config.games_in_flight`` games of the run's game, each against an opponent drawn
    from ``league`` when it starts (see the module docstring); ``seed`` draws everything."""

    def __init__(self, config: HiddenConfig, league: League, seed: int):
        self.config, self.league = config, league
        self.games = CompiledVectorGame(config.env, config.games_in_flight, auto_reset=True, **config.params)
        self.kernels = self.games.kernels
        declared = self.declared = declared_game(config.game)
        rollouts = declared.compiled_rollouts
        self.disguise = declared.learning.disguise if declared.learning is not None else None
        #: Each fixed opponent's roll-out policy number, or -1 for an agent (played in Python).
        self.fixed_policies = [rollouts.index(name) if name in rollouts else -1 for name in league.fixed]
        #: The agents playing in each game slot, by name (made on first need, reset each game).
        self.agents: dict[tuple[int, str], Agent] = {}
        first = self.template = self.games.template.game
        self.input_shape = declared.input_shape(first)
        self.cells = int(np.prod(self.input_shape[1:])) if len(self.input_shape) == 3 else self.input_shape[0]
        self.actions = self.games.num_actions
        self.rng = np.random.default_rng(seed)
        self.policy_rng = seed_state(int(self.rng.integers(2**62)))
        self.batch = self.games.reset(int(self.rng.integers(2**62)))
        size = self.games.batch
        self.controllers = np.full((size, 2), LEARNER, dtype=np.int64)
        #: Games whose past self plays from a decoy of its secret, and the ranks that draw it.
        self.disguised = np.zeros(size, dtype=np.bool_)
        self.decoys = np.zeros((size, self.cells), dtype=np.float64)
        for b in range(size):
            self._assign(b)
        self.pending: list[list[list[int]]] = [[[], []] for _ in range(size)]
        self.store = _Store({"inputs": (self.input_shape, np.float32), "masks": ((self.actions,), np.bool_),
                             "actions": ((), np.int64), "log_probs": ((), np.float32), "values": ((), np.float32),
                             "secrets": ((self.cells,), np.float32), "known": ((self.cells,), np.float32)})
        self._moves = np.empty(max(self.actions, 2) * 2, dtype=np.int64)

    def _assign(self, b: int) -> None:
        opponent = self.league.draw(self.rng)
        self.controllers[b] = LEARNER
        self.disguised[b] = False
        if opponent != LEARNER:
            self.controllers[b, int(self.rng.integers(2))] = opponent
            if opponent >= SNAPSHOT and self.config.disguised_share > 0:
                self.disguised[b] = self.rng.random() < self.config.disguised_share
                self.decoys[b] = self.rng.random(self.cells)
            if opponent <= FIXED_POLICY and self.fixed_policies[FIXED_POLICY - opponent] < 0:
                self._agent(b, self.league.fixed_name(opponent)).reset(seed=int(self.rng.integers(2**62)))

    def _agent(self, b: int, name: str) -> Agent:
        key = (b, name)
        if key not in self.agents:
            self.agents[key] = agent = make_agent(name)
            agent.check_once(self.declared.model_for(self.template, 0))
        return self.agents[key]

    def _agent_move(self, b: int, name: str, state: np.ndarray, mask: np.ndarray) -> int:
        """The move of agent ``name`` in game ``b``, from its seat's view alone (as the env
        hands an agent its model and observation)."""
        position = self.kernels.core.decode(state, self.template)
        seat = position.player
        observation = {"observation": self.declared.observation(position, seat), "action_mask": mask.astype(np.int8)}
        return int(self._agent(b, name).act(observation, self.declared.model_for(position, seat)))

    def opponent_name(self, controller: int) -> str:
        if controller == LEARNER:
            return "itself"
        if controller >= SNAPSHOT:
            return "past selves"
        return self.league.fixed_name(controller)

    def play(self, model: torch.nn.Module, wanted: int) -> tuple[Decisions, Tally]:
        """Play on until games that ended hold at least ``wanted`` of the learner's
        decisions; those decisions, and how the ended games went."""
        ready: list[np.ndarray] = []
        advantages: list[np.ndarray] = []
        returns: list[np.ndarray] = []
        count = 0
        tally = Tally()
        lam = self.config.gae_lambda
        while count < wanted:
            states, players = self.batch.state.states, self.batch.current_player.astype(np.int64)
            size = len(players)
            movers = self.controllers[np.arange(size), players]
            for c in np.unique(movers[movers >= SNAPSHOT]):
                if self.league.snapshot(int(c)) is None:  # let go while its games played on
                    self.controllers[self.controllers == c] = LEARNER
                    movers[movers == c] = LEARNER
            actions = np.zeros(size, dtype=np.int64)
            masks = self.batch.legal_action_mask
            rows = np.flatnonzero(movers == LEARNER)
            if len(rows):
                inputs = self._inputs(states, rows)
                with torch.no_grad():
                    logits, values = model(torch.from_numpy(inputs))
                chosen, log_probs = sample_actions(logits.numpy(), masks[rows], self.rng)
                actions[rows] = chosen
                secrets = np.empty((len(rows), self.cells), np.float32)
                known = np.empty_like(secrets)
                self.kernels.write_mover_secrets(states, rows, secrets, known)
                first = self.store.append(inputs=inputs, masks=masks[rows], actions=chosen, log_probs=log_probs,
                                          values=values.numpy(), secrets=secrets, known=known)
                for k, b in enumerate(rows):
                    self.pending[b][players[b]].append(first + k)
            for c in np.unique(movers[movers != LEARNER]):
                rows = np.flatnonzero(movers == c)
                snapshot = self.league.snapshot(int(c)) if c >= SNAPSHOT else None
                if snapshot is not None:  # (every snapshot still playing is in the league: see above)
                    inputs = self._inputs(states, rows)
                    disguised = self.disguised[rows]
                    if disguised.any() and self.disguise is not None:
                        decoyed = inputs[disguised]
                        self.disguise(decoyed, self.decoys[rows[disguised]])
                        inputs[disguised] = decoyed
                    with torch.no_grad():
                        logits, _ = snapshot.module(torch.from_numpy(inputs))
                    actions[rows] = sample_actions(logits.numpy(), masks[rows], self.rng)[0]
                elif self.fixed_policies[FIXED_POLICY - c] >= 0:
                    out = np.empty(len(rows), dtype=np.int64)
                    self.kernels.policy_moves(states, rows, self.fixed_policies[FIXED_POLICY - c], self.policy_rng,
                                              self._moves, out)
                    actions[rows] = out
                else:
                    name = self.league.fixed_name(int(c))
                    for b in rows:
                        actions[b] = self._agent_move(int(b), name, states[b], masks[b])
            self.batch = self.games.step(self.batch, actions)
            for b in np.flatnonzero(self.batch.terminated):
                rewards = self.batch.rewards[b]
                learner_seats = [seat for seat in (0, 1) if self.controllers[b, seat] == LEARNER]
                for seat in (0, 1):
                    taken = np.array(self.pending[b][seat], dtype=np.int64)
                    self.pending[b][seat] = []
                    if len(taken):
                        a, r = advantages_of(self.store.arrays["values"][taken].astype(np.float64),
                                             float(rewards[seat]), lam)
                        ready.append(taken)
                        advantages.append(a)
                        returns.append(r)
                        count += len(taken)
                if len(learner_seats) == 1:
                    seat = learner_seats[0]
                    opponent = int(self.controllers[b, 1 - seat])
                    score = (float(rewards[seat]) + 1) / 2
                    tally.add(self.opponent_name(opponent) + (" disguised" if self.disguised[b] else ""), score)
                    self.league.record(opponent, score)
                else:
                    tally.add("itself", 0.5)
                self._assign(int(b))
        taken = np.concatenate(ready)
        arrays = self.store.arrays
        decisions = Decisions(inputs=arrays["inputs"][taken], masks=arrays["masks"][taken],
                              actions=arrays["actions"][taken], log_probs=arrays["log_probs"][taken],
                              advantages=np.concatenate(advantages).astype(np.float32),
                              returns=np.concatenate(returns).astype(np.float32), secrets=arrays["secrets"][taken],
                              known=arrays["known"][taken])
        self._compact()
        return decisions, tally

    def _inputs(self, states: np.ndarray, rows: np.ndarray) -> np.ndarray:
        inputs = np.empty((len(rows), *self.input_shape), np.float32)
        self.kernels.write_mover_inputs(states, rows, inputs.reshape(len(rows), -1))
        return inputs

    def _compact(self) -> None:
        """Keep only the decisions of games still playing, renumbered."""
        kept = sorted(i for game in self.pending for seat in game for i in seat)
        renumber = {old: new for new, old in enumerate(kept)}
        self.store.keep(np.array(kept, dtype=np.int64))
        self.pending = [[[renumber[i] for i in seat] for seat in game] for game in self.pending]


def evaluate(config: HiddenConfig, model: torch.nn.Module, policy: int, games: int, seed: int) -> float:
    """The learner's mean score (1 a win, 1/2 a draw) in ``games`` games against the game's
    roll-out policy number ``policy``, seats alternating, its moves drawn from its policy."""
    vector = CompiledVectorGame(config.env, games, auto_reset=False, **config.params)
    declared = declared_game(config.game)
    shape = declared.input_shape(vector.template.game)
    rng = np.random.default_rng(seed)
    policy_rng = seed_state(int(rng.integers(2**62)))
    batch = vector.reset(int(rng.integers(2**62)))
    seats = np.arange(games) % 2
    moves = np.empty(2 * max(vector.num_actions, 2), dtype=np.int64)
    score = np.zeros(games)
    while (batch.current_player >= 0).any():
        players = batch.current_player.astype(np.int64)
        playing = players >= 0
        actions = np.zeros(games, dtype=np.int64)
        ours = np.flatnonzero(playing & (players == seats))
        if len(ours):
            inputs = np.empty((len(ours), *shape), np.float32)
            vector.kernels.write_mover_inputs(batch.state.states, ours, inputs.reshape(len(ours), -1))
            with torch.no_grad():
                logits, _ = model(torch.from_numpy(inputs))
            actions[ours] = sample_actions(logits.numpy(), batch.legal_action_mask[ours], rng)[0]
        theirs = np.flatnonzero(playing & (players != seats))
        if len(theirs):
            out = np.empty(len(theirs), dtype=np.int64)
            vector.kernels.policy_moves(batch.state.states, theirs, policy, policy_rng, moves, out)
            actions[theirs] = out
        batch = vector.step(batch, actions, playing)
        ended = np.flatnonzero(batch.terminated)
        score[ended] = (batch.rewards[ended, seats[ended]] + 1) / 2
    return float(score.mean())
