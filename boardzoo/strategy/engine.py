"""The one rule choosing between the Python and the compiled engine, for every agent
and command that has an ``engine=`` option (``mcts``, ``purple``, ``solver``,
``boardzoo solve``, ``boardzoo experiment run``).

* ``python``: the reference, always there.
* ``compiled``: the ``fast`` extra's numba code (an error naming the extra without it).
* ``auto``, every default: ``compiled`` when the extra is installed **and** the compiled
  search finds exactly what the Python one does (the solver's scores; the purple search's
  nodes, moves and values), ``python`` otherwise. The compiled MCTS draws its own random
  numbers, so for MCTS ``auto`` is ``python``: a seed gives the same game whether or not
  the extra is installed, and ``auto`` only ever changes the speed.
"""

from __future__ import annotations

from boardzoo.errors import install_hint
from boardzoo.fast import available

ENGINES = ("auto", "python", "compiled")


def choose_engine(where: str, engine: str, *, exact_twin: bool) -> str:
    """``python`` or ``compiled`` for ``engine`` by the rule above (``exact_twin``: whether
    this search's compiled version finds what the Python one does); ValueError naming
    ``where`` and the remedy otherwise."""
    if engine not in ENGINES:
        raise ValueError(f"{where}: engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "auto":
        return "compiled" if exact_twin and available() else "python"
    if engine == "compiled" and not available():
        raise ValueError(f"{where}: engine=compiled needs the fast extra: {install_hint('fast')}")
    return engine
