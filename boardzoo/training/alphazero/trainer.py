"""The AlphaZero loop: self-play, learning, checkpoint, evaluation, generation after
generation, in a run directory that survives any interruption. The loop is this
module; its parts are the replay buffer (:mod:`.buffer`), the run's files
(:mod:`.run_directory`: checkpoint, staged tasks, weights, the lock), self-play
(:mod:`.selfplay`) and evaluation (:mod:`.evaluation`: games, probes, ratings, plots).

A generation:

1. **self-play**: ``games_per_generation`` games of the current network against itself,
   in tasks of ``games_per_task`` games run in ``workers`` processes or on Ray (a task
   carries the network itself); each finished task is staged at once, so a killed run
   plays only the unfinished tasks again;
2. **learning**: the positions join the replay buffer (the newest ``replay_positions``),
   and the network takes ``sample_reuse`` x new positions / ``batch_size`` steps of Adam
   on minibatches drawn from the whole buffer (mirrored at random where the game is
   symmetric), minimising cross-entropy to the improved policy plus the squared error
   to the game's result;
3. **checkpoint**: the network, the optimiser, the buffer and the records; the network's
   weights files, and ``weights/averaged.npz``, the moving average of the generations'
   weights (each generation's share decaying by ``average_decay``), the network to play
   (it erred less than the newest generation alone: docs/benchmarks.md);
4. **evaluation** (every ``eval_every`` generations): games against the previous
   generation and the anchors, the probes, ratings, ``history.jsonl`` and
   ``training.png``.

Every setting is checked before any work (anchors, probes, the mistake sets' file), and
everything random is seeded from ``seed`` and the generation number, so a resumed run
goes on as if it had never stopped.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from boardzoo.agents import make as make_agent
from boardzoo.agents.alphazero.network import MIRRORED
from boardzoo.envs import make as make_env
from boardzoo.errors import BoardzooError
from boardzoo.games.registry import game
from boardzoo.training.alphazero.buffer import ReplayBuffer
from boardzoo.training.alphazero.config import FIXED_IN_A_BRANCH, TrainingConfig
from boardzoo.training.alphazero.evaluation import PROBES, Evaluation, seed_of, summary
from boardzoo.training.alphazero.model import PolicyValueNet
from boardzoo.training.alphazero.run_directory import AVERAGED, CHECKPOINT, RunDirectory, branch_directory
from boardzoo.training.alphazero.selfplay import SelfPlayResult, SelfPlayTask, play
from boardzoo.training.settings import branched
from boardzoo.workers import run_tasks

__all__ = ["AVERAGED", "CHECKPOINT", "Trainer", "branch"]


def game_facts(config: TrainingConfig) -> tuple[tuple[int, ...], int]:
    """The network input shape and the number of actions of the configuration's game."""
    env = make_env(config.env, raw=True, **config.params)
    env.reset(seed=0)
    state = env.unwrapped.game
    return game(config.game).input_shape(state, config.largest_pile), int(state.num_actions)


def check_settings(config: TrainingConfig) -> None:
    """Every setting that names something outside the configuration, checked before any
    work: a bad one found after a generation would stop the run there, and again at
    every resume."""
    for anchor in config.anchors:
        try:
            make_agent(anchor)
        except (BoardzooError, ValueError) as error:
            raise ValueError(f"train: anchors: {error}") from None
    for name in config.probes:
        if name not in PROBES:
            raise ValueError(f"train: probes: no probe {name!r}; probes are {', '.join(PROBES)}")
        if not PROBES[name].fits(config):
            raise ValueError(f"train: probes: {name} needs {PROBES[name].needs}")
    if config.mistake_sets:
        from boardzoo.training.alphazero.referee import read_mistake_sets

        read_mistake_sets(config.mistake_sets)


def mirrored(config: TrainingConfig, shape: tuple[int, ...]) -> bool:
    """Whether the game is the same mirrored left to right, actions being columns."""
    return config.mirror and config.game in MIRRORED and len(shape) == 3


