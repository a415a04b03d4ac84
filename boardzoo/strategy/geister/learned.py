"""Geister's learned colour model: how likely each hidden opponent ghost is blue, from
what it has publicly done (``belief=learned``).

A logistic regression on a few features of each ghost's public history (how often and
how far it moved, whether it sat on an exit without escaping, where it stands, how it
compares with its owner's other unknown ghosts, how often it stepped next to ours) and of
its owner's style (bluffing with ghosts offered to be taken, or rushing a few). The weights are trained by
``tools/train_geister_colours.py`` on games among boardzoo's own agents and shipped as
package data (``data/colours-v{VERSION}.npz``, about 5 KB); playing needs numpy
only to load them. The file records the feature names it was trained with, and loading
refuses a file whose features differ from :data:`FEATURES`, so weights and the code that
computes their inputs cannot drift apart: change a feature, bump :data:`VERSION` and
retrain.
"""

from __future__ import annotations

import math
from functools import lru_cache
from importlib import resources
from pathlib import Path

from boardzoo.games.geister.board import CLASSIC, GHOSTS, SIZE, TARGET, to_own

#: The model's version: the number in the weights' file name.
VERSION = 1
#: The inputs of the model, in order (the weights file must list exactly these).
FEATURES = ("bias", "advance", "declined", "moves", "never-moved", "advance-vs-others", "moves-vs-others",
            "share-of-moves", "exit-distance", "back-row-start", "next-to-ours", "game-phase", "base-rate",
            "offers", "offering-style", "offers-x-offering-style", "still-style", "advance-x-still-style")


def ghost_features(view, unknown: list[int]) -> list[list[float]]:
    """One row of :data:`FEATURES` for each ghost of ``unknown`` (the opponent's ghosts
    whose colour ``view``'s seat does not know), computed from public facts only."""
    if not unknown:
        return []
    owner = 1 - view.seat
    advance, moved, declined, pos, board = view.advance, view.moved, view.declined, view.pos, view.board
    mean_advance = sum(advance[g] for g in unknown) / len(unknown)
    mean_moves = sum(moved[g] for g in unknown) / len(unknown)
    offered = view.offered
    own_ghosts = range(GHOSTS * owner, GHOSTS * owner + GHOSTS)
    total_moves = max(1, sum(moved[g] for g in own_ghosts))
    # The owner's style: how much of its play offered ghosts to be taken (bluffing with
    # reds), and how many of its unknown ghosts it never moved (rushing a few blues).
    offering_style = sum(offered[g] for g in own_ghosts) / total_moves
    still_style = sum(1 for g in unknown if moved[g] == 0) / len(unknown)
    blues_left = 4 - view.lost[owner][0]
    reds_left = len(unknown) - blues_left
    base_rate = 3.0 if reds_left <= 0 else -3.0 if blues_left <= 0 else max(-3.0, min(3.0, math.log(
        blues_left / reds_left)))
    phase = min(view.plies, 200) / 100
    rows = []
    for g in unknown:
        own = to_own(owner, pos[g])
        x, y = own % SIZE, own // SIZE
        ours = sum(1 for n in TARGET[owner][pos[g]] if n is not None and n >= 0 and board[n] >= 0
                   and board[n] // GHOSTS == view.seat)
        rows.append([
            1.0,
            max(-6, min(6, advance[g])) / 3,
            float(min(declined[g], 3)),
            min(moved[g], 30) / 10,
            1.0 if moved[g] == 0 else 0.0,
            max(-3.0, min(3.0, (advance[g] - mean_advance) / 3)),
            max(-3.0, min(3.0, (moved[g] - mean_moves) / 5)),
            moved[g] / total_moves,
            (y + min(x, SIZE - 1 - x)) / 5,
            1.0 if g % GHOSTS >= 4 else 0.0,
            ours / 2,
            phase,
            base_rate,
            min(offered[g], 5) / 2,
            offering_style,
            min(offered[g], 5) / 2 * offering_style,
            still_style,
            max(-6, min(6, advance[g])) / 3 * still_style,
        ])
    return rows


def weights_path(version: int = VERSION) -> Path:
    return Path(str(resources.files("boardzoo.strategy.geister") / "data" / f"colours-v{version}.npz"))


def load_weights(path: str | Path) -> list[float]:
    """The weights in ``path``, checked against :data:`FEATURES` (ValueError otherwise)."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            names = tuple(str(name) for name in data["features"])
            weights = [float(w) for w in data["weights"]]
    except (OSError, KeyError, ValueError) as error:
        raise ValueError(f"geister: cannot read colour-model weights from {path}: {error}") from None
    if names != FEATURES or len(weights) != len(FEATURES) or not all(math.isfinite(w) for w in weights):
        raise ValueError(f"geister: {path} was trained on features {names}, but this code computes {FEATURES}; "
                         "retrain with tools/train_geister_colours.py")
    return weights


@lru_cache(maxsize=1)
def shipped_weights() -> tuple[float, ...]:
    return tuple(load_weights(weights_path()))


def blue_odds(weights, rows: list[list[float]]) -> list[float]:
    """The model's odds of blue, ``exp(w . x)``, for each row (bounded, so that one
    ghost never makes the others' weights vanish)."""
    return [math.exp(max(-12.0, min(12.0, sum(w * x for w, x in zip(weights, row))))) for row in rows]


def belief_learned(view, unknown: list[int]) -> list[float]:
    """The learned colour model: each unknown ghost weighted by its odds of being blue."""
    return blue_odds(shipped_weights(), ghost_features(view, unknown))


def _classic_only(view) -> str | None:
    """Why the learned model cannot read ``view``: it learned the classic game's positions."""
    if view.shape is not CLASSIC:
        return f"the colour model learned the classic 6x6 game with 4 blue and 4 red ghosts, not {view.shape}"
    return None


belief_learned.refuses = _classic_only  # type: ignore[attr-defined]
