"""The AlphaZero loop: self-play, learning, evaluation, checkpoint, generation after
generation, in a run directory that survives any interruption.

A generation:

1. **self-play**: ``games_per_generation`` games of the current network against itself,
   in tasks of ``games_per_task`` games (:mod:`.selfplay`) run in ``workers`` processes
   or on Ray (a task carries the network itself); each finished task is written to ``staging/`` at once, so a killed run
   plays only the unfinished tasks again;
2. **learning**: the positions join the replay buffer (the newest ``replay_positions``),
   and the network takes ``sample_reuse`` x new positions / ``batch_size`` steps of Adam
   on minibatches drawn from the whole buffer (mirrored at random where the game is
   symmetric), minimising cross-entropy to the improved policy plus the squared error
   to the game's result;
3. **checkpoint**: the network, the optimiser, the buffer and the generator states go
   to ``checkpoint.pt`` (written whole beside the old one, then renamed over it);
   the network also to ``weights/gen-NNNN.npz`` and ``weights/latest.npz`` (the files
   ``alphazero:weights=`` reads). Only the newest ``keep_weights`` generations' files are
   kept, and every ``keep_every``-th (for a curve over the whole run), so the
   directory's size is bounded. ``weights/averaged.npz`` is the moving average of the
   generations' weights (each generation's share decaying by ``average_decay``), the
   network to play (it erred less than the newest generation alone: docs/benchmarks.md);
4. **evaluation** (every ``eval_every`` generations): arena games against the previous
   generation and the anchors, on this machine (results files in ``eval/``, resumable as
   any arena run),
   mistake rates on the solver-scored Connect Four sets every ``mistakes_every``;
   ratings with intervals over every result so far; ``history.jsonl`` gets a line per
   generation and ``training.png`` the curves (with the ``plot`` extra).

Everything random is seeded from ``seed`` and the generation number, so a resumed run
goes on as if it had never stopped.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from boardzoo.agents.alphazero.network import MIRRORED
from boardzoo.arena import run as run_arena
from boardzoo.envs import make as make_env
from boardzoo.fast.games import encode
from boardzoo.fast.network_input import input_shape
from boardzoo.ledger import write_atomic, write_atomic_with
from boardzoo.stats import ratings
from boardzoo.training.alphazero.config import FIXED_IN_A_BRANCH, TrainingConfig
from boardzoo.training.alphazero.locks import held_alone
from boardzoo.training.alphazero.model import PolicyValueNet
from boardzoo.training.alphazero.selfplay import SelfPlayResult, SelfPlayTask, play
from boardzoo.workers import run_tasks

#: The checkpoint's format; a checkpoint of another is refused, not guessed at. Format 2
#: packs 0/1 buffer inputs to bits (a full Connect Four buffer: 29 MB instead of 170, so
#: a run's checkpoint can be kept in version control); format 1 (float16 inputs) is
#: still read.
FORMAT, READABLE_FORMATS = 2, (1, 2)
CHECKPOINT, CONFIG, HISTORY = "checkpoint.pt", "config.json", "history.jsonl"
#: The moving average of the generations' networks, in ``weights/``.
AVERAGED = "averaged.npz"
#: Held while a trainer runs (an OS lock: a killed trainer's goes with its process).
LOCK = ".lock"
_STAGED = re.compile(r"gen-(\d+)-task-(\d+)\.npz")


def env_spec(config: TrainingConfig) -> str:
    """The env spec string of the configuration's games (as the arena takes it)."""
    def text(value: Any) -> str:
        return f"{value[0]}..{value[1]}" if isinstance(value, (list, tuple)) else str(value).lower() \
            if isinstance(value, bool) else str(value)
    params = ",".join(f"{key}={text(value)}" for key, value in config.params.items())
    return f"{config.env}:{params}" if params else config.env


def game_facts(config: TrainingConfig) -> tuple[tuple[int, ...], int]:
    """The network input shape and the number of actions of the configuration's game."""
    env = make_env(config.env, raw=True, **config.params)
    env.reset(seed=0)
    state = env.unwrapped.game
    return input_shape(config.game, encode(state), config.largest_pile), int(state.num_actions)


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


def mirrored(config: TrainingConfig, shape: tuple[int, ...]) -> bool:
    """Whether the game is the same mirrored left to right, actions being columns."""
    return config.mirror and config.game in MIRRORED and len(shape) == 3


