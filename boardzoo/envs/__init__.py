"""PettingZoo AEC environments (layer 2): one generic adapter, one module per game.

    from boardzoo.envs import connect_four_v0
    env = connect_four_v0.env()

``make("connect_four_v0", rows=6)`` or ``make("connect_four_v0:rows=6")`` builds any
registered env by name or spec string; ``ENVS`` lists them.
A name without its version (``cantris``) means the newest version.

``import boardzoo`` also registers every env in PettingZoo's registry under the
``boardzoo`` namespace, so ``pettingzoo.make("aec", "boardzoo/connect_four-v0")`` works
like it does for PettingZoo's own envs (ids: :func:`pettingzoo_id`).
"""

from __future__ import annotations

import importlib
import importlib.util
from functools import partial
from types import ModuleType

from boardzoo.envs import generic
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.games.registry import games

#: Registered envs: name -> one-line description, from each game's declaration.
ENVS = {name: summary for game in games().values() for name, summary in game.envs.items()}


def env_module(name: str) -> ModuleType:
    """The module of env ``name``; short names without the version (``nim``) work too."""
    from boardzoo.errors import SpecError

    if name not in ENVS:
        matches = [full for full in ENVS if full.rsplit("_v", 1)[0] == name]
        if not matches:
            raise SpecError(f"unknown env {name!r}; envs are: {', '.join(ENVS)}")
        name = max(matches, key=lambda full: int(full.rsplit("_v", 1)[1]))
    return _module(name)


def _module(name: str) -> ModuleType:
    """Env ``name``'s own module, or the generic env built from its game's declaration
    when the game has none (made once)."""
    if name not in _MODULES:
        if importlib.util.find_spec(f"boardzoo.envs.{name}") is not None:
            _MODULES[name] = importlib.import_module(f"boardzoo.envs.{name}")
        else:
            _MODULES[name] = generic.env_module(_GAME_OF_ENV[name], name)
    return _MODULES[name]


_MODULES: dict[str, ModuleType] = {}
_GAME_OF_ENV = {name: game for game in games().values() for name in game.envs}


#: Constructor parameters a spec string can't set (left out of listings).
SPEC_HIDDEN = ("render_mode",)


def parameters_text(name: str) -> str:
    """Env ``name``'s spec parameters with their defaults, as listings show them:
    ``n=20..50, k=3, coin=false``."""
    from boardzoo.spec import describe

    raw_env = env_module(name).raw_env
    return describe(raw_env, hidden=SPEC_HIDDEN, notes=raw_env.default_notes)


def pettingzoo_id(name: str) -> str:
    """PettingZoo registry id of env ``name``: ``connect_four_v0`` -> ``boardzoo/connect_four-v0``."""
    game, version = name.rsplit("_v", 1)
    return f"boardzoo/{game}-v{version}"


def register_with_pettingzoo() -> None:
    """Put every env into PettingZoo's AEC registry (done by ``import boardzoo``).

    Entry points make the env by name when called, so registering imports no env module.
    Ids already present are left alone, which keeps re-imports free of PettingZoo's
    "overriding environment" warning."""
    import pettingzoo

    for name in ENVS:
        env_id = pettingzoo_id(name)
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=partial(make, name))


def register_with_gymnasium() -> None:
    """Put every env into Gymnasium's registry under its PettingZoo id (done by ``import
    boardzoo``): ``gymnasium.make(id, opponent=...)`` is one learning seat against an
    opponent (``boardzoo.training.single_agent``), ``gymnasium.make_vec(id, num_envs=B,
    vectorization_mode="vector_entry_point", opponent=...)`` B of them batched
    (``boardzoo.training.vector_env``). The entry points are strings: registering imports
    neither."""
    import gymnasium

    for name in ENVS:
        env_id = pettingzoo_id(name)
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="boardzoo.training.single_agent:SingleAgentEnv",
                               vector_entry_point="boardzoo.training.vector_env:LearnerVectorEnv",
                               kwargs={"env": name})


def make(spec: str, raw: bool = False, **kwargs) -> BoardGameEnv:
    """The one env factory: env ``spec``, a name (``"connect_four_v0"``, or ``"nim"`` for
    the newest version) or a spec string (``"nim_v0:n=20..50,coin=true"``), with
    ``kwargs`` as further constructor arguments over the spec's; ``raw=True`` skips the
    wrapper. A bad name or value is a :class:`~boardzoo.errors.SpecError` saying which."""
    from boardzoo.errors import SpecError
    from boardzoo.spec import build, split_spec

    name, params = split_spec(spec)
    module = env_module(name)
    kwargs = {**build(module.raw_env, name, params, hidden=SPEC_HIDDEN), **kwargs}
    try:
        return module.raw_env(**kwargs) if raw else module.env(**kwargs)
    except ValueError as error:
        raise SpecError(f"{spec}: {error}") from error


def __getattr__(name: str) -> ModuleType:
    if name in ENVS:
        return _module(name)
    raise AttributeError(f"module 'boardzoo.envs' has no attribute {name!r}")


__all__ = ["ENVS", "SPEC_HIDDEN", "BoardGameEnv", "env_module", "make", "parameters_text", *ENVS]
