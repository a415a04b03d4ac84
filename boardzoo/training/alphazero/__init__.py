"""AlphaZero-style training by self-play (the ``rl`` extra's PyTorch): the loop
(:mod:`.trainer`), its settings (:mod:`.config`), self-play (:mod:`.selfplay`) and the
network (:mod:`.model`); the trained network plays as the ``alphazero`` agent.

    from boardzoo.training.alphazero import PRESETS, Trainer
    Trainer("runs/c4", PRESETS["connect_four"]).run(hours=1)

The names are imported when first used, so that reading the solver-scored sets
(:mod:`.referee`) or a run's settings does not import PyTorch.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {"PRESETS": "config", "TrainingConfig": "config", "Trainer": "trainer"}
__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
