"""Train Geister's colour model (``belief=learned``) from games boardzoo generates.

    python tools/train_geister_colours.py --workers 2            # about 3.5 minutes on 2 cores
    python tools/train_geister_colours.py --games 20 --out /tmp/c.npz   # a quick trial

1. Data: a round robin among boardzoo's Geister agents (:data:`POOL`), ``--games``
   games a pair, played by ``boardzoo league`` into ``--data`` (resumable: run the
   same command again after an interruption and only the missing games are played).
2. Examples: every game is replayed; at each move, for the player to move, every
   opponent ghost whose colour it does not know gives one row of
   :data:`boardzoo.strategy.geister.learned.FEATURES`, labelled with its true colour.
3. Fit: L2-regularised logistic regression by Newton's method (numpy), on the games
   with even numbers; the odd games are held out, and the held-out log-loss is printed
   beside two references: the base rate alone and the hand-made ``behaviour`` belief.
4. Output: ``--out`` (by default the shipped package data) holds the weights, the
   feature names, the model version and how they were made; it is replaced atomically,
   so an interrupted run leaves the old weights whole.

Same seed, same data, same weights: the games are seeded like any league.
"""

from __future__ import annotations

import argparse
import io
import math
import sys
import time
from pathlib import Path

import numpy as np

from boardzoo import league
from boardzoo.games.geister import GeisterState, GeisterView
from boardzoo.ledger import read_records, write_atomic
from boardzoo.strategy.geister.beliefs import belief_behaviour
from boardzoo.strategy.geister.learned import FEATURES, VERSION, ghost_features, weights_path

#: The agents whose games teach the model: every kind of player boardzoo has.
POOL = (
    "random",
    "greedy",
    "policy:rollout=baiting",
    "flatmc:playouts=5,rollout=forward,max_rollout=60",
    "mcts:iterations=300,rollout=forward,max_rollout=60,belief=behaviour",
    "mcts:iterations=300,rollout=tactical,max_rollout=80,belief=behaviour",
)
ENV = "geister_v0"


def examples(records: list[dict], max_turns: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(features, is-blue labels, game numbers, behaviour-belief probabilities) of every
    unknown opponent ghost at every move of ``records``."""
    rows, labels, games, behaviour = [], [], [], []
    for number, record in enumerate(records):
        state = GeisterState(max_turns)
        for player, action in record["moves"]:
            if not state.placing and player == state.player:
                view = GeisterView(state, player)
                unknown = view.unknown_ghosts()
                blues_left = 4 - view.lost[1 - player][0]
                if unknown and 0 < blues_left < len(unknown):
                    rows += ghost_features(view, unknown)
                    labels += [0.0 if state.red[g] else 1.0 for g in unknown]
                    games += [number] * len(unknown)
                    odds = belief_behaviour(view, unknown)
                    behaviour += calibrated(odds, blues_left)
            state.apply(action)
    return np.array(rows), np.array(labels), np.array(games), np.array(behaviour)


def calibrated(odds: list[float], blues: int) -> list[float]:
    """Probabilities of blue from relative odds, scaled so that they sum to ``blues``
    (the number of blue ghosts among these), for a fair log-loss comparison."""
    lo, hi = -30.0, 30.0
    for _ in range(60):  # bisect the common factor exp(t)
        t = (lo + hi) / 2
        total = sum(o * math.exp(t) / (1 + o * math.exp(t)) for o in odds)
        lo, hi = (t, hi) if total < blues else (lo, t)
    return [o * math.exp(lo) / (1 + o * math.exp(lo)) for o in odds]


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 30) -> np.ndarray:
    """Logistic regression weights by Newton's method (the bias is not penalised)."""
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2 * len(y))
    penalty[0] = 0.0
    for _ in range(steps):
        p = sigmoid(x @ w)
        gradient = x.T @ (p - y) + penalty * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(z, -30, 30)))


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games a pair of the pool (default 40)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--data", default="runs/geister-colours-games.jsonl", help="the games' results file")
    parser.add_argument("--out", default=str(weights_path()), help="where the weights go (.npz)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    Path(args.data).parent.mkdir(parents=True, exist_ok=True)
    league.run(ENV, POOL, args.games, seed=args.seed, workers=args.workers, out=args.data)
    played = time.perf_counter() - start
    records, _ = read_records(args.data, 10_000_000)
    records = sorted((r for r in records if r["a"] in POOL and r["b"] in POOL and r["game"] < args.games),
                     key=lambda r: (POOL.index(r["a"]), POOL.index(r["b"]), r["game"]))
    max_turns = GeisterState().max_turns
    x, y, games, behaviour = examples(records, max_turns)
    train = np.array([records[g]["game"] % 2 == 0 for g in games])
    w = fit(x[train], y[train])
    test = ~train
    p = sigmoid(x[test] @ w)
    base_columns = [0, FEATURES.index("base-rate")]
    p_base = sigmoid(x[test][:, base_columns] @ fit(x[train][:, base_columns], y[train]))
    print(f"{len(records)} games, {len(y):,} examples ({int(train.sum()):,} to fit); games took {played:.0f} s")
    print(f"held-out log-loss: learned {log_loss(p, y[test]):.4f}, behaviour belief "
          f"{log_loss(behaviour[test], y[test]):.4f}, base rate only {log_loss(p_base, y[test]):.4f}")
    for name, weight in zip(FEATURES, w):
        print(f"  {name:18} {weight:+.3f}")
    buffer = io.BytesIO()
    np.savez(buffer, weights=w, features=np.array(FEATURES), version=np.array(VERSION),
             pool=np.array(POOL), games=np.array(args.games), seed=np.array(args.seed))
    write_atomic(args.out, buffer.getvalue())
    print(f"wrote {args.out} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
