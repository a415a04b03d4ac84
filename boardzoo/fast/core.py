"""A game's compiled core, and the shared kernels made for it.

A game with a compiled core names, in its ``Game`` declaration, the module of its own
folder that holds it (``compiled_core="boardzoo.games.nim.compiled"``). The core keeps a
position as one ``int64`` array, in a layout of its own (its module's docstring), and
offers the functions below under these names; the Python core stays the reference (its
:func:`encode` turns a Python position into the array; ``tests/test_compiled.py`` plays
thousands of random games on both, move by move).

The shared kernels (the batch's step, roll-outs, the MCTS and the Gumbel search) are
written once against these names, marked ``@kernel``. :func:`kernels` makes, for one
game, a copy of every kernel whose names are bound to that game's functions, and numba
compiles each copy on its first call, specialised to that game alone: compiling one
game's kernels compiles no other game's, a game that is not declared or has no core is
an error here, and an edit of one game's folder recompiles only that game's kernels
(their cache stamp, :mod:`boardzoo.jit`, reads the shared kernels and that folder).

Required of every core (``s`` a position's array; ``CHANCE``/``TERMINAL`` as in
:mod:`boardzoo.games.model`)::

    encode(state) -> array           the array of a Python position (Python; refuses what the
                                     layout cannot hold with a ValueError)
    current_player(s) -> int         0, 1, CHANCE or TERMINAL
    returns0(s) -> float             player 0's return (+1, -1, 0; 0 before the end)
    legal_actions(s, out) -> int     the legal actions (chance outcomes at a chance event)
                                     written into ``out`` in the Python core's order; how many
                                     (``out`` past that count is scratch the core may write)
    apply(s, action)                 plays a legal action or chance outcome, in place
    observe(s, out)                  both seats' env observations, flattened, into ``out``
                                     (2, size): a seat's row reads only what it may know

Optional, with the default used where a core leaves it out::

    chance_outcome(s, u) -> int      the chance event's outcome at ``u`` (uniform in [0, 1)) of
                                     its inverse CDF over the outcomes in the Python core's
                                     order, as the env draws it (required where the game
                                     declares chance)
    policy_action(s, policy, rng, moves) -> int
                                     a roll-out move by the policy numbered as the game's
                                     ``compiled_rollouts`` (default: uniform among the legal)
    apply_observed(s, action, observation, b)
                                     ``apply`` keeping both seats' observations of game ``b``
                                     (``observation[b]``, the batch's) up to date (default:
                                     apply, then observe afresh)
    write_mask(s, mask, b, legal) -> int
                                     game ``b``'s row of the legal-action mask written; the
                                     player to move returned, -1 once over (default: from
                                     ``current_player`` and ``legal_actions``, ``legal``
                                     scratch space)
    restart_setup(env) -> array      what a fresh game of the env draws from (Python;
                                     default: nothing)
    restart(s, fresh, setup, rng)    one game starts afresh, drawing as the env's reset draws
                                     (default: a copy of ``fresh``; a core with it draws)
    scratch_size(state) -> int       room for the legal moves of any later position (Python;
                                     default: the state's action count)
    write_view(s, seat, out)         what ``seat`` knows of ``s``, written into ``out`` (as long as
                                     ``s``): a hidden-information game's position with the
                                     colours the seat cannot see made -1 (default: a copy)
    ending(s) -> int                 why a finished game ended, a number into the core's
                                     ``ENDINGS`` (its names, as the Python core's
                                     ``how_it_ended``); default -1, untold

Required where the game declares a ``network_input`` (the Gumbel search and training)::

    write_input(s, out)              the network input of ``s`` into the flat float32 ``out``,
                                     the compiled twin of the declaration's ``network_input``
    input_fits(states, size) -> bool whether inputs of ``size`` values hold every row (Python)
    remaining_moves(states) -> array the most moves left in each row (Python)

Required where the game has hidden information and a network learns it (the
hidden-information trainer, :mod:`boardzoo.training.hidden`)::

    write_secret(s, target, known)   what the mover cannot see, as a training target for a
                                     belief (never an input): a value per cell of the
                                     mover's frame, and 1 in ``known`` where it applies

... and, where an agent plays in that trainer's league (Python)::

    decode(s, template) -> state     the Python position of an array, the inverse of
                                     ``encode`` (``template``: a position of the same member
                                     of the game's family); the agent is handed its seat's view
"""

from __future__ import annotations

import functools
import importlib
import types
from collections.abc import Callable, Hashable
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from boardzoo.games.model import CHANCE, TERMINAL
from boardzoo.games.registry import game as declared_game
from boardzoo.games.registry import games
from boardzoo.jit import njit

