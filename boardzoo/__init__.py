"""boardzoo: two-player board games as PettingZoo AEC envs, with search agents.

Layers, each in its own place: ``boardzoo.games`` (rule cores = search models) ->
``boardzoo.envs`` (PettingZoo adapter) -> ``boardzoo.agents`` -> ``boardzoo.arena`` and
the ``boardzoo`` command line.
"""

from __future__ import annotations

__version__ = "0.1.0"
