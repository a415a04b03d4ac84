"""What a training run is: every setting of the loop in one checked, JSON-able record,
with a preset per game. A run directory keeps the configuration it was started with; a
resumed run uses it and refuses a different one."""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from typing import Any

from boardzoo.games.model import CHANCE
from boardzoo.games.registry import game, games
from boardzoo.training.settings import bounded, check_bounds, from_json, with_settings

#: The games a network can be trained for by searching self-play: a network input declared,
#: a compiled core to play them, and no hidden information (the search plays the true
#: position, which a seat of a hidden-information game does not know).
LEARNABLE = tuple(name for name, each in games().items()
                  if each.network_input is not None and each.compiled_core is not None
                  and not each.hidden_information)


@dataclass(frozen=True)
class TrainingConfig:
    """One training run's settings (see ``docs/tutorials/alphazero.md`` for what each does)."""

    env: str
    game: str
    params: dict[str, Any] = field(default_factory=dict)
    # the network
    kind: str = "conv"
    channels: int = bounded(64, 1, 512)
    blocks: int = bounded(4, 0, 32)
    value_hidden: int = bounded(64, 1, 1024)
    largest_pile: int = bounded(0, 0, 10_000)
    # self-play
    simulations: int = bounded(32, 1, 4096)
    max_considered: int = bounded(16, 1, 64)
    gumbel_scale: float = bounded(1.0, 0.0, 10.0)
    sampled_plies: int = bounded(0, 0, 10_000)
    late_temperature: float = bounded(0.0, 0.0, 10.0)
    full_search_share: float = bounded(1.0, 0.01, 1.0)
    fast_simulations: int = bounded(8, 1, 4096)
    random_opening_share: float = bounded(0.0, 0.0, 1.0)
    random_opening_plies: int = bounded(0, 0, 1000)
    selfplay_precision: str = "float32"
    games_per_generation: int = bounded(2048, 1, 1_000_000)
    games_per_task: int = bounded(256, 1, 65_536)
    # learning
    search_value_weight: float = bounded(0.0, 0.0, 1.0)
    replay_positions: int = bounded(600_000, 1_000, 20_000_000)
    sample_reuse: float = bounded(2.0, 0.01, 100.0)
    batch_size: int = bounded(512, 1, 65_536)
    learning_rate: float = bounded(2e-3, 1e-7, 1.0)
    weight_decay: float = bounded(1e-4, 0.0, 1.0)
    learn_precision: str = "float32"
    lr_halving_generations: int = bounded(30, 0, 100_000)
    min_learning_rate: float = bounded(1e-4, 0.0, 1.0)
    mirror: bool = True
    average_decay: float = bounded(0.75, 0.0, 0.999)
    # evaluation
    anchors: tuple[str, ...] = ()
    #: What the evaluation measures besides games (:mod:`.evaluation`'s probes, by name).
    probes: tuple[str, ...] = ()
    eval_games: int = bounded(20, 0, 10_000)
    eval_simulations: int = bounded(32, 0, 100_000)
    eval_sample_moves: int = bounded(4, 0, 10_000)
    eval_every: int = bounded(1, 1, 1000)
    mistake_sets: str = ""
    mistakes_every: int = bounded(5, 0, 1000)
    mistake_positions: int = bounded(100, 1, 1000)
    mistake_simulations: int = bounded(64, 0, 100_000)
    # files
    keep_weights: int = bounded(10, 1, 10_000)
    keep_every: int = bounded(0, 0, 100_000)
    seed: int = bounded(0, 0, 2**63 - 1)

    def __post_init__(self) -> None:
        if not isinstance(self.params, dict):
            raise ValueError(f"train: params must be a mapping of the env's parameters, got {self.params!r}")
        # A range read back from JSON is a list: the same setting as the tuple it was.
        object.__setattr__(self, "params", {key: tuple(value) if isinstance(value, list) else value
                                            for key, value in self.params.items()})
        if self.game not in LEARNABLE:
            raise ValueError(f"train: networks learn {', '.join(LEARNABLE)}, not {self.game}")
        if self.kind not in ("conv", "mlp"):
            raise ValueError(f"train: kind must be conv or mlp, got {self.kind!r}")
        for name in ("selfplay_precision", "learn_precision"):
            if getattr(self, name) not in PRECISIONS:
                raise ValueError(f"train: {name} must be {' or '.join(PRECISIONS)}, got {getattr(self, name)!r}")
        check_bounds(self)
        if not isinstance(self.mirror, bool):
            raise ValueError(f"train: mirror must be true or false, got {self.mirror!r}")
        if self.full_search_share < 1 and self.fast_simulations >= self.simulations:
            raise ValueError(f"train: fast_simulations ({self.fast_simulations}) must be fewer than simulations "
                             f"({self.simulations}) when full_search_share is below 1")
        if self.random_opening_share > 0 and self.random_opening_plies < 1:
            raise ValueError("train: random_opening_plies must be at least 1 when random_opening_share is above 0")
        if meets_chance(self.game, self.params):
            raise ValueError(f"train: {self.game} with {self.params} has chance events, which this search does "
                             "not play")

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["anchors"], data["probes"] = list(self.anchors), list(self.probes)
        return data

    @classmethod
    def from_json(cls, data: Any, where: str) -> TrainingConfig:
        return from_json(cls, data, where, tuples=("anchors", "probes"))

    def with_settings(self, settings: dict[str, str]) -> TrainingConfig:
        """This configuration with ``settings`` (``name -> text`` from ``--set name=value``)
        converted by each setting's type."""
        return with_settings(self, settings)

    def learning_rate_at(self, generation: int) -> float:
        """The learning rate of ``generation``: halved every ``lr_halving_generations``
        (0: constant), never below ``min_learning_rate``."""
        if not self.lr_halving_generations:
            return self.learning_rate
        return max(self.min_learning_rate, self.learning_rate * 0.5 ** (generation // self.lr_halving_generations))

    def architecture(self, input_shape: tuple[int, ...], actions: int) -> dict[str, Any]:
        return {"kind": self.kind, "input": list(input_shape), "channels": self.channels, "blocks": self.blocks,
                "value_hidden": self.value_hidden, "actions": actions}


def meets_chance(name: str, params: dict[str, Any]) -> bool:
    """Whether games of ``name`` with ``params`` (a range read as its largest value) meet
    chance events: a game declared without any is taken at its word; one declared with
    some (with some parameters, as Nim's coin) is played at random a few times, seeded."""
    declared = game(name)
    if not declared.chance:
        return False
    rng = random.Random(0)
    fixed = {key: value[-1] if isinstance(value, tuple) else value for key, value in params.items()}
    for _ in range(8):
        state = declared.new_initial_state(rng, **fixed)
        for _ in range(declared.max_length(declared.checked(fixed)) + 1):
            if state.current_player() == CHANCE:
                return True
            if state.current_player() < 0:
                break
            state.apply(rng.choice(state.legal_actions()))
    return False


#: The precisions self-play's network may play in and learning may compute in (torch's names).
PRECISIONS = ("float32", "bfloat16")

#: The settings a branch of a run (``train --branch-from``) keeps: they fix the network's
#: shape and the buffer's, which the branch takes over as they are (the game and its
#: params no ``--set`` changes at all).
FIXED_IN_A_BRANCH = ("kind", "channels", "blocks", "value_hidden", "largest_pile", "replay_positions")


#: The presets: what ``boardzoo train GAME`` runs (the shipped networks were made so), from
#: each game's declaration (its ``Learning``).
PRESETS: dict[str, TrainingConfig] = {
    name: TrainingConfig(env=game.learning.env, game=name, **game.learning.settings)
    for name, game in games().items() if game.learning is not None and game.learning.trainer == "alphazero"}
#: Where ``boardzoo train GAME`` stops when it is given no ``--generations``, ``--hours`` or
#: ``--run-hours``: the generations of the run that made the game's shipped network.
DEFAULT_GENERATIONS = {name: game.learning.generations for name, game in games().items()
                       if game.learning is not None and game.learning.trainer == "alphazero"}
