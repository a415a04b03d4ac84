"""The compiled engine's disk cache, guarded.

numba keeps each compiled function in files beside its module (or under
``NUMBA_CACHE_DIR``). A file cut short (a full disk, a killed process) or overwritten
makes numba's unpickling fail on every later run, with errors that name neither the file
nor the cure. Here such a failure is reported (once a process) as a
:class:`BoardzooWarning`, the damaged entries are deleted, and the function is compiled
again (and cached anew).

A cached function is also compiled again when any source it may have taken in changed.
numba checks only the file that defines the function, but a compiled function inlines
the functions it calls from other modules and the constants it reads there (the
network input of :mod:`.network_input` inside :mod:`.gumbel`'s search, Geister's move
tables inside every Geister kernel): an edit or an upgrade of those would otherwise
leave the old code running. So the stamp of every boardzoo function is the hash of all
the sources compiled code can read (``fast``, ``strategy`` and ``games``).

The first compiling of a process is also announced on a terminal, since it takes tens of
seconds in which nothing else is said. Importing this module installs all three (every
compiled module imports it before it defines anything).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import warnings
from pathlib import Path

from numba.core import caching

from boardzoo.errors import BoardzooWarning

_load = caching.Cache.load_overload
_told = False
_damage_told = False
_own_stamp = caching._SourceFileBackedLocatorMixin.get_source_stamp
#: The package, and its folders whose sources compiled code may read.
_PACKAGE = Path(__file__).resolve().parent.parent
_COMPILED_READS = ("fast", "strategy", "games")


@functools.cache
def _sources_hash() -> str:
    """One hash of every source file compiled code may read (once per process)."""
    digest = hashlib.sha256()
    for folder in _COMPILED_READS:
        for path in sorted((_PACKAGE / folder).rglob("*.py")):
            digest.update(str(path.relative_to(_PACKAGE)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _stamp(self):
    """The cache stamp: for boardzoo's functions, every source they may read."""
    if Path(self._py_file).resolve().is_relative_to(_PACKAGE):
        return _sources_hash()
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
