"""The hidden-information trainer's loop: play (:mod:`.selfplay`), learn, now and then
add a past self to the league, measure, checkpoint; resumable from its run directory
after any interruption (the directory's files and rules are the searching trainer's:
:mod:`boardzoo.training.alphazero.run_directory`).

Learning is PPO's clipped objective (Schulman et al., 2017) on each iteration's decisions,
with four terms beside it, all from one pass of the network: the value's squared error,
an entropy bonus, the magnet (the KL divergence of the policy from a slowly moving copy
of itself, magnetic mirror descent's regularisation as Sokota et al., 2023 apply it to
self-play policy gradients), and the belief's cross-entropy against the secrets the
seats could not see. Only the belief reads the secrets, and only as a target.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as functional

from boardzoo.agents.alphazero.network import Network
from boardzoo.games.registry import game as declared_game
from boardzoo.training.alphazero.model import PolicyValueNet
from boardzoo.training.alphazero.run_directory import RunDirectory, branch_directory
from boardzoo.training.hidden.config import HiddenConfig
from boardzoo.training.hidden.league import League
from boardzoo.training.hidden.selfplay import Decisions, LeagueGames, evaluate
from boardzoo.training.settings import branched

#: The kind of run this directory holds (the searching trainer's directories say another).
KIND = "hidden"
#: Masked logits: low enough that an illegal action's probability is 0, finite so that
#: 0 * log 0 stays 0.
ILLEGAL = -1e9
#: The most a minibatch's gradient may be long (PPO's usual clip).
MAX_GRAD_NORM = 1.0
#: The settings a branch keeps from its source: those of the game and the network's shape.
FIXED_IN_A_BRANCH = ("env", "game", "params", "kind", "channels", "blocks", "value_hidden")


def learn(model: PolicyValueNet, magnet: PolicyValueNet, optimizer: torch.optim.Optimizer,
          decisions: Decisions, config: HiddenConfig, rng: np.random.Generator) -> dict[str, float]:
    """PPO's epochs over ``decisions`` (see the module docstring); the losses' means."""
    n = len(decisions)
    advantages = decisions.advantages
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    log_magnet = _log_policy(magnet, decisions, config.minibatch)
    sums: dict[str, float] = {}
    batches = 0
    for _ in range(config.epochs):
        order = rng.permutation(n)
        for start in range(0, n, config.minibatch):
            rows = order[start:start + config.minibatch]
            terms = _losses(model, log_magnet[rows], decisions, rows, advantages[rows], config)
            loss = (terms["policy"] + config.value_weight * terms["value"] - config.entropy_weight * terms["entropy"]
                    + config.magnet_weight * terms["magnet"] + config.belief_weight * terms["belief"])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_GRAD_NORM)
            optimizer.step()
            for name, value in terms.items():
                sums[name] = sums.get(name, 0.0) + float(value.detach())
            batches += 1
    with torch.no_grad():  # the magnet follows the policy a step
        for kept, moving in zip(magnet.parameters(), model.parameters()):
            kept.lerp_(moving, config.magnet_step)
    return {name: round(total / batches, 5) for name, total in sums.items()}


def _log_policy(network: PolicyValueNet, decisions: Decisions, chunk: int) -> torch.Tensor:
    """The log-probabilities of ``network``'s policy over each decision's legal actions:
    the magnet's, which stays put while the learner learns, so its passes are made once
    an iteration rather than once an epoch."""
    parts = []
    with torch.no_grad():
        for start in range(0, len(decisions), chunk):
            rows = slice(start, start + chunk)
            logits, _ = network(torch.from_numpy(decisions.inputs[rows]))
            legal = torch.from_numpy(decisions.masks[rows])
            parts.append(functional.log_softmax(logits.masked_fill(~legal, ILLEGAL), dim=1))
    return torch.cat(parts)


def _losses(model: PolicyValueNet, log_magnet: torch.Tensor, decisions: Decisions, rows: np.ndarray,
            advantages: np.ndarray, config: HiddenConfig) -> dict[str, torch.Tensor]:
    inputs = torch.from_numpy(decisions.inputs[rows])
    legal = torch.from_numpy(decisions.masks[rows])
    actions = torch.from_numpy(decisions.actions[rows])
    logits, values, belief = model.with_belief(inputs)
    log_policy = functional.log_softmax(logits.masked_fill(~legal, ILLEGAL), dim=1)
    chosen = log_policy.gather(1, actions[:, None])[:, 0]
    ratio = torch.exp(chosen - torch.from_numpy(decisions.log_probs[rows]))
    gain = torch.from_numpy(advantages)
    policy = -torch.minimum(ratio * gain, ratio.clamp(1 - config.clip, 1 + config.clip) * gain).mean()
    value = ((values - torch.from_numpy(decisions.returns[rows])) ** 2).mean()
    probabilities = log_policy.exp()
    entropy = -(probabilities * log_policy).sum(1).mean()
    pull = (probabilities * (log_policy - log_magnet)).sum(1).mean()
    known = torch.from_numpy(decisions.known[rows])
    secrets = torch.from_numpy(decisions.secrets[rows])
    belief_loss = (functional.binary_cross_entropy_with_logits(belief, secrets, reduction="none") * known).sum() \
        / known.sum().clamp(min=1.0)
    with torch.no_grad():
        right = (((belief > 0).float() == secrets).float() * known).sum() / known.sum().clamp(min=1.0)
    return {"policy": policy, "value": value, "entropy": entropy, "magnet": pull, "belief": belief_loss,
            "belief_accuracy": right}


class HiddenTrainer:
    """A run in directory ``run_dir``: a new one with ``config``, or the one there resumed
    (``config`` None, or equal to the one it was started with)."""

    def __init__(self, run_dir: str, config: HiddenConfig | None = None, commit: str = "", command: str = "",
                 log: Callable[[str], None] = print, threads: int = 1):
        self.run = RunDirectory(run_dir, log)
        self.threads = threads  # PyTorch's, for the network's passes in self-play and learning
        self.log = log
        #: The commands (with the commit each ran) that made the run so far, in order:
        #: a run resumed over many sessions may have run on more than one commit.
        self.commands: list[dict[str, str]] = [{"command": command, "commit": commit}]
        self.history: list[dict[str, Any]] = []
        if self.run.has_checkpoint():
            saved = self.run.read_checkpoint()
            if saved.get("kind") != KIND:
                raise ValueError(f"{run_dir} holds a run of another trainer")
            stored = HiddenConfig.from_json(json.loads(saved["config"]), self.run.file("checkpoint.pt"))
            if config is not None and config != stored:
                raise ValueError(f"{run_dir} holds a run with other settings; resume it as it is, or train into "
                                 "another run directory")
            self.config = stored
            self._build()
            self._restore(saved)
        else:
            if config is None:
                raise ValueError(f"{run_dir} holds no run to resume; give the settings of a new one")
            self.config = config
            torch.manual_seed(config.seed)
            self._build()
            self.iteration, self.decisions, self.seconds = 0, 0, 0.0
            self.run.write_config(config.to_json())

    def _build(self) -> None:
        config = self.config
        declared = declared_game(config.game)
        from boardzoo.envs import make as make_env

        env = make_env(config.env, raw=True, **config.params)
        env.reset(seed=0)
        shape = declared.input_shape(env.game)
        self.architecture = config.architecture(shape, int(env.action_spaces["player_0"].n))
        self.model = PolicyValueNet(self.architecture)
        self.magnet = copy.deepcopy(self.model)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config.learning_rate)
        self.league = self._new_league()

    def _new_league(self) -> League:
        config = self.config
        return League(config.self_share, config.fixed_share, config.fixed_opponents, config.league_size)

    def _restore(self, saved: dict[str, Any]) -> None:
        self.model.load_state_dict(saved["model"])
        self.magnet.load_state_dict(saved["magnet"])
        self.optimizer.load_state_dict(saved["optimizer"])
        self.iteration, self.decisions, self.seconds = saved["iteration"], saved["decisions"], saved["seconds"]
        for member in saved["league"]:
            network = Network(self.architecture, {name: tensor.numpy().astype(np.float32)
                                                  for name, tensor in member["arrays"].items()})
            self.league.add(member["iteration"], network)
            self.league.snapshots[member["iteration"]].score = member["score"]
        for name, score in saved.get("fixed_scores", {}).items():  # a checkpoint before they were kept has none
            if name in self.league.fixed_scores:
                self.league.fixed_scores[name] = float(score)
        self.history = [json.loads(line) for line in saved["history"]]
        self.commands = json.loads(saved.get("commands", "[]")) + self.commands
        self.log(f"resumed {self.run.path} at iteration {self.iteration} ({self.seconds / 3600:.2f} h trained)")

    def network(self) -> Network:
        """The learner's network as the agent plays it (NumPy; the belief head too, which
        only a search that samples the hidden colours reads)."""
        return self.model.to_network({"game": self.config.game, "env": self.config.env, "params": self.config.params,
                                      "trainer": KIND, "iteration": self.iteration,
                                      "training_hours": round(self.seconds / 3600, 3), "commands": self.commands})

    def checkpoint(self) -> None:
        # The past selves in half precision: they are only opponents, and they are most of
        # the checkpoint, which a run kept in version control commits again every session.
        league = [{"iteration": i, "score": s.score,
                   "arrays": {name: torch.from_numpy(array.astype(np.float16))
                              for name, array in s.network.arrays.items()}}
                  for i, s in self.league.snapshots.items()]
        state = {"kind": KIND, "config": json.dumps(self.config.to_json()), "model": self.model.state_dict(),
                 "magnet": self.magnet.state_dict(), "optimizer": self.optimizer.state_dict(),
                 "iteration": self.iteration, "decisions": self.decisions, "seconds": self.seconds,
                 "league": league, "fixed_scores": self._fixed_scores(digits=None),
                 "history": [json.dumps(entry) for entry in self.history],
                 "commands": json.dumps(self.commands)}
        self.run.write_file(self.run.file("weights", "latest.npz"), self.network().write)
        self.run.write_checkpoint(state, self.history)

    def _fixed_scores(self, digits: int | None = 4) -> dict[str, float]:
        """The learner's score against each fixed opponent, by name: rounded for the
        history, exact (``digits`` None) for the checkpoint, as the past selves' are."""
        return {name: score if digits is None else round(score, digits)
                for name, score in self.league.fixed_scores.items()}

    def train(self, iterations: int | None = None, hours: float | None = None,
              run_hours: float | None = None) -> None:
        """Train until the run has done ``iterations``, this call has run ``hours`` or the
        run has trained ``run_hours`` in all, whichever comes first (at least one is given;
        each is checked between iterations)."""
        if iterations is None and hours is None and run_hours is None:
            raise ValueError("train: say when to stop (iterations, hours or run hours)")
        config = self.config
        torch.set_num_threads(self.threads)
        with self.run.held():
            rng = np.random.default_rng(config.seed + 104_729 * (self.iteration + 1))
            started = last_checkpoint = time.monotonic()
            base = self.seconds
            try:
                games = LeagueGames(config, self.league, config.seed + 7919 * (self.iteration + 1))
                while (iterations is None or self.iteration < iterations) \
                        and (hours is None or time.monotonic() - started < hours * 3600) \
                        and (run_hours is None or self.seconds < run_hours * 3600):
                    self._iterate(games, rng)
                    self.seconds = base + time.monotonic() - started
                    if time.monotonic() - last_checkpoint >= config.checkpoint_minutes * 60:
                        self.checkpoint()
                        last_checkpoint = time.monotonic()
            finally:
                self.seconds = base + time.monotonic() - started
                self.checkpoint()

    def _iterate(self, games: LeagueGames, rng: np.random.Generator) -> None:
        config = self.config
        begun = time.monotonic()
        self.model.eval()
        decisions, tally = games.play(self.model, config.decisions_per_iteration)
        played = time.monotonic() - begun
        self.model.train()
        losses = learn(self.model, self.magnet, self.optimizer, decisions, config, rng)
        self.model.eval()
        self.iteration += 1
        self.decisions += len(decisions)
        entry: dict[str, Any] = {"iteration": self.iteration, "hours": round((self.seconds + time.monotonic() - begun)
                                                                            / 3600, 4),
                                 "decisions": self.decisions, "play_seconds": round(played, 2),
                                 "learn_seconds": round(time.monotonic() - begun - played, 2), "losses": losses,
                                 "scores": tally.rates(), "games": tally.games}
        if self.iteration % config.snapshot_every == 0:
            self._snapshot()
            entry["league"] = {**self.league.scores(), **self._fixed_scores()}
        if config.eval_games and self.iteration % config.eval_every == 0:
            rollouts = declared_game(config.game).compiled_rollouts
            entry["eval"] = {name: round(evaluate(config, self.model, rollouts.index(name), config.eval_games,
                                                  config.seed + self.iteration), 4)
                             for name in config.eval_opponents}
        self.history.append(entry)
        self.log(_line(entry))


    def _snapshot(self) -> None:
        """A past self joins the league, its file beside the others'; the file of one the
        league lets go is removed unless its iteration is one the curve keeps."""
        network = self.network()
        before = set(self.league.snapshots)
        self.league.add(self.iteration, network)
        self.run.write_file(self.snapshot_path(self.iteration), network.write)
        keep = self.config.keep_every
        for gone in before - set(self.league.snapshots):
            if not (keep and gone % keep == 0):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.snapshot_path(gone))

    def snapshot_path(self, iteration: int) -> str:
        return self.run.file("weights", f"iter-{iteration:05d}.npz")


