"""Spec strings: ``name:key=value,key=value`` for agents and envs.

Each value is converted by the type its constructor parameter declares (its annotation,
the one place a parameter's type is written): ``bool`` takes ``true``/``false``, ``int``
an integer, ``float`` a number, ``tuple[int, int]`` a range ``lo..hi``, ``str`` the text
as it is, and ``None`` (where the annotation allows it) ``none``. So ``..`` makes a range
only where a range is declared: ``sb3:path=../x.zip`` stays a path, and ``mcts:c=1..2`` is
a clear error. A spec names only parameters the constructor accepts; anything else is a
:class:`SpecError` that lists what exists.
"""

from __future__ import annotations

import inspect
import math
import types
import typing
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from boardzoo.errors import SpecError

_TRUE, _FALSE = {"true", "yes", "on", "1"}, {"false", "no", "off", "0"}
#: A spec string longer than this is refused (specs are short; this bounds messages too).
MAX_SPEC = 1000


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:iterations=500,c=1.0"`` -> ``("mcts", {"iterations": "500", "c": "1.0"})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"a spec must be a non-empty string like 'name:key=value', got {spec!r}")
    if len(spec) > MAX_SPEC:
        raise SpecError(f"a spec must be at most {MAX_SPEC} characters, got {len(spec)}: {spec[:60]!r}...")
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise SpecError(f"{spec!r}: parameter {item!r} is not of the form key=value")
        if key.strip() in params:
            raise SpecError(f"{spec!r}: parameter {key.strip()!r} is given twice")
        params[key.strip()] = value.strip()
    return name.strip(), params


def parameters(factory: Callable) -> dict[str, Any]:
    """Keyword parameters of ``factory`` with their defaults (``inspect.Parameter.empty`` if
    none); read once per factory (callers do not change the dict)."""
    return _parameters(factory)


@cache
def _parameters(factory: Any) -> dict[str, Any]:
    signature = inspect.signature(factory)
    return {
        name: p.default
        for name, p in signature.parameters.items()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and name != "self"
    }


def declared_types(factory: Callable) -> dict[str, tuple[type, ...]]:
    """Parameter -> the types its annotation allows (``type(None)`` for Optional), read
    once per factory from its constructor; parameters without an annotation get their
    default's type (callers do not change the dict)."""
    return _declared_types(factory)


@cache
def _declared_types(factory: Any) -> dict[str, tuple[type, ...]]:
    target = factory.__init__ if inspect.isclass(factory) else factory
    try:
        hints = typing.get_type_hints(target)
    except Exception:  # an annotation naming something not importable here
        hints = {}
    found: dict[str, tuple[type, ...]] = {}
    for name, default in parameters(factory).items():
        hint = hints.get(name)
        if hint is None:
            found[name] = () if default is None or default is inspect.Parameter.empty else (type(default),)
            continue
        options = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
        found[name] = tuple(typing.get_origin(option) or option for option in options)
    return found


def convert(text: str, allowed: tuple[type, ...], where: str) -> Any:
    """``text`` as a value of one of the ``allowed`` types (see the module docstring);
    no declared type: an int, a number, true/false or none when it reads as one, else text."""
    low = text.lower()
    if type(None) in allowed and low == "none":
        return None
    if not allowed:
        return _guess(text)
    if bool in allowed:
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
    if tuple in allowed and ".." in text:
        lo, _, hi = text.partition("..")
        try:
            return (int(lo), int(hi))
        except ValueError:
            raise SpecError(f"{where}: expected an int range like 20..50, got {text!r}") from None
    if int in allowed:
        try:
            return int(text)
        except ValueError:
            pass
    if float in allowed:
        try:
            value = float(text)
        except ValueError:
            pass
        else:
            if math.isnan(value):
                raise SpecError(f"{where}: expected a number, got {text!r}")
            return value
    if str in allowed:
        return text
    raise SpecError(f"{where}: expected {_expected(allowed)}, got {text!r}")


def _expected(allowed: tuple[type, ...]) -> str:
    words = {bool: "true or false", int: "an int", float: "a number", tuple: "an int range like 20..50",
             type(None): "none"}
    return " or ".join(words.get(kind, kind.__name__) for kind in allowed)


