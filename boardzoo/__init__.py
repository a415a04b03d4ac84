"""boardzoo: two-player board games as PettingZoo AEC envs, with search agents.

Layers, each in its own place: ``boardzoo.games`` (rule cores = search models) ->
``boardzoo.envs`` (PettingZoo adapter) -> ``boardzoo.agents`` -> ``boardzoo.arena`` and
the ``boardzoo`` command line.

Importing the package registers its envs with PettingZoo:
``pettingzoo.make("aec", "boardzoo/connect_four-v0")`` (every env the same way: ``nim-v0``,
``cantris-v1``...; ``boardzoo list`` shows them), and with Gymnasium under the same ids,
as one learning seat against an opponent: ``gymnasium.make("boardzoo/connect_four-v0",
opponent="greedy")``, and batched: ``gymnasium.make_vec("boardzoo/connect_four-v0",
num_envs=1024, vectorization_mode="vector_entry_point", opponent="random")``.
"""

from __future__ import annotations

__version__ = "0.1.0"

from boardzoo.envs import register_with_gymnasium as _register_with_gymnasium  # noqa: E402
from boardzoo.envs import register_with_pettingzoo as _register_with_pettingzoo  # noqa: E402

_register_with_pettingzoo()
_register_with_gymnasium()
