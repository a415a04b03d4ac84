"""The compiled engine (the ``fast`` extra): numba versions of the hot loops.

Each game's compiled core lives in its own folder (``boardzoo/games/<game>/compiled.py``);
here are the kernels shared by every game, written once against a core's names and made
for each game by :func:`.core.kernels`: the batch (:mod:`.batch`), roll-outs
(:mod:`.rollouts`), the compiled MCTS (:mod:`.mcts`, :mod:`.tree`) and the Gumbel search
(:mod:`.gumbel`). The compiled twins of the strategies (the Connect Four solver, the
purple search) sit beside their Python references in ``boardzoo.strategy``. Nothing
imports numba but these modules, the cores and those twins, and nothing imports them but
the code paths that run on the compiled engine (``boardzoo.strategy.engine`` decides
when), so ``import boardzoo``, ``boardzoo list`` and the envs work without the extra.

The pure-Python code stays the reference: every compiled kernel has a plain version it
is tested against (``tests/test_compiled.py``), and seeded games use the Python engine
unless ``engine=compiled`` is asked for or the compiled code finds exactly what the
Python code does, so a seed gives the same game with or without the extra installed.

Compiled functions are cached on disk by numba (``cache=True``): the first use in a
fresh install compiles them (``bench/bench_compile.py`` measures it), later processes
load them.
"""

from __future__ import annotations

import importlib.util

#: The selection policies the compiled MCTS has (the Python engine has every registered one).
COMPILED_POLICIES = ("ucb1", "ucbv", "ucb-minimal")


def available() -> bool:
    """Whether the ``fast`` extra (numba) is installed, without importing it."""
    return importlib.util.find_spec("numba") is not None
