"""What a training run is: every setting of the loop in one checked, JSON-able record,
with a preset per game. A run directory keeps the configuration it was started with; a
resumed run uses it and refuses a different one."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from boardzoo.fast.network_input import LEARNABLE

#: Bounds of the settings (a configuration is input like any other).
LIMITS: dict[str, tuple[float, float]] = {
    "channels": (1, 512), "blocks": (0, 32), "value_hidden": (1, 1024), "simulations": (1, 4096),
    "max_considered": (1, 64), "gumbel_scale": (0.0, 10.0), "sampled_plies": (0, 10_000), "games_per_generation": (1, 1_000_000),
    "games_per_task": (1, 65_536), "replay_positions": (1_000, 20_000_000), "sample_reuse": (0.01, 100.0),
    "batch_size": (1, 65_536), "learning_rate": (1e-7, 1.0), "weight_decay": (0.0, 1.0),
    "lr_halving_generations": (0, 100_000), "min_learning_rate": (0.0, 1.0), "eval_games": (0, 10_000),
    "eval_simulations": (0, 100_000), "eval_sample_moves": (0, 10_000), "eval_every": (1, 1_000),
    "mistakes_every": (0, 1_000), "mistake_positions": (1, 1_000), "mistake_simulations": (0, 100_000),
    "keep_weights": (1, 10_000), "seed": (0, 2**63 - 1), "largest_pile": (0, 10_000),
}


@dataclass(frozen=True)
class TrainingConfig:
    """One training run's settings (see ``docs/tutorials/alphazero.md`` for what each does)."""

    env: str
    game: str
    params: dict[str, Any] = field(default_factory=dict)
    # the network
    kind: str = "conv"
    channels: int = 64
    blocks: int = 4
    value_hidden: int = 64
    largest_pile: int = 0
    # self-play
    simulations: int = 32
    max_considered: int = 16
    gumbel_scale: float = 1.0
    sampled_plies: int = 0
    games_per_generation: int = 2048
    games_per_task: int = 256
    # learning
    replay_positions: int = 600_000
    sample_reuse: float = 2.0
    batch_size: int = 512
    learning_rate: float = 2e-3
    weight_decay: float = 1e-4
    lr_halving_generations: int = 30
    min_learning_rate: float = 1e-4
    mirror: bool = True
    # evaluation
    anchors: tuple[str, ...] = ()
    eval_games: int = 20
    eval_simulations: int = 32
    eval_sample_moves: int = 4
    eval_every: int = 1
    mistake_sets: str = ""
    mistakes_every: int = 5
    mistake_positions: int = 100
    mistake_simulations: int = 64
    # files
    keep_weights: int = 10
    seed: int = 0

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
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            integer = isinstance(LIMITS[name][0], int) and isinstance(LIMITS[name][1], int)
            if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)) \
                    or not math.isfinite(value) or not low <= value <= high:
                kind = "an int" if integer else "a number"
                raise ValueError(f"train: {name} must be {kind} from {low} to {high}, got {value!r}")
        if not isinstance(self.mirror, bool):
            raise ValueError(f"train: mirror must be true or false, got {self.mirror!r}")
        if self.game == "nim" and self.params.get("coin"):
            raise ValueError("train: Nim with the coin has chance events, which this search does not play")

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["anchors"] = list(self.anchors)
        return data

    @classmethod
    def from_json(cls, data: Any, where: str) -> TrainingConfig:
        if not isinstance(data, dict):
            raise ValueError(f"{where}: the configuration must be a JSON object")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"{where}: unknown setting {unknown[0]!r}")
        data = dict(data)
        if "anchors" in data:
            if not isinstance(data["anchors"], list) or not all(isinstance(a, str) for a in data["anchors"]):
                raise ValueError(f"{where}: anchors must be a list of agent specs")
            data["anchors"] = tuple(data["anchors"])
        try:
            return cls(**data)
        except TypeError as error:
            raise ValueError(f"{where}: {error}") from None

    def with_settings(self, settings: dict[str, str]) -> TrainingConfig:
        """This configuration with ``settings`` (``name -> text`` from ``--set name=value``)
        converted by each setting's type."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, Any] = {}
        for name, text in settings.items():
            if name not in fields or name in ("env", "game", "params"):
                settable = ", ".join(n for n in fields if n not in ("env", "game", "params"))
                raise ValueError(f"train: unknown setting {name!r}; settings are {settable}")
            current = getattr(self, name)
            try:
                if isinstance(current, bool):
                    if text.lower() not in ("true", "false"):
                        raise ValueError
                    changes[name] = text.lower() == "true"
                elif isinstance(current, tuple):
                    changes[name] = tuple(part for part in text.split(";") if part)
                elif isinstance(current, int):
                    changes[name] = int(text)
                elif isinstance(current, float):
                    changes[name] = float(text)
                else:
                    changes[name] = text
            except ValueError:
                raise ValueError(f"train: {name} must be a {type(current).__name__}, got {text!r}") from None
        return dataclasses.replace(self, **changes)

    def learning_rate_at(self, generation: int) -> float:
        """The learning rate of ``generation``: halved every ``lr_halving_generations``
        (0: constant), never below ``min_learning_rate``."""
        if not self.lr_halving_generations:
            return self.learning_rate
        return max(self.min_learning_rate, self.learning_rate * 0.5 ** (generation // self.lr_halving_generations))

    def architecture(self, input_shape: tuple[int, ...], actions: int) -> dict[str, Any]:
        return {"kind": self.kind, "input": list(input_shape), "channels": self.channels, "blocks": self.blocks,
                "value_hidden": self.value_hidden, "actions": actions}


#: The presets: what ``boardzoo train GAME`` runs (the shipped networks were made so).
PRESETS: dict[str, TrainingConfig] = {
    "connect_four": TrainingConfig(
        env="connect_four_v0", game="connect_four", sampled_plies=12,
        anchors=("random", "alphabeta:depth=2,eval=three2", "alphabeta:depth=4,eval=three2",
                 "mcts:iterations=1000,engine=compiled")),
    "nim": TrainingConfig(
        env="nim_v0", game="nim", params={"n": (1, 60), "k": 3}, kind="mlp", channels=64, blocks=2,
        value_hidden=32, largest_pile=60, simulations=16, games_per_generation=1024, games_per_task=512,
        replay_positions=100_000, lr_halving_generations=10, mirror=False,
        anchors=("random", "greedy"), eval_games=40),
    "cantris": TrainingConfig(
        env="cantris_v1", game="cantris", channels=48, blocks=3, simulations=32, games_per_generation=1024,
        games_per_task=256, replay_positions=300_000, lr_halving_generations=15,
        anchors=("random", "greedy", "mcts:iterations=1000,engine=compiled"), eval_games=40),
}