def branch(source: str, run_dir: str, settings: dict[str, str], game: str | None = None, commit: str = "",
           command: str = "", threads: int = 1, log: Callable[[str], None] = print) -> HiddenTrainer:
    """A new run in ``run_dir`` that goes on from run ``source`` where that one is now (its
    network, magnet, optimizer, league and records) with ``settings`` changed: a lower
    learning rate late in a run, an ablation from one network. ``source`` is only read;
    ``run_dir`` appears whole or not at all. The settings of the game and the network's
    shape (:data:`FIXED_IN_A_BRANCH`) are refused, and so is a ``source`` of another ``game``."""
    def make(scratch: str) -> HiddenTrainer:
        trainer = HiddenTrainer(scratch, None, commit=commit, command=command, log=lambda line: None, threads=threads)
        config = trainer.config = branched(trainer.config, settings, FIXED_IN_A_BRANCH, source, game)
        league, trainer.league = trainer.league, trainer._new_league()  # by the branch's settings
        trainer.league.take_over(league)
        trainer.commands[-1]["branched_from"] = f"{os.path.abspath(source)} at iteration {trainer.iteration}"
        trainer.checkpoint()
        trainer.run.write_config(config.to_json())
        return trainer

    trainer = branch_directory(source, run_dir, make, log)
    trainer.run, trainer.log = RunDirectory(run_dir, log), log
    log(f"branched {run_dir} from {source} at iteration {trainer.iteration} "
        f"({', '.join(f'{k}={v}' for k, v in settings.items()) or 'no setting changed'})")
    return trainer


def _line(entry: dict[str, Any]) -> str:
    losses = entry["losses"]
    scores = ", ".join(f"{name} {rate:.3f}" for name, rate in entry["scores"].items())
    text = (f"iteration {entry['iteration']}: {entry['hours']:.2f} h, {entry['decisions']:,} decisions; policy "
            f"{losses['policy']:+.4f}, value {losses['value']:.4f}, entropy {losses['entropy']:.3f}, magnet "
            f"{losses['magnet']:.4f}, belief {losses['belief']:.4f} ({losses['belief_accuracy']:.3f} right); "
            f"scores: {scores}")
    if "eval" in entry:
        text += "; eval: " + ", ".join(f"{name} {rate:.3f}" for name, rate in entry["eval"].items())
    return text

