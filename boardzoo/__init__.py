"""boardzoo: two-player board games as PettingZoo AEC envs, with search agents.

Layers, each in its own place: ``boardzoo.games`` (rule cores = search models) ->
``boardzoo.envs`` (PettingZoo adapter) -> ``boardzoo.agents`` -> ``boardzoo.arena`` and
the ``boardzoo`` command line.
"""

from __future__ import annotations

import os as _os

__version__ = "0.1.0"

# Installed, setuptools maps the top-level folders envs/ and agents/ into this package.
# Run from a source checkout instead (``python -m pytest`` puts the checkout first on
# sys.path), they sit beside this folder: let the package find them there too.
_checkout = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _os.path.isfile(_os.path.join(_checkout, "pyproject.toml")) and _os.path.isfile(
    _os.path.join(_checkout, "envs", "aec.py")
):
    __path__.append(_checkout)  # type: ignore[name-defined]