def _guess(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    low = text.lower()
    if low in _TRUE | _FALSE and low not in {"1", "0"}:
        return low in _TRUE
    if low == "none":
        return None
    return text


class Registry:
    """Named parts of one kind (say, MCTS selection policies): each a factory whose own
    keyword parameters, with their annotations and defaults, are the part's spec
    parameters. A part is one function plus one registration::

        SELECTION = Registry("policy")

        @SELECTION.register("ucb1")
        def ucb1(c: float = 1.414) -> Callable: ...

    An agent names its registries in ``parts`` (``{"policy": SELECTION}``): the spec
    parameter ``policy`` chooses the part, and the chosen part's parameters join the
    agent's own — ``mcts:policy=ucbv,zeta=0.5`` — while another part's are refused."""

    def __init__(self, kind: str):
        self.kind = kind
        self._factories: dict[str, Callable] = {}
        self._traits: dict[str, dict[str, Any]] = {}

    def register(self, name: str, **traits: Any) -> Callable[[Callable], Callable]:
        """Decorator: register ``factory`` as part ``name``; ``traits`` are facts about it
        that other parts read (e.g. ``expands_all=True``)."""
        def add(factory: Callable) -> Callable:
            if name in self._factories:
                raise ValueError(f"{self.kind} {name!r} is registered twice")
            self._factories[name], self._traits[name] = factory, traits
            return factory
        return add

    def names(self) -> list[str]:
        return list(self._factories)

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def _factory(self, name: str) -> Callable:
        if name not in self._factories:
            raise ValueError(f"{self.kind} must be one of {', '.join(self._factories)}, got {name!r}")
        return self._factories[name]

    def trait(self, name: str, trait: str, default: Any = None) -> Any:
        self._factory(name)
        return self._traits[name].get(trait, default)

    def parameters(self, name: str) -> dict[str, tuple[type, ...]]:
        """The parameters part ``name`` declares, with the types they accept."""
        return declared_types(self._factory(name))

    def defaults(self, name: str) -> dict[str, Any]:
        """The defaults of the parameters part ``name`` declares."""
        return parameters(self._factory(name))

    def owners(self, parameter: str) -> list[str]:
        """The parts that declare ``parameter``."""
        return [name for name in self._factories if parameter in self.parameters(name)]

    def build(self, name: str, options: dict[str, Any]) -> Any:
        """Part ``name`` made with those of ``options`` it declares (it removes them)."""
        factory = self._factory(name)
        declared = self.parameters(name)
        mine = {key: options.pop(key) for key in list(options) if key in declared}
        return factory(**mine)

    def describe(self) -> str:
        """``ucb1 (c=1.414) | ucbv (c=1.414, zeta=1.0)``, for listings."""
        return " | ".join(f"{name} ({describe(factory)})" if parameters(factory) else name
                          for name, factory in self._factories.items())


def misplaced(key: str, parts: Mapping[str, Registry], chosen: Mapping[str, str]) -> str | None:
    """Where a parameter no chosen part declares belongs (None: to no part at all)."""
    homes = [f"{chooser}={'|'.join(registry.owners(key))}" for chooser, registry in parts.items()
             if registry.owners(key)]
    if not homes:
        return None
    now = ", ".join(f"{chooser}={choice}" for chooser, choice in chosen.items())
    return f"parameter {key!r} belongs to {' or '.join(homes)}, not to {now}"


def refuse_leftovers(agent: str, options: Mapping[str, Any], parts: Mapping[str, Registry],
                     chosen: Mapping[str, str]) -> None:
    """Raise ValueError for the first option no chosen part took."""
    for key in options:
        raise ValueError(f"{agent}: {misplaced(key, parts, chosen) or f'unknown parameter {key!r}'}")


def build(factory: Callable, spec_name: str, raw: dict[str, str], hidden: tuple[str, ...] = (),
          parts: Mapping[str, Registry] | None = None) -> dict:
    """Typed keyword arguments for ``factory`` from the raw strings of a spec; with
    ``parts``, the parameters of each chosen part are accepted (and typed) too."""
    own = {k: v for k, v in declared_types(factory).items() if k not in hidden}
    known = dict(own)
    defaults = parameters(factory)
    chosen: dict[str, str] = {}
    for chooser, registry in (parts or {}).items():
        choice = raw.get(chooser, defaults.get(chooser))
        chosen[chooser] = str(choice)
        if isinstance(choice, str) and choice in registry:
            known.update({k: v for k, v in registry.parameters(choice).items() if k not in known})
    kwargs = {}
    for key, text in raw.items():
        if key not in known:
            where = misplaced(key, parts or {}, chosen)
            if where:
                raise SpecError(f"{spec_name}: {where}")
            accepted = ", ".join(known) or "none"
            raise SpecError(f"{spec_name}: unknown parameter {key!r}; parameters are: {accepted}")
        kwargs[key] = convert(text, known[key], f"{spec_name}: parameter {key}")
    return kwargs


def spec_text(value: Any) -> str:
    """``value`` as a spec would write it: ``20..50``, ``true``, ``none``, ``8x4``."""
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "none"
    if isinstance(value, tuple) and len(value) == 2:
        return f"{value[0]}..{value[1]}"
    return str(value)


def default_text(default: Any, note: str | None = None) -> str | None:
    """A parameter's default as listings show it: its note when it has one, else the
    default in spec syntax; None when the parameter has no default (it is required)."""
    if note is not None:
        return note
    return None if default is inspect.Parameter.empty else spec_text(default)


def describe(factory: Callable, hidden: tuple[str, ...] = (), parts: Mapping[str, Registry] | None = None,
             notes: Mapping[str, str] | None = None) -> str:
    """``"iterations=1000, c=1.414"``: the parameters and defaults in spec syntax, for
    listings; ``notes`` replaces the shown default of parameters whose signature default
    (usually None) stands for something worked out later ("1000 without time="); each part
    chooser lists its parts with their own parameters."""
    items = []
    for name, default in parameters(factory).items():
        if name in hidden:
            continue
        shown = default_text(default, (notes or {}).get(name))
        text = name if shown is None else f"{name}={shown}"
        if parts and name in parts:
            text += f" [{parts[name].describe()}]"
        items.append(text)
    return ", ".join(items)
