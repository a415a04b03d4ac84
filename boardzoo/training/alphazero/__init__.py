"""AlphaZero-style training by self-play (the ``rl`` extra's PyTorch): the loop
(:mod:`.trainer`), its settings (:mod:`.config`), self-play (:mod:`.selfplay`) and the
network (:mod:`.model`); the trained network plays as the ``alphazero`` agent.

    from boardzoo.training.alphazero import PRESETS, Trainer
    Trainer("runs/c4", PRESETS["connect_four"]).run(hours=1)
"""

from boardzoo.training.alphazero.config import PRESETS, TrainingConfig
from boardzoo.training.alphazero.trainer import Trainer

__all__ = ["PRESETS", "Trainer", "TrainingConfig"]