class Trainer:
    """A training run in directory ``run_dir``: started with ``config``, or resumed from
    the checkpoint there (``config`` None, or the same as the run's)."""

    def __init__(self, run_dir: str, config: TrainingConfig | None = None, workers: int = 1, ray: str | None = None,
                 log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
                 commit: str = "", command: str = ""):
        self.run_dir, self.workers, self.ray, self.log = run_dir, workers, ray, log
        #: Torch threads while learning: the local self-play workers' cores, idle then.
        self.learn_threads = 1 if ray else max(1, workers)
        #: The commands (with the commit each ran) that made the run so far, in order.
        self.commands: list[dict[str, str]] = []
        self._started = {"command": command, "commit": commit}
        path = os.path.join(run_dir, CHECKPOINT)
        #: The checkpoint file this trainer's state is (see :meth:`run`).
        self._checkpoint_read: tuple[int, int] | None = None
        if os.path.exists(path):
            self._checkpoint_read = _identity(path)  # before reading: a file replaced meanwhile reads as changed
            saved = self._read_checkpoint(path)
            stored = TrainingConfig.from_json(saved["config"], path)
            if config is not None and config != stored:
                changed = sorted(k for k, v in config.to_json().items() if stored.to_json().get(k) != v)
                raise ValueError(f"{run_dir} holds a run with other settings ({', '.join(changed)}); resume it "
                                 "without settings, or start another run directory")
            self.config = stored
        elif config is None:
            raise ValueError(f"{run_dir} holds no training run (no {CHECKPOINT}); name a game to start one")
        else:
            self.config = config
            saved = None
        if self.config.mistake_sets:  # a file that cannot be read fails now, not after a generation
            from boardzoo.training.alphazero.referee import read_mistake_sets

            read_mistake_sets(self.config.mistake_sets)
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
        self.anchor_ratings: dict[str, float] = {}
        if saved is None:
            self.commands.append(self._started)
            os.makedirs(os.path.join(run_dir, "weights"), exist_ok=True)
            write_atomic(os.path.join(run_dir, CONFIG), json.dumps(self.config.to_json(), indent=1) + "\n")
            self._write_weights()
            self._checkpoint()
        else:
            self._restore(saved, path)
            if not os.path.exists(self.weights_path(self.generation)):  # a checkout of a run carries no weights
                os.makedirs(os.path.join(run_dir, "weights"), exist_ok=True)
                self._write_weights()

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
        with held_alone(os.path.join(self.run_dir, LOCK), f"{self.run_dir} is being trained by another trainer; "
                        "a run directory takes one trainer at a time"):
            if _identity(os.path.join(self.run_dir, CHECKPOINT)) != self._checkpoint_read:
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
        shutil.rmtree(os.path.join(self.run_dir, "staging"), ignore_errors=True)
        self.log(f"generation {g}: {games} games, {len(values)} positions in {record['selfplay_seconds']} s; "
                 f"{losses['steps']} steps in {record['learn_seconds']} s, policy loss {losses['policy_loss']:.3f}, "
                 f"value loss {losses['value_loss']:.3f}")

    def _self_play(self, g: int) -> tuple[list[SelfPlayResult], float]:
        """The generation's games, and the wall time the tasks found done in ``staging/``
        took in the call that played them (their own seconds over the workers that ran
        them side by side): that time is the run's too."""
        config = self.config
        staging = os.path.join(self.run_dir, "staging")
        os.makedirs(staging, exist_ok=True)
        tasks_count = math.ceil(config.games_per_generation / config.games_per_task)
        network = self.model.to_network()
        done: dict[int, SelfPlayResult] = {}
        for name in os.listdir(staging):
            match = _STAGED.fullmatch(name)
            if match and int(match[1]) == g and int(match[2]) < tasks_count:
                loaded = _read_staged(os.path.join(staging, name), int(match[2]))
                if loaded is not None:
                    done[loaded.number] = loaded
        tasks = []
        for i in range(tasks_count):
            if i in done:
                continue
            games = min(config.games_per_task, config.games_per_generation - i * config.games_per_task)
            tasks.append(SelfPlayTask(config.env, dict(config.params), config.game, network, games,
                                      config.games_per_task, config.simulations, config.max_considered,
                                      seed=_seed(config.seed, g, i), gumbel_scale=config.gumbel_scale, number=i,
                                      sampled_plies=config.sampled_plies, late_temperature=config.late_temperature,
                                      search_value_weight=config.search_value_weight,
                                      full_search_share=config.full_search_share,
                                      fast_simulations=config.fast_simulations,
                                      random_opening_share=config.random_opening_share,
                                      random_opening_plies=config.random_opening_plies,
                                      precision=config.selfplay_precision))
        staged_seconds = sum(result.seconds for result in done.values()) / max(1, self.workers)
        if done:
            self.log(f"generation {g}: {len(done)} of {tasks_count} self-play tasks found done in staging/")
        for result in run_tasks(play, tasks, max(1, min(self.workers, len(tasks) or 1)), self.ray):
            _write_staged(os.path.join(staging, f"gen-{g}-task-{result.number}.npz"), result)
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
        spec = f"alphazero:weights={self.weights_path(generation)},iterations={simulations}"
        return f"{spec},sample_moves={sample_moves}" if sample_moves else spec

    def weights_path(self, generation: int) -> str:
        return os.path.join(self.run_dir, "weights", f"gen-{generation:04d}.npz")

    def _evaluate(self) -> None:
        g, config = self.generation, self.config
        began = time.monotonic()
        record: dict[str, Any] = {"generation": g}
        if config.eval_games and g % config.eval_every == 0:
            # The first moves drawn from the improved policy: two deterministic players
            # would play one game a seating, however many games are asked for.
            me = self.agent_spec(g, config.eval_simulations, config.eval_sample_moves)
            opponents = {f"gen-{g - 1}": self.agent_spec(g - 1, config.eval_simulations, config.eval_sample_moves)} \
                if os.path.exists(self.weights_path(g - 1)) else {}
            opponents.update({anchor: anchor for anchor in config.anchors})
            scores = {}
            os.makedirs(os.path.join(self.run_dir, "eval"), exist_ok=True)
            for name, spec in opponents.items():
                out = os.path.join(self.run_dir, "eval", f"gen-{g}-vs-{_file_name(name)}.jsonl")
                # Here, not on Ray: the agents read the network's file, which other nodes may not have.
                games = run_arena(env_spec(config), me, spec, config.eval_games, seed=_seed(config.seed, g, 3),
                                  workers=self.workers, out=out, progress=False, log=self.log)
                scores[name] = [1.0 if r["winner"] == "a" else 0.5 if r["winner"] is None else 0.0 for r in games]
            record["scores"] = {name: round(float(np.mean(s)), 4) for name, s in scores.items()}
            record["results"] = {name: [float(x) for x in s] for name, s in scores.items()}
        if config.mistake_sets and config.mistakes_every and g % config.mistakes_every == 0:
            record["outcome_mistakes"], record["mistakes"] = self._mistakes(g)
        if config.game == "nim":
            record["nim_theory"] = self._nim_theory()
        record["eval_seconds"] = round(time.monotonic() - began, 1)
        self.history[-1].update(record)  # the generation evaluated is always the newest
        self.evaluated = g
        self._rate()
        self._checkpoint()
        self._plot()
        summary = ", ".join(f"{name} {score:.2f}" for name, score in record.get("scores", {}).items())
        rating = self.history[-1].get("elo")
        self.log(f"generation {g} evaluated in {record['eval_seconds']} s: {summary}"
                 + (f"; rating {rating:+.0f}" if rating is not None else "")
                 + (f"; mistakes (outcome rule) {record['outcome_mistakes']}" if "mistakes" in record else "")
                 + (f"; Nim theory {record['nim_theory']:.2f}" if "nim_theory" in record else ""))

    def _mistakes(self, g: int) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
        """Generation g's mistake rates by the outcome rule and by the score rule (the
        referee's docstring), each {"network" | "search": {set: rate}}."""
        from boardzoo.agents import make as make_agent
        from boardzoo.training.alphazero.referee import chooser, mistake_counts, read_mistake_sets
        sets = read_mistake_sets(self.config.mistake_sets)
        outcome, score = {}, {}
        for label, simulations in (("network", 0), ("search", self.config.mistake_simulations)):
            agent = make_agent(self.agent_spec(g, simulations), seed=0)
            counts = mistake_counts(chooser(agent), sets, self.config.mistake_positions)
            outcome[label] = {name: round(c.outcome / c.positions, 4) for name, c in counts.items() if c.positions}
            score[label] = {name: round(c.score / c.positions, 4) for name, c in counts.items() if c.positions}
        return outcome, score

    def _nim_theory(self) -> float:
        """The share of winning Nim piles (not a multiple of k+1) where the network alone
        leaves a multiple of k+1, the known theory of the game."""
        network = self.model.to_network()  # generation g's, the one in hand
        k = int(self.config.params.get("k", 3))
        piles = [n for n in range(1, self.input_shape[0]) if n % (k + 1)]
        logits, _ = network(np.eye(self.input_shape[0], dtype=np.float32)[piles])
        right = [int(np.argmax(logits[i, :min(k, n)])) + 1 == n % (k + 1) for i, n in enumerate(piles)]
        return float(np.mean(right))

    def _rate(self) -> None:
        """Ratings of every generation (and anchor) from every evaluation game so far,
        with 95 % bootstrap intervals; random (when an anchor) is 0."""
        results: dict[tuple[str, str], list[float]] = {}
        for entry in self.history:
            for name, scores in entry.get("results", {}).items():
                results.setdefault((f"gen-{entry['generation']}", name), []).extend(scores)
        if not results:
            return
        rated = {r.name: r for r in ratings(results, resamples=500, seed=self.config.seed)}
        zero = rated["random"].elo if "random" in rated else 0.0
        for entry in self.history:
            rating = rated.get(f"gen-{entry['generation']}")
            if rating is not None:
                entry["elo"], entry["elo_low"], entry["elo_high"] = (round(x - zero, 1) for x in
                                                                     (rating.elo, rating.low, rating.high))
        self.anchor_ratings = {name: round(r.elo - zero, 1) for name, r in rated.items() if not name.startswith("gen-")}

    def _plot(self) -> None:
        try:
            from boardzoo.training.alphazero.plots import plot_history
        except ImportError:
            return
        plot_history(self.history, os.path.join(self.run_dir, "training.png"), self.anchor_ratings)

    # --- files -----------------------------------------------------------------------------------------------
    def _write_weights(self) -> None:
        about = {"game": self.config.game, "env": self.config.env, "params": self.config.params,
                 "generation": self.generation, "training_hours": round(self.seconds / 3600, 3),
                 "commands": self.commands, "simulations": self.config.simulations}
        network = self.model.to_network(about)
        for path in (self.weights_path(self.generation), os.path.join(self.run_dir, "weights", "latest.npz")):
            write_atomic_with(path, network.write)
        averaged = self.averaged.to_network(
            {**about, "averaged": {"decay": self.config.average_decay, "from_generation": self.averaged_from}})
        write_atomic_with(os.path.join(self.run_dir, "weights", AVERAGED), averaged.write)
        for old in range(self.generation - self.config.keep_weights, -1, -1):
            if self.config.keep_every and old % self.config.keep_every == 0:
                continue
            try:
                os.unlink(self.weights_path(old))
            except FileNotFoundError:
                break

    def _checkpoint(self) -> None:
        state = {"format": FORMAT, "config": self.config.to_json(), "generation": self.generation,
                 "evaluated": self.evaluated, "seconds": self.seconds, "model": self.model.state_dict(),
                 "averaged": self.averaged.state_dict(), "averaged_from": self.averaged_from,
                 "optimizer": self.optimizer.state_dict(), "buffer": self.buffer.state(),
                 "history": json.dumps(self.history), "commands": json.dumps(self.commands)}
        write_atomic_with(os.path.join(self.run_dir, CHECKPOINT), lambda handle: torch.save(state, handle))
        self._checkpoint_read = _identity(os.path.join(self.run_dir, CHECKPOINT))
        write_atomic(os.path.join(self.run_dir, HISTORY), "".join(json.dumps(e) + "\n" for e in self.history))

    def _read_checkpoint(self, path: str) -> dict[str, Any]:
        try:
            saved = torch.load(path, weights_only=True)
        except Exception as error:  # torch raises many kinds for a damaged file
            raise ValueError(f"{path} is not a readable checkpoint ({type(error).__name__}: {error})") from None
        if not isinstance(saved, dict) or saved.get("format") not in READABLE_FORMATS:
            raise ValueError(f"{path} is not a boardzoo training checkpoint of format "
                             f"{' or '.join(map(str, READABLE_FORMATS))}")
        return saved

    def _restore(self, saved: dict[str, Any], where: str) -> None:
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
        self._rate()
        self.log(f"resumed {self.run_dir} at generation {self.generation} ({self.seconds / 3600:.2f} h trained)")
        if average_begins:
            self.log(f"the averaged network ({AVERAGED}) begins at generation {self.generation}")


