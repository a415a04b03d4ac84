"""boardzoo: two-player board games as PettingZoo AEC envs, with search agents.

Layers, each in its own place: ``boardzoo.games`` (rule cores = search models) ->
``boardzoo.envs`` (PettingZoo adapter) -> ``boardzoo.agents`` -> ``boardzoo.arena`` and
the ``boardzoo`` command line.

Importing the package registers its envs with PettingZoo:
``pettingzoo.make("aec", "boardzoo/connect_four-v0")`` (also ``nim-v0``, ``cantris-v0``,
``cantris-v1``, ``geister-v0``).
"""

from __future__ import annotations

__version__ = "0.1.0"

from boardzoo.envs import register_with_pettingzoo as _register_with_pettingzoo  # noqa: E402

_register_with_pettingzoo()