__all__ = ["CHANCE", "CHANCE_EVENTS", "DRAWS", "TERMINAL", "Kernels", "Start", "compiled_games", "core_of", "kernel",
           "kernels", "kernels_for", "variant_of"]

#: Names every core defines.
REQUIRED = ("encode", "current_player", "returns0", "legal_actions", "apply", "observe")
#: Names a core may define; the kernels use the default kernel named beside each otherwise.
OPTIONAL = {"chance_outcome": "no_chance_outcome", "policy_action": "random_policy_action",
            "apply_observed": "apply_then_observe", "write_mask": "mask_from_legal_actions",
            "restart": "restart_as_copy", "write_view": "view_as_copy", "ending": "no_ending"}
#: Names a learnable game's core defines.
LEARNING = ("write_input", "input_fits", "remaining_moves")
#: ... and a learnable game's with hidden information.
HIDDEN_LEARNING = ("write_secret",)
#: The modules of shared kernels (imported before a game's copies are made).
KERNEL_MODULES = ("boardzoo.fast.batch", "boardzoo.fast.rollouts", "boardzoo.fast.mcts", "boardzoo.fast.gumbel",
                  "boardzoo.fast.whole_tree", "boardzoo.fast.learner_games")
#: The compiled-engine sources every shared kernel may read (its cache stamp adds the game's folder).
_SHARED_READS = ("jit.py", "fast")

_templates: dict[str, Callable] = {}
#: The kernels numba inlines where they are called (small ones on a batch's per-move path,
#: where a call's cost is that of the work).
_inlined: set[str] = set()


def kernel(function: Callable | None = None, *, inline: bool = False) -> Any:
    """Marks a shared kernel: a function written against a core's names, compiled only as
    a game's copy (:func:`kernels`); ``@kernel(inline=True)`` has numba inline it into its
    callers. The function itself is left as it is (plain Python)."""
    def mark(function: Callable) -> Callable:
        if function.__name__ in _templates and _templates[function.__name__] is not function:
            raise ValueError(f"two shared kernels are named {function.__name__}: the names must be unique")
        _templates[function.__name__] = function
        if inline:
            _inlined.add(function.__name__)
        return function

    return mark if function is None else mark(function)


def _interface(name: str) -> Callable:
    def unbound(*args: Any) -> Any:
        raise TypeError(f"{name} is a game's compiled function: call a game's copy of the kernel "
                        "(boardzoo.fast.core.kernels(game))")
    unbound.__name__ = name
    return unbound


# The interface's names, for the kernels' modules to import: never called as they are here
# (each game's copy of a kernel binds the game's functions in their place).
current_player = _interface("current_player")
returns0 = _interface("returns0")
legal_actions = _interface("legal_actions")
apply = _interface("apply")
observe = _interface("observe")
chance_outcome = _interface("chance_outcome")
policy_action = _interface("policy_action")
apply_observed = _interface("apply_observed")
write_mask = _interface("write_mask")
restart = _interface("restart")
write_input = _interface("write_input")
write_view = _interface("write_view")
write_secret = _interface("write_secret")
ending = _interface("ending")
#: Whether the game's start draws (its core has ``restart``): a constant of each game's
#: kernels (numba drops the branch it closes).
DRAWS = False
#: Whether the game has chance events (its declaration's ``chance``): a constant of each
#: game's kernels, so that a batch of a game that never draws is handed no generator (numba
#: unboxes one in about 7 microseconds a call, a third of a 1,024-game Connect Four step).
CHANCE_EVENTS = False


class Start(NamedTuple):
    """What a batch's fresh game starts from: the env's fresh position (a header for games
    whose start draws), both seats' observations of it, and what the start draws from
    (the core's ``restart_setup``)."""

    state: np.ndarray
    observation: np.ndarray
    setup: np.ndarray


def compiled_games() -> tuple[str, ...]:
    """The games with a compiled core, in the registry's order."""
    return tuple(name for name, each in games().items() if each.compiled_core is not None)


