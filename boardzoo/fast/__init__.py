"""The compiled engine (the ``fast`` extra): numba versions of the hot loops.

Nothing outside this package imports numba, and nothing imports this package's modules
but the code paths that ask for ``engine=compiled`` (or ``engine=auto``, the solver's and
the purple player's default, when the extra is installed), so ``import boardzoo``,
``boardzoo list`` and the envs work without the extra.

The pure-Python code stays the reference: every compiled kernel has a plain version it
is tested against (``tests/test_compiled.py``), and seeded games use the Python engine
unless ``engine=compiled`` is asked for, so a seed gives the same game with or without
the extra installed. ``engine=auto`` is only the default where the compiled code finds
exactly what the Python code does (the solver's scores; the purple search's nodes,
moves and values), so that it too changes only the speed.

Compiled functions are cached on disk by numba (``cache=True``): the first use in a
fresh install compiles them (``bench/bench_compile.py`` measures it), later processes
load them.
"""

from __future__ import annotations

import importlib.util

ENGINES = ("python", "compiled")
#: The selection policies the compiled MCTS has (the Python engine has every registered one).
COMPILED_POLICIES = ("ucb1", "ucbv", "ucb-minimal")


def available() -> bool:
    """Whether the ``fast`` extra (numba) is installed, without importing it."""
    return importlib.util.find_spec("numba") is not None


def check_engine(where: str, engine: str) -> str:
    """``engine`` if it is one this install can run; ValueError with the remedy otherwise."""
    if engine not in ENGINES:
        raise ValueError(f"{where}: engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "compiled" and not available():
        raise ValueError(f"{where}: engine=compiled needs the fast extra: pip install 'boardzoo[fast]'")
    return engine


def resolve_engine(where: str, engine: str) -> str:
    """``engine``, with ``auto`` read as ``compiled`` when the ``fast`` extra is installed
    and ``python`` otherwise; ValueError as :func:`check_engine` for the rest. Only for
    searches whose compiled version finds what the Python one does (the solver's exact
    scores, the purple search's same nodes), so the choice changes only the speed."""
    if engine == "auto":
        return "compiled" if available() else "python"
    if engine not in ENGINES:
        raise ValueError(f"{where}: engine must be one of auto, {', '.join(ENGINES)}, got {engine!r}")
    return check_engine(where, engine)