class Trainer:
    """A training run in directory ``run_dir``: started with ``config``, or resumed from
    the checkpoint there (``config`` None, or the same as the run's)."""

    def __init__(self, run_dir: str, config: TrainingConfig | None = None, workers: int = 1, ray: str | None = None,
                 log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
                 commit: str = "", command: str = ""):
        self.directory = RunDirectory(run_dir, log)
        self.run_dir, self.workers, self.ray, self.log = self.directory.path, workers, ray, log
        #: Torch threads while learning: the local self-play workers' cores, idle then.
        self.learn_threads = 1 if ray else max(1, workers)
        #: The commands (with the commit each ran) that made the run so far, in order.
        self.commands: list[dict[str, str]] = []
        self._started = {"command": command, "commit": commit}
        #: The checkpoint file this trainer's state is (see :meth:`run`).
        self._checkpoint_read: tuple[int, int] | None = None
        saved = None
        if self.directory.has_checkpoint():
            self._checkpoint_read = self.directory.checkpoint_identity()  # before reading: a file replaced
            saved = self.directory.read_checkpoint()                      # meanwhile reads as changed
            stored = TrainingConfig.from_json(saved["config"], self.directory.file(CHECKPOINT))
            if config is not None and config != stored:
                changed = sorted(k for k, v in config.to_json().items() if stored.to_json().get(k) != v)
                raise ValueError(f"{run_dir} holds a run with other settings ({', '.join(changed)}); resume it "
                                 "without settings, or start another run directory")
            self.config = stored
        elif config is None:
            raise ValueError(f"{run_dir} holds no training run (no {CHECKPOINT}); name a game to start one")
        else:
            self.config = config
        check_settings(self.config)
        self.input_shape, self.actions = game_facts(self.config)
        self.architecture = self.config.architecture(self.input_shape, self.actions)
        torch.set_num_threads(1)
        torch.manual_seed(self.config.seed)
        self.model = PolicyValueNet(self.architecture)
        #: The exponential moving average of the networks after each generation, and the
        #: generation whose network it began with.
        self.averaged = PolicyValueNet(self.architecture)
        self.averaged.load_state_dict(self.model.state_dict())
        self.averaged_from = 0
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.config.learning_rate,
                                           weight_decay=self.config.weight_decay)
        self.buffer = ReplayBuffer(self.config.replay_positions, int(np.prod(self.input_shape)), self.actions)
        self.generation, self.evaluated, self.seconds = 0, 0, 0.0
        self.history: list[dict[str, Any]] = []
        self.evaluation = self._evaluation()
        if saved is None:
            self.commands.append(self._started)
            self.directory.write_config(self.config.to_json())
            self._write_weights()
            self._checkpoint()
        else:
            self._restore(saved)
            if not os.path.exists(self.weights_path(self.generation)):  # a checkout of a run carries no weights
                self._write_weights()

    @property
    def anchor_ratings(self) -> dict[str, float]:
        return self.evaluation.anchor_ratings

    def _evaluation(self) -> Evaluation:
        return Evaluation(self.directory, self.config, self.workers, lambda: self.model.to_network(), self.log)

    def _attach(self, run_dir: str, log: Callable[[str], None]) -> None:
        """Go on in ``run_dir``, where this run's files now are (a branch made elsewhere)."""
        self.directory = RunDirectory(run_dir, log)
        self.run_dir, self.log = self.directory.path, log
        self.evaluation = self._evaluation()
        self.evaluation.rate(self.history)
        self._checkpoint_read = self.directory.checkpoint_identity()

    # --- the loop ----------------------------------------------------------------------------------------
    def run(self, generations: int | None = None, hours: float | None = None,
            run_hours: float | None = None) -> None:
        """Train until the run has ``generations`` generations, this call has run
        ``hours`` (checked between phases), or another generation would take the run's
        own hours past ``run_hours``, whichever comes first.

        ``hours`` is the wall clock of this call, evaluation included; ``run_hours`` is the
        run's budget across all its calls, counted as the run counts its hours (self-play
        and learning), with the last generation's time as the estimate of the next one's:
        a run resumed in parts with the same ``run_hours`` stops where one uninterrupted
        call would have.

        One trainer at a time: another that is running on the same directory (in any
        process) is refused, and so is this one when the checkpoint is no longer the one
        it read (another trainer has gone on with the run meanwhile)."""
        start = time.monotonic()
        with self.directory.held():
            if self.directory.checkpoint_identity() != self._checkpoint_read:
                raise ValueError(f"{self.run_dir}: its checkpoint changed since this trainer read it (another "
                                 "trainer went on with the run); resume it afresh")
            self._run(generations, hours, run_hours, start)

    def _run(self, generations: int | None, hours: float | None, run_hours: float | None, start: float) -> None:
        emulated = [name for name in ("selfplay_precision", "learn_precision")
                    if getattr(self.config, name) == "bfloat16" and not bfloat16_in_hardware()]
        if emulated:
            self.log(f"warning: {' and '.join(emulated)} is bfloat16, which this CPU has no instructions for "
                     "(avx512_bf16, amx_bf16): it is emulated, many times slower than float32 (docs/benchmarks.md); "
                     "a branch (--branch-from) can go on in float32")

        def time_left() -> bool:
            return hours is None or time.monotonic() - start < hours * 3600

        while (generations is None or self.generation < generations or self.evaluated < self.generation) \
                and time_left():
            if self.evaluated < self.generation:
                self._evaluate()
                continue
            if generations is not None and self.generation >= generations:
                break
            if run_hours is not None and self.seconds + self._last_generation_seconds() > run_hours * 3600:
                self.log(f"the run has {self.seconds / 3600:.2f} h of its {run_hours:g}: another generation "
                         "would take it past them")
                break
            self._generation()

    def _last_generation_seconds(self) -> float:
        """What the newest generation took (self-play and learning): the estimate of the next."""
        if not self.history:
            return 0.0
        newest = self.history[-1]
        return newest["selfplay_seconds"] + newest["learn_seconds"]

    def _generation(self) -> None:
        began = time.monotonic()
        g = self.generation + 1
        results, staged_seconds = self._self_play(g)
        played = time.monotonic()
        inputs = np.concatenate([r.inputs for r in results])
        policies = np.concatenate([r.policies for r in results])
        values = np.concatenate([r.values for r in results])
        self.buffer.add(inputs, policies, values)
        losses = self._learn(g, len(values))
        with torch.no_grad():
            for mean, now in zip(self.averaged.parameters(), self.model.parameters()):
                mean.lerp_(now, 1 - self.config.average_decay)
        learned = time.monotonic()
        games = sum(r.games for r in results)
        record = {
            "generation": g, "games": games, "positions": len(values), "buffer": self.buffer.size,
            "plies_per_game": round(sum(r.plies for r in results) / max(games, 1), 2),
            "first_player_score": round(sum(r.first_player_score * r.games for r in results) / max(games, 1), 4),
            "draw_share": round(sum(r.outcomes.get("draw", 0) for r in results) / max(games, 1), 4),
            "selfplay_seconds": round(played - began + staged_seconds, 1), "learn_seconds": round(learned - played, 1),
            "evaluations_per_second": round(sum(r.evaluations for r in results)
                                            / max(played - began + staged_seconds, 1e-9)),
            "learning_rate": self.config.learning_rate_at(g), **losses}
        self.generation = g
        self.seconds += learned - began + staged_seconds
        record["hours"] = round(self.seconds / 3600, 4)
        self.history.append(record)
        self._write_weights()
        self._checkpoint()
        self.directory.clear_staging()
        self.log(f"generation {g}: {games} games, {len(values)} positions in {record['selfplay_seconds']} s; "
                 f"{losses['steps']} steps in {record['learn_seconds']} s, policy loss {losses['policy_loss']:.3f}, "
                 f"value loss {losses['value_loss']:.3f}")

    def _self_play(self, g: int) -> tuple[list[SelfPlayResult], float]:
        """The generation's games, and the wall time the tasks found staged took in the
        call that played them (their own seconds over the workers that ran them side by
        side): that time is the run's too."""
        config = self.config
        tasks_count = math.ceil(config.games_per_generation / config.games_per_task)
        network = self.model.to_network()
        done = self.directory.staged(g, tasks_count, int(np.prod(self.input_shape)), self.actions)
        tasks = [SelfPlayTask(config, network,
                              games=min(config.games_per_task, config.games_per_generation - i * config.games_per_task),
                              seed=seed_of(config.seed, g, i), number=i)
                 for i in range(tasks_count) if i not in done]
        staged_seconds = sum(result.seconds for result in done.values()) / max(1, self.workers)
        if done:
            self.log(f"generation {g}: {len(done)} of {tasks_count} self-play tasks found done in staging/")
        for result in run_tasks(play, tasks, max(1, min(self.workers, len(tasks) or 1)), self.ray):
            self.directory.stage(g, result)
            done[result.number] = result
            self.log(f"generation {g}: self-play task {result.number + 1} of {tasks_count}: {result.games} games "
                     f"in {result.seconds:.0f} s")
        return [done[i] for i in range(tasks_count)], staged_seconds

    def _learn(self, g: int, new_positions: int) -> dict[str, Any]:
        config = self.config
        for group in self.optimizer.param_groups:
            group["lr"] = config.learning_rate_at(g)
        steps = max(1, math.ceil(config.sample_reuse * new_positions / config.batch_size))
        rng = np.random.default_rng([config.seed, g, 2])
        mirror = mirrored(config, self.input_shape)
        self.model.train()
        totals = np.zeros(2)
        # The self-play workers wait while the network learns: their cores are the
        # learner's then (the threads go back to one before self-play resumes).
        torch.set_num_threads(self.learn_threads)
        try:
            for _ in range(steps):
                totals += self._step(config, rng, mirror)
        finally:
            torch.set_num_threads(1)
        self.model.eval()
        return {"steps": steps, "policy_loss": round(float(totals[0] / steps), 5),
                "value_loss": round(float(totals[1] / steps), 5)}

    def _step(self, config: TrainingConfig, rng: np.random.Generator, mirror: bool) -> np.ndarray:
        """One step of the optimiser on a minibatch; its two losses."""
        inputs, policies, values = self.buffer.sample(min(config.batch_size, self.buffer.size), rng)
        x = torch.from_numpy(inputs).reshape(len(inputs), *self.input_shape)
        target = torch.from_numpy(policies)
        if mirror:
            flip = torch.from_numpy(rng.random(len(inputs)) < 0.5)
            x = torch.where(flip[:, None, None, None], x.flip(-1), x)
            target = torch.where(flip[:, None], target.flip(-1), target)
        # In bfloat16 the convolutions and products run at half width; the losses and
        # the weights the optimiser keeps stay float32.
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=config.learn_precision == "bfloat16"):
            logits, predicted = self.model(x)
        policy_loss = -(target * torch.log_softmax(logits.float(), dim=1)).sum(dim=1).mean()
        value_loss = torch.mean((predicted.float() - torch.from_numpy(values)) ** 2)
        self.optimizer.zero_grad()
        (policy_loss + value_loss).backward()
        self.optimizer.step()
        return np.array([policy_loss.item(), value_loss.item()])

    # --- evaluation ----------------------------------------------------------------------------------------
    def agent_spec(self, generation: int, simulations: int, sample_moves: int = 0) -> str:
        return self.evaluation.agent_spec(generation, simulations, sample_moves)

    def weights_path(self, generation: int) -> str:
        return self.directory.weights_path(generation)

    def _evaluate(self) -> None:
        g = self.generation
        record = self.evaluation.evaluate(g)
        self.history[-1].update(record)  # the generation evaluated is always the newest
        self.evaluated = g
        self.evaluation.rate(self.history)
        self._checkpoint()
        self.evaluation.plot(self.history)
        self.log(f"generation {g} evaluated in {record['eval_seconds']} s: {summary(self.history[-1])}")

    # --- files -----------------------------------------------------------------------------------------------
    def _write_weights(self) -> None:
        about = {"game": self.config.game, "env": self.config.env, "params": self.config.params,
                 "generation": self.generation, "training_hours": round(self.seconds / 3600, 3),
                 "commands": self.commands, "simulations": self.config.simulations}
        averaged = self.averaged.to_network(
            {**about, "averaged": {"decay": self.config.average_decay, "from_generation": self.averaged_from}})
        self.directory.write_weights(self.generation, self.model.to_network(about), averaged,
                                     self.config.keep_weights, self.config.keep_every)

    def _checkpoint(self) -> None:
        state = {"config": self.config.to_json(), "generation": self.generation,
                 "evaluated": self.evaluated, "seconds": self.seconds, "model": self.model.state_dict(),
                 "averaged": self.averaged.state_dict(), "averaged_from": self.averaged_from,
                 "optimizer": self.optimizer.state_dict(), "buffer": self.buffer.state(),
                 "history": json.dumps(self.history), "commands": json.dumps(self.commands)}
        self.directory.write_checkpoint(state, self.history)
        self._checkpoint_read = self.directory.checkpoint_identity()

    def _restore(self, saved: dict[str, Any]) -> None:
        where = self.directory.file(CHECKPOINT)
        average_begins = "averaged" not in saved  # a checkpoint from before the average: it begins here
        try:
            self.model.load_state_dict(saved["model"])
            self.optimizer.load_state_dict(saved["optimizer"])
            self.generation, self.evaluated = int(saved["generation"]), int(saved["evaluated"])
            self.seconds = float(saved["seconds"])
            self.history = json.loads(saved["history"])
            self.commands = json.loads(saved.get("commands", "[]")) + [self._started]
            self.averaged.load_state_dict(saved["model" if average_begins else "averaged"])
            self.averaged_from = self.generation if average_begins else int(saved["averaged_from"])
        except (KeyError, TypeError, ValueError, RuntimeError) as error:
            raise ValueError(f"{where}: the checkpoint is damaged ({error})") from None
        self.buffer.load(saved["buffer"], where)
        self.model.eval()
        self.evaluation.rate(self.history)
        self.log(f"resumed {self.run_dir} at generation {self.generation} ({self.seconds / 3600:.2f} h trained)")
        if average_begins:
            self.log(f"the averaged network ({AVERAGED}) begins at generation {self.generation}")