@functools.cache
def core_of(game_name: str) -> ModuleType:
    """The compiled core of ``game_name``: ValueError for a game not declared or without one,
    TypeError for a core that lacks what its game needs."""
    if game_name not in games():
        raise ValueError(f"the compiled engine knows no game {game_name!r}; games with a compiled core: "
                         f"{', '.join(compiled_games())}")
    declaration = declared_game(game_name)
    if declaration.compiled_core is None:
        raise ValueError(f"{game_name} has no compiled core (games with one: {', '.join(compiled_games())})")
    core = importlib.import_module(declaration.compiled_core)
    needed = REQUIRED + (("chance_outcome",) if declaration.chance else ()) \
        + (LEARNING if declaration.network_input is not None else ()) \
        + (HIDDEN_LEARNING if declaration.network_input is not None and declaration.hidden_information else ())
    missing = [name for name in needed if not hasattr(core, name)]
    if missing:
        raise TypeError(f"{declaration.compiled_core} lacks {', '.join(missing)} (see boardzoo.fast.core)")
    return core


class Kernels(types.SimpleNamespace):
    """One game's copies of the shared kernels (attributes by the kernels' names), with
    ``core`` its compiled core and ``game`` its declaration."""

    core: ModuleType
    game: Any
    chance_events: bool


def variant_of(state: Any) -> Hashable | None:
    """The member of its game's family ``state`` belongs to, where the core has kernels per
    member (its ``variant``); None for the core's own (and for every game without)."""
    core = core_of(state.game_name)
    return core.variant(state) if hasattr(core, "variant") else None


def kernels_for(state: Any) -> Kernels:
    """The kernels of ``state``'s game, and of its member of the family."""
    return kernels(state.game_name, variant_of(state))


def _specialised(core: ModuleType, game_name: str, variant: Hashable) -> types.SimpleNamespace:
    """A copy of ``core`` for one member of its game's family: every function of the
    module with the member's constants (the core's ``specialise``) in place of its own,
    each compiled function compiled anew (cached under the member's name)."""
    overrides = dict(core.specialise(variant))
    label = overrides.pop("VARIANT_NAME")
    namespace: dict[str, Any] = dict(vars(core))
    namespace.update(overrides)
    folder = "games/" + core.__name__.split(".")[2]
    for name, value in vars(core).items():
        py_func = getattr(value, "py_func", None)
        function = py_func if py_func is not None else value
        if not isinstance(function, types.FunctionType) or function.__module__ != core.__name__:
            continue
        copy = types.FunctionType(function.__code__, namespace, name, function.__defaults__, function.__closure__)
        copy.__qualname__ = f"{game_name}[{label}].{name}"
        if py_func is None:
            namespace[name] = copy  # a Python helper (encode, scratch_size): the member's constants too
            continue
        copy.compiled_reads = ("jit.py", folder)  # type: ignore[attr-defined]
        options = {key: value.targetoptions[key] for key in ("inline",) if key in value.targetoptions}
        namespace[name] = njit(cache=True, **options)(copy)
    specialised = types.SimpleNamespace(**namespace)
    specialised.VARIANT_NAME = label
    return specialised


@functools.cache
def kernels(game_name: str, variant: Hashable | None = None) -> Kernels:
    """Every shared kernel made for ``game_name``'s core (compiled on first call, cached on
    disk); ``variant``: for one member of the game's family (:func:`variant_of`)."""
    core: Any = core_of(game_name)
    label = game_name
    if variant is not None:
        core = _specialised(core, game_name, variant)
        label = f"{game_name}[{core.VARIANT_NAME}]"
    modules = [importlib.import_module(name) for name in KERNEL_MODULES]
    game_folder = "games/" + core.__name__.split(".")[2]
    copies: dict[str, Any] = {}
    namespaces = {module.__name__: dict(vars(module)) for module in modules}
    for name, template in _templates.items():
        code = template.__code__
        function = types.FunctionType(code, namespaces[template.__module__], name, template.__defaults__,
                                      template.__closure__)
        function.__qualname__ = f"{label}.{name}"  # its own cache files
        function.compiled_reads = (*_SHARED_READS, game_folder)  # type: ignore[attr-defined]
        copies[name] = njit(cache=True, inline="always" if name in _inlined else "never")(function)
    bound = {name: getattr(core, name) for name in (*REQUIRED, *LEARNING, *HIDDEN_LEARNING, *OPTIONAL)
             if hasattr(core, name)}
    for name, default in OPTIONAL.items():
        bound.setdefault(name, copies[default])
    bound["DRAWS"] = hasattr(core, "restart")
    # A core may know better than its declaration (a member of a family without chance).
    bound["CHANCE_EVENTS"] = bool(getattr(core, "CHANCE_EVENTS", declared_game(game_name).chance))
    for namespace in namespaces.values():
        namespace.update(copies)
        namespace.update(bound)
    return Kernels(core=core, game=declared_game(game_name), chance_events=bound["CHANCE_EVENTS"], **copies)
