"""Self-play: many games of one network against itself at once, on the compiled batch
(:mod:`boardzoo.vector`) and the batched Gumbel search, every game's leaf asked of the
network in one call per simulation. A task is a picklable :class:`SelfPlayTask`; it
runs the same in this process, in a worker process or as a Ray task, and the same seed
plays the same games."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from boardzoo.agents.alphazero.network import Network
from boardzoo.fast.cached_evaluator import CachedEvaluator
from boardzoo.fast.gumbel import BatchedGumbelSearch, Evaluator
from boardzoo.training.alphazero.config import PRECISIONS, TrainingConfig
from boardzoo.training.alphazero.model import PolicyValueNet
from boardzoo.vector import make as make_batch
from boardzoo.vector import random_actions


@dataclass(frozen=True)
class SelfPlayTask:
    """``games`` games of the run's game, played by ``network`` against itself with the
    run's ``settings`` (a :class:`~boardzoo.training.alphazero.config.TrainingConfig`),
    ``games_per_task`` at a time, every move searched by ``simulations`` simulations of
    sequential halving over Gumbel noise (scaled by ``gumbel_scale``; 0 plays the
    network's best without exploration). The first ``sampled_plies`` plies of each game
    are drawn from the search's improved policy instead (openings that vary), and with
    ``late_temperature`` above 0 every later ply too, from the improved policy sharpened
    to that temperature: a near-best move now and then, so that games between two equal
    players do not all end drawn (the policy targets are the improved policy either
    way). A position's value target is its game's result for the player to move, or with
    ``search_value_weight`` w above 0, that result times 1 - w plus w times the search's
    value of the position (its root's mean).

    With ``full_search_share`` below 1 (playout-cap randomisation, from KataGo), a ply
    is searched by all ``simulations`` only that often, drawn for the whole batch at
    once, and otherwise by ``fast_simulations``; only the fully searched plies become
    training positions. The moves of the cheap plies still count, so the same work plays
    more games, hence more value targets, while every policy target keeps the full
    search.

    With ``random_opening_share`` above 0, that share of the games opens with 1 to
    ``random_opening_plies`` (drawn uniformly) uniformly random legal moves, neither
    searched nor learned from: the network then also learns positions that two strong
    players never reach, such as those after a blunder, which a referee's random
    positions are full of. A game that ends inside its random opening is not counted and
    its slot plays another without one (so that a game too short for its opening cannot
    loop). ``sampled_plies`` counts from the start of the game, the random plies
    included.

    ``selfplay_precision`` is the network's while it plays: ``bfloat16`` halves the
    arithmetic's width, which CPUs with bfloat16 instructions (AVX512-BF16, AMX) run
    faster, at about two decimal digits of precision in each prior and value; CPUs
    without them emulate it, more slowly.

    The network is asked about each position once per task while ``evaluation_cache``
    positions fit in memory (:class:`~boardzoo.fast.cached_evaluator.CachedEvaluator`;
    0: asked every time)."""

    settings: TrainingConfig
    network: Network
    games: int
    seed: int
    number: int = 0
    evaluation_cache: int = 1 << 18


@dataclass
class SelfPlayResult:
    """What the games taught: per position the network input, the improved policy and the
    final result for the player to move; and how the games went."""

    number: int
    inputs: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    games: int = 0
    plies: int = 0
    first_player_score: float = 0.0
    seconds: float = 0.0
    evaluations: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)


def torch_evaluator(module: PolicyValueNet):
    """An evaluator (:data:`boardzoo.fast.gumbel.Evaluator`) over a torch module, no gradients;
    float32 in and out whatever the module's own precision."""
    dtype = next(module.parameters()).dtype

    def evaluate(inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logits, values = module(torch.from_numpy(inputs).to(dtype))
        return logits.float().numpy(), values.float().numpy()
    return evaluate


class CountingEvaluator:
    """``evaluate``, counting the positions it was given (``evaluated``) and its calls
    (``calls``)."""

    def __init__(self, evaluate: Evaluator):
        self.evaluate, self.evaluated, self.calls = evaluate, 0, 0

    def __call__(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.evaluated += len(inputs)
        self.calls += 1
        return self.evaluate(inputs)


def inference_module(network: Network, precision: str = "float32") -> PolicyValueNet:
    """The PyTorch module of ``network`` set up to evaluate positions (no training), its
    parameters in ``precision`` (one of :data:`PRECISIONS`)."""
    if precision not in PRECISIONS:
        raise ValueError(f"self-play: precision must be {' or '.join(PRECISIONS)}, got {precision!r}")
    module = PolicyValueNet.from_network(network).eval().to(getattr(torch, precision))
    if len(network.input_shape) == 3:  # oneDNN's convolutions run faster channels-last (1.2-1.4x here)
        module = module.to(memory_format=torch.channels_last)  # type: ignore[call-overload]  # (missing from the stubs)
    return module


def play(task: SelfPlayTask) -> SelfPlayResult:
    """Play the task's games; positions of every game in the order played."""
    torch.set_num_threads(1)
    start = time.perf_counter()
    settings = task.settings
    module = inference_module(task.network, settings.selfplay_precision)
    evaluate = CachedEvaluator(torch_evaluator(module), task.evaluation_cache) if task.evaluation_cache \
        else CountingEvaluator(torch_evaluator(module))

    slots = min(settings.games_per_task, task.games)
    games = make_batch(settings.env, slots, engine="compiled", **settings.params)
    batch = games.reset(seed=task.seed)
    shape = task.network.input_shape
    size = int(np.prod(shape))
    actions_count = task.network.num_actions
    search = BatchedGumbelSearch(settings.game, actions_count, shape, batch.state.states.shape[1], slots,
                                 max_considered=settings.max_considered,
                                 capacity=max(settings.simulations, settings.fast_simulations) + 1)
    rng = np.random.default_rng([task.seed, 1])
    live = np.ones(slots, dtype=bool)
    game_plies = np.zeros(slots, dtype=np.int64)
    random_left = np.zeros(slots, dtype=np.int64)  # random opening moves still to play

    def open_game(b: int | np.integer) -> None:
        # No draw without random openings: such a run's games stay as they were.
        if settings.random_opening_share > 0 and rng.random() < settings.random_opening_share:
            random_left[b] = rng.integers(1, settings.random_opening_plies + 1)
        game_plies[b] = 0

    for slot in range(slots):
        open_game(slot)
    started = slots
    trajectories: list[list[tuple[np.ndarray, np.ndarray, int, float]]] = [[] for _ in range(slots)]
    inputs, policies, values = [], [], []
    finished = plies = 0
    first_score = 0.0
    outcomes = {"first": 0, "second": 0, "draw": 0}
    root_inputs = np.zeros((slots, size), dtype=np.float32)
    while live.any():
        playing = np.flatnonzero(live)
        opening = playing[random_left[playing] > 0]
        searched = playing[random_left[playing] == 0]
        actions = np.zeros(slots, dtype=np.int64)
        if len(opening):
            actions[opening] = random_actions(batch.legal_action_mask[opening], rng)
            random_left[opening] -= 1
        if len(searched):
            roots = np.ascontiguousarray(batch.state.states[searched])
            noise = rng.gumbel(size=(len(searched), actions_count)) * settings.gumbel_scale
            # No draw when every ply is searched in full: such a run's games stay as they were.
            full = settings.full_search_share >= 1.0 or rng.random() < settings.full_search_share
            budget = settings.simulations if full else settings.fast_simulations
            result = search.run(roots, evaluate, budget, gumbel=noise)
            if full:
                search.kernels.write_inputs(roots, root_inputs[:len(searched)])
                for i, b in enumerate(searched):
                    trajectories[b].append((root_inputs[i].copy(), result.policy[i].astype(np.float32),
                                            int(batch.current_player[b]), float(result.values[i])))
            actions[searched] = result.actions
            for i, b in enumerate(searched):
                # An opening ply is drawn from the improved policy itself (p ** 1.0 is p exactly).
                temperature = 1.0 if game_plies[b] < settings.sampled_plies else settings.late_temperature
                if temperature > 0:
                    weights = result.policy[i].astype(np.float64) ** (1.0 / temperature)
                    actions[b] = rng.choice(len(weights), p=weights / weights.sum())
        game_plies[playing] += 1
        batch = games.step(batch, actions, playing=live)
        plies += len(playing)
        ended = np.flatnonzero(live & (batch.terminated | batch.truncated))
        for b in ended:
            if b in opening:  # over before anything was learned from it: not a game
                plies -= int(game_plies[b])
                random_left[b] = game_plies[b] = 0
                continue
            rewards = batch.rewards[b]
            weight = settings.search_value_weight
            for position, policy, mover, searched_value in trajectories[b]:
                inputs.append(position)
                policies.append(policy)
                values.append((1.0 - weight) * float(rewards[mover]) + weight * searched_value)
            trajectories[b] = []
            finished += 1
            first_score += (float(rewards[0]) + 1) / 2
            outcomes["first" if rewards[0] > 0 else "second" if rewards[0] < 0 else "draw"] += 1
            if started < task.games:
                started += 1
                open_game(b)
            else:
                live[b] = False
        if len(ended) and live[ended].any():
            batch = games.restart(batch)
    return SelfPlayResult(task.number, np.asarray(inputs, dtype=np.float16).reshape(-1, size),
                          np.asarray(policies, dtype=np.float32).reshape(-1, actions_count),
                          np.asarray(values, dtype=np.float32), finished, plies,
                          first_score / max(finished, 1), time.perf_counter() - start, evaluate.evaluated, outcomes)
