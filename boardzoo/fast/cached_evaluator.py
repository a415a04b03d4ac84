"""An evaluator that asks the network about each position once: the searches of many
games and many moves reach the same positions again and again (the next move's search
starts below where the last one looked; games share openings; move orders transpose),
and the network is nearly all of a search's time. ``bench/bench_selfplay_cache.py``
measures what it saves in self-play.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: What :mod:`boardzoo.fast.gumbel` asks: network inputs in, (logits, values) out. (Not
#: imported from there, so that this needs no compiler.)
Evaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


class CachedEvaluator:
    """``evaluate`` behind a memory of its last ``capacity`` distinct positions (at most;
    when full it is emptied, which keeps the answers independent of anything but the
    order of the questions, so the same games give the same answers). A position's key
    is its input row packed to bits when every input is 0 or 1 (board planes), else its
    bytes. ``asked`` counts the positions asked about, ``evaluated`` those the network
    was given."""

    def __init__(self, evaluate: Evaluator, capacity: int = 1 << 18):
        if capacity < 1:
            raise ValueError(f"a cache needs room for at least one position, got {capacity}")
        self.evaluate, self.capacity = evaluate, capacity
        self.rows: dict[bytes, int] = {}
        self.logits: np.ndarray | None = None
        self.values: np.ndarray | None = None
        self.asked = self.evaluated = 0

    def __call__(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = inputs.reshape(len(inputs), -1)
        rows_bytes = np.packbits(flat.astype(bool), axis=1) if ((flat == 0) | (flat == 1)).all() \
            else np.ascontiguousarray(flat)
        keys = [row.tobytes() for row in rows_bytes]
        self.asked += len(keys)
        new = self._unknown(keys)
        if len(self.rows) + len(new) > self.capacity:
            self.rows.clear()
            new = self._unknown(keys)
        if len(new) > self.capacity:  # one batch beyond the whole memory: nothing to remember
            self.evaluated += len(keys)
            return self.evaluate(inputs)
        if new:
            first = np.fromiter(new.values(), dtype=np.int64, count=len(new))
            logits, values = self.evaluate(inputs[first])
            self.evaluated += len(first)
            if self.logits is None:
                self.logits = np.empty((self.capacity, *logits.shape[1:]), dtype=logits.dtype)
                self.values = np.empty((self.capacity, *values.shape[1:]), dtype=values.dtype)
            assert self.values is not None
            slots = np.arange(len(self.rows), len(self.rows) + len(first))
            self.logits[slots], self.values[slots] = logits, values
            self.rows.update(zip(new, slots.tolist()))
        assert self.logits is not None and self.values is not None
        rows = np.fromiter((self.rows[key] for key in keys), dtype=np.int64, count=len(keys))
        return self.logits[rows], self.values[rows]

    def _unknown(self, keys: list[bytes]) -> dict[bytes, int]:
        """The keys not remembered, each with its first row in the batch."""
        unknown: dict[bytes, int] = {}
        for index, key in enumerate(keys):
            if key not in self.rows and key not in unknown:
                unknown[key] = index
        return unknown
