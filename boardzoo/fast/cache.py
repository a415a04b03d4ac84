"""The compiled engine's disk cache, guarded.

numba keeps each compiled function in files beside its module (or under
``NUMBA_CACHE_DIR``). A file cut short (a full disk, a killed process) or overwritten
makes numba's unpickling fail on every later run, with errors that name neither the file
nor the cure. Here such a failure is reported (once a process) as a
:class:`BoardzooWarning`, the damaged entries are deleted, and the function is compiled
again (and cached anew).

The first compiling of a process is also announced on a terminal, since it takes tens of
seconds in which nothing else is said. Importing this module installs both (every
compiled module imports it before it defines anything).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

from numba.core import caching

from boardzoo.errors import BoardzooWarning

_load = caching.Cache.load_overload
_told = False
_damage_told = False


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
