"""What a hidden-information training run is: every setting of the loop in one checked,
JSON-able record, with a preset per game (its ``Learning``). A run directory keeps the
settings it was started with; a resumed run uses them and refuses others."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardzoo.games.registry import games
from boardzoo.training.settings import bounded, check_bounds, from_json, with_settings

#: The games this trainer learns: hidden information, a network input and a compiled core.
LEARNABLE = tuple(name for name, each in games().items()
                  if each.hidden_information and each.network_input is not None and each.compiled_core is not None)


@dataclass(frozen=True)
class HiddenConfig:
    """One run's settings (``docs/tutorials/hidden-information.md`` says what each does)."""

    env: str
    game: str
    params: dict[str, Any] = field(default_factory=dict)
    # the network
    kind: str = "conv"
    channels: int = bounded(48, 1, 512)
    blocks: int = bounded(3, 0, 32)
    value_hidden: int = bounded(64, 1, 1024)
    # self-play
    games_in_flight: int = bounded(256, 2, 65_536)
    decisions_per_iteration: int = bounded(16_384, 64, 10_000_000)
    #: Of the games that start, the share played against the learner itself (both seats
    #: learn), and the share against the fixed opponents (the rest: past selves).
    self_share: float = bounded(0.5, 0.0, 1.0)
    fixed_share: float = bounded(0.25, 0.0, 1.0)
    #: Each a roll-out policy of the game (played compiled) or any agent spec (played
    #: move by move on its seat's view: slower). A player that runs its blues and one that
    #: offers its reds: a belief learned only from its own kind reads a bluffer's colours
    #: worse than a coin does.
    fixed_opponents: tuple[str, ...] = ("rushing", "forward", "baiting")
    #: Of the games against past selves, the share in which the past self plays from a
    #: decoy of its own secret (the game's ``disguise``), so that its moves tell nothing of
    #: it: a belief learned only against players with tells trusts tells a stranger lacks.
    #: These games count toward the past self's score as the others do.
    disguised_share: float = bounded(0.0, 0.0, 1.0)
    #: A past self joins the league every this many iterations; the league keeps the newest.
    snapshot_every: int = bounded(10, 1, 100_000)
    league_size: int = bounded(16, 1, 1000)
    # learning
    epochs: int = bounded(3, 1, 100)
    minibatch: int = bounded(2048, 16, 1_000_000)
    learning_rate: float = bounded(3e-4, 1e-7, 1.0)
    clip: float = bounded(0.2, 0.01, 1.0)
    gae_lambda: float = bounded(0.95, 0.0, 1.0)
    value_weight: float = bounded(0.5, 0.0, 100.0)
    entropy_weight: float = bounded(0.01, 0.0, 10.0)
    #: The magnet: the policy is pulled toward a slowly moving copy of itself (KL, weighted
    #: so), which the copy follows by this share each iteration (MMD-style regularisation).
    magnet_weight: float = bounded(0.5, 0.0, 100.0)
    magnet_step: float = bounded(0.01, 0.0, 1.0)
    belief_weight: float = bounded(0.5, 0.0, 100.0)
    # evaluation
    eval_every: int = bounded(10, 1, 100_000)
    eval_games: int = bounded(200, 0, 100_000)
    eval_opponents: tuple[str, ...] = ("rushing", "forward", "random", "baiting")
    # files
    checkpoint_minutes: float = bounded(10.0, 0.01, 10_000.0)
    #: A snapshot's file stays while it is in the league, and for good when its iteration
    #: is a multiple of this (the learning curve's points; 0: none stays).
    keep_every: int = bounded(100, 0, 10_000_000)
    seed: int = bounded(0, 0, 2**63 - 1)

    def __post_init__(self) -> None:
        if not isinstance(self.params, dict):
            raise ValueError(f"train: params must be a mapping of the env's parameters, got {self.params!r}")
        if self.game not in LEARNABLE:
            raise ValueError(f"train: the hidden-information trainer learns {', '.join(LEARNABLE)}, not {self.game}")
        if self.kind not in ("conv", "mlp"):
            raise ValueError(f"train: kind must be conv or mlp, got {self.kind!r}")
        check_bounds(self)
        if self.self_share + self.fixed_share > 1:
            raise ValueError("train: self_share and fixed_share add up to more than 1")
        policies = games()[self.game].compiled_rollouts
        for name in self.eval_opponents:
            if name not in policies:
                raise ValueError(f"train: no roll-out policy {name!r} to play against; {self.game} has "
                                 f"{', '.join(policies)}")
        for name in self.fixed_opponents:
            if name not in policies:
                check_agent(name, self.game, policies)
        learning = games()[self.game].learning
        if self.disguised_share > 0 and (learning is None or learning.disguise is None):
            raise ValueError(f"train: disguised_share is above 0 but {self.game} has no decoy of a secret to play from")
        if self.fixed_share > 0 and not self.fixed_opponents:
            raise ValueError("train: fixed_share is above 0 but fixed_opponents names none")

    def to_json(self) -> dict[str, Any]:
        import dataclasses

        data = dataclasses.asdict(self)
        data["fixed_opponents"], data["eval_opponents"] = list(self.fixed_opponents), list(self.eval_opponents)
        return data

    @classmethod
    def from_json(cls, data: Any, where: str) -> HiddenConfig:
        return from_json(cls, data, where, tuples=("fixed_opponents", "eval_opponents"))

    def with_settings(self, settings: dict[str, str]) -> HiddenConfig:
        return with_settings(self, settings)

    def architecture(self, input_shape: tuple[int, ...], actions: int) -> dict[str, Any]:
        """The network's: a belief head with an output a cell of the input (each square's secret)."""
        cells = int(np.prod(input_shape[1:])) if len(input_shape) == 3 else input_shape[0]
        return {"kind": self.kind, "input": list(input_shape), "channels": self.channels, "blocks": self.blocks,
                "value_hidden": self.value_hidden, "actions": actions, "belief": cells}


def check_agent(spec: str, game: str, policies: tuple[str, ...]) -> None:
    """Refuse, in words, a fixed opponent that is neither a roll-out policy nor an agent of ``game``."""
    from boardzoo.agents import make

    try:
        agent = make(spec)
    except ValueError as error:
        raise ValueError(f"train: the fixed opponent {spec!r} is neither a roll-out policy of {game} "
                         f"({', '.join(policies)}) nor an agent: {error}") from None
    if agent.games is not None and game not in agent.games:
        raise ValueError(f"train: the fixed opponent {spec!r} plays {', '.join(sorted(agent.games))}, not {game}")


#: What ``boardzoo train GAME`` runs for each game this trainer learns (its declaration's ``Learning``).
PRESETS: dict[str, HiddenConfig] = {
    name: HiddenConfig(env=game.learning.env, game=name, **game.learning.settings)
    for name, game in games().items() if game.learning is not None and game.learning.trainer == "hidden"}