def bfloat16_in_hardware() -> bool:
    """Whether this CPU computes in bfloat16 (else torch emulates it, slowly)."""
    read = getattr(torch.cpu, "get_capabilities", None)
    if read is None:  # an older torch cannot tell: no warning
        return True
    capabilities = read()
    return bool(capabilities.get("avx512_bf16") or capabilities.get("amx_bf16"))


def branch(source: str, run_dir: str, settings: dict[str, str], game: str | None = None, commit: str = "",
           command: str = "", workers: int = 1, ray: str | None = None,
           log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True)) -> Trainer:
    """A new run in ``run_dir`` that goes on from run ``source`` where that one is now
    (its network, optimizer, buffer, records and ratings) with ``settings`` changed: an
    ablation from one network, without retraining it. ``source`` is only read. The new
    directory appears whole or not at all; the settings that fix the network's shape or
    the buffer's (:data:`FIXED_IN_A_BRANCH`) are refused, and so is a ``source`` of
    another ``game``. The returned trainer is the branch, ready to run; its networks name the
    commands that made ``source`` and this branch."""
    def make(scratch: str) -> Trainer:
        trainer = Trainer(scratch, None, workers=workers, ray=ray, log=lambda line: None, commit=commit,
                          command=command)
        config = branched(trainer.config, settings, FIXED_IN_A_BRANCH, source, game)
        check_settings(config)
        trainer.config = config
        trainer.commands[-1]["branched_from"] = f"{os.path.abspath(source)} at generation {trainer.generation}"
        trainer._checkpoint()
        trainer.directory.write_config(config.to_json())
        return trainer

    trainer = branch_directory(source, run_dir, make, log)
    trainer._attach(run_dir, log)
    log(f"branched {run_dir} from {source} at generation {trainer.generation} "
        f"({', '.join(f'{k}={v}' for k, v in settings.items()) or 'no setting changed'})")
    return trainer
