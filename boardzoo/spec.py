"""Spec strings: ``name:key=value,key=value`` for agents and envs.

Values are typed by the constructor's defaults: ``true``/``false`` for booleans, ints,
floats, ``lo..hi`` for an int range (a pair), anything else a string. A spec names only
parameters the constructor accepts; anything else is a :class:`SpecError` that lists
what exists.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from boardzoo.errors import SpecError

_TRUE, _FALSE = {"true", "yes", "on", "1"}, {"false", "no", "off", "0"}


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:iterations=500,c=1.0"`` -> ``("mcts", {"iterations": "500", "c": "1.0"})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"a spec must be a non-empty string like 'name:key=value', got {spec!r}")
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
    """Keyword parameters of ``factory`` with their defaults (``inspect.Parameter.empty`` if none)."""
    signature = inspect.signature(factory)
    return {
        name: p.default
        for name, p in signature.parameters.items()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and name != "self"
    }


def convert(text: str, default: Any, where: str) -> Any:
    """Turn ``text`` into a value of the type of ``default``."""
    low = text.lower()
    if isinstance(default, bool):
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise SpecError(f"{where}: expected true or false, got {text!r}")
    if isinstance(default, tuple) or ".." in text:
        lo, sep, hi = text.partition("..")
        if sep:
            try:
                return (int(lo), int(hi))
            except ValueError:
                raise SpecError(f"{where}: expected an int range like 20..50, got {text!r}") from None
    if isinstance(default, (int, tuple)) and not isinstance(default, bool):
        try:
            return int(text)
        except ValueError:
            raise SpecError(f"{where}: expected an int, got {text!r}") from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise SpecError(f"{where}: expected a number, got {text!r}") from None
    if default is None or default is inspect.Parameter.empty:
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
        if low in _TRUE | _FALSE and low not in {"1", "0"}:
            return low in _TRUE
        if low == "none":
            return None
    return text


def build(factory: Callable, spec_name: str, raw: dict[str, str], hidden: tuple[str, ...] = ()) -> dict:
    """Typed keyword arguments for ``factory`` from the raw strings of a spec."""
    known = {k: v for k, v in parameters(factory).items() if k not in hidden}
    kwargs = {}
    for key, text in raw.items():
        if key not in known:
            accepted = ", ".join(known) or "none"
            raise SpecError(f"{spec_name}: unknown parameter {key!r}; parameters are: {accepted}")
        kwargs[key] = convert(text, known[key], f"{spec_name}: parameter {key}")
    return kwargs


def describe(factory: Callable, hidden: tuple[str, ...] = ()) -> str:
    """``"iterations=1000, c=1.414"``: the parameters and defaults, for listings."""
    items = []
    for name, default in parameters(factory).items():
        if name in hidden:
            continue
        items.append(name if default is inspect.Parameter.empty else f"{name}={default!r}")
    return ", ".join(items)
