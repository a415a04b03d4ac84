"""A training run's settings as a frozen dataclass, checked like any other input: numeric
settings carry their bounds (:func:`bounded`), :func:`check_bounds` refuses a value outside
them, :func:`with_settings` applies ``--set NAME=VALUE`` texts by each setting's type, and
:func:`from_json` reads a run directory's record back, refusing names it does not know."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import field
from typing import Any, TypeVar

T = TypeVar("T")


def bounded(default: float, low: float, high: float) -> Any:
    """A numeric setting with its bounds: an int setting when both bounds are ints."""
    return field(default=default, metadata={"bounds": (low, high)})


def check_bounds(config: Any, where: str = "train") -> None:
    """A ValueError naming the first bounded setting of ``config`` outside its bounds (or of
    the wrong type)."""
    for setting in dataclasses.fields(config):
        if "bounds" not in setting.metadata:
            continue
        name, (low, high) = setting.name, setting.metadata["bounds"]
        value = getattr(config, name)
        integer = isinstance(low, int) and isinstance(high, int)
        if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)) \
                or not math.isfinite(value) or not low <= value <= high:
            kind = "an int" if integer else "a number"
            raise ValueError(f"{where}: {name} must be {kind} from {low} to {high}, got {value!r}")


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """``--set`` texts (``NAME=VALUE`` each) as ``name -> text``."""
    settings = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"train: --set takes NAME=VALUE, got {item!r}")
        settings[name.strip()] = value.strip()
    return settings


def with_settings(config: T, settings: dict[str, str], fixed: Iterable[str] = ("env", "game", "params")) -> T:
    """``config`` with ``settings`` (``name -> text`` from ``--set name=value``) converted by
    each setting's type; the ``fixed`` names cannot be set."""
    fields = {f.name: f for f in dataclasses.fields(config)}  # type: ignore[arg-type]
    fixed = tuple(fixed)
    changes: dict[str, Any] = {}
    for name, text in settings.items():
        if name not in fields or name in fixed:
            settable = ", ".join(n for n in fields if n not in fixed)
            raise ValueError(f"train: unknown setting {name!r}; settings are {settable}")
        current = getattr(config, name)
        try:
            if isinstance(current, bool):
                if text.lower() not in ("true", "false"):
                    raise ValueError
                changes[name] = text.lower() == "true"
            elif isinstance(current, tuple):
                changes[name] = tuple(part for part in text.split(";") if part)
            elif isinstance(current, int):
                changes[name] = int(text)
            elif isinstance(current, float):
                changes[name] = float(text)
            else:
                changes[name] = text
        except ValueError:
            raise ValueError(f"train: {name} must be a {type(current).__name__}, got {text!r}") from None
    return dataclasses.replace(config, **changes)  # type: ignore[type-var]


def branched(config: T, settings: dict[str, str], kept: Iterable[str], source: str, game: str | None = None) -> T:
    """The settings of a branch of run ``source`` (whose settings are ``config``): ``config``
    with ``settings`` changed, refused when the run trains another ``game`` or when a
    setting in ``kept`` (what fixes the network's shape, say) would change."""
    current: Any = config
    if game is not None and current.game != game:
        raise ValueError(f"train: {source} trains {current.game}, not {game}")
    changed: Any = current.with_settings(settings)
    fixed = [name for name in kept if getattr(changed, name) != getattr(current, name)]
    if fixed:
        raise ValueError(f"train: a branch keeps its source's {', '.join(fixed)} (its network and records "
                         "are taken as they are); start a new run to change them")
    return changed


def from_json(cls: type[T], data: Any, where: str, tuples: Iterable[str] = ()) -> T:
    """The settings recorded as ``data`` (a JSON object; the ``tuples`` names as lists of
    texts); a ValueError naming ``where`` for anything else."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: the configuration must be a JSON object")
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"{where}: unknown setting {unknown[0]!r}")
    data = dict(data)
    for name in tuples:
        if name in data:
            if not isinstance(data[name], list) or not all(isinstance(a, str) for a in data[name]):
                raise ValueError(f"{where}: {name} must be a list of names")
            data[name] = tuple(data[name])
    try:
        return cls(**data)
    except TypeError as error:
        raise ValueError(f"{where}: {error}") from None
