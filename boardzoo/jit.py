"""The compiled engine's ground floor (the ``fast`` extra): numba's disk cache, guarded,
and the seeded generator every compiled game draws from.

Every compiled module imports :func:`njit` from here (never numba's directly), so the
guards below are installed before anything is compiled.

numba keeps each compiled function in files beside its module (or under
``NUMBA_CACHE_DIR``). A file cut short (a full disk, a killed process) or overwritten
makes numba's unpickling fail on every later run, with errors that name neither the file
nor the cure. Here such a failure is reported (once a process) as a
:class:`BoardzooWarning`, the damaged entries are deleted, and the function is compiled
again (and cached anew).

A cached function is also compiled again when any source it may have taken in changed.
numba checks only the file that defines the function, but a compiled function inlines
the functions it calls from other modules and the constants it reads there: an edit or
an upgrade of those would otherwise leave the old code running. So the stamp of every
boardzoo function is the hash of the sources it may read: a game's compiled core its own
folder; a shared kernel made for one game (``boardzoo.fast.kernels``) the shared kernels
and that game's folder; anything else every folder compiled code lives in. Editing one
game's rules thus recompiles that game's kernels only.

The first compiling of a process is also announced on a terminal, since it takes tens of
seconds in which nothing else is said.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import warnings
from pathlib import Path

import numpy as np
from numba import njit
from numba.core import caching
from numba.np.random.random_methods import random_interval

from boardzoo.errors import BoardzooWarning

__all__ = ["njit", "random_below", "random_float", "seed_state", "shuffle", "winner_return"]

_load = caching.Cache.load_overload
_told = False
_damage_told = False
_own_stamp = caching._SourceFileBackedLocatorMixin.get_source_stamp
_own_impl_init = caching.CacheImpl.__init__
#: The package, and the sources every compiled function may read.
_PACKAGE = Path(__file__).resolve().parent
_EVERYTHING_COMPILED = ("jit.py", "fast", "strategy", "games")


@functools.cache
def _sources_hash(places: tuple[str, ...]) -> str:
    """One hash of the sources in ``places`` (files or folders of the package; once per process)."""
    digest = hashlib.sha256()
    for place in places:
        root = _PACKAGE / place
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            digest.update(str(path.relative_to(_PACKAGE)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def reads(py_func) -> tuple[str, ...]:
    """The sources a boardzoo function compiled may read (see the module's docstring)."""
    declared = getattr(py_func, "compiled_reads", None)  # a shared kernel made for one game
    if declared is not None:
        return tuple(declared)
    parts = Path(py_func.__code__.co_filename).resolve().relative_to(_PACKAGE).parts
    if parts[0] == "games" and len(parts) > 2:  # a game's own folder
        return ("jit.py", f"games/{parts[1]}")
    return _EVERYTHING_COMPILED


def _impl_init_remembering(self, py_func):
    _own_impl_init(self, py_func)
    self._locator.boardzoo_function = py_func


def _stamp(self):
    """The cache stamp: for boardzoo's functions, the sources they may read."""
    function = getattr(self, "boardzoo_function", None)
    if function is not None and Path(self._py_file).resolve().is_relative_to(_PACKAGE):
        return _sources_hash(reads(function))
    return _own_stamp(self)


def _load_or_compile_again(self, sig, target_context):
    global _told, _damage_told
    try:
        found = _load(self, sig, target_context)
    except Exception as error:  # unpickling damaged bytes fails in many ways: all mean the same here
        _forget(self)
        if not _damage_told:
            _damage_told = True
            warnings.warn(f"the compiled engine's cache was damaged ({type(error).__name__} reading "
                          f"{self._cache_file._index_path} or its data); damaged entries are removed and compiled "
                          "again", BoardzooWarning, stacklevel=1)
        found = None
    if found is None and not _told:
        _told = True
        if sys.stderr.isatty():
            print("compiling the fast engine (once per install, up to a minute; later runs load it)",
                  file=sys.stderr, flush=True)
    return found


def _forget(cache) -> int:
    """Delete a function's cache entries (its index and data files); how many went."""
    index = Path(cache._cache_file._index_path)
    base = index.name[: -len(".nbi")]
    removed = 0
    for path in [index, *index.parent.glob(f"{base}.*.nbc")]:
        try:
            os.remove(path)
            removed += 1
        except OSError:
            pass
    return removed


caching.Cache.load_overload = _load_or_compile_again  # type: ignore[method-assign]
caching._SourceFileBackedLocatorMixin.get_source_stamp = _stamp  # type: ignore[method-assign]
caching.CacheImpl.__init__ = _impl_init_remembering  # type: ignore[method-assign]


# --- randomness ----------------------------------------------------------------------------------
def seed_state(seed: int) -> np.ndarray:
    """A generator state from any int (splitmix64 of it: never the all-zero state)."""
    z = (seed + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    z ^= z >> 31
    return np.array([z or 1], dtype=np.uint64)


@njit(cache=True)
def random_float(rng):
    """Uniform in [0, 1) from a xorshift64* generator whose state is a one-element uint64
    array (seeded by :func:`seed_state` from the caller's seeded generator): the top 53 bits."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return np.float64((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def shuffle(values, rng):
    """``rng.shuffle(values)`` for a 1-d array and a NumPy ``Generator``, drawing exactly as
    NumPy draws (its Fisher-Yates, each index by ``random_interval``): numba's own shuffle
    draws the same but takes array views for every swap, ten times the cost of the draws."""
    for i in range(len(values) - 1, 0, -1):
        j = np.int64(random_interval(rng.bit_generator, i))
        values[i], values[j] = values[j], values[i]


@njit(cache=True)
def winner_return(winner):
    """Player 0's return when ``winner`` (0 or 1; -1 for none) has won: +1, -1 or 0."""
    return 1.0 if winner == 0 else -1.0 if winner == 1 else 0.0


@njit(cache=True)
def random_below(rng, n):
    """Uniform in 0..n-1."""
    return np.int64(random_float(rng) * n)