def _identity(path: str) -> tuple[int, int] | None:
    """Which file ``path`` is: every checkpoint is a new file renamed into place."""
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return stat.st_ino, stat.st_mtime_ns


def bfloat16_in_hardware() -> bool:
    """Whether this CPU computes in bfloat16 (else torch emulates it, slowly)."""
    read = getattr(torch.cpu, "get_capabilities", None)
    if read is None:  # an older torch cannot tell: no warning
        return True
    capabilities = read()
    return bool(capabilities.get("avx512_bf16") or capabilities.get("amx_bf16"))


def _seed(base: int, generation: int, part: int) -> int:
    return int(np.random.SeedSequence([base, generation, part]).generate_state(1, dtype=np.uint64)[0] >> 1)


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", name)[:100]


def _write_staged(path: str, result: SelfPlayResult) -> None:
    meta = {key: getattr(result, key) for key in ("number", "games", "plies", "first_player_score", "seconds",
                                                   "evaluations", "outcomes")}
    write_atomic_with(path, lambda handle: np.savez(handle, inputs=result.inputs, policies=result.policies,
                                                    values=result.values, meta=np.array(json.dumps(meta))))


def _read_staged(path: str, number: int) -> SelfPlayResult | None:
    """A staged task's result, or None (and the file removed) when it cannot be read:
    the task is then played again."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            meta = json.loads(str(archive["meta"]))
            result = SelfPlayResult(inputs=archive["inputs"], policies=archive["policies"], values=archive["values"],
                                    **meta)
        if result.number != number or not len(result.inputs) == len(result.policies) == len(result.values):
            raise ValueError("inconsistent")
        return result
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
        os.unlink(path)
        return None


_SCRATCH = re.compile(r"\.branch-(\d+)-")


def _sweep_dead_branches(parent: str) -> None:
    """Remove the scratch copies of branches whose process died without cleaning up
    (killed outright); those of living processes are theirs."""
    for name in os.listdir(parent):
        match = _SCRATCH.match(name)
        if not match:
            continue
        try:
            os.kill(int(match.group(1)), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
        except (PermissionError, OverflowError):  # another user's process, or no process number at all
            continue


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
    if not os.path.exists(os.path.join(source, CHECKPOINT)):
        raise ValueError(f"{source} holds no training run (no {CHECKPOINT}) to branch from")
    if os.path.exists(run_dir) and (not os.path.isdir(run_dir) or os.listdir(run_dir)):
        raise ValueError(f"{run_dir} is not empty; a branch starts in a new run directory")
    parent = os.path.dirname(os.path.abspath(run_dir))
    os.makedirs(parent, exist_ok=True)
    _sweep_dead_branches(parent)
    scratch = tempfile.mkdtemp(prefix=f".branch-{os.getpid()}-", dir=parent)
    try:
        shutil.copytree(source, scratch, ignore=shutil.ignore_patterns("staging", LOCK), dirs_exist_ok=True)
        trainer = Trainer(scratch, None, workers=workers, ray=ray, log=lambda line: None, commit=commit,
                          command=command)
        if game is not None and trainer.config.game != game:
            raise ValueError(f"train: {source} trains {trainer.config.game}, not {game}")
        config = trainer.config.with_settings(settings)
        fixed = [name for name in FIXED_IN_A_BRANCH if getattr(config, name) != getattr(trainer.config, name)]
        if fixed:
            raise ValueError(f"train: a branch keeps its source's {', '.join(fixed)} (the network and its "
                             "buffer are taken as they are); start a new run to change them")
        trainer.config = config
        trainer.commands[-1]["branched_from"] = f"{os.path.abspath(source)} at generation {trainer.generation}"
        trainer._checkpoint()
        write_atomic(os.path.join(scratch, CONFIG), json.dumps(config.to_json(), indent=1) + "\n")
        try:
            os.rename(scratch, run_dir)  # onto nothing or an empty directory: whole or not at all
        except OSError as error:  # another branch (or anything) filled run_dir meanwhile
            raise ValueError(f"{run_dir} could not become the branch ({error.strerror}); it was filled "
                             "while the branch was copied") from None
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    trainer.run_dir, trainer.log = run_dir, log
    log(f"branched {run_dir} from {source} at generation {trainer.generation} "
        f"({', '.join(f'{k}={v}' for k, v in settings.items()) or 'no setting changed'})")
    return trainer
